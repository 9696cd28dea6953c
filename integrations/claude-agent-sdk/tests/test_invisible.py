"""No invisible character reaches the model through the plugin: every file of the copy
Claude Code reads from disk (skills, references, manifest) and the ``search_skills``
tool's definition and results."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace

from skillpath_claude_agent_sdk import SkillpathPlugin
from skillpath_testing.adapters import AdapterWorld
from skillpath_testing.hostile import (
    HOSTILE_BODY,
    HOSTILE_DESCRIPTION,
    HOSTILE_REFERENCE,
    HOSTILE_SKILLS,
    assert_no_invisible,
    hostile_skills,
)


def test_the_plugin_copy_on_disk_holds_no_invisible_character(
    world: AdapterWorld, tmp_path: Path
) -> None:
    hostile_skills(world.project)
    plugin = SkillpathPlugin(world.session(), tmp_path / "plugin")
    export = plugin.sync()
    assert set(HOSTILE_SKILLS) <= set(export.skills)
    files = {
        p.relative_to(tmp_path).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted((tmp_path / "plugin").rglob("*"))
        if p.is_file()
    }
    for name in HOSTILE_SKILLS:
        skill_md = next(t for rel, t in files.items() if rel.endswith(f"/{name}/SKILL.md"))
        assert HOSTILE_DESCRIPTION in skill_md and HOSTILE_BODY in skill_md
        guide = next(t for rel, t in files.items() if rel.endswith(f"/{name}/references/guide.md"))
        assert HOSTILE_REFERENCE in guide
    for rel, text in files.items():
        assert_no_invisible(text, rel)


def test_the_search_tool_holds_no_invisible_character(world: AdapterWorld, tmp_path: Path) -> None:
    hostile_skills(world.project)
    plugin = SkillpathPlugin(world.session(), tmp_path / "plugin")
    server = plugin.search_server()["instance"]

    async def scenario() -> tuple[str, str]:
        # the server's own handlers, as Claude Code's tools/list and tools/call reach them
        listed = await server.get_request_handler("tools/list").handler(None, None)
        params = SimpleNamespace(name="search_skills", arguments={"query": "format tables"})
        called = await server.get_request_handler("tools/call").handler(None, params)
        return (
            json.dumps(listed.model_dump(), ensure_ascii=False),
            json.dumps(called.model_dump(), ensure_ascii=False),
        )

    tools, result = asyncio.run(scenario())
    assert "search_skills" in tools and HOSTILE_DESCRIPTION in result
    assert_no_invisible([tools, result], "search_skills")
