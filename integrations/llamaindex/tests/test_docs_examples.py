"""The example docs/integrations/llamaindex.md includes really works (offline mock LLM)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import ModuleType

from skillpath_testing.adapters import load_example

from .conftest import Script, World, calls, final, system_text, tool_results

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"


def example(name: str) -> ModuleType:
    return load_example(EXAMPLES / f"{name}.py")


def test_the_page_includes_the_example() -> None:
    page = (EXAMPLES.parent / "integrations" / "llamaindex.md").read_text(encoding="utf-8")
    assert '--8<-- "docs/examples/llamaindex_skills.py"' in page


def test_llamaindex_example(world: World) -> None:
    script = Script(calls(("Skill", {"skill": "greet", "args": "Ada"})), final("Hello Ada!"))
    agent = example("llamaindex_skills").make_agent(script.llm(), world.project)

    async def go() -> str:
        return str(await agent.run(user_msg="greet Ada"))

    assert asyncio.run(go()) == "Hello Ada!"
    assert "Say hello to Ada." in tool_results(script.seen[-1])["c1"]
    prompt = system_text(script.seen[0])
    assert prompt.startswith("You are a careful coding agent.\n\nThe following skills")
