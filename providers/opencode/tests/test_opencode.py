"""OpenCode-specific rules: XDG_CONFIG_HOME, both spellings, the fallback toggle rule."""

from __future__ import annotations

from pathlib import Path

from skillweave_testing import discover, load, make_layout, write_skill


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


def test_user_first_then_cwd_only(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    sub = world.project / "sub"
    write_skill(sub / ".opencode" / "skill", "s", "project skill")
    write_skill(sub / ".opencode" / "skills", "s", "project skills")
    write_skill(world.project / ".opencode" / "skills", "parent", "not seen from sub")
    write_skill(world.home / ".config" / "opencode" / "skills", "s", "user")
    result = discover("opencode", world, cwd=sub)
    assert [(s.description, s.source.level) for s in result.skills] == [
        ("user", "user"),
        ("project skills", "project"),
        ("project skill", "project"),
    ]


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
