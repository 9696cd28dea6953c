"""A legacy command at run time: no skill folder, so no resources, no sibling reads and no
"Base directory" line; the command file itself still reads and renders."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from skillpath import ResolveError, SkillSession
from skillpath_testing import Layout, make_layout, plugin_host


@pytest.fixture
def world(tmp_path: Path) -> Layout:
    """A project with three command files, one in a namespace folder."""
    layout = make_layout(
        tmp_path, {"SKILLPATH_CLAUDE_POLICY_DIR": str(tmp_path.resolve() / "policy")}
    )
    commands = layout.project / ".claude" / "commands"
    (commands / "sub").mkdir(parents=True)
    (commands / "fix-issue.md").write_text(
        "---\ndescription: Fix an issue\n---\nFix issue $ARGUMENTS in ${CLAUDE_SKILL_DIR}.\n",
        encoding="utf-8",
    )
    (commands / "plain.md").write_text("Another command.\n", encoding="utf-8")
    (commands / "sub" / "nested.md").write_text("A nested command.\n", encoding="utf-8")
    return layout


def session(world: Layout) -> SkillSession:
    """A session over the claude provider only."""
    return SkillSession.open(
        world.cwd, home=world.home, env=world.env, host=plugin_host(world, ["claude"])
    )


def test_the_command_file_reads_but_its_neighbours_do_not(world: Layout) -> None:
    s = session(world)
    assert sorted(sk.name for sk in s.skills()) == ["fix-issue", "plain", "sub:nested"]
    own = s.resolve("skill://fix-issue")
    assert own.content.startswith("---\ndescription: Fix an issue")
    for rel in ("plain.md", "sub/nested.md", "fix-issue.md", "."):
        with pytest.raises(ResolveError, match="no directory on disk"):
            s.resolve(f"skill://fix-issue/{rel}")


def test_invocation_has_no_base_directory_line(world: Layout) -> None:
    rendered = session(world).invoke("fix-issue", "42")
    assert rendered.base_dir is None
    assert "Base directory for this skill" not in rendered.content
    assert rendered.text.startswith("Fix issue 42 in ${CLAUDE_SKILL_DIR}.")  # left verbatim
    s = session(world)
    slash = s.parse_slash("/skill:sub:nested now")
    assert slash is not None and (slash.name, slash.known, slash.args) == (
        "sub:nested",
        True,
        "now",
    )
    nested = s.invoke("sub:nested", trigger="tool")
    assert nested.content.strip() == "A nested command."


def test_show_lists_no_resources(world: Layout) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "skillpath", "show", "--json", "--cwd", world.cwd, "fix-issue"],
        capture_output=True,
        text=True,
        env=dict(world.env),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["path"] == str(world.project / ".claude" / "commands" / "fix-issue.md")
    assert data["base_dir"] is None
    assert data["resources"] == [] and data["resources_truncated"] is False
    assert data["loaded_from"] == "commands"
