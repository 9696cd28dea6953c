"""No invisible character reaches the model through the plugin: the system prompt
(Strands' own rendering of the skills), every tool spec and the ``skills``,
``read_skill`` and ``search_skills`` results."""

from __future__ import annotations

import json

from skillpath_strands import SkillpathAgentSkills
from skillpath_testing.hostile import (
    HOSTILE_BODY,
    HOSTILE_DESCRIPTION,
    HOSTILE_REFERENCE,
    HOSTILE_SKILLS,
    assert_no_invisible,
    hostile_skills,
)
from strands import Agent

from .conftest import ScriptedModel, World, call


def test_the_agent_gets_no_invisible_character(world: World) -> None:
    hostile_skills(world.project)
    turn = [call("search_skills", "s", query="format tables")]
    for i, name in enumerate(HOSTILE_SKILLS):
        turn += [
            call("skills", f"k{i}", skill_name=name),
            call("read_skill", f"r{i}", url=f"skill://{name}/references/guide.md"),
        ]
    model = ScriptedModel(turn)
    plugin = SkillpathAgentSkills(cwd=world.project)
    agent = Agent(model=model, system_prompt="You help.", plugins=[plugin], callback_handler=None)
    agent("go")
    first, last = model.turns[0], model.turns[-1]
    assert HOSTILE_DESCRIPTION in first.system
    messages = json.dumps(last.messages, ensure_ascii=False)
    assert HOSTILE_BODY in messages and HOSTILE_REFERENCE in messages
    assert "references/r\u00e9sum\u00e9.md" in messages  # Strands' "Available resources"
    assert_no_invisible([t.system for t in model.turns], "system prompt")
    assert_no_invisible(messages, "messages")
    assert last.tools
    assert_no_invisible(json.dumps(last.tools, ensure_ascii=False, default=str), "tool specs")
