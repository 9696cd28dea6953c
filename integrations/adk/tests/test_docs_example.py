"""The docs example (docs/examples/adk_agent.py) runs a real turn."""

from __future__ import annotations

import importlib.util
from collections.abc import AsyncGenerator
from pathlib import Path
from types import ModuleType

import anyio
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types
from pydantic import Field
from skillpath_testing.adapters import PACK_SKILL, AdapterWorld

EXAMPLE = Path(__file__).resolve().parents[3] / "docs" / "examples" / "adk_agent.py"


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_example_adk", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class OneSkillLlm(BaseLlm):
    """Loads the pack skill, then answers with what it received."""

    model: str = "scripted"
    received: list[str] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        last = llm_request.contents[-1].parts or []
        done = [p.function_response for p in last if p.function_response is not None]
        if done:
            self.received.append(str((done[0].response or {}).get("instructions")))
            parts = [types.Part.from_text(text="reviewed")]
        else:
            parts = [
                types.Part.from_function_call(name="load_skill", args={"skill_name": PACK_SKILL})
            ]
        yield LlmResponse(content=types.Content(role="model", parts=parts))


def test_the_docs_example_runs(world: AdapterWorld) -> None:
    llm = OneSkillLlm()
    runner = InMemoryRunner(agent=load_example().build_agent(world.project, llm))

    async def main() -> None:
        await runner.run_debug("Review my last commit.", quiet=True)

    anyio.run(main)
    assert "# Code review" in llm.received[0]
