"""Fixtures: a private home and project with skills, and a scripted chat model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from skillpath_testing.adapters import SkillWorld, skill_world

World = SkillWorld


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    """The adapters' shared world (:func:`skillpath_testing.adapters.skill_world`)."""
    yield from skill_world(tmp_path, monkeypatch)


class ScriptedChatModel(GenericFakeChatModel):
    """``GenericFakeChatModel`` that accepts tools and records every request it gets."""

    seen: list[list[BaseMessage]] = []  # noqa: RUF012 (pydantic field)
    tools_seen: list[list[Any]] = []  # noqa: RUF012

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        self.tools_seen.append(list(tools))
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def scripted(*replies: AIMessage) -> ScriptedChatModel:
    """A model answering with ``replies`` in order."""
    return ScriptedChatModel(messages=iter(replies), seen=[], tools_seen=[])
