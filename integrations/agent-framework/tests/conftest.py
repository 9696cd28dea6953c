"""Fixtures: a private home and project with skills, and a scripted Agent Framework client."""

from __future__ import annotations

from collections.abc import Awaitable, Iterator, MutableSequence
from pathlib import Path
from typing import Any

import pytest
from agent_framework import (
    BaseChatClient,
    ChatMiddlewareLayer,
    ChatResponse,
    Content,
    FunctionInvocationLayer,
    Message,
)
from skillpath_testing.adapters import SkillWorld, skill_world

World = SkillWorld


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    """The adapters' shared world (:func:`skillpath_testing.adapters.skill_world`)."""
    yield from skill_world(tmp_path, monkeypatch)


def calls(*pairs: tuple[str, dict[str, Any]], first: int = 1) -> ChatResponse:
    """One assistant message calling each ``(tool, arguments)`` in order (ids c<first>, …)."""
    contents = [
        Content.from_function_call(call_id=f"c{i}", name=name, arguments=args)
        for i, (name, args) in enumerate(pairs, first)
    ]
    return ChatResponse(messages=Message(role="assistant", contents=contents))


def final(text: str = "done") -> ChatResponse:
    """The assistant's closing text."""
    return ChatResponse(messages=Message("assistant", [Content.from_text(text)]))


class ScriptedClient(FunctionInvocationLayer[Any], ChatMiddlewareLayer[Any], BaseChatClient[Any]):
    """A chat client answering with ``replies`` in order; it records every request.

    The function-invocation layer over the chat-middleware layer over
    ``BaseChatClient``, so the agent's real tool loop and its function
    middleware run.
    """

    def __init__(self, *replies: ChatResponse) -> None:
        super().__init__()
        self.replies = list(replies)
        self.seen: list[list[Message]] = []
        self.tools_seen: list[list[str]] = []
        self.instructions_seen: list[str] = []

    def _inner_get_response(
        self,
        *,
        messages: MutableSequence[Message],
        stream: bool,
        options: dict[str, Any],
        **kwargs: Any,
    ) -> Awaitable[ChatResponse]:
        assert not stream
        self.seen.append(list(messages))
        self.tools_seen.append([t.name for t in options.get("tools") or []])
        self.instructions_seen.append(str(options.get("instructions") or ""))

        async def reply() -> ChatResponse:
            return self.replies.pop(0) if self.replies else final()

        return reply()


def system_text(client: ScriptedClient, turn: int) -> str:
    """The system text the model received at ``turn``: instructions and system messages."""
    messages = [m.text for m in client.seen[turn] if m.role == "system"]
    return "\n".join([client.instructions_seen[turn], *messages]).strip()


def tool_results(messages: list[Message]) -> dict[str, str]:
    """call id → the tool result the model received."""
    out: dict[str, str] = {}
    for message in messages:
        for content in message.contents:
            if content.type == "function_result":
                out[str(content.call_id)] = str(content.result)
    return out
