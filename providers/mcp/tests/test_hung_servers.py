"""A hung MCP server costs one wait: its failure is remembered, it is named on a
terminal while awaited, and ``skillpath serve`` answers its own clients meanwhile.

The fixture (``fixtures/hung_server.py``) notes each start in a log file and never
answers. Whether a later run waited is read from that log (the server was not started
again), never from a clock.
"""

from __future__ import annotations

import asyncio
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client

from .test_serve import _run, _serve_args

HUNG = Path(__file__).parent / "fixtures" / "hung_server.py"


def _hung(world: Any, name: str, log: Path, timeout: float) -> str:
    return (
        f"[[mcp.servers]]\nname = {name!r}\ncommand = {sys.executable!r}\n"
        f"args = [{str(HUNG)!r}]\ntimeout = {timeout}\n"
        f"env = {{ FIXTURE_LOG = {str(log)!r} }}\n"
    )


def _starts(log: Path) -> int:
    return log.read_text().splitlines().count("start") if log.exists() else 0


def _list(world: Any, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skillpath", "list", *args],
        cwd=world.project,
        capture_output=True,
        text=True,
        # every run loads (no replay of the run before): the cache is what is tested
        env={**world.env, "SKILLPATH_NO_SNAPSHOT": "1", **env},
        timeout=120,
    )


def test_a_hung_server_is_waited_for_once(world: Any, tmp_path: Path) -> None:
    log = tmp_path / "hung.log"
    world.config(_hung(world, "hung", log, 2))
    world.skill("local")
    first = _list(world)
    assert first.returncode == 0, first.stderr
    assert "local" in first.stdout
    assert _starts(log) == 1
    assert "MCP server 'hung': no answer within 2s" in first.stderr
    assert "not tried again for 300s" in first.stderr
    assert "waiting for" not in first.stderr  # stderr is not a terminal: no progress line
    second = _list(world)
    assert second.returncode == 0, second.stderr
    assert _starts(log) == 1  # not started again: the failure came from the cache
    assert "MCP server 'hung': no answer within 2s" in second.stderr
    assert "not tried again until" in second.stderr
    assert "--refresh tries it now" in second.stderr
    refreshed = _list(world, "--refresh")
    assert _starts(log) == 2  # --refresh tries it at once
    assert "no answer within 2s" in refreshed.stderr


def test_the_failure_is_retried_after_retry_after(world: Any, tmp_path: Path) -> None:
    log = tmp_path / "hung.log"
    world.config("[mcp]\nretry_after = 0\n" + _hung(world, "hung", log, 1))
    _list(world)
    _list(world)
    assert _starts(log) == 2  # retry_after = 0: every run tries it


def test_a_changed_entry_is_tried_at_once(world: Any, tmp_path: Path) -> None:
    log = tmp_path / "hung.log"
    world.config(_hung(world, "hung", log, 1))
    _list(world)
    world.config(_hung(world, "hung", log, 2))  # another timeout: another identity
    second = _list(world)
    assert _starts(log) == 2
    assert "no answer within 2s" in second.stderr


def test_the_servers_awaited_are_named_on_a_terminal(world: Any, tmp_path: Path) -> None:
    a = _hung(world, "slow-a", tmp_path / "a.log", 2)
    world.config(a + _hung(world, "slow-b", tmp_path / "b.log", 2))
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillpath", "list"],
        cwd=world.project,
        stdout=subprocess.PIPE,
        stderr=child,
        env={**world.env, "SKILLPATH_NO_SNAPSHOT": "1"},
    )
    os.close(child)
    seen = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        seen += chunk
    proc.communicate(timeout=120)
    os.close(main)
    text = seen.decode("utf-8", "replace")
    # both at once: they are waited for together, each for its own timeout
    assert "waiting for MCP servers 'slow-a', 'slow-b' (at most 2s)" in text
    assert "\r\x1b[K" in text  # the line is erased once they are done
    assert _starts(tmp_path / "a.log") == _starts(tmp_path / "b.log") == 1
    # quiet: no progress line
    world.config(_hung(world, "slow-c", tmp_path / "c.log", 1))
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillpath", "list"],
        cwd=world.project,
        stdout=subprocess.PIPE,
        stderr=child,
        env={**world.env, "SKILLPATH_NO_SNAPSHOT": "1", "SKILLPATH_MCP_PROGRESS": "0"},
    )
    os.close(child)
    seen = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    proc.communicate(timeout=120)
    os.close(main)
    assert b"waiting for" not in seen
    assert b"slow-c" in seen  # its failure is still reported


def test_serve_answers_while_an_upstream_hangs(world: Any, tmp_path: Path) -> None:
    """The upstream is given two minutes: serve answers its client long before, with the
    project's own skills, while the upstream is still being waited for."""
    log = tmp_path / "hung.log"
    world.config(_hung(world, "hung", log, 120))
    world.skill("local", "A local skill.")

    async def scenario() -> list[str]:
        params = StdioServerParameters(
            command=sys.executable, args=_serve_args(world.project, "--poll", "30"), env=world.env
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            return sorted(p.name for p in (await s.list_prompts()).prompts)

    assert "local" in _run(scenario)
    assert not list((world.home / ".cache").rglob("*.lst"))  # the upstream has not failed yet


def test_serve_adds_an_upstreams_skills_when_it_answers(world: Any) -> None:
    """A healthy upstream listed in the background: its prompts follow, announced with
    list_changed, and the project's own skills were there from the first answer."""
    world.config(world.toml_servers([world.server("fx", "prompt_server.py")]))
    world.skill("local", "A local skill.")

    async def scenario() -> tuple[list[str], list[str]]:
        changed = asyncio.Event()

        async def on_message(message: Any) -> None:
            if getattr(getattr(message, "root", message), "method", "").endswith("list_changed"):
                changed.set()

        params = StdioServerParameters(
            command=sys.executable, args=_serve_args(world.project, "--poll", "0.2"), env=world.env
        )
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write, message_handler=on_message) as s,
        ):
            await s.initialize()
            first = sorted(p.name for p in (await s.list_prompts()).prompts)
            names = first
            while "greet" not in names:
                await changed.wait()
                changed.clear()
                names = sorted(p.name for p in (await s.list_prompts()).prompts)
            return first, names

    first, later = _run(scenario)
    assert "local" in first and "local" in later and "greet" in later
