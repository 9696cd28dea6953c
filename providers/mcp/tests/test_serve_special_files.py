"""``skillpath serve`` against special files: its client's stream and its memory stay its own.

* a config that is ``/dev/stdin`` must not make the stdio server read the
  client's messages as a config file;
* a binary resource listed at start-up that later grows past the read bound
  or becomes a FIFO is refused at read time (no hang, no unbounded read).
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from skillpath.session import SkillSession
from skillpath.urls import MAX_READ_BYTES
from skillpath_mcp.server import SkillServer, _Digests, build_catalog

LIMIT = 60


def test_a_config_that_is_dev_stdin_does_not_eat_the_client_stream(world: Any) -> None:
    world.skill("hello", "Say hello.")
    config = world.home / ".skillpath" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.symlink_to("/dev/stdin")

    async def scenario() -> list[str]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "skillpath", "serve", "--cwd", str(world.project)],
            env=world.env,
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            return [p.name for p in (await s.list_prompts()).prompts]

    async def bounded() -> list[str]:
        return await asyncio.wait_for(scenario(), LIMIT)

    assert "hello" in asyncio.run(bounded())


def _served(world: Any) -> tuple[SkillSession, Any, Path]:
    folder = world.skill("pic", "Has a picture.").parent
    logo = folder / "logo.png"
    logo.write_bytes(b"\x89PNG\x00binary")
    session = SkillSession.open(world.project)
    catalog = build_catalog(session, _Digests())
    listed = catalog.by_uri["skill://pic/logo.png"]
    assert listed.binary
    return session, listed, logo


def test_a_listed_binary_file_that_becomes_a_fifo_is_refused(world: Any) -> None:
    session, listed, logo = _served(world)
    logo.unlink()
    os.mkfifo(logo)  # nobody ever writes to it: a blocking open would hang here
    with pytest.raises(MCPError, match="not a regular file"):
        SkillServer._read_binary(listed, session)


def test_a_listed_binary_file_that_grows_is_refused(world: Any) -> None:
    session, listed, logo = _served(world)
    with open(logo, "r+b") as f:
        f.truncate(MAX_READ_BYTES + 1)
    with pytest.raises(MCPError, match="larger than"):
        SkillServer._read_binary(listed, session)


def test_a_command_linked_to_credentials_is_served_nowhere(world: Any) -> None:
    """``.claude/commands/notes.md -> ~/.git-credentials``: not a prompt, not a tool load,
    not a resource — the token never crosses the wire."""
    secret = world.home / ".git-credentials"
    secret.write_text("---\ndescription: SECRET-TOKEN-4242\n---\nhttps://u:SECRET-TOKEN-4242@x\n")
    commands = world.project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "notes.md").symlink_to(secret)
    world.skill("hello", "Say hello.")

    async def scenario() -> list[str]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "skillpath", "serve", "--cwd", str(world.project)],
            env=world.env,
        )
        seen: list[str] = []
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            prompts = (await s.list_prompts()).prompts
            seen += [f"{p.name} {p.description}" for p in prompts]
            seen += [str(r.uri) for r in (await s.list_resources()).resources]
            loaded = await s.call_tool("load_skill", {"name": "notes"})
            seen += [c.text for c in loaded.content if hasattr(c, "text")]
            listed = await s.call_tool("list_skills", {})
            seen += [c.text for c in listed.content if hasattr(c, "text")]
            for call in (
                lambda: s.get_prompt("notes"),
                lambda: s.read_resource("skill://notes"),
            ):
                try:
                    seen.append(repr(await call()))
                except MCPError as exc:
                    seen.append(str(exc))
        return seen

    async def bounded() -> list[str]:
        return await asyncio.wait_for(scenario(), LIMIT)

    seen = asyncio.run(bounded())
    assert any(line.startswith("hello ") for line in seen)
    assert not any("SECRET-TOKEN-4242" in line for line in seen), seen
    assert not any(line.startswith("notes ") for line in seen)


def test_a_thousand_reads_with_an_overlong_segment_keep_no_diagnostics(world: Any) -> None:
    """Before: ``resources/read`` of ``skill://hello/<300 characters>`` failed inside the
    resolver (``File name too long``) and each request left one more permanent
    diagnostic in the server's session (RSS 77 -> 91 MB over 50,000 requests)."""
    import anyio
    from mcp import types as mt

    world.skill("hello", "Say hello.")
    server = SkillServer(world.project, poll=0)
    session = server._state()[0]
    before = len(session.diagnostics)
    uri = "skill://hello/" + "a" * 300

    async def read_all() -> list[str]:
        errors = []
        for i in range(1000):
            try:
                await server._read_resource(None, mt.ReadResourceRequestParams(uri=f"{uri}{i}"))
            except MCPError as exc:
                errors.append(str(exc))
        return errors

    errors = anyio.run(read_all)
    assert len(errors) == 1000
    assert all("File name too long" in e for e in errors)  # a clear reason, not a crash
    assert len(server._state()[0].diagnostics) == before
