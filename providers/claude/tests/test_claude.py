"""Claude-specific rules: legacy command files, walk-up boundaries, env vars, toggles."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from skillpath import make_context
from skillpath_claude import MAX_COMMAND_DEPTH, POLICY_DIR, config_dir, policy_dir
from skillpath_testing import Layout, discover, load, make_layout, write_skill


@pytest.fixture
def world(tmp_path: Path) -> Layout:
    """A fake home and project; the policy dir points into the temp dir."""
    return make_layout(
        tmp_path, {"SKILLPATH_CLAUDE_POLICY_DIR": str(tmp_path.resolve() / "policy")}
    )


def command(folder: Path, name: str, text: str) -> Path:
    """Write ``<folder>/<name>.md``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_policy_dir_default_and_override(world: Layout) -> None:
    ctx, _ = make_context(world.cwd, home=world.home, env={"HOME": str(world.home)})
    assert policy_dir(ctx) == POLICY_DIR == Path("/etc/claude-code/.claude/skills")
    ctx, _ = make_context(world.cwd, home=world.home, env=world.env)
    assert policy_dir(ctx) == world.tmp / "policy"
    write_skill(world.tmp / "policy", "org-rule", "from the policy")
    skill = load(world, plugins=["claude"]).get("org-rule")
    assert skill is not None and skill.source.level == "managed"


def test_managed_dir_moves_managed_skills_and_commands(tmp_path: Path) -> None:
    # SKILLPATH_CLAUDE_MANAGED_DIR stands for /etc/claude-code, as for managed settings
    world = make_layout(tmp_path, {"SKILLPATH_CLAUDE_MANAGED_DIR": str(tmp_path / "etc-cc")})
    managed = world.tmp / "etc-cc" / ".claude"
    ctx, _ = make_context(world.cwd, home=world.home, env=world.env)
    assert policy_dir(ctx) == managed / "skills"
    write_skill(managed / "skills", "org-rule", "from the policy")
    write_skill(world.home / ".claude" / "skills", "org-rule", "the user's")
    command(managed / "commands", "org-cmd", "Managed command.\n")
    command(world.home / ".claude" / "commands", "org-cmd", "The user's command.\n")
    skills = load(world, plugins=["claude"])
    rule, cmd = skills.get("org-rule"), skills.get("org-cmd")
    assert rule is not None and rule.source.level == "managed"
    assert cmd is not None and cmd.source.level == "managed"


def test_commands_become_skills_named_after_the_file(world: Layout) -> None:
    user = command(
        world.home / ".claude" / "commands",
        "deploy",
        "---\nname: something-else\ndescription: Deploy it\npaths: src/**\n---\nRun it.\n",
    )
    project = command(world.project / ".claude" / "commands", "review", "Review the diff.\n")
    result = discover("claude", world)
    by_name = {s.name: s for s in result.skills}
    assert set(by_name) == {"deploy", "review"}
    deploy = by_name["deploy"]
    assert deploy.path == user
    assert (deploy.source.loaded_from, deploy.source.level) == ("commands", "user")
    assert deploy.description == "Deploy it"
    assert deploy.frontmatter.name is None and deploy.frontmatter.paths == ()
    assert not deploy.conditional  # `paths` is ignored for commands
    assert deploy.body == "Run it.\n"
    review = by_name["review"]
    assert review.path == project
    assert (review.source.loaded_from, review.source.level) == ("commands", "project")
    assert review.description == "Review the diff."
    assert review.priority == 80
    assert not result.diagnostics


def test_skill_wins_over_command_of_the_same_name(world: Layout) -> None:
    cmd = command(world.home / ".claude" / "commands", "lint", "---\ndescription: cmd\n---\n")
    skill = write_skill(world.project / ".claude" / "skills", "lint", "the skill")
    result = load(world, plugins=["claude"])
    winner = result.get("lint")
    assert winner is not None and winner.path == skill
    (lost,) = result.shadowed
    assert lost.skill.path == cmd and lost.reason == "name" and lost.by == winner
    conflicts = [d for d in result.diagnostics if d.code == "name-conflict"]
    assert len(conflicts) == 1 and conflicts[0].path == cmd
    assert str(skill) in conflicts[0].message


def test_user_command_before_project_command(world: Layout) -> None:
    user = command(world.home / ".claude" / "commands", "same", "user\n")
    command(world.project / ".claude" / "commands", "same", "project\n")
    result = load(world, plugins=["claude"])
    assert result.get("same").path == user  # type: ignore[union-attr]
    assert [s.skill.source.level for s in result.shadowed] == ["project"]


