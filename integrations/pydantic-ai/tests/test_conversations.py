"""Many conversations on one pydantic-ai agent, a skill's files, and ``search_skills``."""

from __future__ import annotations

import asyncio
import json

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from skillpath_pydantic_ai import SkillpathToolset
from skillpath_testing.adapters import PROJECT_SKILL, AdapterWorld

from .test_pydantic_ai import Call


class Steps:
    """A scripted model that sends the next list of calls on every request, then ``done``;
    ``returns`` holds every tool result it received, in order."""

    def __init__(self, *turns: list[Call]) -> None:
        self.turns = list(turns)
        self.returns: list[tuple[str, str]] = []
        self.instructions: list[str] = []
        self.tools: list[set[str]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        self.returns += [
            (p.tool_name, str(p.content))
            for p in (last.parts if isinstance(last, ModelRequest) else [])
            if isinstance(p, ToolReturnPart)
        ]
        self.instructions.append(info.instructions or "")
        self.tools.append({t.name for t in info.function_tools})
        if not self.turns:
            return ModelResponse(parts=[TextPart("done")])
        return ModelResponse(
            parts=[
                ToolCallPart(name, json.dumps(args), tool_call_id=f"{len(self.turns)}-{i}")
                for i, (name, args) in enumerate(self.turns.pop(0))
            ]
        )


def reactive(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Calls ``Skill`` pdf-notes after each user prompt, then answers ``done`` (any order)."""
    last = messages[-1]
    if isinstance(last, ModelRequest) and any(isinstance(p, ToolReturnPart) for p in last.parts):
        return ModelResponse(parts=[TextPart("done")])
    args = json.dumps({"skill": PROJECT_SKILL, "args": "a.pdf"})
    return ModelResponse(parts=[ToolCallPart("Skill", args, tool_call_id=f"c{len(messages)}")])


def skill_answers(messages: list[ModelMessage]) -> list[str]:
    return [
        str(p.content)
        for m in messages
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart) and p.tool_name == "Skill"
    ]


def agent_for(world: AdapterWorld) -> Agent[None, str]:
    return Agent(FunctionModel(reactive), toolsets=[SkillpathToolset(world.session())])


def test_a_second_conversation_gets_the_skill(world: AdapterWorld) -> None:
    """Before: the second run got "already loaded … follow the instructions it gave earlier"."""
    agent = agent_for(world)
    for _ in range(3):  # one after the other: each run without history is a new conversation
        (answer,) = skill_answers(agent.run_sync("notes").new_messages())
        assert "Read the PDF a.pdf and write notes" in answer


def test_the_note_holds_within_one_conversation_only(world: AdapterWorld) -> None:
    agent = agent_for(world)
    first = agent.run_sync("notes")
    (answer,) = skill_answers(first.new_messages())
    assert "Read the PDF a.pdf" in answer
    again = agent.run_sync("again", message_history=first.all_messages())  # the same one
    (note,) = skill_answers(again.new_messages())
    assert "already loaded" in note and "Read the PDF" not in note
    named = [agent.run_sync("notes", conversation_id=c).new_messages() for c in ("a", "a", "b")]
    assert "Read the PDF a.pdf" in skill_answers(named[0])[0]
    assert "already loaded" in skill_answers(named[1])[0]
    assert "Read the PDF a.pdf" in skill_answers(named[2])[0]


def test_concurrent_conversations_each_get_the_skill(world: AdapterWorld) -> None:
    agent = agent_for(world)

    async def main() -> list[list[ModelMessage]]:
        results = await asyncio.gather(*(agent.run("notes") for _ in range(12)))
        return [r.new_messages() for r in results]

    for messages in asyncio.run(main()):
        (answer,) = skill_answers(messages)
        assert "Read the PDF a.pdf and write notes" in answer


def test_the_skills_files_are_followable(world: AdapterWorld) -> None:
    script = Steps(
        [("Skill", {"skill": PROJECT_SKILL, "args": "a.pdf"})],
        [("read_skill", {"url": f"skill://{PROJECT_SKILL}/reference.md"})],
        [("read_skill", {"url": f"skill://{PROJECT_SKILL}/../../../../etc/passwd"})],
    )
    Agent(FunctionModel(script), toolsets=[SkillpathToolset(world.session())]).run_sync("go")
    (_, skill), (_, read), (_, refused) = script.returns
    assert "see reference.md for the format" in skill
    assert (
        f"Its files are at skill://{PROJECT_SKILL}/<path>: read them with the read_skill" in skill
    )
    assert read == "Notes are bullet points.\n"
    assert refused.startswith("Error: ")


def test_the_model_searches_then_calls_the_skill(world: AdapterWorld) -> None:
    for i in range(30):
        world.write(f"filler-{i:02d}", f"Filler skill number {i} " + "z" * 60)
    world.write("pdf-forms", "Fill in PDF forms and extract their fields.", "Forms: $0.\n")
    script = Steps(
        [("search_skills", {"query": "fill a pdf form", "k": 3})],
        [("Skill", {"skill": "pdf-forms", "args": "tax.pdf"})],
    )
    toolset = SkillpathToolset(world.session(), budget=600)
    Agent(FunctionModel(script), toolsets=[toolset]).run_sync("fill my form")
    (_, found), (_, skill) = script.returns
    assert found.splitlines()[1].startswith("- pdf-forms:")
    assert "Forms: tax.pdf." in skill
    system = script.instructions[0]
    assert "search_skills" in system and "pdf-forms" not in system  # left to the search
    assert {"Skill", "read_skill", "search_skills"} <= script.tools[0]


def test_ten_thousand_conversations_stay_within_the_sessions_bound(world: AdapterWorld) -> None:
    from skillpath.session import MAX_REMEMBERED

    toolset = SkillpathToolset(world.session())
    call = {"skill": PROJECT_SKILL, "args": "a.pdf"}
    for i in range(10_000):
        assert "Read the PDF a.pdf" in toolset.answer("Skill", call, f"conversation:{i}")
    assert toolset.session.remembered() <= MAX_REMEMBERED
    assert "already loaded" in toolset.answer("Skill", call, "conversation:9999")


def test_no_arguments_render_as_the_empty_string(world: AdapterWorld) -> None:
    world.write("placeholders", "Shows its placeholders.", "A:[$ARGUMENTS] B:[$0]\n")
    script = Steps(
        [("Skill", {"skill": "placeholders"})],
        [("Skill", {"skill": "placeholders", "args": ""})],
        [("Skill", {"skill": "nope"})],
    )
    toolset = SkillpathToolset(world.session())
    Agent(FunctionModel(script), toolsets=[toolset]).run_sync("go", conversation_id="one")
    (_, left_out), (_, empty), (_, unknown) = script.returns
    assert "A:[] B:[$0]" in left_out  # as with arguments given as the empty string
    assert "already loaded" in empty  # the same call, in the same conversation
    assert unknown == toolset.skills.call("nope")  # the core's text
    assert unknown.startswith("Error: Unknown skill 'nope'.")
