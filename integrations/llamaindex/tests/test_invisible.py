"""No invisible character reaches the model through the adapter: the system prompt,
every tool's definition and the ``Skill``, ``read_skill`` and ``search_skills`` results."""

from __future__ import annotations

import asyncio
import json

from llama_index.core.agent.workflow import FunctionAgent
from skillpath_llamaindex import SkillpathSkills
from skillpath_testing.hostile import (
    HOSTILE_BODY,
    HOSTILE_DESCRIPTION,
    HOSTILE_REFERENCE,
    HOSTILE_SKILLS,
    assert_no_invisible,
    hostile_skills,
)

from .conftest import Script, World, calls, final, system_text, tool_results


def test_the_agent_gets_no_invisible_character(world: World) -> None:
    hostile_skills(world.project)
    skills = SkillpathSkills(cwd=world.project)
    pairs = [("search_skills", {"query": "format tables"})]
    for name in HOSTILE_SKILLS:
        pairs += [
            ("Skill", {"skill": name, "args": ""}),
            ("read_skill", {"url": f"skill://{name}/references/guide.md"}),
            # folder listings: the files refused by their names are left out
            ("read_skill", {"url": f"skill://{name}/."}),
            ("read_skill", {"url": f"skill://{name}/references"}),
        ]
    model = Script(calls(*pairs), final())
    agent = skills.attach(
        FunctionAgent(tools=skills.tools, llm=model.llm(), system_prompt="You help.")
    )

    async def go() -> None:
        await agent.run(user_msg="go")

    asyncio.run(go())
    last = model.seen[-1]
    system = system_text(model.seen[0])
    assert HOSTILE_DESCRIPTION in system
    results = tool_results(last)
    seen = "\n".join(results.values())
    assert "r\u00e9sum\u00e9.md" in seen and "scripts/" in seen
    assert HOSTILE_BODY in seen and HOSTILE_REFERENCE in seen and HOSTILE_DESCRIPTION in seen
    assert_no_invisible([str(m.content) for m in last], "messages")
    assert_no_invisible(
        [json.dumps(t, ensure_ascii=False) for ts in model.tools_seen for t in ts], "tools"
    )
    assert_no_invisible(skills.system_prompt("You help."), "system_prompt")
