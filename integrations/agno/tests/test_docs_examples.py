"""The example docs/integrations/agno.md includes really works (offline model)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

from skillpath_testing.adapters import load_example

from .conftest import ScriptedModel, World, call

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"


def example(name: str) -> ModuleType:
    return load_example(EXAMPLES / f"{name}.py")


def test_the_page_includes_the_example() -> None:
    page = (EXAMPLES.parent / "integrations" / "agno.md").read_text(encoding="utf-8")
    assert '--8<-- "docs/examples/agno_skills.py"' in page


def test_the_example_agent(world: World) -> None:
    model = ScriptedModel(
        script=[[call("get_skill_instructions", "c1", skill_name="greet", args="Ada")]]
    )
    agent = example("agno_skills").make_agent(model, world.project)
    assert agent.run("greet Ada").content == "done"
    answer = json.loads(model.tool_results()["c1"])
    assert "Say hello to Ada." in answer["instructions"]
    assert model.turns[0].system.startswith("You are a careful coding agent.")
    assert "<name>greet</name>" in model.turns[0].system
