"""One plugin behind many Claude Code sessions, and the ``search_skills`` tool.

Each ``query()`` runs the CLI bundled in the SDK's wheel against a scripted
Messages API on localhost (``conftest.py``); the script answers by what the
request holds, so sessions running at once get the same answers.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, query
from skillpath_claude_agent_sdk import SkillpathPlugin, search_tool_name
from skillpath_testing.adapters import PROJECT_SKILL, AdapterWorld

from .conftest import FakeMessagesAPI, _message
from .test_claude_agent_sdk import cli_env, needs_cli


class ByStep(FakeMessagesAPI):
    """Answers the agent's n-th request of a session with ``steps[n]`` (tool uses), then
    ``done``. ``{file}`` in a step's input is the first ``*.pdf`` word of the prompt."""

    def __init__(self, *steps: list[dict[str, Any]]) -> None:
        super().__init__()
        self.steps = list(steps)

    def answer(self, body: dict[str, Any]) -> bytes:
        model = str(body.get("model") or "claude-fake")
        if "Skill" not in [t.get("name") for t in body.get("tools") or []]:
            return _message(model, [{"type": "text", "text": "ok"}], "end_turn")
        with self._lock:
            self.requests.append(body)
        messages = body.get("messages") or []
        # the CLI joins consecutive assistant turns into one message: count the steps
        # by the ids this script gave its tool uses
        step = len(
            {
                block["id"].split("_")[1]
                for m in messages
                if m["role"] == "assistant" and isinstance(m["content"], list)
                for block in m["content"]
                if block.get("type") == "tool_use"
            }
        )
        if step >= len(self.steps):
            return _message(model, [{"type": "text", "text": "done"}], "end_turn")
        found = re.search(r"[\w-]+\.pdf", json.dumps(messages[0]["content"]))
        file = found.group(0) if found else ""
        blocks = [
            {
                "type": "tool_use",
                "id": f"toolu_{step}_{i}",
                "name": call["name"],
                "input": json.loads(json.dumps(call["input"]).replace("{file}", file)),
            }
            for i, call in enumerate(self.steps[step])
        ]
        return _message(model, blocks, "tool_use")


NOTES = [{"name": "Skill", "input": {"skill": f"skillpath:{PROJECT_SKILL}", "args": "{file}"}}]


async def _ask(prompt: str, options: ClaudeAgentOptions) -> list[Any]:
    return [m async for m in query(prompt=prompt, options=options)]


def _finished(messages: list[Any]) -> bool:
    results = [m for m in messages if isinstance(m, ResultMessage)]
    return bool(results) and not results[-1].is_error


def _sessions_seen(api: FakeMessagesAPI) -> dict[str, str]:
    """The text of each session's last request, by the file its prompt named."""
    out: dict[str, str] = {}
    for request in api.requests:
        prompt = json.dumps(request["messages"][0]["content"])
        for file in ("a.pdf", "b.pdf", "c.pdf"):
            if file in prompt:
                out[file] = api.text_of(request)
    return out


@needs_cli
def test_sessions_one_after_the_other_each_get_the_skill(
    world: AdapterWorld, tmp_path: Path
) -> None:
    with ByStep(NOTES) as api:
        plugin = SkillpathPlugin(world.session(), tmp_path / "plugin")
        options = plugin.options(env=cli_env(world, api.url), max_turns=3)
        for file in ("a.pdf", "b.pdf"):
            assert _finished(anyio.run(_ask, f"Notes for {file}", options))
        seen = _sessions_seen(api)
    assert "Read the PDF a.pdf and write notes" in seen["a.pdf"]
    assert "Read the PDF b.pdf and write notes" in seen["b.pdf"]
    assert "a.pdf" not in seen["b.pdf"]  # a session of its own


@needs_cli
def test_sessions_at_once_each_get_the_skill(world: AdapterWorld, tmp_path: Path) -> None:
    with ByStep(NOTES) as api:
        plugin = SkillpathPlugin(world.session(), tmp_path / "plugin")
        options = plugin.options(env=cli_env(world, api.url), max_turns=3)
        done: list[bool] = []

        async def main() -> None:
            async def one(file: str) -> None:
                done.append(_finished(await _ask(f"Notes for {file}", options)))

            async with anyio.create_task_group() as group:
                for file in ("a.pdf", "b.pdf", "c.pdf"):
                    group.start_soon(one, file)

        anyio.run(main)
        seen = _sessions_seen(api)
    assert done == [True, True, True]
    for file in ("a.pdf", "b.pdf", "c.pdf"):
        assert f"Read the PDF {file} and write notes" in seen[file]


@needs_cli
def test_the_model_searches_then_calls_the_skill(world: AdapterWorld, tmp_path: Path) -> None:
    for i in range(30):
        world.write(f"filler-{i:02d}", f"Filler skill number {i} " + "z" * 60)
    world.write("pdf-forms", "Fill in PDF forms and extract their fields.", "Forms: $0.\n")
    name = search_tool_name()
    with ByStep(
        [{"name": name, "input": {"query": "fill a pdf form", "k": 3}}],
        [{"name": "Skill", "input": {"skill": "skillpath:pdf-forms", "args": "{file}"}}],
    ) as api:
        plugin = SkillpathPlugin(world.session(), tmp_path / "plugin", budget=600)
        options = plugin.options(env=cli_env(world, api.url), max_turns=4)
        assert name in options.allowed_tools
        assert _finished(anyio.run(_ask, "Fill in tax.pdf", options))
        first, *later = api.requests
    assert name in json.dumps(first)  # offered (Claude Code may list MCP tools deferred)
    results = [
        block
        for msg in later[0]["messages"]
        if msg["role"] == "user" and isinstance(msg["content"], list)
        for block in msg["content"]
        if block.get("type") == "tool_result"
    ]
    (found,) = results
    assert "- pdf-forms: Fill in PDF forms" in json.dumps(found)
    assert "Forms: tax.pdf." in api.text_of(later[-1])
    assert "already loaded" not in api.text_of(later[-1])


def test_license_and_metadata_are_kept_in_the_plugin(world: AdapterWorld, tmp_path: Path) -> None:
    world.write(
        "licensed",
        "A licensed skill.",
        "Body.\n",
        license="MIT",
        metadata="{include_tools: shout, team: docs}",
    )
    plugin = SkillpathPlugin(world.session(), tmp_path / "plugin")
    plugin.sync()
    text = (plugin.path / "skills" / "licensed" / "SKILL.md").read_text()
    assert "license: MIT" in text
    assert "include_tools: shout" in text and "team: docs" in text
