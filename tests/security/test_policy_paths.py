"""Every path that runs something goes through the ``[shell]`` policy.

A project skill's inline shell (and its scripts) must not run while the policy keeps
project skills from running commands (the default ``levels``: ``user``, ``managed``):
``invoke``, MCP ``prompts/get`` and the ``load_skill`` tool, an export's copy (the
agent reading it would run the command), and an adapter's script runner
(``SkillSession.script_refusal``; Agno's runner is tested in its package).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from skillpath.cli import main
from skillpath.session import SkillSession
from skillpath.shell import DISABLED_TEXT

from ..conftest import Env


def _shelly(env: Env, marker: Path) -> Path:
    folder = env.project / ".agents" / "skills" / "shelly"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: shelly\ndescription: Runs a command when rendered.\n---\n"
        f"Now: !`touch '{marker}'; echo done`\n",
        encoding="utf-8",
    )
    script = folder / "scripts" / "run.sh"
    script.write_text(f"#!/bin/sh\ntouch '{marker}'\n", encoding="utf-8")
    script.chmod(0o755)
    return folder


def test_cli_invoke_runs_no_command_of_a_project_skill(isolated_env: Env, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    _shelly(isolated_env, marker)
    res = CliRunner().invoke(main, ["invoke", "--cwd", str(isolated_env.project), "shelly"])
    assert res.exit_code == 0, res.output
    assert DISABLED_TEXT in res.stdout and not marker.exists()


def test_session_invoke_on_every_trigger_runs_nothing(isolated_env: Env, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    _shelly(isolated_env, marker)
    session = SkillSession.open(isolated_env.project, env=isolated_env.env)
    for trigger in ("command", "tool", "mcp"):
        assert DISABLED_TEXT in session.invoke("shelly", trigger=trigger, force=True).content
    assert not marker.exists()


def test_script_refusal_follows_the_policy(isolated_env: Env, tmp_path: Path) -> None:
    _shelly(isolated_env, tmp_path / "ran")
    session = SkillSession.open(isolated_env.project, env=isolated_env.env)
    refusal = session.script_refusal("shelly")
    assert refusal is not None and "[shell] levels" in refusal
    allowed = SkillSession.open(
        isolated_env.project,
        env=isolated_env.env,
        settings={"shell": {"levels": ["user", "managed", "project"]}},
    )
    assert allowed.script_refusal("shelly") is None
    off = SkillSession.open(
        isolated_env.project,
        env=isolated_env.env,
        settings={"shell": {"enabled": False, "levels": ["project"]}},
    )
    assert "disabled" in str(off.script_refusal("shelly"))
    assert "no skill" in str(session.script_refusal("nobody"))


def test_mcp_prompts_get_and_load_skill_run_no_command(isolated_env: Env, tmp_path: Path) -> None:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    marker = tmp_path / "ran"
    _shelly(isolated_env, marker)

    async def scenario() -> tuple[str, str]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "skillpath", "serve", "--cwd", str(isolated_env.project), "--poll", "0"],
            env=isolated_env.env,
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            got = await s.get_prompt("shelly", {})
            loaded = await s.call_tool("load_skill", {"name": "shelly"})
            return str(got.messages[0].content.text), str(loaded.content[0].text)

    prompt, tool = asyncio.run(asyncio.wait_for(scenario(), 60))
    assert DISABLED_TEXT in prompt and DISABLED_TEXT in tool
    assert not marker.exists()


def _library(env: Env, marker: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A library in the project's environment that ships a skill with inline shell."""
    site = env.project / ".venv" / "lib" / "python3" / "site-packages"
    folder = site / "kit" / ".agents" / "skills" / "kit-setup"
    folder.mkdir(parents=True)
    (site / "kit" / "__init__.py").write_text("")
    (folder / "SKILL.md").write_text(
        f"---\nname: kit-setup\ndescription: Sets the kit up.\n---\nRun !`touch '{marker}'`\n",
        encoding="utf-8",
    )
    info = site / "kit-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kit\nVersion: 1.0\n\n")
    (env.project / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    monkeypatch.delenv("SKILLPATH_LIBRARIES", raising=False)


def test_an_exported_copy_holds_no_command_the_policy_would_not_run(
    isolated_env: Env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "ran"
    _shelly(isolated_env, marker)
    _library(isolated_env, marker, monkeypatch)
    cwd = ["--cwd", str(isolated_env.project)]
    # a library's skill is third party: quarantined until approved (approved, its copy
    # is still neutralised, as the third-party tier runs no command)
    approved = CliRunner().invoke(main, ["trust", "approve", *cwd, "kit-setup"])
    assert approved.exit_code == 0, approved.output
    for extra in ([], ["--from", "agents"]):
        res = CliRunner().invoke(main, ["export", *cwd, "--to", "claude", "--json", *extra])
        assert res.exit_code == 0, res.output
        assert "export-shell-neutralised" in res.stdout
    for name in ("shelly", "kit-setup"):
        copy = isolated_env.project / ".claude" / "skills" / name / "SKILL.md"
        text = copy.read_text(encoding="utf-8")
        assert DISABLED_TEXT in text and "touch" not in text
    assert not marker.exists()
