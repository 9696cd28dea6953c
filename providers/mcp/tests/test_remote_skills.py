"""SEP-2640 skills from a fixture server: resources-only discovery, digests, frontmatter checks."""

from __future__ import annotations

import time
from typing import Any

import pytest
from skillpath.errors import PromptError, ResolveError
from skillpath.session import SkillSession
from skillpath_mcp.provider import clear_cache


def _open(world: Any, *args: str) -> SkillSession:
    world.config(world.toml_servers([world.server("sk", "skills_server.py", *args)]))
    return SkillSession.open(world.project, home=world.home)


def test_skill_resources_without_skills_list(world: Any) -> None:
    session = _open(world)
    alpha = session.get("alpha")
    assert alpha is not None
    assert alpha.source.detail["via"] == "resources/list"
    assert alpha.source.detail["uri"] == "skill://alpha/SKILL.md"
    assert alpha.source.detail["resources"] is None
    assert alpha.description == "Alpha from resources."
    beta = session.get("beta")
    assert beta is not None and beta.source.detail["skill_path"] == "tools/beta"
    assert session.get("other") is None  # data://other is not a skill
    assert not [d for d in session.result.diagnostics if d.provider == "mcp"]

    # no prompt: invocation renders the SKILL.md body read from the server
    rendered = session.invoke("alpha", "x y", trigger="mcp")
    assert rendered.content == "Alpha body: read notes.md.\n\nARGUMENTS: x y\n"
    assert session.resolve("skill://alpha/notes.md").content == "# Alpha notes\n"
    assert session.resolve("skill://alpha/.").content == "SKILL.md\nnotes.md\n"
    with pytest.raises(ResolveError, match=r"notes-missing\.md"):
        session.resolve("skill://alpha/notes-missing.md")


def test_skills_list_entries_are_verified(world: Any) -> None:
    session = _open(world, "--sep")
    diags = [(d.code, d.message) for d in session.result.diagnostics if d.provider == "mcp"]
    assert (
        "mcp-server-partial",
        "MCP server 'sk': skills/list entry 'not-a-skill': the uri must name a SKILL.md",
    ) in diags
    assert any(code == "mcp-frontmatter-dropped" and "'hooks'" in msg for code, msg in diags)
    beta = session.get("beta")
    assert beta is not None and beta.frontmatter.hooks is None
    assert beta.description == "Beta as listed."
    alpha = session.get("alpha")
    assert alpha is not None and alpha.source.detail["via"] == "skills/list"

    # SKILL.md matches its digest: loads
    assert "Alpha body" in session.invoke("alpha", "", trigger="mcp").content
    # notes.md does not match the published digest: refused
    with pytest.raises(ResolveError, match="does not match the sha256 digest"):
        session.resolve("skill://alpha/notes.md")
    # a file the entry does not list is not read at all
    with pytest.raises(ResolveError, match=r"has no file 'extra\.md'"):
        session.resolve("skill://alpha/extra.md")
    # beta's SKILL.md frontmatter differs from the listing: not loaded
    with pytest.raises(PromptError, match="frontmatter differs from its skills/list entry"):
        session.invoke("beta", "", trigger="mcp")


def test_connections_are_closed_and_no_process_is_left(world: Any) -> None:
    before = set(world.children())
    world.config(
        world.toml_servers(
            [
                world.server("sk", "skills_server.py"),
                world.server("fx", "prompt_server.py"),
                world.server("garbage", "garbage_server.py"),
                world.server("silent", "silent_server.py", timeout=1),
            ]
        )
    )
    session = SkillSession.open(world.project, home=world.home)
    assert session.get("alpha") is not None and session.get("greet") is not None
    assert len(set(world.children()) - before) == 2  # the two good servers stay connected
    clear_cache()
    deadline = time.monotonic() + 10
    while set(world.children()) - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert set(world.children()) - before == set()
