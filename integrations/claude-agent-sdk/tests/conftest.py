"""Fixtures: the adapter test world, and a scripted Messages API on localhost.

The Claude Agent SDK drives the Claude Code CLI bundled in its wheel. The
CLI talks to the model over the Messages API at ``ANTHROPIC_BASE_URL``;
:class:`FakeMessagesAPI` answers there from a script (server-sent events as
the real API sends them), so a whole agent turn runs offline and every
request the CLI made — what the model received — is recorded.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from skillpath_testing.adapters import AdapterWorld, adapter_world


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AdapterWorld:
    return adapter_world(monkeypatch, tmp_path)


def _sse(events: list[dict[str, Any]]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def _message(model: str, blocks: list[dict[str, Any]], stop: str) -> bytes:
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_fake",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            },
        }
    ]
    for i, block in enumerate(blocks):
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            {"type": "content_block_start", "index": i, "content_block": start},
            {"type": "content_block_delta", "index": i, "delta": delta},
            {"type": "content_block_stop", "index": i},
        ]
    events += [
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": 1},
        },
        {"type": "message_stop"},
    ]
    return _sse(events)


class FakeMessagesAPI:
    """A scripted Messages API: the agent's first request gets ``calls`` as tool uses.

    ``requests`` holds every request body of the main agent (the requests
    that offer the ``Skill`` tool); other requests (titles, summaries) get a
    short text answer.
    """

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return None

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.end_headers()

            def do_GET(self) -> None:
                self.send_response(404)
                self.end_headers()

            def do_POST(self) -> None:
                size = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(size) or b"{}")
                data = api.answer(body)
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, body: dict[str, Any]) -> bytes:
        model = str(body.get("model") or "claude-fake")
        tools = [t.get("name") for t in body.get("tools") or []]
        if "Skill" not in tools:
            return _message(model, [{"type": "text", "text": "ok"}], "end_turn")
        with self._lock:
            self.requests.append(body)
            first = len(self.requests) == 1
        if first and self.calls:
            blocks = [
                {"type": "tool_use", "id": f"toolu_{i}", "name": "Skill", "input": call}
                for i, call in enumerate(self.calls)
            ]
            return _message(model, blocks, "tool_use")
        return _message(model, [{"type": "text", "text": "done"}], "end_turn")

    @staticmethod
    def text_of(request: dict[str, Any]) -> str:
        """Everything a request showed the model (system, messages, tool results), as text."""
        return json.dumps(
            {"system": request.get("system"), "messages": request.get("messages")},
            ensure_ascii=False,
        )

    def __enter__(self) -> FakeMessagesAPI:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake_api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI() as api:
        yield api
