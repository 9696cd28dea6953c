"""Fixtures: a private home and project with skills, and a scripted CrewAI LLM."""

from __future__ import annotations

import os

# CrewAI's telemetry and tracing stay off (set before crewai is imported).
os.environ["OTEL_SDK_DISABLED"] = "true"
os.environ["CREWAI_DISABLE_TELEMETRY"] = "true"
os.environ["CREWAI_TRACING_ENABLED"] = "false"
os.environ["CREWAI_DISABLE_VERSION_CHECK"] = "true"  # a verbose agent asks the index

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from crewai import BaseLLM
from pydantic import PrivateAttr
from skillpath_testing.adapters import SkillWorld, skill_world

World = SkillWorld


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    """The adapters' shared world (:func:`skillpath_testing.adapters.skill_world`)."""
    monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
    monkeypatch.setenv("CREWAI_DISABLE_TELEMETRY", "true")
    monkeypatch.setenv("CREWAI_TRACING_ENABLED", "false")
    yield from skill_world(tmp_path, monkeypatch)


def call(name: str, call_id: str, **arguments: Any) -> dict[str, Any]:
    """One tool call as an OpenAI-style model returns it."""
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


@attrs.define
class Turn:
    """What the model received on one request."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]

    @property
    def system(self) -> str:
        """The system message's text."""
        return "\n".join(str(m["content"]) for m in self.messages if m["role"] == "system")

    @property
    def prompt(self) -> str:
        """Every message's text (the skills block sits in the system or the user prompt)."""
        return "\n".join(str(m.get("content") or "") for m in self.messages)

    def tool_names(self) -> list[str]:
        """The names of the tools offered."""
        return [t["function"]["name"] for t in self.tools]


#: One scripted model turn: tool calls, a final text, or a callable giving either.
Step = list[dict[str, Any]] | str | Callable[[], "list[dict[str, Any]] | str"]


class ScriptedLLM(BaseLLM):
    """A CrewAI ``BaseLLM`` answering with scripted tool calls; it records every request.

    Each script entry is one model turn: a list of tool calls, a text (the
    final answer) or a callable that returns either (it runs when the turn
    comes). When the script is used up it answers ``done``. It
    supports native function calling, so CrewAI's native tool loop runs.
    """

    _script: list[Step] = PrivateAttr(default_factory=list)
    _turns: list[Turn] = PrivateAttr(default_factory=list)

    def __init__(self, *script: Step) -> None:
        super().__init__(model="scripted")
        self._script = list(script)
        self._turns = []

    @property
    def turns(self) -> list[Turn]:
        """The requests received, in order."""
        return self._turns

    def then(self, *script: Step) -> ScriptedLLM:
        """Add turns for a later run."""
        self._script += list(script)
        return self

    def call(
        self,
        messages: Any,
        tools: Any = None,
        callbacks: Any = None,
        available_functions: Any = None,
        from_task: Any = None,
        from_agent: Any = None,
        response_model: Any = None,
    ) -> Any:
        if isinstance(messages, str):
            messages = [{"role": "user", "content": messages}]
        copied = [dict(m) for m in messages]
        self._turns.append(Turn(copied, list(tools or [])))
        if not self._script:
            return "done"
        step = self._script.pop(0)
        return step() if callable(step) else step

    def supports_function_calling(self) -> bool:
        return True

    def tool_results(self) -> dict[str, str]:
        """call id → the tool result the model was sent."""
        out: dict[str, str] = {}
        for turn in self._turns:
            for m in turn.messages:
                if m["role"] == "tool":
                    out[str(m["tool_call_id"])] = str(m["content"])
        return out
