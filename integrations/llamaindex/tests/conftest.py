"""Fixtures: a private home and project with skills, and a scripted LlamaIndex LLM."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.llms import MockFunctionCallingLLM
from skillpath_testing.adapters import SkillWorld, skill_world

World = SkillWorld


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    """The adapters' shared world (:func:`skillpath_testing.adapters.skill_world`)."""
    yield from skill_world(tmp_path, monkeypatch)


def calls(*pairs: tuple[str, dict[str, Any]]) -> ChatMessage:
    """One assistant message calling each ``(tool, arguments)`` in order."""
    return ChatMessage(
        role=MessageRole.ASSISTANT,
        blocks=[
            ToolCallBlock(tool_call_id=f"c{i}", tool_name=name, tool_kwargs=args)
            for i, (name, args) in enumerate(pairs, 1)
        ],
    )


def final(text: str = "done") -> ChatMessage:
    """The assistant's closing text."""
    return ChatMessage(role=MessageRole.ASSISTANT, content=text)


class Script:
    """Replies for LlamaIndex's ``MockFunctionCallingLLM``; records every request.

    ``tools_seen`` holds each tool as a real function-calling LLM sends it
    (``metadata.to_openai_tool()``).
    """

    def __init__(self, *replies: ChatMessage) -> None:
        self.replies = list(replies)
        self.seen: list[list[ChatMessage]] = []
        self.tools_seen: list[list[dict[str, Any]]] = []

    def __call__(self, messages: list[ChatMessage], **kwargs: Any) -> ChatMessage:
        self.seen.append(list(messages))
        self.tools_seen.append([t.metadata.to_openai_tool() for t in kwargs.get("tools") or []])
        return self.replies.pop(0) if self.replies else final()

    def llm(self) -> MockFunctionCallingLLM:
        """The LLM to give the agent."""
        return MockFunctionCallingLLM(response_generator=self)


def system_text(messages: list[ChatMessage]) -> str:
    """The text of the system messages the model received."""
    return "\n".join(str(m.content) for m in messages if m.role == MessageRole.SYSTEM)


def tool_results(messages: list[ChatMessage]) -> dict[str, str]:
    """call id → the tool result the model received."""
    return {
        str(m.additional_kwargs.get("tool_call_id")): str(m.content)
        for m in messages
        if m.role == MessageRole.TOOL
    }
