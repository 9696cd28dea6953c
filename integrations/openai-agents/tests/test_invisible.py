"""No invisible character reaches the model through the adapter: the instructions, the
tools' descriptions and results, and the files ``load_skill`` stages in a sandbox."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from agents import Agent, Runner
from skillpath_openai_agents import SkillpathLazySkillSource, SkillpathSkills
from skillpath_testing.hostile import (
    HOSTILE_BODY,
    HOSTILE_DESCRIPTION,
    HOSTILE_REFERENCE,
    HOSTILE_SKILLS,
    assert_no_invisible,
    hostile_skills,
)

from .conftest import ScriptedModel, World, tool_call
from .test_sandbox import run


def _tool_texts(turns: list[Any]) -> list[str]:
    return [
        json.dumps(
            [t.name, t.description, getattr(t, "params_json_schema", {})], ensure_ascii=False
        )
        for turn in turns
        for t in turn.tools
    ]


def test_instructions_tools_and_results_hold_no_invisible_character(world: World) -> None:
    hostile_skills(world.project)
    skills = SkillpathSkills(cwd=world.project)
    calls = []
    for i, name in enumerate(HOSTILE_SKILLS):
        calls.append(tool_call("load_skill", f"l{i}", skill=name, args=""))
        calls.append(tool_call("read_skill_file", f"r{i}", skill=name, path="references/guide.md"))
        calls.append(tool_call("read_skill_file", f"f{i}", skill=name, path="references"))
    calls.append(tool_call("search_skills", "s", query="format tables"))
    model = ScriptedModel(calls)
    agent = Agent(
        name="dev", instructions=skills.instructions("You help."), tools=skills.tools, model=model
    )
    asyncio.run(Runner.run(agent, "go"))
    system = model.turns[0].system or ""
    assert HOSTILE_DESCRIPTION in system
    assert_no_invisible(system, "instructions")
    assert_no_invisible(_tool_texts(model.turns), "tool definitions")
    out = model.tool_outputs()
    assert HOSTILE_BODY in out["l0"] and HOSTILE_REFERENCE in out["r0"]
    assert "r\u00e9sum\u00e9.md" in out["f0"]
    assert HOSTILE_DESCRIPTION in out["s"]
    assert_no_invisible(list(out.values()), "tool results")


def test_the_sandbox_listing_and_staged_files_hold_no_invisible_character(world: World) -> None:
    hostile_skills(world.project)
    model = ScriptedModel(
        [tool_call("load_skill", "c1", skill_name=HOSTILE_SKILLS[0])],
        [
            tool_call(
                "exec_command",
                "c2",
                cmd=f"cat .agents/{HOSTILE_SKILLS[0]}/SKILL.md "
                f".agents/{HOSTILE_SKILLS[0]}/references/guide.md",
            )
        ],
        [tool_call("exec_command", "c3", cmd=f"ls -R .agents/{HOSTILE_SKILLS[0]}")],
    )
    run(SkillpathLazySkillSource.open(world.project), model)
    system = model.turns[0].system or ""
    assert HOSTILE_DESCRIPTION in system
    assert_no_invisible(system, "sandbox listing")
    assert_no_invisible(_tool_texts(model.turns), "tool definitions")
    out = model.tool_outputs()
    assert HOSTILE_BODY in out["c2"] and HOSTILE_REFERENCE in out["c2"]
    assert "r\u00e9sum\u00e9.md" in out["c3"] and "run.sh" in out["c3"]  # the staged copy
    assert_no_invisible(list(out.values()), "staged files")
