"""Conversations, ``read_skill``, ``search_skills`` and metadata through CrewAI's loop."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from crewai import Agent, Crew, Task
from skillpath_crewai import SkillpathSkills

from .conftest import ScriptedLLM, Turn, World, call


class Reactive(ScriptedLLM):
    """Loads ``greet`` after the task prompt, then answers ``done`` (any run order);
    ``answers`` holds every ``load_skill`` result it was sent."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: list[str] = []

    def call(self, messages: Any, tools: Any = None, *args: Any, **kwargs: Any) -> Any:
        copied = [dict(m) for m in messages]
        self._turns.append(Turn(copied, list(tools or [])))
        if copied[-1]["role"] == "tool":
            self.answers.append(str(copied[-1]["content"]))
            return "done"
        return [call("load_skill", f"c{len(self._turns)}", skill_name="greet")]


def agent_for(skills: SkillpathSkills, llm: ScriptedLLM, **kwargs: Any) -> Agent:
    return Agent(
        role="helper",
        goal="help",
        backstory="You help.",
        llm=llm,
        skills=skills.skills(),
        **kwargs,
    )


def test_a_second_kickoff_gets_the_skill(world: World) -> None:
    llm = Reactive()
    agent = agent_for(SkillpathSkills(cwd=world.project), llm)
    for _ in range(2):  # one after the other, on one agent
        assert agent.kickoff("hi").raw == "done"
    assert len(llm.answers) == 2
    for answer in llm.answers:
        assert "Say hello to ." in answer and "already loaded" not in answer


def test_each_task_of_a_crew_kickoff_gets_the_skill(world: World) -> None:
    """A task's execution starts a new message history: the skill again, in full."""
    llm = Reactive()
    agent = agent_for(SkillpathSkills(cwd=world.project), llm)
    tasks = [Task(description=f"Step {i}", expected_output="done", agent=agent) for i in (1, 2)]
    Crew(agents=[agent], tasks=tasks).kickoff()
    assert len(llm.answers) == 2
    for answer in llm.answers:
        assert "Say hello to ." in answer and "already loaded" not in answer


def test_concurrent_kickoffs_each_get_the_skill(world: World) -> None:
    llm = Reactive()
    agent = agent_for(SkillpathSkills(cwd=world.project), llm)
    with ThreadPoolExecutor(max_workers=6) as pool:
        outputs = list(pool.map(lambda _: agent.kickoff("hi").raw, range(12)))
    assert outputs == ["done"] * 12
    assert len(llm.answers) == 12
    for answer in llm.answers:
        assert "Say hello to ." in answer and "already loaded" not in answer


def test_the_model_searches_then_loads_the_skill(world: World) -> None:
    for i in range(30):
        world.skill(f"filler-{i:02d}", f"Filler skill number {i} " + "z" * 60)
    world.skill("pdf-forms", "Fill in PDF forms and extract their fields.", body="Fill it.\n")
    skills = SkillpathSkills(cwd=world.project, budget=600)
    llm = ScriptedLLM(
        [call("search_skills", "s1", query="fill a pdf form")],
        [call("load_skill", "s2", skill_name="pdf-forms")],
    )
    assert agent_for(skills, llm, tools=skills.tools()).kickoff("fill my form").raw == "done"
    out = llm.tool_results()
    assert out["s1"].splitlines()[1].startswith("- pdf-forms:")
    assert "Fill it." in out["s2"]  # not listed: skillpath answers load_skill by name
    first = llm.turns[0]
    assert '<skill name="pdf-forms">' not in first.system  # left to the search
    assert set(first.tool_names()) == {"load_skill", "read_skill", "search_skills"}


def test_the_skills_files_are_read_with_read_skill(world: World) -> None:
    folder = world.skill("styled", "Write in the house style.", body="Read style.md.\n").parent
    (folder / "style.md").write_text("Short sentences.\n", encoding="utf-8")
    skills = SkillpathSkills(cwd=world.project)
    llm = ScriptedLLM(
        [call("load_skill", "c1", skill_name="styled")],
        [call("read_skill", "c2", url="skill://styled/style.md")],
        [call("read_skill", "c3", url="skill://styled/../greet/SKILL.md")],
    )
    agent_for(skills, llm, tools=skills.tools()).kickoff("write")
    out = llm.tool_results()
    assert "(read its files with read_skill: skill://styled/<path>)" in out["c1"]
    assert out["c2"] == "Short sentences.\n"
    assert out["c3"].startswith("Error: ")


def test_frontmatter_metadata_reaches_crewai(world: World) -> None:
    world.skill(
        "licensed",
        "Has metadata.",
        license="MIT",
        compatibility="Needs git",
        allowed_tools="Read Grep",
        metadata="{owner: docs}",
    )
    (skill,) = [s for s in SkillpathSkills(cwd=world.project).skills() if s.name == "licensed"]
    fm = skill.frontmatter  # type: ignore[union-attr]
    assert (fm.license, fm.compatibility) == ("MIT", "Needs git")
    assert fm.allowed_tools == ["Read", "Grep"] and fm.metadata == {"owner": "docs"}


def test_unknown_names_get_the_cores_answer(world: World) -> None:
    skills = SkillpathSkills(cwd=world.project)
    llm = ScriptedLLM([call("load_skill", "c1", skill_name="nope")])
    agent_for(skills, llm).kickoff("go")
    assert llm.tool_results()["c1"] == skills.skillpath.call("nope")


def test_without_the_search_tool_the_listing_names_the_rest(world: World) -> None:
    for i in range(40):
        world.skill(f"extra-{i:02d}", "A long description. " * 20)
    skills = SkillpathSkills(cwd=world.project, budget=1500, search=False)
    llm = ScriptedLLM()
    agent_for(skills, llm).kickoff("go")
    report = skills.skillpath.listing().report
    assert report.names_only and "search_skills" not in llm.turns[0].system
