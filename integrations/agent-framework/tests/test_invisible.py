"""No invisible character reaches the model through the provider: the instructions,
every tool's definition and the ``load_skill``, ``read_skill_resource`` and
``search_skills`` results."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, MutableSequence
from typing import Any

from agent_framework import Agent, ChatResponse, Message
from skillpath_agent_framework import SkillpathSkillsProvider
from skillpath_testing.hostile import (
    HOSTILE_BODY,
    HOSTILE_DESCRIPTION,
    HOSTILE_FILE_NAMES,
    HOSTILE_REFERENCE,
    HOSTILE_SKILLS,
    LEGIT_FILE_NAMES,
    LEGIT_TEXT,
    assert_no_invisible,
    hostile_skills,
)

from .conftest import ScriptedClient, World, calls, final, system_text, tool_results


class Recording(ScriptedClient):
    """Keeps each tool's name and description as the agent offers them."""

    def __init__(self, *replies: ChatResponse) -> None:
        super().__init__(*replies)
        self.tool_texts: list[str] = []

    def _inner_get_response(
        self,
        *,
        messages: MutableSequence[Message],
        stream: bool,
        options: dict[str, Any],
        **kw: Any,
    ) -> Awaitable[ChatResponse]:
        for t in options.get("tools") or []:
            self.tool_texts += [str(t.name), str(getattr(t, "description", ""))]
        return super()._inner_get_response(messages=messages, stream=stream, options=options, **kw)


def test_the_agent_gets_no_invisible_character(world: World) -> None:
    hostile_skills(world.project)
    pairs: list[tuple[str, dict[str, Any]]] = [("search_skills", {"query": "format tables"})]
    for name in HOSTILE_SKILLS:
        pairs += [
            ("load_skill", {"skill_name": name}),
            ("read_skill_resource", {"skill_name": name, "resource_name": "references/guide.md"}),
            # a file refused by its name is not read; one merely not ASCII is
            ("read_skill_resource", {"skill_name": name, "resource_name": HOSTILE_FILE_NAMES[1]}),
            ("read_skill_resource", {"skill_name": name, "resource_name": LEGIT_FILE_NAMES[0]}),
        ]
    client = Recording(calls(*pairs), final())
    provider = SkillpathSkillsProvider(
        cwd=world.project,
        disable_load_skill_approval=True,
        disable_read_skill_resource_approval=True,
    )
    agent = Agent(client, instructions="You help.", context_providers=[provider])

    async def go() -> None:
        await agent.run("go")

    asyncio.run(go())
    system = system_text(client, 0)
    assert HOSTILE_DESCRIPTION in system
    results = tool_results(client.seen[-1])
    seen = "\n".join(results.values())
    assert HOSTILE_BODY in seen and HOSTILE_REFERENCE in seen and HOSTILE_DESCRIPTION in seen
    assert LEGIT_TEXT in seen
    assert_no_invisible([system, *results.values()], "instructions and results")
    assert_no_invisible([m.text for m in client.seen[-1]], "messages")
    assert client.tool_texts
    assert_no_invisible(client.tool_texts, "tools")