def test_command_folder_rules(world: Layout) -> None:
    folder = world.project / ".claude" / "commands"
    command(folder, "good", "Good.\n")
    command(folder, ".hidden", "Hidden.\n")
    (folder / "notes.txt").write_text("not a command\n")
    (folder / "nested").mkdir()
    command(folder / "nested", "deeper", "Found as nested:deeper.\n")
    (folder / "dir.md").mkdir()
    (folder / "gone.md").symlink_to(world.tmp / "missing.md")
    target = command(world.project / "shared", "linked-source", "Linked.\n")
    (folder / "linked.md").symlink_to(target)  # inside the repository: followed
    outside = command(world.tmp / "shared", "outside-source", "Outside.\n")
    (folder / "escaped.md").symlink_to(outside)  # out of the repository: refused unread
    result = discover("claude", world)
    assert [s.name for s in result.skills] == ["good", "linked", "nested:deeper"]
    assert sorted((d.path.name, d.code) for d in result.diagnostics if d.path) == [
        ("escaped.md", "file-outside-project"),
        ("gone.md", "broken-symlink"),
    ]


def test_command_folder_that_is_a_file_is_a_diagnostic(world: Layout) -> None:
    folder = world.home / ".claude" / "commands"
    folder.parent.mkdir(parents=True)
    folder.write_text("oops\n")
    result = discover("claude", world)
    (diag,) = result.diagnostics
    assert diag.path == folder and diag.level == "error" and diag.provider == "claude"


def test_bad_command_name_is_a_diagnostic(world: Layout) -> None:
    folder = world.project / ".claude" / "commands"
    command(folder, " padded", "Leading space in the file name.\n")
    command(folder, "fine", "Fine.\n")
    result = discover("claude", world)
    assert [s.name for s in result.skills] == ["fine"]
    assert [d.code for d in result.diagnostics] == ["invalid-name"]


def test_walk_up_nearest_first_and_stops_at_repo_root(world: Layout) -> None:
    deep = world.project / "pkg" / "sub"
    deep.mkdir(parents=True)
    above = world.project.parent  # outside the repository: never scanned
    for folder, tag in ((deep, "deep"), (world.project / "pkg", "mid"), (world.project, "root")):
        write_skill(folder / ".claude" / "skills", "tool", tag)
        write_skill(folder / ".claude" / "skills", f"only-{tag}", tag)
        command(folder / ".claude" / "commands", f"cmd-{tag}", f"{tag}\n")
    write_skill(above / ".claude" / "skills", "outside", "above the repo root")
    command(above / ".claude" / "commands", "cmd-outside", "above\n")
    result = discover("claude", world, cwd=deep)
    names = [s.name for s in result.skills]
    assert "outside" not in names and "cmd-outside" not in names
    assert [s.description for s in result.skills if s.name == "tool"] == ["deep", "mid", "root"]
    assert names.index("only-deep") < names.index("only-mid") < names.index("only-root")
    assert names[-3:] == ["cmd-deep", "cmd-mid", "cmd-root"]


def test_home_is_never_a_project_dir(tmp_path: Path) -> None:
    world = make_layout(tmp_path, {"SKILLPATH_CLAUDE_POLICY_DIR": str(tmp_path / "p")})
    cwd = world.home / "code" / "thing"  # under home, no repository: walk up to home
    cwd.mkdir(parents=True)
    write_skill(world.home / ".claude" / "skills", "personal", "user skill")
    write_skill(world.home / "code" / ".claude" / "skills", "code-level", "project skill")
    result = discover("claude", world, cwd=cwd)
    levels = {s.name: s.source.level for s in result.skills}
    assert levels == {"personal": "user", "code-level": "project"}
    assert [s.name for s in result.skills].count("personal") == 1


def test_walk_up_to_filesystem_root_outside_home(tmp_path: Path) -> None:
    world = make_layout(tmp_path, {"SKILLPATH_CLAUDE_POLICY_DIR": str(tmp_path / "p")})
    outside = world.tmp / "scratch" / "a" / "b"  # neither under home nor in a repository
    outside.mkdir(parents=True)
    write_skill(world.tmp / "scratch" / ".claude" / "skills", "far-up", "found")
    result = discover("claude", world, cwd=outside)
    skill = next(s for s in result.skills if s.name == "far-up")
    assert skill.source.level == "project"


def test_claude_config_dir_moves_user_skills_and_commands(world: Layout, tmp_path: Path) -> None:
    cfg = world.tmp / "claude-cfg"
    moved = make_layout(tmp_path, {**world.env, "CLAUDE_CONFIG_DIR": str(cfg)})
    write_skill(cfg / "skills", "cfg-skill", "moved")
    command(cfg / "commands", "cfg-cmd", "moved\n")
    write_skill(world.home / ".claude" / "skills", "default-skill", "not read")
    command(world.home / ".claude" / "commands", "default-cmd", "not read\n")
    result = discover("claude", moved)
    levels = {s.name: (s.source.level, s.source.root) for s in result.skills}
    assert levels == {
        "cfg-skill": ("user", cfg / "skills"),
        "cfg-cmd": ("user", cfg / "commands"),
    }
    ctx, _ = make_context(moved.cwd, home=moved.home, env={**moved.env, "CLAUDE_CONFIG_DIR": "~/c"})
    assert config_dir(ctx) == moved.home / "c"


