"""The docs example (docs/examples/pydantic_ai_agent.py) runs a real turn."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from skillpath_testing.adapters import PACK_SKILL, AdapterWorld

EXAMPLE = Path(__file__).resolve().parents[3] / "docs" / "examples" / "pydantic_ai_agent.py"


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_example_pydantic_ai", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_docs_example_runs(world: AdapterWorld) -> None:
    seen: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = [p for p in messages[-1].parts if isinstance(p, ToolReturnPart)]
        if returns:
            seen.append(str(returns[0].content))
            return ModelResponse(parts=[TextPart("reviewed")])
        assert info.instructions is not None and f"- {PACK_SKILL}:" in info.instructions
        args = json.dumps({"skill": PACK_SKILL, "args": "HEAD~1"})
        return ModelResponse(parts=[ToolCallPart("Skill", args, tool_call_id="c1")])

    agent = load_example().build_agent(world.project, FunctionModel(model))
    assert agent.run_sync("Review my last commit.").output == "reviewed"
    assert "Review the change against `HEAD~1`" in seen[0]
