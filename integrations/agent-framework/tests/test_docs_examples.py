"""The example docs/integrations/agent-framework.md includes really works (offline client)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import ModuleType

from skillpath_testing.adapters import load_example

from .conftest import ScriptedClient, World, calls, final, system_text, tool_results

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"


def example(name: str) -> ModuleType:
    return load_example(EXAMPLES / f"{name}.py")


def test_the_page_includes_the_example() -> None:
    page = (EXAMPLES.parent / "integrations" / "agent-framework.md").read_text(encoding="utf-8")
    assert '--8<-- "docs/examples/agent_framework_skills.py"' in page


def test_agent_framework_example(world: World) -> None:
    client = ScriptedClient(calls(("load_skill", {"skill_name": "greet"})), final("Hello!"))
    agent = example("agent_framework_skills").make_agent(client, world.project)
    result = asyncio.run(agent.run("greet Ada"))
    assert result.text == "Hello!"
    assert "Say hello to ." in tool_results(client.seen[-1])["c1"]
    prompt = system_text(client, 0)
    assert prompt.startswith("You are a careful coding agent.") and "<name>greet</name>" in prompt
