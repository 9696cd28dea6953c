"""Fixtures: a private home and project with skills, and a scripted smolagents model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from skillpath_testing.adapters import SkillWorld, skill_world
from smolagents.models import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
    Model,
)

World = SkillWorld


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    """The adapters' shared world (:func:`skillpath_testing.adapters.skill_world`)."""
    yield from skill_world(tmp_path, monkeypatch)


def calls(*pairs: tuple[str, dict[str, Any]]) -> ChatMessage:
    """One assistant message calling each ``(tool, arguments)`` in order."""
    return ChatMessage(
        role=MessageRole.ASSISTANT,
        content="",
        tool_calls=[
            ChatMessageToolCall(
                function=ChatMessageToolCallFunction(name=name, arguments=args),
                id=f"c{i}",
                type="function",
            )
            for i, (name, args) in enumerate(pairs, 1)
        ],
    )


def final(answer: str = "done") -> ChatMessage:
    """The assistant's final answer (smolagents' ``final_answer`` tool)."""
    return calls(("final_answer", {"answer": answer}))


class ScriptedModel(Model):
    """A smolagents ``Model`` answering with ``replies`` in order; it records every request."""

    def __init__(self, *replies: ChatMessage) -> None:
        super().__init__(model_id="scripted")
        self.replies = list(replies)
        self.seen: list[list[ChatMessage]] = []
        self.tools_seen: list[list[str]] = []

    def generate(
        self,
        messages: list[ChatMessage],
        stop_sequences: list[str] | None = None,
        response_format: dict[str, str] | None = None,
        tools_to_call_from: list[Any] | None = None,
        **kwargs: Any,
    ) -> ChatMessage:
        self.seen.append(list(messages))
        self.tools_seen.append([t.name for t in tools_to_call_from or []])
        return self.replies.pop(0)


def text_of(message: ChatMessage | dict[str, Any]) -> str:
    """The text of a message (content blocks joined)."""
    content = message.content if isinstance(message, ChatMessage) else message["content"]
    if isinstance(content, list):
        return "".join(str(block.get("text", "")) for block in content)
    return str(content or "")
