"""Agents-specific rules: walk-up order and boundaries, home skipped, its own toggles."""

from __future__ import annotations

from pathlib import Path

from skillpath_testing import discover, load, make_layout, write_skill


def test_walk_up_nearest_first_agents_before_agent(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    deep = world.project / "a" / "b"
    deep.mkdir(parents=True)
    for folder, tag in ((deep, "deep"), (world.project, "root")):
        write_skill(folder / ".agents" / "skills", "s", f"{tag} .agents")
        write_skill(folder / ".agent" / "skills", "s", f"{tag} .agent")
    write_skill(world.project.parent / ".agents" / "skills", "outside", "above the repo root")
    write_skill(world.home / ".agents" / "skills", "s", "user .agents")
    write_skill(world.home / ".agent" / "skills", "s", "user .agent")
    result = discover("agents", world, cwd=deep)
    assert [s.description for s in result.skills] == [
        # .agent (singular) after .agents: no agent reads it, so it never wins a name
        "deep .agents",
        "deep .agent",
        "root .agents",
        "root .agent",
        "user .agents",
        "user .agent",
    ]
    assert [s.source.level for s in result.skills] == ["project"] * 4 + ["user"] * 2


def test_home_is_skipped_as_a_project_dir(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    cwd = world.home / "work" / "x"  # under home, no repository: walk up to home
    cwd.mkdir(parents=True)
    write_skill(world.home / ".agents" / "skills", "mine", "user")
    write_skill(world.home / "work" / ".agents" / "skills", "work", "project")
    result = discover("agents", world, cwd=cwd)
    assert [(s.name, s.source.level) for s in result.skills] == [
        ("work", "project"),
        ("mine", "user"),
    ]


def test_own_toggles_and_immune_to_the_others(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    write_skill(world.project / ".agents" / "skills", "p", "project")
    write_skill(world.home / ".agents" / "skills", "u", "user")
    others_off = {
        f"skills.enable_{k}": False
        for k in ("native_user", "native_project", "claude_user", "claude_project", "codex_user")
    }
    assert load(world, plugins=["agents"], settings=others_off).names == ["p", "u"]
    res = load(world, plugins=["agents"], settings={"skills.enable_agents_project": False})
    assert res.names == ["u"]
    res = load(world, plugins=["agents"], settings={"skills.enable_agents_user": False})
    assert res.names == ["p"]
