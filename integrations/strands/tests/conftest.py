"""Fixtures: a private home and project with skills, and a scripted Strands model."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterable, Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from skillpath_testing.adapters import SkillWorld, skill_world
from strands.models import Model

World = SkillWorld


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    """The adapters' shared world (:func:`skillpath_testing.adapters.skill_world`)."""
    yield from skill_world(tmp_path, monkeypatch)


def call(name: str, call_id: str, **arguments: Any) -> dict[str, Any]:
    """One scripted tool use."""
    return {"toolUseId": call_id, "name": name, "input": arguments}


@attrs.define
class Turn:
    """What the model received on one request."""

    system: str
    messages: list[Any]
    tools: list[Any]


class ScriptedModel(Model):
    """A Strands ``Model`` that streams scripted tool uses and records every request.

    Each script entry is a list of tool uses (one model turn); when the script
    is used up the model answers ``done``.
    """

    def __init__(self, *script: list[dict[str, Any]]) -> None:
        self.script = list(script)
        self.turns: list[Turn] = []

    def update_config(self, **model_config: Any) -> None:
        return None

    def get_config(self) -> Any:
        return {}

    def structured_output(self, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        raise NotImplementedError("these tests use no structured output")

    async def stream(  # type: ignore[override]
        self,
        messages: Any,
        tool_specs: Any = None,
        system_prompt: str | None = None,
        **kwargs: Any,
    ) -> AsyncIterable[Any]:
        self.turns.append(
            Turn(
                system_prompt or "",
                json.loads(json.dumps(messages, default=str)),
                list(tool_specs or []),
            )
        )
        yield {"messageStart": {"role": "assistant"}}
        uses = self.script.pop(0) if self.script else []
        for use in uses:
            start = {"toolUse": {"toolUseId": use["toolUseId"], "name": use["name"]}}
            yield {"contentBlockStart": {"start": start}}
            yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(use["input"])}}}}
            yield {"contentBlockStop": {}}
        if not uses:
            yield {"contentBlockDelta": {"delta": {"text": "done"}}}
            yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "tool_use" if uses else "end_turn"}}

    def tool_results(self) -> dict[str, str]:
        """``toolUseId -> text`` of every tool result the model was sent."""
        out: dict[str, str] = {}
        for turn in self.turns:
            for message in turn.messages:
                for block in message.get("content", []):
                    result = block.get("toolResult")
                    if result:
                        text = "".join(c.get("text", "") for c in result["content"])
                        out[result["toolUseId"]] = text
        return out
