"""Conversations, ``read_skill``, ``search_skills`` and metadata through Strands' ``Agent``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable
from typing import Any

from skillpath_strands import SkillpathAgentSkills
from skillpath_testing.adapters import (
    CROWD_BUDGET,
    LICENSED,
    SEARCHED_BODY,
    SEARCHED_SKILL,
    STYLE_TEXT,
    crowd,
    licensed_skill,
    search_then_load,
    styled_skill,
)
from strands import Agent

from .conftest import ScriptedModel, World, call


class Reactive(ScriptedModel):
    """Calls ``skills`` greet after a user message, then answers ``done`` (any run
    order); ``answers`` holds every ``skills`` result it was sent."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: list[str] = []

    async def stream(  # type: ignore[override]
        self, messages: Any, tool_specs: Any = None, system_prompt: str | None = None, **kw: Any
    ) -> AsyncIterable[Any]:
        results = [b["toolResult"] for b in messages[-1]["content"] if "toolResult" in b]
        self.answers += ["".join(c.get("text", "") for c in r["content"]) for r in results]
        self.script = [] if results else [[call("skills", "c1", skill_name="greet", args="Ada")]]
        async for event in super().stream(messages, tool_specs, system_prompt, **kw):
            yield event


def agent_for(plugin: SkillpathAgentSkills, model: ScriptedModel) -> Agent:
    return Agent(model=model, system_prompt="You help.", plugins=[plugin], callback_handler=None)


def test_a_new_conversation_on_one_agent_gets_the_skill(world: World) -> None:
    """An agent whose history was cleared starts a new conversation: the skill again."""
    model = Reactive()
    agent = agent_for(SkillpathAgentSkills(cwd=world.project), model)
    agent("hi")
    agent("again")  # the same conversation: the text is still in the history
    agent.messages.clear()
    agent("hi")  # one after the other, a new conversation
    first, again, fresh = model.answers
    assert "Say hello to Ada." in first
    assert "already loaded" in again and "Say hello" not in again
    assert "Say hello to Ada." in fresh


def test_agents_sharing_the_plugin_are_conversations_of_their_own(world: World) -> None:
    model = Reactive()
    plugin = SkillpathAgentSkills(cwd=world.project)
    for _ in range(2):  # one after the other
        agent_for(plugin, model)("hi")
    assert len(model.answers) == 2
    for answer in model.answers:
        assert "Say hello to Ada." in answer


def test_concurrent_conversations_each_get_the_skill(world: World) -> None:
    model = Reactive()
    plugin = SkillpathAgentSkills(cwd=world.project)
    agents = [agent_for(plugin, model) for _ in range(12)]

    async def go() -> None:
        await asyncio.gather(*(agent.invoke_async("hi") for agent in agents))

    asyncio.run(go())
    assert len(model.answers) == 12
    for answer in model.answers:
        assert "Say hello to Ada." in answer


def test_the_model_searches_then_loads_the_skill(world: World) -> None:
    crowd(world)
    pairs = enumerate(search_then_load("skills"), 1)
    model = ScriptedModel(*([call(name, f"s{i}", **args)] for i, (name, args) in pairs))
    agent = agent_for(SkillpathAgentSkills(cwd=world.project, budget=CROWD_BUDGET), model)
    assert str(agent("fill my form")).strip() == "done"
    out = model.tool_results()
    assert out["s1"].splitlines()[1].startswith(f"- {SEARCHED_SKILL}:")
    assert SEARCHED_BODY in out["s2"]
    system = model.turns[0].system
    assert f"<name>{SEARCHED_SKILL}</name>" not in system  # left to the search
    assert "more skills are not listed: call search_skills" in system
    assert system.count("more skills are not listed") == 1
    agent("again")
    assert model.turns[-1].system.count("more skills are not listed") == 1  # replaced


def test_the_skills_files_are_read_with_read_skill(world: World) -> None:
    styled_skill(world)
    model = ScriptedModel(
        [call("skills", "c1", skill_name="styled")],
        [call("read_skill", "c2", url="skill://styled/style.md")],
        [call("read_skill", "c3", url="skill://styled/../greet/SKILL.md")],
    )
    agent_for(SkillpathAgentSkills(cwd=world.project), model)("write")
    out = model.tool_results()
    assert "(read its files with read_skill: skill://styled/<path>)" in out["c1"].splitlines()[0]
    assert out["c2"] == STYLE_TEXT
    assert out["c3"].startswith("Error: ")


def test_frontmatter_metadata_reaches_strands(world: World) -> None:
    licensed_skill(world)
    plugin = SkillpathAgentSkills(cwd=world.project)
    (skill,) = [s for s in plugin.get_available_skills() if s.name == "licensed"]
    assert (skill.license, skill.compatibility) == (LICENSED["license"], LICENSED["compatibility"])
    assert skill.allowed_tools == ["Read", "Grep"] and skill.metadata == {"owner": "docs"}
    model = ScriptedModel([call("skills", "c1", skill_name="licensed")])
    agent_for(plugin, model)("go")
    answer = model.tool_results()["c1"]
    assert "Allowed tools: Read, Grep" in answer and "Compatibility: Needs git" in answer


def test_unknown_names_get_the_cores_answer(world: World) -> None:
    plugin = SkillpathAgentSkills(cwd=world.project)
    model = ScriptedModel([call("skills", "c1", skill_name="nope")])
    agent_for(plugin, model)("go")
    assert model.tool_results()["c1"] == plugin.skillpath.call("nope")
