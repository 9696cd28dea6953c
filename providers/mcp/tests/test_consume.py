"""The ``mcp`` provider against real MCP servers started as subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from skillpath import load_skills
from skillpath.errors import PromptError, ResolveError
from skillpath.safety import ContainmentError
from skillpath.session import SkillSession
from skillpath_mcp.provider import clear_cache


def _mcp(result: Any) -> list[str]:
    """Names of the MCP skills (installed packs may add skills of their own)."""
    return [s.name for s in result.skills if s.source.provider == "mcp"]


def _log(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def test_prompts_load_as_skills_and_invoke_through_prompts_get(world: Any, tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    world.skill("shared", "The local one.")
    world.config(
        world.toml_servers([world.server("fx", "prompt_server.py", env={"FIXTURE_LOG": str(log)})])
    )
    session = SkillSession.open(world.project, home=world.home)

    greet = session.get("greet")
    assert greet is not None
    src = greet.source
    assert (src.provider, src.level, src.loaded_from, src.root) == ("mcp", "remote", "mcp", None)
    assert src.detail["server"] == "fx"
    assert src.detail["kind"] == "prompt"
    assert src.detail["server_info"] == {"name": "fixture-prompts", "version": "1.0"}
    assert greet.priority == 20
    assert greet.path is None and greet.base_dir is None
    assert greet.description == "Greet someone by name."
    assert greet.frontmatter.arguments == ("name", "tone")
    assert greet.frontmatter.argument_hint == "<name> [tone]"
    assert session.get("review") is not None

    # a local skill of the same name wins, and the clash is reported, not silent
    shared = session.get("shared")
    assert shared is not None and shared.source.provider == "native"
    losers = [s for s in session.result.shadowed if s.skill.name == "shared"]
    assert [(s.skill.source.provider, s.by.source.provider, s.reason) for s in losers] == [
        ("mcp", "native", "name")
    ]
    clash = [d for d in session.result.diagnostics if d.code == "name-conflict"]
    assert len(clash) == 1 and "mcp/remote" in clash[0].message and clash[0].provider == "mcp"

    assert _log(log) == ["start"]  # listed once

    rendered = session.invoke("greet", "Bob tone=cold", trigger="mcp")
    assert rendered.content == "Say hello to Bob in a cold tone."
    rendered = session.invoke("greet", '"Ann Lee"', trigger="tool")
    assert rendered.content == "Say hello to Ann Lee in a warm tone."
    # the listing's connection is reused: the server started once
    assert _log(log) == [
        "start",
        "greet name='Bob' tone='cold'",
        "greet name='Ann Lee' tone='warm'",
    ]

    with pytest.raises(PromptError, match=r"missing required argument\(s\) name"):
        session.invoke("greet", "", trigger="mcp")
    assert len(_log(log)) == 3  # refused before the server was asked

    # skill:// for a prompt skill: its SKILL.md is the description, nothing else exists
    res = session.resolve("skill://greet/SKILL.md")
    assert res.mime_type == "text/markdown" and "Arguments: <name> [tone]" in res.content
    assert session.resolve("skill://greet").content == res.content
    assert session.resolve("skill://greet/.").content == "SKILL.md\n"
    with pytest.raises(ResolveError, match="File not found"):
        session.resolve("skill://greet/notes.md")
    for bad in ("skill://greet/../../etc/passwd", "skill://greet/%2e%2e/%2E%2E/etc/passwd"):
        with pytest.raises(ContainmentError):
            session.resolve(bad)
    assert len(_log(log)) == 3


def test_listing_is_cached_per_server_configuration(world: Any, tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    entry = world.server("fx", "prompt_server.py", env={"FIXTURE_LOG": str(log)})
    settings = {"mcp": {"servers": [entry]}}
    first = load_skills(world.project, home=world.home, settings=settings)
    second = load_skills(world.project, home=world.home, settings=settings)
    assert _mcp(first) == _mcp(second) == ["greet", "review", "shared"]
    assert _log(log) == ["start"]
    changed = {"mcp": {"servers": [{**entry, "prefix": "fx-"}]}}
    third = load_skills(world.project, home=world.home, settings=changed)
    assert _mcp(third) == ["fx-greet", "fx-review", "fx-shared"]
    assert third.get("fx-greet").source.detail["prompt"] == "greet"
    assert _log(log) == ["start", "start"]
    clear_cache()  # a new process: the listing comes from the persistent cache
    again = load_skills(world.project, home=world.home, settings=settings)
    assert _mcp(again) == ["greet", "review", "shared"]
    assert again.get("greet").source.detail["cached"] is True
    assert _log(log) == ["start", "start"]
    clear_cache()
    load_skills(
        world.project,
        home=world.home,
        settings=settings,
        env={**os.environ, "SKILLPATH_MCP_REFRESH": "1"},
    )
    assert _log(log) == ["start", "start", "start"]


def test_broken_servers_are_diagnostics_and_the_rest_loads(world: Any) -> None:
    world.config(
        world.toml_servers(
            [
                world.server("fx", "prompt_server.py"),
                {"name": "missing", "command": str(world.home / "no-such-server")},
                world.server("exits", "prompt_server.py", "--exit"),
                world.server("garbage", "garbage_server.py"),
                world.server("silent", "silent_server.py", timeout=2),
                {"name": "nowhere", "url": "http://127.0.0.1:9/mcp"},
                {"name": "broken-entry", "command": 42},
            ]
        )
    )
    start = time.monotonic()
    result = load_skills(world.project, home=world.home)
    elapsed = time.monotonic() - start
    assert _mcp(result) == ["greet", "review", "shared"]
    failed = {
        d.message.split("'")[1]: d.message
        for d in result.diagnostics
        if d.code == "mcp-server-failed"
    }
    assert sorted(failed) == ["exits", "garbage", "missing", "nowhere", "silent"]
    assert "command not found" in failed["missing"]
    assert "closed the connection" in failed["exits"]
    assert "fatal: cannot open the database" in failed["exits"]
    assert "not JSON-RPC" in failed["garbage"] and "this is not json-rpc" in failed["garbage"]
    assert "no answer within 2s" in failed["silent"]
    assert "cannot connect" in failed["nowhere"] or "closed" in failed["nowhere"]
    for d in result.diagnostics:
        if d.code == "mcp-server-failed":
            assert d.level == "error" and d.provider == "mcp"
            assert d.path == world.home / ".skillpath" / "config.toml"
            assert d.message.endswith("its skills are not loaded")
    assert any(d.code == "mcp-config" and "entry 7" in d.message for d in result.diagnostics)
    assert elapsed < 15, elapsed


def test_no_servers_means_no_sdk_import(world: Any) -> None:
    code = (
        "import sys\n"
        "import skillpath\n"
        "from skillpath.cli import main\n"
        "try:\n"
        f"    main(['list', '--cwd', {str(world.project)!r}], standalone_mode=False)\n"
        "finally:\n"
        "    print('SDK', sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env=world.env,
        check=True,
    ).stdout
    assert "SDK []" in out, out


def test_a_chain_of_servers_stops(world: Any, tmp_path: Path) -> None:
    """A process started as the 3rd MCP server of a chain starts no servers itself, so a
    project whose [[mcp.servers]] serves the project itself cannot recurse forever."""
    log = tmp_path / "server.log"
    world.config(
        world.toml_servers([world.server("fx", "prompt_server.py", env={"FIXTURE_LOG": str(log)})])
    )
    env = {**world.env, "SKILLPATH_MCP_DEPTH": "3"}
    result = load_skills(world.project, home=world.home, env=env)
    assert _mcp(result) == []
    deep = [d for d in result.diagnostics if d.code == "mcp-too-deep"]
    assert len(deep) == 1 and deep[0].level == "warning" and deep[0].provider == "mcp"
    assert _log(log) == []
    env["SKILLPATH_MCP_DEPTH"] = "2"
    assert _mcp(load_skills(world.project, home=world.home, env=env)) == [
        "greet",
        "review",
        "shared",
    ]
    assert _log(log) == ["start"]
