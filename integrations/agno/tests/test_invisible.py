"""No invisible character reaches the model through the adapter: the system prompt
snippet, every tool's definition and the ``get_skill_instructions``,
``get_skill_reference`` and ``search_skills`` results (JSON, decoded)."""

from __future__ import annotations

import json

from agno.agent import Agent
from skillpath_agno import SkillpathSkills
from skillpath_testing.hostile import (
    HOSTILE_BODY,
    HOSTILE_DESCRIPTION,
    HOSTILE_REFERENCE,
    HOSTILE_SKILLS,
    assert_no_invisible,
    hostile_skills,
)

from .conftest import ScriptedModel, World, call


def test_the_agent_gets_no_invisible_character(world: World) -> None:
    hostile_skills(world.project)
    turn = [call("search_skills", "s", query="format tables")]
    for i, name in enumerate(HOSTILE_SKILLS):
        turn += [
            call("get_skill_instructions", f"i{i}", skill_name=name),
            call("get_skill_reference", f"r{i}", skill_name=name, reference_path="guide.md"),
        ]
    model = ScriptedModel(script=[turn])
    skills = SkillpathSkills(cwd=world.project)
    Agent(model=model, instructions="You help.", skills=skills, telemetry=False).run("go")
    last = model.turns[-1]
    assert HOSTILE_DESCRIPTION in model.turns[0].system
    results = [str(m.content) for m in last.messages if m.role == "tool"]
    seen = "\n".join(results)
    assert HOSTILE_BODY in seen and HOSTILE_REFERENCE in seen and HOSTILE_DESCRIPTION in seen
    assert_no_invisible([str(m.content or "") for m in last.messages], "messages")
    assert last.tools
    assert_no_invisible([json.dumps(t, ensure_ascii=False) for t in last.tools], "tools")
    assert_no_invisible(skills.get_system_prompt_snippet(), "system prompt snippet")
    # Agno's own skill objects (what its Skills toolkit renders on its own)
    loaded = skills.loader.load()
    assert {s.name for s in loaded} >= set(HOSTILE_SKILLS)
    for skill in loaded:
        assert_no_invisible([skill.description, skill.instructions], skill.name)
