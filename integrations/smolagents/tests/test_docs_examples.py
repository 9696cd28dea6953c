"""The examples docs/integrations/smolagents.md includes really work (offline model)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from skillpath_testing.adapters import load_example
from smolagents.models import ChatMessage, MessageRole

from .conftest import ScriptedModel, World, calls, final, text_of

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"


def example(name: str) -> ModuleType:
    return load_example(EXAMPLES / f"{name}.py")


def test_the_page_includes_the_example() -> None:
    page = (EXAMPLES.parent / "integrations" / "smolagents.md").read_text(encoding="utf-8")
    assert '--8<-- "docs/examples/smolagents_skills.py"' in page


def test_tool_calling_example(world: World) -> None:
    model = ScriptedModel(calls(("Skill", {"skill": "greet", "args": "Ada"})), final("Hello Ada!"))
    agent = example("smolagents_skills").make_agent(model, world.project)
    assert agent.run("greet Ada") == "Hello Ada!"
    system = text_of(model.seen[0][0])
    assert "You are a careful coding agent.\n\nThe following skills are available" in system
    assert "Say hello to Ada." in "".join(text_of(m) for m in model.seen[1])


def test_code_agent_example(world: World) -> None:
    model = ScriptedModel(
        ChatMessage(
            role=MessageRole.ASSISTANT,
            content='<code>\nfinal_answer(Skill(skill="code-review", args="main"))\n</code>',
        )
    )
    agent = example("smolagents_skills").make_code_agent(model, world.project)
    assert "Review the change against `main`" in str(agent.run("review"))
