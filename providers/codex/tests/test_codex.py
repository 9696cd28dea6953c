"""Codex-specific rules: CODEX_HOME, the working directory only, its toggle."""

from __future__ import annotations

from pathlib import Path

from skillweave_testing import discover, load, make_layout, write_skill


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


def test_project_dir_is_the_working_directory_only(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    sub = world.project / "sub"
    sub.mkdir()
    write_skill(world.project / ".codex" / "skills", "at-root", "not seen from sub")
    write_skill(sub / ".codex" / "skills", "at-cwd", "seen")
    result = discover("codex", world, cwd=sub)
    assert [(s.name, s.source.level) for s in result.skills] == [("at-cwd", "project")]


def test_cwd_at_home_scans_the_user_dir_once(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    write_skill(world.home / ".codex" / "skills", "once", "x")
    result = discover("codex", world, cwd=world.home)
    assert [(s.name, s.source.level) for s in result.skills] == [("once", "user")]
    assert len(result.roots) == 1


def test_enable_codex_user_covers_codex(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    write_skill(world.home / ".codex" / "skills", "u", "x")
    write_skill(world.project / ".codex" / "skills", "p", "x")
    assert load(world, plugins=["codex"]).names == ["p", "u"]
    res = load(world, plugins=["codex"], settings={"skills.enable_codex_user": False})
    assert res.names == []
    assert {s.reason for s in res.skipped} == {"source-disabled"}
