"""Consuming a hostile MCP server: too many prompts and skills, huge descriptions,
huge prompt and file contents. Scaled down (a few hundred items, caps set low in
``[mcp]``); every cut is reported naming the server."""

from __future__ import annotations

from typing import Any

import pytest
from skillpath.errors import PromptError
from skillpath.session import SkillSession

CAPS = {"max_items": 100, "max_description": 200, "max_content": 100_000}


def _hostile(world: Any, content: int = 300_000, **caps: int) -> SkillSession:
    env = {
        "HOSTILE_PROMPTS": "300",
        "HOSTILE_DESCRIPTION": "5000",
        "HOSTILE_CONTENT": str(content),
        "HOSTILE_RESOURCES": "120",
    }
    text = world.toml_servers([world.server("evil", "hostile_server.py", env=env)], timeout=60)
    text = text.replace("[mcp]\n", "[mcp]\n" + "".join(f"{k} = {v}\n" for k, v in caps.items()))
    world.config(text)
    return SkillSession.open(world.project, home=world.home)


def _mcp(session: SkillSession) -> list[Any]:
    return [s for s in session.skills() if s.source.provider == "mcp"]


def test_lists_descriptions_and_contents_are_capped(world: Any) -> None:
    session = _hostile(world, **CAPS)
    remote = _mcp(session)
    prompts = [s for s in remote if s.source.detail["kind"] == "prompt"]
    skills = [s for s in remote if s.source.detail["kind"] == "skill"]
    assert len(prompts) == 100 and len(skills) == 100
    assert all(len(s.description) <= 200 for s in remote)
    assert all(len(s.source.detail["resources"]) <= 100 for s in skills)

    notes = [d.message for d in session.result.diagnostics if d.code == "mcp-server-partial"]
    text = "\n".join(notes)
    assert all("MCP server 'evil'" in n for n in notes)
    assert "300 prompts; the first 100 kept ([mcp] max_items)" in text
    assert "300 skills; the first 100 kept ([mcp] max_items)" in text
    assert "files of 100 skills cut to the first 100 ([mcp] max_items)" in text
    assert "descriptions of 200 prompts and skills cut to 200 characters" in text

    with pytest.raises(PromptError) as prompt_error:
        session.invoke("p0")
    assert "MCP server 'evil'" in str(prompt_error.value)
    assert "300000 characters; the limit is 100000 ([mcp] max_content)" in str(prompt_error.value)
    with pytest.raises(PromptError) as body_error:
        session.invoke("s0")
    assert "MCP server 'evil'" in str(body_error.value)
    assert "[mcp] max_content" in str(body_error.value)


def test_the_caps_have_generous_defaults(world: Any) -> None:
    session = _hostile(world)
    remote = _mcp(session)
    assert len(remote) == 600  # 300 prompts and 300 skills fit the default of 1000 each
    notes = [d.message for d in session.result.diagnostics if d.code == "mcp-server-partial"]
    assert any("cut to 1024 characters" in n for n in notes)  # descriptions: 1024
    text = session.invoke("p0").content  # 300,000 characters fit the default 8 MiB
    assert "x" * 300_000 in text
    # a long description, cut the same way in the listing and in the file: the body loads
    assert "b" * 300_000 in session.invoke("s0").content


def test_an_oversized_message_is_not_read(world: Any) -> None:
    """Over ``max(4 × max_content, 8 MiB)`` bytes, a message is skipped as it arrives
    (before: read whole — a 50 MB line cost tens of seconds and hundreds of MB —
    and only then checked)."""
    session = _hostile(world, content=10_000_000, **CAPS)
    with pytest.raises(PromptError) as error:
        session.invoke("p0")
    message = str(error.value)
    assert "MCP server 'evil'" in message
    assert "a message over 8388608 bytes ([mcp] max_content); not read" in message
    # the connection stays usable: the next request is answered (and refused by size)
    with pytest.raises(PromptError) as again:
        session.invoke("p1")
    assert "not read" in str(again.value)
