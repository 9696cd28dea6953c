"""Many sessions on one Agno ``Agent``, ``search_skills``, files, metadata."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from agno.agent import Agent
from agno.models.response import ModelResponse
from skillpath_agno import SkillpathSkills
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

from .conftest import ScriptedModel, Turn, World, call


@dataclass
class Reactive(ScriptedModel):
    """Loads ``greet`` after a user message, then answers ``done`` (any run order);
    ``answers`` holds the instructions of every ``get_skill_instructions`` result."""

    answers: list[str] = field(default_factory=list)

    def _answer(self, messages: list[Any], tools: Any) -> ModelResponse:
        self.turns.append(Turn("", list(messages), list(tools or [])))
        last = messages[-1]
        if last.role == "tool":
            self.answers.append(str(json.loads(str(last.content))["instructions"]))
            return ModelResponse(role="assistant", content="done")
        greet = call(
            "get_skill_instructions", f"c{len(self.turns)}", skill_name="greet", args="Ada"
        )
        return ModelResponse(role="assistant", content="", tool_calls=[greet])


def agent_for(world: World) -> tuple[Agent, Reactive]:
    model = Reactive()
    skills = SkillpathSkills(cwd=world.project)
    return Agent(model=model, instructions="You help.", skills=skills, telemetry=False), model


def test_a_second_session_gets_the_skill(world: World) -> None:
    """Before: every call rendered in full (no note at all); now the note is per session."""
    agent, model = agent_for(world)
    for session in ("chat-1", "chat-2"):  # one after the other
        agent.run("hi", session_id=session)
    assert len(model.answers) == 2
    for answer in model.answers:
        assert "Say hello to Ada." in answer


def test_the_note_holds_within_one_session_only(world: World) -> None:
    agent, model = agent_for(world)
    agent.run("hi", session_id="one")
    agent.run("again", session_id="one")
    agent.run("hi", session_id="two")
    first, again, other = model.answers
    assert "Say hello to Ada." in first
    assert "already loaded" in again and "Say hello" not in again
    assert "Say hello to Ada." in other


def test_concurrent_sessions_each_get_the_skill(world: World) -> None:
    agent, model = agent_for(world)

    async def go() -> None:
        await asyncio.gather(*(agent.arun("hi", session_id=f"s{i}") for i in range(12)))

    asyncio.run(go())
    assert len(model.answers) == 12
    for answer in model.answers:
        assert "Say hello to Ada." in answer


def test_the_model_searches_then_loads_the_skill(world: World) -> None:
    crowd(world)
    pairs = enumerate(search_then_load("get_skill_instructions"), 1)
    model = ScriptedModel(script=[[call(name, f"s{i}", **args)] for i, (name, args) in pairs])
    skills = SkillpathSkills(cwd=world.project, budget=CROWD_BUDGET)
    agent = Agent(model=model, instructions="You help.", skills=skills, telemetry=False)
    assert str(agent.run("fill my form").content) == "done"
    out = model.tool_results()
    assert out["s1"].splitlines()[1].startswith(f"- {SEARCHED_SKILL}:")
    assert SEARCHED_BODY in json.loads(out["s2"])["instructions"]
    system = model.turns[0].system
    assert f"<name>{SEARCHED_SKILL}</name>" not in system  # left to the search
    assert "more skills are not listed: call `search_skills(query)`" in system
    assert "search_skills" in model.tool_names()


def test_a_file_beside_skill_md_is_read_with_get_skill_reference(world: World) -> None:
    styled_skill(world)
    model = ScriptedModel(
        script=[
            [
                call("get_skill_instructions", "c1", skill_name="styled"),
                call("get_skill_reference", "c2", skill_name="styled", reference_path="style.md"),
                call("get_skill_reference", "c3", skill_name="deploy", reference_path="SKILL.md"),
                call(
                    "get_skill_reference",
                    "c4",
                    skill_name="styled",
                    reference_path="../greet/SKILL.md",
                ),
            ]
        ]
    )
    agent = Agent(
        model=model,
        instructions="You help.",
        skills=SkillpathSkills(cwd=world.project),
        telemetry=False,
    )
    agent.run("write")
    out = {k: json.loads(v) for k, v in model.tool_results().items()}
    first = str(out["c1"]["instructions"]).splitlines()[0]
    assert first.endswith(
        "(read its files with get_skill_reference: reference_path inside this folder)"
    )
    assert out["c2"]["content"] == STYLE_TEXT
    assert "cannot be invoked by the model" in str(out["c3"]["error"])  # user-only: refused
    assert "error" in out["c4"]


def test_frontmatter_metadata_reaches_agno(world: World) -> None:
    licensed_skill(world)
    skill = SkillpathSkills(cwd=world.project).get_skill("licensed")
    assert skill is not None
    assert (skill.license, skill.compatibility) == (LICENSED["license"], LICENSED["compatibility"])
    assert skill.allowed_tools == ["Read", "Grep"] and skill.metadata == {"owner": "docs"}


def test_unknown_names_get_the_cores_answer(world: World) -> None:
    skills = SkillpathSkills(cwd=world.project)
    model = ScriptedModel(script=[[call("get_skill_instructions", "c1", skill_name="nope")]])
    Agent(model=model, instructions="You help.", skills=skills, telemetry=False).run("go")
    expected = skills.skillpath.call("nope").removeprefix("Error: ")
    assert json.loads(model.tool_results()["c1"]) == {"error": expected}