def test_source_toggles(world: Layout) -> None:
    write_skill(world.tmp / "policy", "m", "managed")
    write_skill(world.home / ".claude" / "skills", "u", "user")
    write_skill(world.project / ".claude" / "skills", "p", "project")
    command(world.project / ".claude" / "commands", "c", "project command\n")
    res = load(world, plugins=["claude"], settings={"skills.enable_claude_user": False})
    assert res.names == ["c", "p"]
    assert {s.skill.name for s in res.skipped} == {"m", "u"}
    res = load(world, plugins=["claude"], settings={"skills.enable_claude_project": False})
    assert res.names == ["m", "u"]


def test_home_stays_skipped_when_claude_config_dir_moves(tmp_path: Path) -> None:
    cfg = tmp_path.resolve() / "cfg"
    world = make_layout(
        tmp_path,
        {"SKILLPATH_CLAUDE_POLICY_DIR": str(tmp_path / "p"), "CLAUDE_CONFIG_DIR": str(cfg)},
    )
    cwd = world.home / "code"
    cwd.mkdir()
    write_skill(world.home / ".claude" / "skills", "home-dir", "home is not a project dir")
    command(world.home / ".claude" / "commands", "home-cmd", "nor for commands\n")
    write_skill(cfg / "skills", "configured", "user skill")
    result = discover("claude", world, cwd=cwd)
    assert [(s.name, s.source.level) for s in result.skills] == [("configured", "user")]


def test_nested_command_folders_are_namespaces(world: Layout) -> None:
    folder = world.project / ".claude" / "commands"
    top = command(folder, "component", "---\nname: ignored\n---\nTop level.\n")
    front = command(folder / "frontend", "component", "Frontend component.\n")
    deep = command(folder / "a" / "b", "c", "Two namespaces.\n")
    command(folder / ".private", "hidden", "Dot folders are skipped.\n")
    result = discover("claude", world)
    by_name = {s.name: s for s in result.skills}
    assert list(by_name) == ["a:b:c", "component", "frontend:component"]
    assert by_name["component"].path == top
    assert by_name["frontend:component"].path == front
    assert by_name["a:b:c"].path == deep
    assert {s.source.root for s in result.skills} == {folder}
    assert {s.source.loaded_from for s in result.skills} == {"commands"}
    (scan,) = [r for r in result.roots if r.path == folder]
    assert scan.count == 3
    assert not result.diagnostics


def test_nested_command_limits_loops_and_unreadable_folders(world: Layout) -> None:
    folder = world.project / ".claude" / "commands"
    levels = [f"n{i}" for i in range(MAX_COMMAND_DEPTH + 1)]
    command(folder.joinpath(*levels[:-1]), "deepest", "At the limit.\n")
    too_deep = folder.joinpath(*levels)
    command(too_deep, "lost", "One level too deep.\n")
    (folder / "loop").mkdir(parents=True)
    command(folder / "loop", "once", "Reached once.\n")
    (folder / "loop" / "again").symlink_to(folder / "loop", target_is_directory=True)
    result = discover("claude", world)
    names = [s.name for s in result.skills]
    assert names == ["loop:once", ":".join([*levels[:-1], "deepest"])]
    (diag,) = result.diagnostics
    assert (diag.level, diag.code, diag.path) == ("info", "commands-too-deep", too_deep)


def test_unreadable_command_subfolder_is_a_warning(world: Layout) -> None:
    folder = world.project / ".claude" / "commands"
    command(folder, "fine", "Fine.\n")
    locked = folder / "locked"
    command(locked, "secret", "x\n")
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("this user can read a chmod 000 directory (running as root?)")
        result = discover("claude", world)
        assert [s.name for s in result.skills] == ["fine"]
        (diag,) = result.diagnostics
        assert (diag.level, diag.code, diag.path) == ("warning", "unreadable-entry", locked)
    finally:
        locked.chmod(0o700)


def test_a_command_has_no_base_dir(world: Layout) -> None:
    command(world.project / ".claude" / "commands", "fix-issue", "Fix it.\n")
    write_skill(world.project / ".claude" / "skills", "real-skill", "x")
    result = discover("claude", world)
    by_name = {s.name: s for s in result.skills}
    assert by_name["fix-issue"].base_dir is None
    assert by_name["fix-issue"].body == "Fix it.\n"
    assert by_name["real-skill"].base_dir == world.project / ".claude" / "skills" / "real-skill"
