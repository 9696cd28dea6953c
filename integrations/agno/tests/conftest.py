"""Fixtures: a private home and project with skills, and a scripted Agno model."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import attrs
import pytest
from agno.models.base import Model
from agno.models.response import ModelResponse
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
    monkeypatch.setenv("AGNO_TELEMETRY", "false")
    w = World(home=home, project=project)
    w.skill("greet", "Greet someone by name.", body="Say hello to $ARGUMENTS.\n")
    w.skill("secret", "Hidden helper.", hide="true")
    w.skill("deploy", "Deploy the service (the user runs it).", disable_model_invocation="true")
    yield w
    reset_plugin_host()


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
