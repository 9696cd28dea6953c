"""Nested skill directories discovered from touched files."""

from __future__ import annotations

from pathlib import Path

import pytest
from skillpath import Discovery, PluginHost, SkillContext, Veto, hookimpl, make_context
from skillpath.commands import UnknownSkillError
from skillpath.dynamic import GitignoreMatcher, NestedDirs, discover_dirs_for_paths
from skillpath.errors import ResolveError
from skillpath.session import SkillSession

from ..conftest import Env


class StartRoots:
    """Loads cwd's own roots at start, like the real providers do."""

    def __init__(self, project: Path) -> None:
        self.project = project

    @hookimpl
    def discover_skills(self, ctx: SkillContext):  # type: ignore[no-untyped-def]
        d = Discovery("claude", 80)
        d.scan(self.project / ".claude" / "skills", "project")
        return d.result()


def session(env: Env, *plugins: object) -> SkillSession:
    host = PluginHost.create(autoload=False, env={})
    host.add(StartRoots(env.project), "start")
    for i, p in enumerate(plugins):
        host.add(p, f"extra-{i}")
    # nested folders are quarantined until approved (skillpath.trust): these tests are
    # about finding them, so every nested folder is approved by rule
    return SkillSession.open(
        env.project,
        home=env.home,
        env=env.env,
        host=host,
        settings={"trust": {"approve": ["nested:*"]}},
    )


def test_nested_folders_are_quarantined_by_default(isolated_env: Env) -> None:
    isolated_env.skill("packages/web/.claude/skills", "web-deploy", "Deploy the web app.")
    host = PluginHost.create(autoload=False, env={})
    host.add(StartRoots(isolated_env.project), "start")
    s = SkillSession.open(
        isolated_env.project, home=isolated_env.home, env=isolated_env.env, host=host
    )
    assert s.discover_dirs_for_paths(["packages/web/app.ts"]) == []
    assert s.get("web-deploy") is None and "web-deploy" not in s.listing().text
    with pytest.raises(UnknownSkillError, match=r"quarantined.*skillpath trust approve web-deploy"):
        s.invoke("web-deploy")
    with pytest.raises(ResolveError, match="quarantined"):
        s.resolve("skill://web-deploy")


def test_nested_dirs_join_and_gitignored_dirs_are_skipped(isolated_env: Env) -> None:
    p = isolated_env.project
    isolated_env.skill(".claude/skills", "top", "Loaded at start.")
    isolated_env.skill("packages/web/.claude/skills", "web-deploy", "Deploy the web app.")
    isolated_env.skill("packages/web/.skillpath/skills", "web-native", "Native nested.")
    isolated_env.skill("packages/web/src/.agents/skills", "web-src", "Deeper.")
    isolated_env.skill("node_modules/evil/.claude/skills", "evil", "From a dependency.")
    isolated_env.skill("build/out/.claude/skills", "built", "Build output.")
    (p / ".gitignore").write_text("node_modules/\n/build\n")
    s = session(isolated_env)
    assert [x.name for x in s.skills()] == ["top"]

    assert s.discover_dirs_for_paths(["node_modules/evil/index.js", "build/out/x.txt"]) == []
    got = s.discover_dirs_for_paths([p / "packages" / "web" / "src" / "app.ts"])
    assert [x.name for x in got] == ["web-deploy", "web-native", "web-src"]
    by_name = {x.name: x for x in got}
    assert by_name["web-native"].source.provider == "native"
    assert by_name["web-deploy"].source.provider == "claude"
    assert by_name["web-src"].source.provider == "agents"
    assert all(x.source.detail == {"nested": True} for x in got)
    assert [x.name for x in s.skills()] == ["top", "web-deploy", "web-native", "web-src"]
    assert "web-deploy" in s.listing().text
    assert s.resolve("skill://web-src").content.endswith("Body.\n")
    # the same directories are not read twice; cwd's own root is never re-read
    assert s.discover_dirs_for_paths(["packages/web/src/other.ts", "README.md"]) == []


