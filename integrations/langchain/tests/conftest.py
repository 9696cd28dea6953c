"""Fixtures: a private home and project with skills, and a scripted chat model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
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
