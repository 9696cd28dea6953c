"""OpenCode-specific rules: XDG_CONFIG_HOME, both spellings, the fallback toggle rule."""

from __future__ import annotations

from pathlib import Path

from skillpath_testing import discover, load, make_layout, write_skill


def test_xdg_config_home_default_and_override(tmp_path: Path) -> None:
    world = make_layout(tmp_path, {"XDG_CONFIG_HOME": ""})
    write_skill(world.home / ".config" / "opencode" / "skill", "default-xdg", "x")
    write_skill(world.tmp / "xdg" / "opencode" / "skills", "moved-xdg", "x")
    assert [s.name for s in discover("opencode", world).skills] == ["default-xdg"]
    moved = make_layout(tmp_path, {"XDG_CONFIG_HOME": str(world.tmp / "xdg")})
    assert [s.name for s in discover("opencode", moved).skills] == ["moved-xdg"]


def test_relative_xdg_config_home_is_ignored(tmp_path: Path) -> None:
    world = make_layout(tmp_path, {"XDG_CONFIG_HOME": "relative/dir"})
    write_skill(world.home / ".config" / "opencode" / "skills", "fallback", "x")
    write_skill(world.project / "relative" / "dir" / "opencode" / "skills", "wrong", "x")
    assert [s.name for s in discover("opencode", world).skills] == ["fallback"]


def test_user_first_then_project_dirs_nearest_first(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    sub = world.project / "sub"
    write_skill(sub / ".opencode" / "skill", "s", "project skill")
    write_skill(sub / ".opencode" / "skills", "s", "project skills")
    write_skill(world.project / ".opencode" / "skills", "s", "root skills")
    write_skill(world.project / ".opencode" / "skill", "parent", "root skill")
    write_skill(world.home / ".config" / "opencode" / "skills", "s", "user")
    result = discover("opencode", world, cwd=sub)
    assert [(s.name, s.description, s.source.level) for s in result.skills] == [
        ("s", "user", "user"),
        ("s", "project skills", "project"),
        ("s", "project skill", "project"),
        ("s", "root skills", "project"),
        ("parent", "root skill", "project"),
    ]
    assert [r.path for r in result.roots][2:] == [
        sub / ".opencode" / "skills",
        sub / ".opencode" / "skill",
        world.project / ".opencode" / "skills",
        world.project / ".opencode" / "skill",
    ]


def test_walk_up_stops_at_the_repository_root(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    deep = world.project / "packages" / "api"
    deep.mkdir(parents=True)
    write_skill(world.project.parent / ".opencode" / "skills", "outside", "above the repo")
    write_skill(world.project / ".opencode" / "skills", "oc-root", "the repository's")
    result = load(world, cwd=deep, plugins=["opencode"])
    assert result.names == ["oc-root"]
    skill = result.get("oc-root")
    assert skill is not None and skill.source.level == "project"


def test_home_is_never_a_project_dir(tmp_path: Path) -> None:
    world = make_layout(tmp_path, {"XDG_CONFIG_HOME": str(tmp_path.resolve() / "xdg")})
    cwd = world.home / "code" / "thing"  # under home, no repository: walk up to home
    cwd.mkdir(parents=True)
    write_skill(world.home / ".opencode" / "skills", "home-dir", "home is not a project dir")
    write_skill(world.home / "code" / ".opencode" / "skills", "code-level", "project")
    result = discover("opencode", world, cwd=cwd)
    assert [(s.name, s.source.level) for s in result.skills] == [("code-level", "project")]


def test_fallback_toggle_rule(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    write_skill(world.project / ".opencode" / "skills", "oc", "x")
    named_off = {
        f"skills.enable_{k}": False
        for k in ("native_user", "native_project", "claude_user", "claude_project", "codex_user")
    }
    agents_on = {"skills.enable_agents_user": True, "skills.enable_agents_project": True}
    assert load(world, plugins=["opencode"], settings={**named_off, **agents_on}).names == []
    one_on = {**named_off, "skills.enable_claude_project": True}
    assert load(world, plugins=["opencode"], settings=one_on).names == ["oc"]
