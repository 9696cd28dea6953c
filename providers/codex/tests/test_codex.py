"""Codex-specific rules: CODEX_HOME, the working directory only, the admin dir, the hint
about .codex/skills higher up, its toggle."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from skillpath import LoadResult, make_context
from skillpath.doctor import build_report, explain
from skillpath_codex import ADMIN_DIR, admin_dir
from skillpath_testing import Layout, discover, load, make_layout, write_skill


def test_codex_home_moves_the_user_dir(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    write_skill(world.home / ".codex" / "skills", "default", "not read when CODEX_HOME is set")
    write_skill(world.tmp / "ch" / "skills", "moved", "read")
    moved = make_layout(tmp_path, {"CODEX_HOME": str(world.tmp / "ch")})
    assert [s.name for s in discover("codex", moved).skills] == ["moved"]
    assert [s.name for s in discover("codex", world).skills] == ["default"]


def test_codex_home_tilde_and_relative(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    write_skill(world.home / "cx" / "skills", "tilde", "x")
    write_skill(world.project / "rel" / "skills", "relative", "x")
    assert [
        s.name for s in discover("codex", make_layout(tmp_path, {"CODEX_HOME": "~/cx"})).skills
    ] == ["tilde"]
    assert [
        s.name for s in discover("codex", make_layout(tmp_path, {"CODEX_HOME": "rel"})).skills
    ] == ["relative"]


def test_project_dirs_walk_up_to_the_repository_root(tmp_path: Path) -> None:
    # Codex CLI 0.171 reads .codex/skills in every folder from cwd to the repository root
    world = make_layout(tmp_path)
    sub = world.project / "sub"
    sub.mkdir()
    write_skill(world.project / ".codex" / "skills", "at-root", "seen from sub")
    write_skill(sub / ".codex" / "skills", "at-cwd", "seen")
    write_skill(world.project.parent / ".codex" / "skills", "outside", "above the repository")
    result = discover("codex", world, cwd=sub)
    assert [(s.name, s.source.level) for s in result.skills] == [
        ("at-cwd", "project"),
        ("at-root", "project"),
    ]
    assert result.diagnostics == ()


def _outside_git(world: Layout) -> Path:
    cwd = world.home / "work" / "api"
    cwd.mkdir(parents=True)
    return cwd


def test_outside_git_only_cwd_and_the_rest_is_named_in_an_info(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    api = _outside_git(world)
    above = world.home / "work" / ".codex" / "skills"
    write_skill(above, "cx-root", "Codex skill above cwd.")
    write_skill(above, "other", "x")
    write_skill(api / ".codex" / "skills", "here", "x")
    result = discover("codex", world, cwd=api)
    assert [s.name for s in result.skills] == ["here"]
    (info,) = result.diagnostics
    assert (info.level, info.code, info.path) == ("info", "codex-skills-above", above)
    assert "(holds cx-root, other)" in info.message and "outside a git repository" in info.message
    assert above not in [r.path for r in result.roots]  # reported, not scanned


def test_explain_points_at_the_skill_higher_up(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    api = _outside_git(world)
    for i in range(12):  # more than the message quotes
        write_skill(world.home / "work" / ".codex" / "skills", f"cx-{i:02d}", "x")
    report = build_report(load(world, cwd=api, plugins=["codex"]))
    for name in ("cx-00", "cx-11"):
        ex = explain(report, name)
        assert not ex.found
        assert [d.code for d in ex.diagnostics] == ["codex-skills-above"], name
    assert explain(report, "cx-1").diagnostics == ()  # a prefix is not a match
    assert "and 2 more" in explain(report, "cx-00").diagnostics[0].message


def test_no_hint_at_the_root_or_without_the_dir(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    api = world.project / "packages" / "api"
    api.mkdir(parents=True)
    assert discover("codex", world, cwd=api).diagnostics == ()
    write_skill(world.project / ".codex" / "skills", "cx-root", "x")
    result = discover("codex", world)
    assert [s.name for s in result.skills] == ["cx-root"] and result.diagnostics == ()


def test_codex_home_inside_the_repository_is_not_reported_twice(tmp_path: Path) -> None:
    base = make_layout(tmp_path)
    world = make_layout(tmp_path, {"CODEX_HOME": str(base.project / ".codex")})
    api = world.project / "api"
    api.mkdir()
    write_skill(world.project / ".codex" / "skills", "mine", "x")
    result = discover("codex", world, cwd=api)
    assert [(s.name, s.source.level) for s in result.skills] == [("mine", "user")]
    assert result.diagnostics == ()


def test_admin_dir_default_override_and_order(tmp_path: Path) -> None:
    ctx, _ = make_context(tmp_path, home=tmp_path, env={"HOME": str(tmp_path)})
    assert admin_dir(ctx) == ADMIN_DIR == Path("/etc/codex/skills")
    admin = tmp_path.resolve() / "etc-codex"
    world = make_layout(tmp_path, {"SKILLPATH_CODEX_ADMIN_DIR": str(admin)})
    write_skill(admin, "org", "admin skill")
    write_skill(admin, "same", "admin copy")
    write_skill(world.home / ".codex" / "skills", "same", "user copy")
    write_skill(world.project / ".codex" / "skills", "same", "project copy")
    result = load(world, plugins=["codex"])
    org = result.get("org")
    assert org is not None and (org.source.level, org.source.root) == ("managed", admin)
    same = result.get("same")
    assert same is not None and same.description == "user copy"
    assert [s.skill.source.level for s in result.shadowed] == ["project", "managed"]
    off = load(world, plugins=["codex"], settings={"skills.enable_codex_user": False})
    assert off.names == []


def test_cwd_at_home_scans_the_user_dir_once(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    write_skill(world.home / ".codex" / "skills", "once", "x")
    result = discover("codex", world, cwd=world.home)
    assert [(s.name, s.source.level) for s in result.skills] == [("once", "user")]
    assert [r.level for r in result.roots if r.level != "managed"] == ["user"]


def test_enable_codex_user_covers_codex(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    write_skill(world.home / ".codex" / "skills", "u", "x")
    write_skill(world.project / ".codex" / "skills", "p", "x")
    assert load(world, plugins=["codex"]).names == ["p", "u"]
    res = load(world, plugins=["codex"], settings={"skills.enable_codex_user": False})
    assert res.names == []
    assert {s.reason for s in res.skipped} == {"source-disabled"}


def test_nested_skills_to_depth_six_and_a_skill_inside_a_skill(tmp_path: Path) -> None:
    """Codex's walk: nested to six folders, dot entries skipped, a skill in a skill."""
    world = make_layout(tmp_path)
    root = world.project / ".codex" / "skills"
    write_skill(root, "top", "first level")
    write_skill(root / "top", "inner", "a skill inside a skill")
    write_skill(root / "a" / "b", "three-deep", "nested")
    write_skill(root / "a" / "b" / "c" / "d" / "e", "six-deep", "at the limit")
    write_skill(root / "a" / "b" / "c" / "d" / "e" / "f", "seven-deep", "too deep")
    write_skill(root / ".hidden", "dotted", "in a dot folder")
    result = discover("codex", world)
    assert [s.name for s in result.skills] == ["top", "inner", "three-deep", "six-deep"]
    assert {s.source.level for s in result.skills} == {"project"}
    assert all(s.source.root == root for s in result.skills)


