"""Trust tiers (skillpath.trust): the tier of each kind of source, the per-tier policy
and its settings, judged on skills as the providers make them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from skillpath import Skill, SkillSource, load_skill_file, make_context
from skillpath.model import LoadResult
from skillpath.shell import ShellPolicy
from skillpath.trust import TrustPolicy, apply_trust, source_of

from ..conftest import Env


def _skill(
    tmp: Path, name: str, provider: str, level: str, body: str = "Use it.\n", **detail: Any
) -> Skill:
    folder = tmp / provider / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Does {name}.\n---\n{body}")
    loaded_from = "mcp" if provider == "mcp" else "disk"
    skill, diags = load_skill_file(
        folder / "SKILL.md", SkillSource(provider, level, folder.parent, loaded_from, detail)
    )
    assert skill is not None, diags
    return skill


SOURCES = [
    # (provider, level, detail, kind:id, tier)
    ("claude", "project", {}, "project:claude", "hand-written"),
    ("native", "user", {}, "user:native", "hand-written"),
    ("custom", "user", {"via": "SKILLPATH"}, "custom:", "hand-written"),
    ("managed", "user", {}, "managed:", "hand-written"),
    ("libraries", "package", {"distribution": "fastapi"}, "library:fastapi", "third-party"),
    ("packs", "package", {"pack": "acme"}, "pack:acme", "third-party"),
    (
        "claude-plugins",
        "user",
        {"plugin": "tools", "marketplace": "acme"},
        "plugin:tools@acme",
        "third-party",
    ),
    ("mcp", "remote", {"server": "docs"}, "mcp:docs", "third-party"),
    ("claude", "project", {"nested": True}, "nested:", "third-party"),
    ("someplugin", "package", {}, "package:someplugin", "third-party"),
]


@pytest.mark.parametrize(("provider", "level", "detail", "source", "tier"), SOURCES)
def test_the_tier_of_each_source(
    tmp_path: Path, provider: str, level: str, detail: dict[str, Any], source: str, tier: str
) -> None:
    skill = _skill(tmp_path, "s", provider, level, **detail)
    kind, ident = source_of(skill)
    if kind == "nested":
        ident = ""
    assert f"{kind}:{ident}" == source
    assert TrustPolicy().tier(skill) == tier


def _judged(env: Env, skills: list[Skill], **settings: Any) -> LoadResult:
    ctx, diags = make_context(env.project, home=env.home, env=env.env, settings={"trust": settings})
    assert not [d for d in diags if d.level == "error"], diags
    return apply_trust(LoadResult(skills=tuple(skills)), ctx)


def test_defaults_quarantine_libraries_and_plugins_but_not_packs_or_mcp(
    isolated_env: Env, tmp_path: Path
) -> None:
    skills = [
        _skill(tmp_path, "mine", "claude", "project"),
        _skill(tmp_path, "lib", "libraries", "package", distribution="fastapi"),
        _skill(tmp_path, "plug", "claude-plugins", "user", plugin="tools", marketplace="acme"),
        _skill(tmp_path, "pack", "packs", "package", pack="acme"),
        _skill(tmp_path, "remote", "mcp", "remote", server="docs"),
    ]
    res = _judged(isolated_env, skills)
    assert [s.name for s in res.skills] == ["mine", "pack", "remote"]
    assert {s.skill.name: s.reason for s in res.skipped} == {
        "lib": "quarantined",
        "plug": "quarantined",
    }


def test_the_organisation_tier_is_listed_and_may_run_shell(
    isolated_env: Env, tmp_path: Path
) -> None:
    plug = _skill(
        tmp_path, "plug", "claude-plugins", "user", "!`echo hi`\n", plugin="t", marketplace="acme"
    )
    res = _judged(isolated_env, [plug], organisation=["plugin:*@acme"])
    assert [s.name for s in res.skills] == ["plug"]
    ctx, _ = make_context(
        isolated_env.project,
        home=isolated_env.home,
        env=isolated_env.env,
        settings={"trust": {"organisation": ["plugin:*@acme"]}},
    )
    assert ShellPolicy.from_settings(ctx.settings).allows(plug)  # level user, organisation
    assert not ShellPolicy().allows(plug)  # third party by default: no shell
    other = _skill(tmp_path, "other", "claude-plugins", "user", plugin="t", marketplace="evil")
    assert [
        s.reason for s in _judged(isolated_env, [other], organisation=["plugin:*@acme"]).skipped
    ] == ["quarantined"]


def test_listed_no_block_and_sources_are_configurable(isolated_env: Env, tmp_path: Path) -> None:
    mine = _skill(tmp_path, "mine", "claude", "project", "Run `cat ~/.aws/credentials`.\n")
    pack = _skill(tmp_path, "pack", "packs", "package", "Tokens live in `~/.netrc`.\n", pack="a")
    # hand-written: findings never block by default; a pack's high finding does
    assert [s.name for s in _judged(isolated_env, [mine, pack]).skills] == ["mine", "pack"]
    res = _judged(
        isolated_env, [mine, pack], block={"hand-written": "high", "third-party": "medium"}
    )
    assert {s.skill.name: s.reason for s in res.skipped} == {"mine": "blocked", "pack": "blocked"}
    assert "credential-read" in next(s.detail for s in res.skipped if s.skill.name == "mine")
    res = _judged(isolated_env, [mine], listed={"hand-written": "no"})
    assert [s.reason for s in res.skipped] == ["tier-unlisted"]
    lib = _skill(tmp_path, "lib", "libraries", "package", distribution="x")
    assert [
        s.name for s in _judged(isolated_env, [lib], sources={"library": "hand-written"}).skills
    ] == ["lib"]


def test_bad_values_are_errors_and_fall_back_to_the_defaults(isolated_env: Env) -> None:
    _ctx, diags = make_context(
        isolated_env.project,
        home=isolated_env.home,
        env=isolated_env.env,
        settings={"trust": {"shell": {"third-party": "yes"}}},
    )
    assert any(d.code == "settings-bad-value" and "[trust] shell" in d.message for d in diags)
