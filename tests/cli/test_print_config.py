"""``skillpath serve --print-config CLIENT``: what registers the server with Claude Code,
Codex, Cursor and VS Code, and the command it names really serves the project."""

from __future__ import annotations

import asyncio
import json
import shlex
import tomllib
from typing import Any

import pytest

from ..conftest import Env
from .conftest import Cli, skill_md, write


def _printed(cli: Cli, client: str) -> str:
    res = cli.run("serve", "--print-config", client)
    assert res.exit_code == 0, res.output
    return res.stdout


def test_each_client_gets_the_same_command(cli: Cli, isolated_env: Env) -> None:
    project = str(isolated_env.project.resolve())
    cursor = json.loads(_printed(cli, "cursor"))["mcpServers"]["skillpath"]
    command, args = cursor["command"], cursor["args"]
    assert args[-3:] == ["serve", "--cwd", project]
    vscode = json.loads(_printed(cli, "vscode"))["servers"]["skillpath"]
    assert vscode == {"type": "stdio", "command": command, "args": args}
    codex = tomllib.loads(_printed(cli, "codex"))["mcp_servers"]["skillpath"]
    assert codex == {"command": command, "args": args}
    claude = shlex.split(_printed(cli, "claude-code"))
    assert claude == ["claude", "mcp", "add", "skillpath", "--", command, *args]


def test_the_printed_command_serves_the_project(cli: Cli, isolated_env: Env) -> None:
    pytest.importorskip("mcp")
    from mcp import ClientSession, StdioServerParameters, stdio_client

    write(isolated_env.project / ".claude" / "skills" / "hello" / "SKILL.md", skill_md("Hi."))
    entry = json.loads(_printed(cli, "cursor"))["mcpServers"]["skillpath"]

    async def prompts() -> Any:
        params = StdioServerParameters(
            command=entry["command"], args=[*entry["args"], "--poll", "0"], env=isolated_env.env
        )
        async with stdio_client(params) as (read, write_), ClientSession(read, write_) as s:
            await s.initialize()
            return sorted(p.name for p in (await s.list_prompts()).prompts)

    assert "hello" in asyncio.run(asyncio.wait_for(prompts(), 60))


def test_an_unknown_client_is_a_usage_error(cli: Cli, isolated_env: Env) -> None:
    res = cli.run("serve", "--print-config", "emacs")
    assert res.exit_code == 2 and "claude-code" in res.stderr
