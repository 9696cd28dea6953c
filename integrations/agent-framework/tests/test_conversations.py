"""Many sessions on one Agent Framework ``Agent``, ``search_skills``, metadata, no scripts."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, MutableSequence
from typing import Any

from agent_framework import Agent, ChatResponse, Message
from skillpath_agent_framework import SkillpathSkillsProvider
from skillpath_testing.adapters import (
    CROWD_BUDGET,
    LICENSED,
    SEARCHED_BODY,
    SEARCHED_SKILL,
    crowd,
    licensed_skill,
    search_then_load,
)

from .conftest import ScriptedClient, World, calls, final, system_text, tool_results


def provider(world: World, **kwargs: Any) -> SkillpathSkillsProvider:
    return SkillpathSkillsProvider(
        cwd=world.project,
        disable_load_skill_approval=True,
        disable_read_skill_resource_approval=True,
        **kwargs,
    )


class Reactive(ScriptedClient):
    """Loads ``greet`` after a user message, then answers ``done`` (any run order);
    ``answers`` holds every tool result it received."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: list[str] = []

    def _inner_get_response(
        self,
        *,
        messages: MutableSequence[Message],
        stream: bool,
        options: dict[str, Any],
        **kwargs: Any,
    ) -> Awaitable[ChatResponse]:
        self.seen.append(list(messages))
        self.tools_seen.append([t.name for t in options.get("tools") or []])
        results = tool_results([messages[-1]])
        self.answers += results.values()
        reply = final() if results else calls(("load_skill", {"skill_name": "greet"}))

        async def answer() -> ChatResponse:
            return reply

        return answer()


def agent_for(world: World) -> tuple[Agent[Any], Reactive]:
    client = Reactive()
    return Agent(client, instructions="You help.", context_providers=[provider(world)]), client


def test_a_second_conversation_gets_the_skill(world: World) -> None:
    """Before: the second run got "already loaded … follow the instructions it gave earlier"."""
    agent, client = agent_for(world)

    async def go() -> None:
        for _ in range(2):  # one after the other, no session: each run its own
            await agent.run("hi")

    asyncio.run(go())
    assert len(client.answers) == 2
    for answer in client.answers:
        assert "Say hello to ." in answer


def test_the_note_holds_within_one_session_only(world: World) -> None:
    agent, client = agent_for(world)

    async def go() -> None:
        one = agent.create_session()
        await agent.run("hi", session=one)
        await agent.run("again", session=one)
        await agent.run("hi", session=agent.create_session(session_id="chat-2"))
        await agent.run("later", session=agent.create_session(session_id=one.session_id))

    asyncio.run(go())
    first, again, other, resumed = client.answers
    assert "Say hello to ." in first
    assert "already loaded" in again and "Say hello" not in again
    assert "Say hello to ." in other
    assert "already loaded" in resumed  # the same session id: the same conversation


def test_concurrent_conversations_each_get_the_skill(world: World) -> None:
    agent, client = agent_for(world)

    async def go() -> None:
        await asyncio.gather(*(agent.run("hi", session=agent.create_session()) for _ in range(12)))

    asyncio.run(go())
    assert len(client.answers) == 12
    for answer in client.answers:
        assert "Say hello to ." in answer


def test_the_model_searches_then_loads_the_skill(world: World) -> None:
    crowd(world)
    client = ScriptedClient(*(calls(pair) for pair in search_then_load("load_skill")), final())
    skills = provider(world, budget=CROWD_BUDGET)
    agent = Agent(client, instructions="You help.", context_providers=[skills])
    assert asyncio.run(agent.run("fill my form")).text == "done"
    found = tool_results(client.seen[1])["c1"]
    assert found.splitlines()[1].startswith(f"- {SEARCHED_SKILL}:")
    assert SEARCHED_BODY in tool_results(client.seen[2])["c1"]
    prompt = system_text(client, 0)
    assert f"<name>{SEARCHED_SKILL}</name>" not in prompt  # left to the search
    assert "more skills are not listed: call `search_skills`" in prompt
    assert client.tools_seen[0] == ["load_skill", "read_skill_resource", "search_skills"]


def test_scripts_are_not_offered(world: World) -> None:
    """Before: ``run_skill_script`` was offered and answered "not found" for every script."""
    folder = world.skill("tooling", "Has a script.").parent
    (folder / "scripts").mkdir()
    (folder / "scripts" / "go.sh").write_text("echo ran\n", encoding="utf-8")
    client = ScriptedClient(
        calls(("run_skill_script", {"skill_name": "tooling", "script_name": "scripts/go.sh"})),
        final(),
    )
    agent = Agent(client, instructions="You help.", context_providers=[provider(world)])
    asyncio.run(agent.run("go"))
    assert "run_skill_script" not in client.tools_seen[0]
    assert "run_skill_script" not in system_text(client, 0)
    answer = tool_results(client.seen[1])["c1"]
    assert "ran" not in answer and "Error" in answer


def test_frontmatter_metadata_reaches_agent_framework(world: World) -> None:
    licensed_skill(world, metadata="{owner: docs, version: 2}")
    skills = provider(world)
    found = asyncio.run(skills.source.get_skills(None))  # type: ignore[arg-type]
    (fm,) = [s.frontmatter for s in found if s.frontmatter.name == "licensed"]
    assert (fm.license, fm.compatibility, fm.allowed_tools) == tuple(LICENSED.values())
    assert fm.metadata == {"owner": "docs", "version": "2"}


def test_unknown_names_get_the_cores_answer(world: World) -> None:
    skills = provider(world)
    client = ScriptedClient(calls(("load_skill", {"skill_name": "nope"})), final())
    agent = Agent(client, instructions="You help.", context_providers=[skills])
    asyncio.run(agent.run("go"))
    assert tool_results(client.seen[1])["c1"] == skills.skills.call("nope")
