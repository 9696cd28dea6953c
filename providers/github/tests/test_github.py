"""GitHub-specific rules: the working directory only, description required, fallback toggle."""

from __future__ import annotations

from pathlib import Path

from skillweave_testing import discover, load, make_layout, write_skill


def test_cwd_only(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    sub = world.project / "sub"
    write_skill(world.project / ".github" / "skills", "at-root", "not seen from sub")
    write_skill(sub / ".github" / "skills", "here", "seen")
    result = discover("github", world, cwd=sub)
    assert [(s.name, s.source.level) for s in result.skills] == [("here", "project")]
    assert [s.name for s in discover("github", world).skills] == ["at-root"]


def test_description_is_required(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    path = write_skill(world.project / ".github" / "skills", "bare", None, "Body only.\n")
    result = discover("github", world)
    assert result.skills == ()
    assert [(d.code, d.path) for d in result.diagnostics] == [("missing-description", path)]


def test_fallback_toggle_rule(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    write_skill(world.project / ".github" / "skills", "gh", "x")
    named_off = {
        f"skills.enable_{k}": False
        for k in ("native_user", "native_project", "claude_user", "claude_project", "codex_user")
    }
    assert load(world, plugins=["github"], settings=named_off).names == []
    assert load(world, plugins=["github"]).names == ["gh"]