def test_paths_outside_cwd_are_ignored(isolated_env: Env, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    Env(isolated_env.home, outside, isolated_env.env).skill(".claude/skills", "far", "Far.")
    s = session(isolated_env)
    assert s.discover_dirs_for_paths([outside / "file.txt", "../outside/file.txt"]) == []


def test_nearer_file_wins_among_new_roots_and_clashes_are_reported(isolated_env: Env) -> None:
    isolated_env.skill(".claude/skills", "shared", "Loaded at start.")
    isolated_env.skill("a/.claude/skills", "tool", "Outer tool.")
    isolated_env.skill("a/b/.claude/skills", "tool", "Inner tool.")
    isolated_env.skill("a/b/.claude/skills", "shared", "Clashes with a loaded skill.")
    s = session(isolated_env)
    got = s.discover_dirs_for_paths(["a/b/c/file.py"])
    assert [(x.name, x.description) for x in got] == [("tool", "Inner tool.")]
    assert s.get("shared").description == "Loaded at start."
    conflicts = [d for d in s.diagnostics if d.code == "name-conflict"]
    assert len(conflicts) == 2
    text = "\n".join(d.message for d in conflicts)
    assert "a/.claude/skills/tool" in text and "a/b/.claude/skills/shared" in text


def test_new_skills_pass_the_filters(isolated_env: Env) -> None:
    class Deny:
        @hookimpl
        def filter_skill(self, skill, ctx):  # type: ignore[no-untyped-def]
            return Veto("not here") if skill.name == "blocked" else None

    isolated_env.skill("sub/.claude/skills", "blocked", "Blocked.")
    isolated_env.skill("sub/.claude/skills", "ignored-one", "Ignored by settings.")
    isolated_env.skill("sub/.claude/skills", "fine", "Fine.")
    host = PluginHost.create(autoload=False, env={})
    host.add(Deny(), "deny")
    s = SkillSession.open(
        isolated_env.project,
        home=isolated_env.home,
        env=isolated_env.env,
        host=host,
        settings={"skills": {"ignored": ["ignored-*"]}, "trust": {"approve": ["nested:*"]}},
    )
    assert [x.name for x in s.discover_dirs_for_paths(["sub/x"])] == ["fine"]


def test_nested_conditional_skills_wait_for_activation(isolated_env: Env) -> None:
    isolated_env.skill("svc/.claude/skills", "svc-sql", "SQL help.", paths='"svc/**/*.sql"')
    s = session(isolated_env)
    assert s.discover_dirs_for_paths(["svc/db/schema.sql"]) == []
    assert [x.name for x in s.pending()] == ["svc-sql"]
    assert [x.name for x in s.activate_for_paths(["svc/db/schema.sql"])] == ["svc-sql"]
    assert s.get("svc-sql") is not None


def test_description_rule_of_the_owning_provider(isolated_env: Env) -> None:
    isolated_env.skill("m/.skillpath/skills", "no-desc-native", None)
    isolated_env.skill("m/.claude/skills", "no-desc-claude", None, body="First paragraph.\n")
    s = session(isolated_env)
    got = s.discover_dirs_for_paths(["m/file"])
    assert [x.name for x in got] == ["no-desc-claude"]
    assert got[0].description == "First paragraph."
    assert any(d.code == "missing-description" for d in s.diagnostics)


@pytest.mark.parametrize(
    ("gitignores", "ignored", "kept"),
    [
        ({"": "node_modules/\n"}, ["node_modules/x", "a/node_modules/y"], ["a/b", "node"]),
        ({"": "/dist\n"}, ["dist/x"], ["a/dist/x"]),
        ({"": "gen*/\n!gen-keep/\n"}, ["gen1/x", "genx"], ["gen-keep/x"]),
        ({"a": "local/\n"}, ["a/local/x"], ["local/x", "b/local/x"]),
        ({"": "vendor/\n", "vendor": "!keep/\n"}, ["vendor/keep/x"], []),
        ({}, [".git/x"], ["x/y"]),
    ],
)
def test_gitignore_matcher(
    tmp_path: Path, gitignores: dict[str, str], ignored: list[str], kept: list[str]
) -> None:
    for folder, text in gitignores.items():
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / ".gitignore").write_text(text)
    gi = GitignoreMatcher(tmp_path)
    for rel in ignored:
        assert gi.is_ignored(tmp_path / rel), rel
    for rel in kept:
        assert not gi.is_ignored(tmp_path / rel), rel


def test_repo_root_gitignore_applies_when_cwd_is_a_subdirectory(isolated_env: Env) -> None:
    (isolated_env.project / ".gitignore").write_text("node_modules/\n")
    cwd = isolated_env.project / "app"
    Env(isolated_env.home, cwd, isolated_env.env).skill(
        "node_modules/dep/.claude/skills", "dep", "Dep."
    )
    Env(isolated_env.home, cwd, isolated_env.env).skill("lib/.claude/skills", "lib", "Lib.")
    ctx, _ = make_context(
        cwd,
        home=isolated_env.home,
        env=isolated_env.env,
        settings={"trust": {"approve": ["nested:*"]}},
    )
    host = PluginHost.create(autoload=False, env={})
    state = NestedDirs()
    res = discover_dirs_for_paths(["node_modules/dep/a.js", "lib/a.py"], ctx, host, state=state)
    assert res.names == ["lib"]
    assert [r.path for r in res.roots] == [cwd / "lib" / ".claude" / "skills"]
