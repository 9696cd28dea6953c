"""Put a stdio MCP server behind a streamable-HTTP URL, so that a client that speaks HTTP
only (the MCP conformance suite's ``server`` command) tests the stdio transport.

    python mcp_stdio_bridge.py COMMAND [ARG...]

prints ``http://127.0.0.1:PORT/mcp`` on its first stdout line and serves until stdin
closes or it is terminated. Every message is relayed as it is: nothing is rewritten but
the JSON-RPC ``id`` of a request (each server process sees ids of its own, so clients
whose ids collide never confuse it), restored in the answer.

Each handshake-era session (an ``initialize`` request; its ``Mcp-Session-Id`` on the
requests that follow) gets a server process of its own, as a stdio client gets one per
connection. Requests without a session (the 2026-07-28 per-request envelope) share one
server process, whose first request opens it in that era. A request is answered with
the server's response as JSON; a notification or a response from the client is passed on
and answered 202. What the server sends unasked (notifications, requests) is dropped:
an HTTP client in JSON mode has no stream to receive it on. A ``GET`` (the standalone
stream) is answered 405, which the transport allows.
"""

from __future__ import annotations

import itertools
import json
import queue
import subprocess
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: Seconds a relayed request may wait for the server's answer.
ANSWER_SECONDS = 60.0


class Upstream:
    """One stdio server process and the requests waiting for its answers."""

    def __init__(self, command: list[str]) -> None:
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sys.stderr
        )
        self._ids = itertools.count(1)
        self._waiting: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if not isinstance(message, dict) or "method" in message:
                continue  # unasked: a notification or a request to the client
            with self._lock:
                box = self._waiting.pop(message.get("id"), None)  # type: ignore[arg-type]
            if box is not None:
                box.put(message)

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Relay one request; the server's answer with the client's id restored."""
        own = next(self._ids)
        box: queue.Queue[dict[str, Any]] = queue.Queue()
        with self._lock:
            self._waiting[own] = box
        self.send({**message, "id": own})
        try:
            answer = box.get(timeout=ANSWER_SECONDS)
        except queue.Empty:
            return None
        return {**answer, "id": message["id"]}

    def stop(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Bridge:
    """The sessions and the shared sessionless server of one bridge."""

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.sessions: dict[str, Upstream] = {}
        self.sessionless: Upstream | None = None
        self.lock = threading.Lock()

    def upstream(self, session: str | None, method: str | None) -> tuple[Upstream, str | None]:
        with self.lock:
            if session is not None and session in self.sessions:
                return self.sessions[session], session
            if method == "initialize":
                new = uuid.uuid4().hex
                self.sessions[new] = Upstream(self.command)
                return self.sessions[new], new
            if self.sessionless is None:
                self.sessionless = Upstream(self.command)
            return self.sessionless, None

    def stop(self) -> None:
        for upstream in [*self.sessions.values(), self.sessionless]:
            if upstream is not None:
                upstream.stop()


def handler_for(bridge: Bridge) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _reply(self, status: int, body: bytes = b"", session: str | None = None) -> None:
            self.send_response(status)
            if body:
                self.send_header("Content-Type", "application/json")
            if session is not None:
                self.send_header("Mcp-Session-Id", session)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._reply(405)

        def do_DELETE(self) -> None:
            self._reply(405)

        def do_POST(self) -> None:
            size = int(self.headers.get("Content-Length") or 0)
            try:
                message = json.loads(self.rfile.read(size))
            except ValueError:
                self._reply(400)
                return
            if not isinstance(message, dict):
                self._reply(400)  # batches are not part of the protocol since 2025-06-18
                return
            upstream, session = bridge.upstream(
                self.headers.get("Mcp-Session-Id"), message.get("method")
            )
            if "method" not in message or "id" not in message:
                upstream.send(message)
                self._reply(202, session=session)
                return
            answer = upstream.request(message)
            if answer is None:
                self._reply(504)
                return
            self._reply(200, json.dumps(answer).encode(), session=session)

    return Handler


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    bridge = Bridge(argv)
    web = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(bridge))
    print(f"http://127.0.0.1:{web.server_address[1]}/mcp", flush=True)
    threading.Thread(target=web.serve_forever, daemon=True).start()
    try:
        sys.stdin.read()  # until the caller closes our stdin
    finally:
        web.shutdown()
        bridge.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