def test_nested_walk_follows_no_link_below_the_first_level(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    root = world.project / ".codex" / "skills"
    elsewhere = world.project / "vendor"
    write_skill(elsewhere, "linked", "reached through a link")
    (root / "group").mkdir(parents=True)
    (root / "group" / "via").symlink_to(elsewhere, target_is_directory=True)
    assert [s.name for s in discover("codex", world).skills] == []


# -- a long-running host sees a nested skill change ------------------------------------

APPROVE = {"trust.approve": ["*"]}


def _nested_world(tmp_path: Path) -> tuple[Layout, Path]:
    """A project whose ``.codex/skills`` holds a skill three folders deep (``a/b/deep``)."""
    world = make_layout(tmp_path)
    root = world.project / ".codex" / "skills"
    write_skill(root, "top", "first level")
    write_skill(root / "a" / "b", "deep", "Nested three deep.")
    return world, root


def _nested_changes(root: Path) -> list[tuple[str, Callable[[], None], Callable[[set[str]], bool]]]:
    """The three changes below the first level a host must notice, each with the test
    of the names and descriptions it should then see."""
    b = root / "a" / "b"

    def edit() -> None:
        text = (b / "deep" / "SKILL.md").read_text(encoding="utf-8")
        # written in place: the folder holding it does not change
        (b / "deep" / "SKILL.md").write_text(text.replace("Nested three", "Edited"), "utf-8")

    return [
        ("added", lambda: write_skill(b, "added", "New at depth three."), lambda s: "added" in s),
        (
            "inside",
            lambda: write_skill(root / "top", "inner", "Inner."),
            lambda s: "inner" in s,
        ),
        ("edited", edit, lambda s: "deep=Edited deep." in s),
        ("removed", lambda: shutil.rmtree(b / "deep"), lambda s: "deep" not in s),
    ]


def _seen(result: LoadResult) -> set[str]:
    return {s.name for s in result.skills} | {
        f"{s.name}={s.frontmatter.description}" for s in result.skills
    }


def test_an_agent_sees_nested_skills_change_before_the_next_turn(tmp_path: Path) -> None:
    """:meth:`skillpath.AgentSkills.begin_turn` loads again for a change below the first
    level (Codex reads skills six folders deep)."""
    from skillpath import AgentSkills

    for env in ({}, {"SKILLPATH_NO_WATCH": "1"}):
        world, root = _nested_world(tmp_path / str(len(env)))
        agent = AgentSkills.of(
            cwd=world.cwd, home=world.home, env={**world.env, **env}, settings=APPROVE
        )
        assert "deep=Nested three deep." in _seen(agent.session.result)
        assert not agent.begin_turn()
        for what, change, sees in _nested_changes(root):
            change()
            assert agent.begin_turn(), (what, env)
            assert sees(_seen(agent.session.result)), (what, env)
            assert not agent.begin_turn(), (what, env)  # and nothing more once seen


def test_watch_skills_sees_nested_skills_change(tmp_path: Path) -> None:
    """:func:`skillpath.watch_skills` (and a :class:`skillpath.SkillSession` refreshed on
    its notice) see a change below the first level, native watches or polling."""
    from skillpath import SkillSession, watch_skills

    for env in ({}, {"SKILLPATH_NO_WATCH": "1"}):
        world, root = _nested_world(tmp_path / str(len(env)))
        session = SkillSession.open(world.cwd, home=world.home, env=world.env, settings=APPROVE)
        changes = watch_skills(
            world.cwd,
            home=world.home,
            env={**world.env, **env},
            settings=APPROVE,
            initial=True,
            timeout=30,
            poll_ms=20,
        )
        assert "deep=Nested three deep." in _seen(next(changes).result)
        for what, change, sees in _nested_changes(root):
            change()
            batch = next(changes)
            assert sees(_seen(batch.result)), (what, env)
            assert session.refresh(), (what, env)
            assert sees(_seen(session.result)), (what, env)
        changes.close()


def test_serve_sees_nested_skills_change(tmp_path: Path) -> None:
    """``skillpath serve`` finds its catalog stale after a change below the first level."""
    server = pytest.importorskip("skillpath_mcp.server")
    world, root = _nested_world(tmp_path)
    app = server.SkillServer(
        world.project, poll=0.02, home=world.home, env=world.env, settings=APPROVE
    )
    assert "deep=Nested three deep." in _seen(app.session.result)
    assert not app._stale([], ())
    for what, change, sees in _nested_changes(root):
        change()
        assert app._stale([], ()), what
        assert app.reload(), what
        assert sees(_seen(app.session.result)), what
        assert not app._stale([], ()), what
