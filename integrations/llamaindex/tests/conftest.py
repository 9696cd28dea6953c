"""Fixtures: a private home and project with skills, and a scripted LlamaIndex LLM."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.llms import MockFunctionCallingLLM
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
    w = World(home=home, project=project)
    w.skill("greet", "Greet someone by name.", body="Say hello to $ARGUMENTS.\n")
    w.skill("secret", "Hidden helper.", hide="true")
    w.skill("deploy", "Deploy the service (the user runs it).", disable_model_invocation="true")
    yield w
    reset_plugin_host()


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
