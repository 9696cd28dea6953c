"""A scripted model API on 127.0.0.1 for the differential tests.

It speaks just enough of three wire formats for the real agents to finish one
turn: Anthropic Messages (``POST /v1/messages``, JSON or SSE), OpenAI Responses
(``POST /v1/responses``, SSE) and OpenAI chat completions
(``POST /v1/chat/completions``, JSON or SSE). Every request is recorded
(path and parsed JSON body) so a test can read what the agent sent the model.
Every answer is the same short text: the agent's turn ends at once — unless
:attr:`FakeModel.tool_call` is set, then the first request offering that tool
is answered with one call of it (Anthropic ``tool_use`` or a chat-completions
``tool_calls`` delta), and the agent's next request carries the tool's result.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FakeModel", "Request", "fake_model"]

REPLY = "done"


class Request:
    """One recorded request: ``path`` and the parsed JSON ``body`` (``{}`` when not JSON)."""

    def __init__(self, path: str, body: dict[str, Any]) -> None:
        self.path = path
        self.body = body

    def __repr__(self) -> str:
        return f"Request({self.path!r})"


def _sse(events: list[tuple[str | None, dict[str, Any] | str]]) -> bytes:
    out = []
    for name, data in events:
        payload = data if isinstance(data, str) else json.dumps(data)
        out.append((f"event: {name}\n" if name else "") + f"data: {payload}\n\n")
    return "".join(out).encode()


def _anthropic(body: dict[str, Any]) -> tuple[str, bytes]:
    model = body.get("model", "fake")
    usage = {"input_tokens": 1, "output_tokens": 1}
    message = {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": REPLY}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": usage,
    }
    if not body.get("stream"):
        return "application/json", json.dumps(message).encode()
    start = dict(message, content=[], stop_reason=None)
    return "text/event-stream", _sse(
        [
            ("message_start", {"type": "message_start", "message": start}),
            (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": REPLY},
                },
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": 1},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
    )


def _responses(body: dict[str, Any]) -> tuple[str, bytes]:
    item = {
        "type": "message",
        "id": "msg_fake",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": REPLY, "annotations": []}],
    }
    response = {
        "id": "resp_fake",
        "object": "response",
        "status": "completed",
        "model": body.get("model", "fake"),
        "output": [item],
        "usage": {
            "input_tokens": 1,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 1,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 2,
        },
    }
    return "text/event-stream", _sse(
        [
            (
                "response.created",
                {
                    "type": "response.created",
                    "response": dict(response, status="in_progress", output=[]),
                },
            ),
            (
                "response.output_item.added",
                {
                    "type": "response.output_item.added",
                    "output_index": 0,
                    "item": dict(item, content=[]),
                },
            ),
            (
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "item_id": "msg_fake",
                    "output_index": 0,
                    "content_index": 0,
                    "delta": REPLY,
                },
            ),
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": 0, "item": item},
            ),
            ("response.completed", {"type": "response.completed", "response": response}),
        ]
    )


def _tool_names(body: dict[str, Any]) -> set[str]:
    names = set()
    for tool in body.get("tools") or []:
        if isinstance(tool, dict):
            fn = tool.get("function")
            names.add(str(fn.get("name")) if isinstance(fn, dict) else str(tool.get("name")))
    return names


def _anthropic_tool(body: dict[str, Any], name: str, args: dict[str, Any]) -> tuple[str, bytes]:
    model = body.get("model", "fake")
    block = {"type": "tool_use", "id": "toolu_fake", "name": name, "input": args}
    message = {
        "id": "msg_fake_tool",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [block],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    if not body.get("stream"):
        return "application/json", json.dumps(message).encode()
    start = dict(message, content=[], stop_reason=None)
    return "text/event-stream", _sse(
        [
            ("message_start", {"type": "message_start", "message": start}),
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": dict(block, input={})},
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": json.dumps(args)},
                },
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                    "usage": {"output_tokens": 1},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
    )


def _chat_tool(body: dict[str, Any], name: str, args: dict[str, Any]) -> tuple[str, bytes]:
    model = body.get("model", "fake")
    call = {
        "id": "call_fake",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }
    if not body.get("stream"):
        answer = {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                    "finish_reason": "tool_calls",
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        return "application/json", json.dumps(answer).encode()

    def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    last = chunk({}, "tool_calls")
    last["usage"] = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    first = chunk({"role": "assistant", "tool_calls": [dict(call, index=0)]}, None)
    return "text/event-stream", _sse([(None, first), (None, last), (None, "[DONE]")])


def _chat(body: dict[str, Any]) -> tuple[str, bytes]:
    model = body.get("model", "fake")
    if not body.get("stream"):
        answer = {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": REPLY},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        return "application/json", json.dumps(answer).encode()

    def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }

    last = chunk({}, "stop")
    last["usage"] = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    return "text/event-stream", _sse(
        [
            (None, chunk({"role": "assistant", "content": REPLY}, None)),
            (None, last),
            (None, "[DONE]"),
        ]
    )


class FakeModel:
    """The running server: ``url`` (``http://127.0.0.1:PORT``) and ``requests`` recorded so far."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        #: ``(tool name, arguments)`` to call once, in answer to the first request offering it.
        self.tool_call: tuple[str, dict[str, Any]] | None = None
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                return

            def _answer(self, status: int, kind: str, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                owner._record(self.path, {})
                if self.path.rstrip("/").endswith("/models"):
                    models = {"object": "list", "data": [{"id": "fake", "object": "model"}]}
                    self._answer(200, "application/json", json.dumps(models).encode())
                else:
                    self._answer(404, "application/json", b'{"error": "not found"}')

            def do_HEAD(self) -> None:
                self._answer(200, "text/plain", b"")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else {}
                except ValueError:
                    body = {}
                if not isinstance(body, dict):
                    body = {}
                owner._record(self.path, body)
                path = self.path.split("?", 1)[0]
                if path.endswith("/messages/count_tokens"):
                    self._answer(200, "application/json", b'{"input_tokens": 1}')
                elif path.endswith("/messages"):
                    call = owner._take_call(body)
                    answer = _anthropic_tool(body, *call) if call else _anthropic(body)
                    self._answer(200, *answer)
                elif path.endswith("/responses"):
                    self._answer(200, *_responses(body))
                elif path.endswith("/chat/completions"):
                    call = owner._take_call(body)
                    self._answer(200, *(_chat_tool(body, *call) if call else _chat(body)))
                else:
                    self._answer(404, "application/json", b'{"error": "not found"}')

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _record(self, path: str, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(Request(path, body))

    def _take_call(self, body: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        with self._lock:
            call = self.tool_call
            if call is None or call[0] not in _tool_names(body):
                return None
            self.tool_call = None
            return call

    def start(self) -> FakeModel:
        """Start serving in a daemon thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._server.shutdown()
        self._server.server_close()

    def take(self) -> list[Request]:
        """The requests recorded since the last call, oldest first (the record is emptied)."""
        with self._lock:
            taken, self.requests = self.requests, []
        return taken


@contextmanager
def fake_model() -> Iterator[FakeModel]:
    """A started :class:`FakeModel`, stopped on exit."""
    server = FakeModel().start()
    try:
        yield server
    finally:
        server.stop()
