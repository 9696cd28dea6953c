"""Code-registered bundled skills: registry, is_enabled, the one builder, lazy files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from skillpath import PluginHost, load_skills
from skillpath.bundled import (
    BundledSkill,
    clear_bundled_skills,
    get_bundled_skills,
    register_bundled_skill,
    unregister_bundled_skill,
)
from skillpath.extract import materialize
from skillpath.scan import skill_from_text
from skillpath.session import SkillSession

from ..conftest import Env


def written(cache: Path) -> list[str]:
    """Files and dirs under the cache, except the discovery index (disk roots only)."""
    if not cache.exists():
        return []
    return sorted(
        str(p.relative_to(cache))
        for p in cache.rglob("*")
        if p.relative_to(cache).parts[0] != "index"
    )


@pytest.fixture(autouse=True)
def _clean_registry() -> Iterator[None]:
    clear_bundled_skills()
    yield
    clear_bundled_skills()


def host() -> PluginHost:
    return PluginHost.create(autoload=False, env={})


def load(env: Env, **settings: object):  # type: ignore[no-untyped-def]
    return load_skills(env.project, home=env.home, env=env.env, host=host(), settings=settings)


def cache(env: Env) -> Path:
    return env.home / ".cache" / "skillpath"


def test_registered_skill_is_the_same_skill_object_as_from_text(isolated_env: Env) -> None:
    register_bundled_skill(
        BundledSkill(
            "triage",
            "Triage a failing CI run.",
            body="Read the log.\n",
            argument_hint="[run-id]",
            arguments="run",
            allowed_tools=["Read", "Bash(gh:*)"],
            disable_model_invocation=True,
            user_invocable=True,
            frontmatter={"x-team": "ci"},
        )
    )
    res = load(isolated_env)
    skill = res.get("triage")
    assert skill is not None
    assert skill.source.provider == "bundled"
    assert skill.source.level == "package" and skill.source.loaded_from == "bundled"
    assert skill.priority == 95
    fm = skill.frontmatter
    assert fm.argument_hint == "[run-id]"
    assert fm.arguments == ("run",)
    assert fm.allowed_tools == ("Read", "Bash(gh:*)")
    assert fm.disable_model_invocation and skill.hidden
    assert fm.extra == {"x-team": "ci"}
    assert skill.body == "Read the log.\n"
    # the same text through skill_from_text gives an equal skill (one builder)
    same, _ = skill_from_text(
        "---\nname: triage\ndescription: Triage a failing CI run.\nargument-hint: '[run-id]'\n"
        "arguments: [run]\nallowed-tools: [Read, 'Bash(gh:*)']\n"
        "disable-model-invocation: true\nx-team: ci\n---\nRead the log.\n",
        name="triage",
        source=skill.source,
        priority=95,
        path=skill.path,
        base_dir=skill.base_dir,
    )
    assert same is not None
    assert same.frontmatter.argument_hint == fm.argument_hint
    assert same.frontmatter.allowed_tools == fm.allowed_tools
    assert same.frontmatter.extra == fm.extra


def test_is_enabled_false_hides_the_skill_with_an_info_diagnostic(isolated_env: Env) -> None:
    switch = {"on": False}
    register_bundled_skill(
        BundledSkill("gated", "Gated.", body="x", is_enabled=lambda: switch["on"])
    )
    register_bundled_skill(BundledSkill("always", "Always.", body="x"))
    res = load(isolated_env)
    assert res.names == ["always"]
    assert res.get("gated") is None
    (diag,) = [d for d in res.diagnostics if d.code == "bundled-disabled"]
    assert "'gated'" in diag.message and diag.level == "info"
    switch["on"] = True  # evaluated at load time, every load
    assert load(isolated_env).names == ["always", "gated"]


def test_is_enabled_raising_is_an_error_not_a_crash(isolated_env: Env) -> None:
    def boom() -> bool:
        raise RuntimeError("no display")

    register_bundled_skill(BundledSkill("fragile", "Fragile.", body="x", is_enabled=boom))
    res = load(isolated_env)
    assert res.names == []
    (diag,) = [d for d in res.diagnostics if d.code == "bundled-is-enabled-failed"]
    assert diag.level == "error" and "no display" in diag.message


def test_registry_api() -> None:
    a = BundledSkill("a", "A.", body="x")
    register_bundled_skill(a)
    register_bundled_skill(BundledSkill("b", "B.", body="x"))
    replacement = BundledSkill("a", "A again.", body="y")
    register_bundled_skill(replacement)
    assert [d.description for d in get_bundled_skills()] == ["A again.", "B."]
    assert unregister_bundled_skill("b") and not unregister_bundled_skill("b")
    with pytest.raises(ValueError, match="path separator"):
        register_bundled_skill(BundledSkill("a/b", "bad", body="x"))
    with pytest.raises(TypeError):
        register_bundled_skill("not a definition")  # type: ignore[arg-type]
    clear_bundled_skills()
    assert get_bundled_skills() == []


def test_listing_writes_nothing_and_files_extract_on_first_use(isolated_env: Env) -> None:
    register_bundled_skill(
        BundledSkill(
            "triage",
            "Triage.",
            body="See ${SKILL_DIR}/references/guide.md\n",
            files={
                "references/guide.md": "# Guide\n",
                "scripts/run.sh": "#!/bin/sh\necho ok\n",
                "assets/logo.bin": b"\x00\x01\x02",
            },
        )
    )
    res = load(isolated_env)
    skill = res.get("triage")
    assert skill is not None and skill.base_dir is not None
    assert skill.base_dir.parent.parent == cache(isolated_env) / "bundled"
    assert written(cache(isolated_env)) == []
    assert materialize(skill) == skill.base_dir
    assert (
        (skill.base_dir / "SKILL.md").read_text().endswith("See ${SKILL_DIR}/references/guide.md\n")
    )
    assert (skill.base_dir / "references" / "guide.md").read_text() == "# Guide\n"
    assert (skill.base_dir / "assets" / "logo.bin").read_bytes() == b"\x00\x01\x02"
    assert (skill.base_dir / "scripts" / "run.sh").stat().st_mode & 0o777 == 0o700
    assert (skill.base_dir / "references" / "guide.md").stat().st_mode & 0o777 == 0o600
    assert (skill.base_dir / "references").stat().st_mode & 0o777 == 0o700


def test_invocation_and_skill_url_extract_through_the_hooks(isolated_env: Env) -> None:
    register_bundled_skill(
        BundledSkill(
            "triage",
            "Triage.",
            body="Guide: ${SKILL_DIR}/references/guide.md\n",
            files={"references/guide.md": "# Guide\n"},
        )
    )
    session = SkillSession.open(
        isolated_env.project, home=isolated_env.home, env=isolated_env.env, host=host()
    )
    skill = session.get("triage")
    assert skill is not None and skill.base_dir is not None
    assert not skill.base_dir.exists()
    res = session.resolve("skill://triage/references/guide.md")
    assert res.content == "# Guide\n"
    assert res.path == (skill.base_dir / "references" / "guide.md").resolve()
    rendered = session.invoke("triage")
    assert f"Guide: {skill.base_dir}/references/guide.md" in rendered.text
    assert f"Base directory for this skill: {skill.base_dir}" in rendered.text


def test_bad_file_paths_are_refused_with_diagnostics(isolated_env: Env, tmp_path: Path) -> None:
    register_bundled_skill(
        BundledSkill(
            "sneaky",
            "Sneaky.",
            body="x",
            files={
                "../escape.txt": "no",
                "/etc/evil": "no",
                "a\\b.txt": "no",
                ".skillpath-manifest.json": "no",
                "ok.txt": "yes",
            },
        )
    )
    res = load(isolated_env)
    skill = res.get("sneaky")
    assert skill is not None
    refused = [d for d in res.diagnostics if d.code == "pack-member-refused"]
    assert len(refused) == 4
    text = "\n".join(d.message for d in refused)
    assert "traversal" in text and "absolute" in text and "backslash" in text
    assert "reserved" in text
    materialize(skill)
    assert sorted(p.name for p in skill.base_dir.iterdir()) == ["SKILL.md", "ok.txt"]
    assert not (skill.base_dir.parent / "escape.txt").exists()
    assert not (skill.base_dir.parent.parent / "escape.txt").exists()


def test_skill_md_in_files_is_used_when_no_body(isolated_env: Env) -> None:
    register_bundled_skill(
        BundledSkill(
            "from-file",
            "Given here.",
            files={"SKILL.md": "---\nwhen_to_use: on Fridays\n---\nThe body.\n"},
        )
    )
    skill = load(isolated_env).get("from-file")
    assert skill is not None
    assert skill.description == "Given here."
    assert skill.frontmatter.when_to_use == "on Fridays"
    assert skill.body == "The body.\n"


def test_a_users_own_skill_replaces_a_bundled_one(isolated_env: Env) -> None:
    from skillpath import Discovery, SkillContext, hookimpl

    class Native:
        @hookimpl
        def discover_skills(self, ctx: SkillContext):  # type: ignore[no-untyped-def]
            d = Discovery("native", 100)
            d.scan(isolated_env.project / ".skillpath" / "skills", "project")
            return d.result()

    isolated_env.skill(".skillpath/skills", "triage", "Mine.")
    register_bundled_skill(BundledSkill("triage", "Bundled.", body="x"))
    h = host()
    h.add(Native(), "native")
    res = load_skills(isolated_env.project, home=isolated_env.home, env=isolated_env.env, host=h)
    assert res.get("triage").description == "Mine."
    (sh,) = res.shadowed
    assert sh.skill.source.provider == "bundled" and sh.reason == "name"


def test_extraction_failure_is_a_resolve_or_prompt_error(isolated_env: Env, tmp_path: Path) -> None:
    from skillpath import PromptError, ResolveError

    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    env = {**isolated_env.env, "SKILLPATH_CACHE_DIR": str(blocker)}
    register_bundled_skill(BundledSkill("triage", "Triage.", body="x", files={"a.md": "A"}))
    session = SkillSession.open(isolated_env.project, home=isolated_env.home, env=env, host=host())
    with pytest.raises(ResolveError, match="cannot extract"):
        session.resolve("skill://triage/a.md")
    with pytest.raises(PromptError, match="cannot extract"):
        session.invoke("triage")
