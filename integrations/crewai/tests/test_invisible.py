"""No invisible character reaches the model through the adapter: the skills block (in
the system or the user prompt), every tool's definition and the ``load_skill``,
``read_skill`` and ``search_skills`` results."""

from __future__ import annotations

import json

from crewai import Agent
from skillpath_crewai import SkillpathSkills
from skillpath_testing.hostile import (
    HOSTILE_BODY,
    HOSTILE_DESCRIPTION,
    HOSTILE_REFERENCE,
    HOSTILE_SKILLS,
    assert_no_invisible,
    hostile_skills,
)

from .conftest import ScriptedLLM, World, call


def test_the_agent_gets_no_invisible_character(world: World) -> None:
    hostile_skills(world.project)
    skills = SkillpathSkills(cwd=world.project)
    steps = [[call("search_skills", "s", query="format tables")]]
    for i, name in enumerate(HOSTILE_SKILLS):
        steps.append([call("load_skill", f"k{i}", skill_name=name)])
        steps.append([call("read_skill", f"r{i}", url=f"skill://{name}/references/guide.md")])
    llm = ScriptedLLM(*steps)
    agent = Agent(
        role="helper",
        goal="help",
        backstory="You help.",
        llm=llm,
        skills=skills.skills(),
        tools=skills.tools(),
    )
    assert agent.kickoff("go").raw == "done"
    assert HOSTILE_DESCRIPTION in llm.turns[0].prompt
    out = llm.tool_results()
    assert HOSTILE_BODY in out["k0"] and HOSTILE_REFERENCE in out["r1"]
    assert HOSTILE_DESCRIPTION in out["s"]
    assert_no_invisible([t.prompt for t in llm.turns], "prompts")
    assert_no_invisible(list(out.values()), "tool results")
    tools = [
        json.dumps(t, ensure_ascii=False, default=str) for turn in llm.turns for t in turn.tools
    ]
    assert tools
    assert_no_invisible(tools, "tools")
    for skill in skills.current():
        assert_no_invisible([skill.description, skill.instructions or ""], skill.name)
