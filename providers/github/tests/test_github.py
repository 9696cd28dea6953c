"""GitHub-specific rules: cwd and repository root, ~/.copilot/skills, description, toggle."""

from __future__ import annotations

from pathlib import Path

from skillpath_testing import discover, load, make_layout, write_skill


def test_cwd_then_repository_root_below_the_root(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    sub = world.project / "packages" / "api"
    sub.mkdir(parents=True)
    write_skill(world.project / ".github" / "skills", "at-root", "the repository's")
    write_skill(world.project / ".github" / "skills", "both", "root copy")
    write_skill(sub / ".github" / "skills", "here", "seen")
    write_skill(sub / ".github" / "skills", "both", "cwd copy")
    write_skill(world.project / "packages" / ".github" / "skills", "between", "not searched")
    result = discover("github", world, cwd=sub)
    assert [(s.name, s.description, s.source.level) for s in result.skills] == [
        ("both", "cwd copy", "project"),
        ("here", "seen", "project"),
        ("at-root", "the repository's", "project"),
        ("both", "root copy", "project"),
    ]
    assert [r.path for r in result.roots] == [
        sub / ".github" / "skills",
        world.project / ".github" / "skills",
        world.home / ".copilot" / "skills",
    ]
    winner = load(world, cwd=sub, plugins=["github"]).get("both")
    assert winner is not None and winner.description == "cwd copy"


def test_at_the_root_the_root_is_scanned_once(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    write_skill(world.project / ".github" / "skills", "at-root", "x")
    result = discover("github", world)
    assert [s.name for s in result.skills] == ["at-root"]
    assert [r.path for r in result.roots].count(world.project / ".github" / "skills") == 1


def test_no_repository_means_cwd_only(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    outside = world.tmp / "scratch" / "a"  # not in a repository
    outside.mkdir(parents=True)
    write_skill(world.tmp / "scratch" / ".github" / "skills", "above", "not searched")
    write_skill(outside / ".github" / "skills", "here", "x")
    assert [s.name for s in discover("github", world, cwd=outside).skills] == ["here"]


def test_copilot_user_dir_comes_last(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    write_skill(world.home / ".copilot" / "skills", "personal", "from ~/.copilot")
    write_skill(world.home / ".copilot" / "skills", "shared", "user copy")
    write_skill(world.project / ".github" / "skills", "shared", "project copy")
    result = load(world, plugins=["github"])
    personal = result.get("personal")
    assert personal is not None and personal.source.level == "user"
    assert personal.source.root == world.home / ".copilot" / "skills"
    shared = result.get("shared")
    assert shared is not None and shared.description == "project copy"
    assert [s.skill.source.level for s in result.shadowed] == ["user"]


def test_description_is_required(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    path = write_skill(world.project / ".github" / "skills", "bare", None, "Body only.\n")
    user = write_skill(world.home / ".copilot" / "skills", "bare-user", None, "Body only.\n")
    result = discover("github", world)
    assert result.skills == ()
    assert [(d.code, d.path) for d in result.diagnostics] == [
        ("missing-description", path),
        ("missing-description", user),
    ]


def test_fallback_toggle_rule(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    write_skill(world.project / ".github" / "skills", "gh", "x")
    write_skill(world.home / ".copilot" / "skills", "cp", "x")
    named_off = {
        f"skills.enable_{k}": False
        for k in ("native_user", "native_project", "claude_user", "claude_project", "codex_user")
    }
    assert load(world, plugins=["github"], settings=named_off).names == []
    assert load(world, plugins=["github"]).names == ["cp", "gh"]
