"""Many conversations on one skills object, the ``read_skill`` and ``search_skills`` tools."""

from __future__ import annotations

import threading
from typing import Any

from skillpath_smolagents import SkillpathSkills
from smolagents import CodeAgent, ToolCallingAgent
from smolagents.memory import ActionStep
from smolagents.models import ChatMessage, MessageRole

from .conftest import ScriptedModel, World, calls, final, text_of


class Reactive(ScriptedModel):
    """Calls ``Skill`` greet after the task, then gives the final answer (any run order)."""

    def generate(self, messages: list[ChatMessage], *args: Any, **kwargs: Any) -> ChatMessage:
        self.seen.append(list(messages))
        if messages[-1].role == MessageRole.TOOL_RESPONSE:
            return final()
        return calls(("Skill", {"skill": "greet", "args": "Ada"}))


def skill_answers(agent: ToolCallingAgent) -> list[str]:
    return [
        step.observations or ""
        for step in agent.memory.steps
        if isinstance(step, ActionStep) and step.tool_calls and step.tool_calls[0].name == "Skill"
    ]


def test_each_run_is_a_conversation_of_its_own(world: World) -> None:
    """Before: the second run got "already loaded … follow the instructions it gave earlier"."""
    s = SkillpathSkills(cwd=world.project)
    agent = s.attach(ToolCallingAgent(tools=s.tools, model=Reactive(), instructions="You help."))
    for _ in range(3):  # one after the other on one agent object
        agent.run("hi")
        (answer,) = skill_answers(agent)
        assert "Say hello to Ada." in answer


def test_the_note_holds_within_one_conversation(world: World) -> None:
    s = SkillpathSkills(cwd=world.project)
    agent = s.attach(ToolCallingAgent(tools=s.tools, model=Reactive(), instructions="You help."))
    agent.run("hi")
    agent.run("again", reset=False)  # smolagents' own "keep the conversation going"
    first, again = skill_answers(agent)
    assert "Say hello to Ada." in first
    assert "already loaded" in again and "Say hello" not in again
    agent.run("a new task")  # reset: a new conversation
    (fresh,) = skill_answers(agent)
    assert "Say hello to Ada." in fresh


def test_concurrent_conversations_each_get_the_skill(world: World) -> None:
    """One skills object (one session) behind many agents running at once: one smolagents
    agent runs one task at a time (its memory is the conversation)."""
    s = SkillpathSkills(cwd=world.project)
    agents = [
        s.attach(ToolCallingAgent(tools=s.tools, model=Reactive(), instructions="You help."))
        for _ in range(8)
    ]
    start = threading.Barrier(len(agents))

    def run(agent: ToolCallingAgent) -> None:
        start.wait()
        agent.run("hi")

    threads = [threading.Thread(target=run, args=(a,)) for a in agents]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for agent in agents:
        (answer,) = skill_answers(agent)
        assert "Say hello to Ada." in answer


def test_a_code_agent_run_is_a_conversation_too(world: World) -> None:
    code = '<code>\nprint(Skill(skill="greet", args="Grace"))\n</code>'
    done = '<code>\nfinal_answer("done")\n</code>'
    model = ScriptedModel(
        *[ChatMessage(role=MessageRole.ASSISTANT, content=c) for c in (code, done, code, done)]
    )
    s = SkillpathSkills(cwd=world.project)
    agent = s.attach(CodeAgent(tools=s.tools, model=model, instructions="You help."))
    agent.run("go")
    agent.run("go")
    assert "Say hello to Grace." in "".join(text_of(m) for m in model.seen[3])


def test_the_skills_files_are_followable(world: World) -> None:
    world.skill("styled", "Write in the house style.", body="Follow references/style.md.\n")
    (world.project / ".claude" / "skills" / "styled" / "references").mkdir()
    style = world.project / ".claude" / "skills" / "styled" / "references" / "style.md"
    style.write_text("Short sentences.\n", encoding="utf-8")
    model = ScriptedModel(
        calls(("Skill", {"skill": "styled"})),
        calls(("read_skill", {"url": "skill://styled/references/style.md"})),
        calls(("read_skill", {"url": "skill://styled/../../../../etc/passwd"})),
        final(),
    )
    s = SkillpathSkills(cwd=world.project)
    agent = s.attach(ToolCallingAgent(tools=[s.tool], model=model, instructions="You help."))
    agent.run("write")
    assert model.tools_seen[0] == ["Skill", "final_answer", "read_skill", "search_skills"]
    seen = [step.observations or "" for step in agent.memory.steps if isinstance(step, ActionStep)]
    assert "Its files are at skill://styled/<path>: read them with the read_skill tool." in seen[0]
    assert seen[1] == "Short sentences."
    assert seen[2].startswith("Error: ")


def test_the_model_searches_then_calls_the_skill(world: World) -> None:
    for i in range(30):
        world.skill(f"filler-{i:02d}", f"Filler skill number {i} " + "z" * 60)
    world.skill("pdf-forms", "Fill in PDF forms and extract their fields.", body="Forms: $0.\n")
    model = ScriptedModel(
        calls(("search_skills", {"query": "fill a pdf form", "k": 3})),
        calls(("Skill", {"skill": "pdf-forms", "args": "tax.pdf"})),
        final(),
    )
    s = SkillpathSkills(cwd=world.project, budget=600)
    agent = s.attach(ToolCallingAgent(tools=s.tools, model=model, instructions="You help."))
    agent.run("fill my form")
    found, skill = [
        step.observations or "" for step in agent.memory.steps if isinstance(step, ActionStep)
    ][:2]
    assert found.splitlines()[1].startswith("- pdf-forms:")
    assert len([line for line in found.splitlines() if line.startswith("- ")]) <= 3
    assert "Forms: tax.pdf." in skill
    system = text_of(model.seen[0][0])
    assert "search_skills" in system and "pdf-forms" not in system  # left to the search


def test_ten_thousand_conversations_stay_within_the_sessions_bound(world: World) -> None:
    from skillpath.session import MAX_REMEMBERED
    from smolagents.memory import TaskStep

    s = SkillpathSkills(cwd=world.project)
    agent = s.attach(ToolCallingAgent(tools=s.tools, model=Reactive(), instructions="You help."))
    tool = agent.tools["Skill"]
    for i in range(10_000):
        agent.memory.steps = [TaskStep(task=f"task {i}")]  # what a reset run does
        assert "Say hello to Ada." in tool(skill="greet", args="Ada")
    assert s.skills.session.remembered() <= MAX_REMEMBERED
    assert "already loaded" in tool(skill="greet", args="Ada")  # the last conversation's
