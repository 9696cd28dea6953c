"""The examples docs/integrations/langchain.md includes really work (offline model)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from skillpath_testing.adapters import load_example

from .conftest import World, scripted

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"


def example(name: str) -> ModuleType:
    return load_example(EXAMPLES / f"{name}.py")


def test_the_page_includes_both_examples() -> None:
    page = (EXAMPLES.parent / "integrations" / "langchain.md").read_text(encoding="utf-8")
    assert '--8<-- "docs/examples/langchain_agent.py"' in page
    assert '--8<-- "docs/examples/deepagents_skills.py"' in page


def test_langchain_example(world: World) -> None:
    model = scripted(
        AIMessage(
            content="",
            tool_calls=[{"name": "Skill", "args": {"skill": "greet", "args": "Ada"}, "id": "c1"}],
        ),
        AIMessage(content="Hello Ada!"),
    )
    agent = example("langchain_agent").make_agent(model, world.project)
    result = agent.invoke({"messages": [HumanMessage("greet Ada")]})
    assert result["messages"][-1].content == "Hello Ada!"
    (answer,) = [m.content for m in result["messages"] if isinstance(m, ToolMessage)]
    assert "Say hello to Ada." in answer
    assert str(model.seen[0][0].content).startswith("You are a careful coding agent.\n\n")


def test_deepagents_example(world: World) -> None:
    model = scripted(
        AIMessage(
            content="",
            tool_calls=[
                {
                    "name": "read_file",
                    "args": {"file_path": "/skills/code-review/SKILL.md"},
                    "id": "c1",
                }
            ],
        ),
        AIMessage(content="done"),
    )
    agent = example("deepagents_skills").make_agent(model, world.project)
    result = agent.invoke({"messages": [HumanMessage("review")]})
    (answer,) = [m.content for m in result["messages"] if isinstance(m, ToolMessage)]
    assert "Review the change against" in str(answer)
    system = str(model.seen[0][0].content)
    assert "code-review" in system and "**Skillpath Skills**: `/skills/`" in system
