"""The example docs/integrations/openai-agents.md includes really works (offline model)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import ModuleType

from agents import Runner
from agents.run_config import RunConfig, SandboxRunConfig
from agents.sandbox.sandboxes.unix_local import UnixLocalSandboxClient
from skillpath_testing.adapters import load_example

from .conftest import ScriptedModel, World, text, tool_call

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"


def example(name: str) -> ModuleType:
    return load_example(EXAMPLES / f"{name}.py")


def test_the_page_includes_the_example() -> None:
    page = (EXAMPLES.parent / "integrations" / "openai-agents.md").read_text(encoding="utf-8")
    assert '--8<-- "docs/examples/openai_agents_skills.py"' in page


def test_plain_agent_example(world: World) -> None:
    model = ScriptedModel(
        [tool_call("load_skill", "c1", skill="greet", args="Ada")], [text("Hello Ada!")]
    )
    agent = example("openai_agents_skills").make_agent(model, world.project)
    assert Runner.run_sync(agent, "greet Ada").final_output == "Hello Ada!"
    assert "Say hello to Ada." in model.tool_outputs()["c1"]
    assert (model.turns[0].system or "").startswith("You are a careful coding agent.\n\n")


def test_sandbox_agent_example(world: World) -> None:
    model = ScriptedModel([tool_call("load_skill", "c1", skill_name="code-review")])
    agent = example("openai_agents_skills").make_sandbox_agent(model, world.project)
    config = RunConfig(sandbox=SandboxRunConfig(client=UnixLocalSandboxClient()))
    asyncio.run(Runner.run(agent, "review", run_config=config))
    assert "'status': 'loaded'" in model.tool_outputs()["c1"]
    assert "- code-review: " in (model.turns[0].system or "")
