"""Many ADK sessions on one agent, skill metadata ADK reads, and ``search_skills``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types
from pydantic import Field
from skillpath_adk import SkillpathSkillToolset
from skillpath_testing.adapters import PROJECT_SKILL, AdapterWorld

from .test_adk import ScriptedLlm, _all_responses, _responses


class Reactive(BaseLlm):
    """Loads pdf-notes after the user's message, then says ``done`` (any run order)."""

    model: str = "reactive"
    loads: list[dict[str, Any]] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        got = _all_responses(llm_request)
        if got:
            self.loads += [r for n, r in got if n == "load_skill"]
            parts = [types.Part.from_text(text="done")]
        else:
            call = {"skill_name": PROJECT_SKILL}
            parts = [types.Part.from_function_call(name="load_skill", args=call)]
        yield LlmResponse(content=types.Content(role="model", parts=parts))


async def _run(runner: InMemoryRunner, session_id: str, text: str = "go") -> None:
    message = types.Content(role="user", parts=[types.Part.from_text(text=text)])
    async for _event in runner.run_async(user_id="u", session_id=session_id, new_message=message):
        pass


def runner_for(world: AdapterWorld, llm: BaseLlm, **options: Any) -> InMemoryRunner:
    toolset = SkillpathSkillToolset(world.session(), **options)
    agent = LlmAgent(name="dev", model=llm, tools=[toolset], instruction="You are careful.")
    return InMemoryRunner(agent=agent, app_name="skills")


async def _new_session(runner: InMemoryRunner, **state: Any) -> str:
    made = await runner.session_service.create_session(app_name="skills", user_id="u", state=state)
    return made.id


def test_every_session_gets_the_skill_one_after_the_other(world: AdapterWorld) -> None:
    llm = Reactive()
    runner = runner_for(world, llm)

    async def main() -> None:
        for _ in range(3):
            await _run(runner, await _new_session(runner))
        again = await _new_session(runner)
        await _run(runner, again)
        await _run(runner, again, "again")  # a second turn of the same session

    asyncio.run(main())
    assert len(llm.loads) == 5
    for load in llm.loads:
        assert "Read the PDF  and write notes" in load["instructions"]  # no arguments: empty


def test_concurrent_sessions_each_get_the_skill(world: AdapterWorld) -> None:
    llm = Reactive()
    runner = runner_for(world, llm)

    async def main() -> None:
        ids = [await _new_session(runner) for _ in range(12)]
        await asyncio.gather(*(_run(runner, i) for i in ids))

    asyncio.run(main())
    assert len(llm.loads) == 12
    for load in llm.loads:
        assert "Read the PDF  and write notes" in load["instructions"]


def shout(text: str) -> str:
    """Say ``text`` loudly."""
    return text.upper()


def test_adk_metadata_and_license_reach_adk(world: AdapterWorld) -> None:
    """Before: ``adk_additional_tools``, ``adk_inject_state`` and ``license`` were dropped."""
    world.write(
        "greeter",
        "Greet the user by name.",
        "Greet {user_name} and use the shout tool.\n",
        license="MIT",
        metadata="{adk_additional_tools: [shout], adk_inject_state: true}",
    )
    world.write(
        "loud",
        "Shout things.",
        "Shout it.\n",
        metadata="{include_tools: shout}",
    )
    llm = ScriptedLlm(
        script=[[("load_skill", {"skill_name": "greeter"})], [("shout", {"text": "hi"})]]
    )
    runner = runner_for(world, llm, additional_tools=[shout])

    async def main() -> None:
        await _run(runner, await _new_session(runner, user_name="Ada"))

    asyncio.run(main())
    assert "shout" not in llm.tool_names(0)
    assert "shout" in llm.tool_names(1)  # the skill's tool joined when it was loaded
    (load,) = _responses(llm.requests[1], "load_skill")
    assert "Greet Ada and use the shout tool." in load["instructions"]  # session state
    assert load["frontmatter"]["license"] == "MIT"
    assert load["frontmatter"]["metadata"]["adk_inject_state"] is True
    assert _responses(llm.requests[2], "shout") == [{"result": "HI"}]

    from skillpath_adk import adk_metadata

    loud = world.session().get("loud")
    assert loud is not None
    assert adk_metadata(loud)["adk_additional_tools"] == ["shout"]  # metadata.include_tools


def test_the_skills_files_are_named_for_load_skill_resource(world: AdapterWorld) -> None:
    llm = ScriptedLlm(script=[[("load_skill", {"skill_name": PROJECT_SKILL})]])
    runner = runner_for(world, llm)

    async def main() -> None:
        await _run(runner, await _new_session(runner))

    asyncio.run(main())
    (load,) = _responses(llm.requests[1], "load_skill")
    first, second = load["instructions"].splitlines()[:2]
    assert first.startswith("Base directory for this skill: ")
    assert second.startswith("Its files are read with the load_skill_resource tool")


def test_the_model_searches_then_loads_the_skill(world: AdapterWorld) -> None:
    for i in range(30):
        world.write(f"filler-{i:02d}", f"Filler skill number {i} " + "z" * 60)
    world.write("pdf-forms", "Fill in PDF forms and extract their fields.", "Forms.\n")
    llm = ScriptedLlm(
        script=[
            [("search_skills", {"query": "fill a pdf form", "k": 3})],
            [("load_skill", {"skill_name": "pdf-forms"})],
        ]
    )
    runner = runner_for(world, llm, budget=600)

    async def main() -> None:
        await _run(runner, await _new_session(runner))

    asyncio.run(main())
    (found,) = _responses(llm.requests[1], "search_skills")
    lines = found["result"].splitlines()
    assert lines[1].startswith("- pdf-forms:")
    assert len([line for line in lines if line.startswith("- ")]) <= 3
    (load,) = _responses(llm.requests[2], "load_skill")
    assert "Forms." in load["instructions"]
    assert "search_skills" in llm.tool_names(0)
    assert "call search_skills" in llm.instruction(0)  # the catalog's notice names it
