"""Many conversations on one ``FunctionAgent``, ``read_skill`` and ``search_skills``."""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.workflow import Context
from skillpath_llamaindex import SkillpathSkills

from .conftest import Script, World, calls, final, system_text, tool_results


class Reactive(Script):
    """Calls ``Skill`` greet after each user message, then answers ``done``: the same
    replies whatever order conversations run in. ``answers`` holds each tool result."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: list[str] = []

    def __call__(self, messages: list[ChatMessage], **kwargs: Any) -> ChatMessage:
        self.seen.append(list(messages))
        last = messages[-1]
        if last.role == MessageRole.TOOL:
            self.answers.append(str(last.content))
            return final()
        return calls(("Skill", {"skill": "greet", "args": "Ada"}))


def agent_for(world: World) -> tuple[FunctionAgent, Reactive]:
    skills = SkillpathSkills(cwd=world.project)
    model = Reactive()
    agent = FunctionAgent(tools=skills.tools, llm=model.llm(), system_prompt="You help.")
    return skills.attach(agent), model


def test_a_second_conversation_gets_the_skill(world: World) -> None:
    """Before: the second run got "already loaded … follow the instructions it gave earlier"."""
    agent, model = agent_for(world)

    async def go() -> None:
        for _ in range(2):  # one after the other, no ctx: each run its own conversation
            await agent.run(user_msg="hi")

    asyncio.run(go())
    assert len(model.answers) == 2
    for answer in model.answers:
        assert "Say hello to Ada." in answer


def test_the_note_holds_within_one_context_only(world: World) -> None:
    agent, model = agent_for(world)

    async def go() -> None:
        one = Context(agent)
        await agent.run(user_msg="hi", ctx=one)
        await agent.run(user_msg="again", ctx=one)
        restored = Context.from_dict(agent, one.to_dict())  # a conversation kept and resumed
        await agent.run(user_msg="later", ctx=restored)
        await agent.run(user_msg="hi", ctx=Context(agent))

    asyncio.run(go())
    first, again, resumed, other = model.answers
    assert "Say hello to Ada." in first
    assert "already loaded" in again and "Say hello" not in again
    assert "already loaded" in resumed
    assert "Say hello to Ada." in other


def test_concurrent_conversations_each_get_the_skill(world: World) -> None:
    agent, model = agent_for(world)

    async def go() -> None:
        await asyncio.gather(*(agent.run(user_msg="hi", ctx=Context(agent)) for _ in range(12)))

    asyncio.run(go())
    assert len(model.answers) == 12
    for answer in model.answers:
        assert "Say hello to Ada." in answer


def test_the_skills_files_are_read_with_read_skill(world: World) -> None:
    world.skill("styled", "Write in the house style.", body="Follow references/style.md.\n")
    style = world.project / ".claude" / "skills" / "styled" / "references"
    style.mkdir()
    (style / "style.md").write_text("Short sentences.\n", encoding="utf-8")
    skills = SkillpathSkills(cwd=world.project)
    script = Script(
        calls(("Skill", {"skill": "styled"})),
        calls(("read_skill", {"url": "skill://styled/references/style.md"})),
        calls(("read_skill", {"url": "skill://styled/../greet/SKILL.md"})),
        final(),
    )
    agent = skills.attach(FunctionAgent(tools=skills.tools, llm=script.llm()))

    async def go() -> None:
        await agent.run(user_msg="write it")

    asyncio.run(go())
    answers = [tool_results(script.seen[i])["c1"] for i in (1, 2, 3)]
    loaded, read, refused = answers
    assert "(read its files with read_skill: skill://styled/<path>)" in loaded.splitlines()[0]
    assert read == "Short sentences.\n"
    assert refused.startswith("Error: ")
    names = {t["function"]["name"] for t in script.tools_seen[0]}
    assert names == {"Skill", "read_skill", "search_skills"}


def test_the_model_searches_then_calls_the_skill(world: World) -> None:
    for i in range(30):
        world.skill(f"filler-{i:02d}", f"Filler skill number {i} " + "z" * 60)
    world.skill("pdf-forms", "Fill in PDF forms and extract their fields.", body="Fill it.\n")
    skills = SkillpathSkills(cwd=world.project, budget=600)
    script = Script(
        calls(("search_skills", {"query": "fill a pdf form"})),
        calls(("Skill", {"skill": "pdf-forms"})),
        final(),
    )
    agent = skills.attach(FunctionAgent(tools=skills.tools, llm=script.llm()))

    async def go() -> None:
        await agent.run(user_msg="fill my form")

    asyncio.run(go())
    found = tool_results(script.seen[1])["c1"]
    assert found.splitlines()[1].startswith("- pdf-forms:")
    assert "Fill it." in tool_results(script.seen[2])["c1"]
    prompt = system_text(script.seen[0])
    assert "search_skills" in prompt and "pdf-forms" not in prompt  # left to the search


def test_unknown_and_empty_catalog_answers_are_the_cores(world: World) -> None:
    skills = SkillpathSkills(cwd=world.project)
    direct = skills.skills.call("nope")
    script = Script(calls(("Skill", {"skill": "nope"})), final())
    agent = skills.attach(FunctionAgent(tools=skills.tools, llm=script.llm()))

    async def go() -> None:
        await agent.run(user_msg="go")

    asyncio.run(go())
    assert tool_results(script.seen[1])["c1"] == direct
    assert direct.startswith("Error: Unknown skill 'nope'")


def test_ten_thousand_conversations_stay_within_the_cores_bound(world: World) -> None:
    from skillpath.session import MAX_REMEMBERED

    skills = SkillpathSkills(cwd=world.project)
    agent = FunctionAgent(tools=skills.tools, llm=Script().llm())

    async def go() -> list[str]:  # the tool as the agent calls it, a new Context each time
        return [
            str(await skills.tool.acall(ctx=Context(agent), skill="greet", args="Ada"))
            for _ in range(10_000)
        ]

    answers = asyncio.run(go())
    assert all("Say hello to Ada." in a for a in answers)  # each its own conversation
    assert skills.skills.session.remembered() <= MAX_REMEMBERED
