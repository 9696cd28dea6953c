"""No invisible character reaches the model through the adapter: the instructions (the
system prompt), every tool's description and the ``Skill``, ``read_skill`` and
``search_skills`` results."""

from __future__ import annotations

import json

from skillpath_smolagents import SkillpathSkills
from skillpath_testing.hostile import (
    HOSTILE_BODY,
    HOSTILE_DESCRIPTION,
    HOSTILE_REFERENCE,
    HOSTILE_SKILLS,
    assert_no_invisible,
    hostile_skills,
)
from smolagents import ToolCallingAgent

from .conftest import ScriptedModel, World, calls, final, text_of


def test_the_agent_gets_no_invisible_character(world: World) -> None:
    hostile_skills(world.project)
    s = SkillpathSkills(cwd=world.project)
    steps = [calls(("search_skills", {"query": "format tables"}))]
    for name in HOSTILE_SKILLS:
        steps.append(calls(("Skill", {"skill": name, "args": ""})))
        steps.append(calls(("read_skill", {"url": f"skill://{name}/references/guide.md"})))
        for folder in (".", "references", "scripts"):  # listings leave refused names out
            steps.append(calls(("read_skill", {"url": f"skill://{name}/{folder}"})))
    model = ScriptedModel(*steps, final())
    agent = s.attach(ToolCallingAgent(tools=s.tools, model=model, instructions="You help."))
    agent.run("go")
    texts = [text_of(m) for m in model.seen[-1]]
    seen = "\n".join(texts)
    assert HOSTILE_DESCRIPTION in seen and HOSTILE_BODY in seen and HOSTILE_REFERENCE in seen
    assert "r\u00e9sum\u00e9.md" in seen and "run.sh" in seen
    assert_no_invisible(texts, "messages")
    tools = [json.dumps([t.name, t.description, t.inputs], ensure_ascii=False) for t in s.tools]
    assert_no_invisible(tools, "tool descriptions")
    assert_no_invisible(s.instructions("You help."), "instructions")
