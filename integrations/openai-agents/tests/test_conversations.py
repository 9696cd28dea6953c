"""Many conversations on one ``agents.Agent``, and the ``search_skills`` tool."""

from __future__ import annotations

import asyncio
from typing import Any

from agents import Agent, ModelResponse, RunConfig, Runner, Usage
from skillpath_openai_agents import SkillpathSkills

from .conftest import ScriptedModel, World, text, tool_call


class Reactive(ScriptedModel):
    """Loads ``greet`` after a user message, then answers ``done`` (any run order)."""

    async def get_response(
        self, system_instructions: str | None, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        self.turns.append(None)  # type: ignore[arg-type]
        last = input[-1] if isinstance(input, list) else {"role": "user"}
        done = isinstance(last, dict) and last.get("type") == "function_call_output"
        output = (
            [text("done")]
            if done
            else [tool_call("load_skill", f"c{len(self.turns)}", skill="greet", args="Ada")]
        )
        return ModelResponse(output=output, usage=Usage(), response_id=None)


def loaded(result: Any) -> list[str]:
    return [
        str(item.output)
        for item in result.new_items
        if getattr(item, "type", "") == "tool_call_output_item"
    ]


def agent_for(world: World) -> Agent[Any]:
    skills = SkillpathSkills(cwd=world.project)
    return Agent(
        name="dev",
        instructions=skills.instructions("You help."),
        tools=skills.tools,
        model=Reactive(),
    )


def test_a_second_conversation_gets_the_skill(world: World) -> None:
    """Before: the second run got "already loaded … follow the instructions it gave earlier"."""
    agent = agent_for(world)
    for _ in range(2):  # one after the other: each run its own conversation
        (answer,) = loaded(Runner.run_sync(agent, "hi"))
        assert "Say hello to Ada." in answer


def test_the_note_holds_within_one_group_only(world: World) -> None:
    agent = agent_for(world)
    one = RunConfig(group_id="thread-1")
    assert "Say hello to Ada." in loaded(Runner.run_sync(agent, "hi", run_config=one))[0]
    assert "already loaded" in loaded(Runner.run_sync(agent, "again", run_config=one))[0]
    two = RunConfig(group_id="thread-2")
    assert "Say hello to Ada." in loaded(Runner.run_sync(agent, "hi", run_config=two))[0]


def test_concurrent_conversations_each_get_the_skill(world: World) -> None:
    agent = agent_for(world)

    async def main() -> list[Any]:
        return await asyncio.gather(*(Runner.run(agent, "hi") for _ in range(12)))

    for result in asyncio.run(main()):
        (answer,) = loaded(result)
        assert "Say hello to Ada." in answer


def test_the_model_searches_then_loads_the_skill(world: World) -> None:
    for i in range(30):
        world.skill(f"filler-{i:02d}", f"Filler skill number {i} " + "z" * 60)
    world.skill("pdf-forms", "Fill in PDF forms and extract their fields.")
    skills = SkillpathSkills(cwd=world.project, budget=600)
    model = ScriptedModel(
        [tool_call("search_skills", "s1", query="fill a pdf form")],
        [tool_call("load_skill", "s2", skill="pdf-forms", args="")],
        [text("done")],
    )
    agent = Agent(
        name="dev", instructions=skills.instructions("You help."), tools=skills.tools, model=model
    )
    assert Runner.run_sync(agent, "fill my form").final_output == "done"
    outputs = model.tool_outputs()
    assert outputs["s1"].splitlines()[1].startswith("- pdf-forms:")
    assert "Base directory for this skill" in outputs["s2"]
    assert {t.name for t in model.turns[0].tools} == {
        "load_skill",
        "search_skills",
        "read_skill_file",
    }
    system = model.turns[0].system or ""
    assert "search_skills" in system and "pdf-forms" not in system  # left to the search


def test_concurrent_groups_keep_their_own_note(world: World) -> None:
    """Twelve chat threads at once on one agent, each twice: the second turn of a thread
    gets the note, the first turn of every other thread the skill."""
    agent = agent_for(world)

    async def thread(i: int) -> tuple[str, str]:
        config = RunConfig(group_id=f"thread-{i}")
        first = await Runner.run(agent, "hi", run_config=config)
        second = await Runner.run(agent, "again", run_config=config)
        return loaded(first)[0], loaded(second)[0]

    async def main() -> list[tuple[str, str]]:
        return await asyncio.gather(*(thread(i) for i in range(12)))

    for first, second in asyncio.run(main()):
        assert "Say hello to Ada." in first
        assert "already loaded" in second


def test_the_model_reads_a_skill_file_with_the_read_tool(world: World) -> None:
    """A plain ``Agent`` has no file tool: ``read_skill_file`` follows "read references/…"."""
    folder = world.skill("styled", "Write in house style.", body="Read references/style.md.\n")
    (folder.parent / "references").mkdir()
    (folder.parent / "references" / "style.md").write_text("Short sentences.\n", encoding="utf-8")
    (world.project / "secret.txt").write_text("no\n", encoding="utf-8")
    skills = SkillpathSkills(cwd=world.project)
    model = ScriptedModel(
        [tool_call("load_skill", "c1", skill="styled", args="")],
        [
            tool_call("read_skill_file", "c2", skill="styled", path="references/style.md"),
            tool_call("read_skill_file", "c3", skill="styled", path="../../../secret.txt"),
        ],
        [text("done")],
    )
    agent = Agent(name="dev", instructions=skills.instructions(), tools=skills.tools, model=model)
    assert Runner.run_sync(agent, "write it").final_output == "done"
    out = model.tool_outputs()
    assert "Read references/style.md." in out["c1"]
    assert out["c2"] == "Short sentences.\n"
    assert out["c3"].startswith("Error: ")
    assert [t.name for t in SkillpathSkills(skills.skills, read_tool=False).tools] == [
        "load_skill",
        "search_skills",
    ]
