"""Fixtures: a private home and project with skills, and a scripted ``agents`` model."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from agents import Model, ModelResponse, Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from skillpath import reset_plugin_host
from skillpath_testing import isolate_environment


@attrs.define
class World:
    """A private home and project (a git root); ``skill()`` writes ``.claude/skills`` skills."""

    home: Path
    project: Path

    def skill(self, name: str, description: str, body: str = "Body.\n", **fields: str) -> Path:
        folder = self.project / ".claude" / "skills" / name
        folder.mkdir(parents=True, exist_ok=True)
        lines = ["---", f"name: {name}", f"description: {description}"]
        lines += [f"{k.replace('_', '-')}: {v}" for k, v in fields.items()]
        path = folder / "SKILL.md"
        path.write_text("\n".join([*lines, "---", body]), encoding="utf-8")
        return path


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    home, project = isolate_environment(monkeypatch, tmp_path, cache_dir=tmp_path / "cache")
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
    w = World(home=home, project=project)
    w.skill("greet", "Greet someone by name.", body="Say hello to $ARGUMENTS.\n")
    w.skill("secret", "Hidden helper.", hide="true")
    w.skill("deploy", "Deploy the service (the user runs it).", disable_model_invocation="true")
    yield w
    reset_plugin_host()


def tool_call(name: str, call_id: str, **arguments: Any) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        type="function_call",
        id=f"fc_{call_id}",
        call_id=call_id,
        name=name,
        arguments=json.dumps(arguments),
    )


def text(content: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id="msg_1",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=content, annotations=[])],
    )


@attrs.define
class Turn:
    """What the model received on one call."""

    system: str | None
    input: Any
    tools: list[Any]


class ScriptedModel(Model):
    """An ``agents.Model`` that answers with scripted outputs and records every request."""

    def __init__(self, *outputs: list[Any]) -> None:
        self.outputs = list(outputs)
        self.turns: list[Turn] = []

    async def get_response(
        self,
        system_instructions: str | None,
        input: Any,
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: Any,
        tracing: Any,
        **kwargs: Any,
    ) -> ModelResponse:
        self.turns.append(Turn(system_instructions, input, list(tools)))
        output = self.outputs.pop(0) if self.outputs else [text("done")]
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("these tests do not stream")

    def tool_outputs(self) -> dict[str, str]:
        """``call_id -> output`` of every tool result the model was sent."""
        out: dict[str, str] = {}
        for turn in self.turns:
            if isinstance(turn.input, list):
                for item in turn.input:
                    if isinstance(item, dict) and item.get("type") == "function_call_output":
                        out[item["call_id"]] = item["output"]
        return out
