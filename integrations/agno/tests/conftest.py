"""Fixtures: a private home and project with skills, and a scripted Agno model."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from agno.models.base import Model
from agno.models.response import ModelResponse
from skillpath_testing.adapters import SkillWorld, skill_world

World = SkillWorld


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    """The adapters' shared world (:func:`skillpath_testing.adapters.skill_world`)."""
    monkeypatch.setenv("AGNO_TELEMETRY", "false")
    yield from skill_world(tmp_path, monkeypatch)


def call(name: str, call_id: str, **arguments: Any) -> dict[str, Any]:
    """A tool call as Agno's models report it (OpenAI chat format)."""
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


@dataclass
class Turn:
    """What the model received on one request."""

    system: str
    messages: list[Any]
    tools: list[dict[str, Any]]


@dataclass
class ScriptedModel(Model):
    """An Agno ``Model`` that answers with scripted tool calls and records every request.

    Each script entry is a list of tool calls (one model turn); when the
    script is used up the model answers ``done``.
    """

    id: str = "scripted"
    name: str = "Scripted"
    provider: str = "test"
    script: list[list[dict[str, Any]]] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)

    def _answer(self, messages: list[Any], tools: Any) -> ModelResponse:
        system = next((m.content for m in messages if m.role == "system"), "")
        self.turns.append(Turn(str(system or ""), list(messages), list(tools or [])))
        if self.script:
            return ModelResponse(role="assistant", content="", tool_calls=self.script.pop(0))
        return ModelResponse(role="assistant", content="done")

    def invoke(self, *args: Any, **kwargs: Any) -> ModelResponse:
        return self._answer(kwargs["messages"], kwargs.get("tools"))

    async def ainvoke(self, *args: Any, **kwargs: Any) -> ModelResponse:
        return self._answer(kwargs["messages"], kwargs.get("tools"))

    def invoke_stream(self, *args: Any, **kwargs: Any) -> Iterator[ModelResponse]:
        yield self._answer(kwargs["messages"], kwargs.get("tools"))

    async def ainvoke_stream(self, *args: Any, **kwargs: Any) -> AsyncIterator[ModelResponse]:
        yield self._answer(kwargs["messages"], kwargs.get("tools"))

    def _parse_provider_response(self, response: Any, **kwargs: Any) -> ModelResponse:
        return response  # type: ignore[no-any-return]

    def _parse_provider_response_delta(self, response: Any) -> ModelResponse:
        return response  # type: ignore[no-any-return]

    def tool_results(self) -> dict[str, str]:
        """``tool_call_id -> content`` of every tool result the model was sent."""
        out: dict[str, str] = {}
        for turn in self.turns:
            for m in turn.messages:
                if m.role == "tool" and m.tool_call_id:
                    out[m.tool_call_id] = str(m.content)
        return out

    def tool_names(self, turn: int = 0) -> list[str]:
        """The names of the tools offered on one request."""
        names = []
        for t in self.turns[turn].tools:
            fn = t.get("function", t)
            names.append(fn["name"])
        return names
