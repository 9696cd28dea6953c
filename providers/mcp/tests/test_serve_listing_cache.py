"""``serve --http`` answers listings from a per-catalog cache exactly as the SDK would,
keeps every check on requests that carry params, and answers over TCP_NODELAY."""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio

LIMIT = 60


def _project(root: Path) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    for name in ("alpha", "beta"):
        folder = root / ".skillpath" / "skills" / name
        (folder / "refs").mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\ndescription: The {name} skill.\nargument-hint: <topic>\n---\nDo $ARGUMENTS.\n",
            encoding="utf-8",
        )
        (folder / "refs" / "guide.md").write_text("# Guide\n", encoding="utf-8")
    return root


def mcp_post(
    method: str, key: int | str | None, params: Any, sid: str | None, version: str
) -> tuple[str, dict[str, str]]:
    """The body and headers of a JSON-RPC POST to ``/mcp`` (``key`` ``None``: a
    notification; ``sid``: the session it belongs to, at protocol ``version``)."""
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if key is not None:
        body["id"] = key
    if params is not None:
        body["params"] = params
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    if sid:
        headers["mcp-session-id"] = sid
        headers["mcp-protocol-version"] = version
    return json.dumps(body), headers


class _Http:
    """One keep-alive connection to ``serve --http`` with its MCP session."""

    def __init__(self, port: int, version: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=LIMIT)
        self.version = version
        self.sid: str | None = None
        self.ids = 0

    def post(self, method: str, params: Any = None, *, notify: bool = False) -> Any:
        if not notify:
            self.ids += 1
        key = None if notify else self.ids
        body, headers = mcp_post(method, key, params, self.sid, self.version)
        self.conn.request("POST", "/mcp", body, headers)
        resp = self.conn.getresponse()
        data = resp.read()
        if method == "initialize":
            self.sid = resp.getheader("mcp-session-id")
        if notify:
            assert resp.status == 202, (resp.status, data)
            return None
        assert resp.status == 200, (resp.status, data)
        assert resp.getheader("content-type", "").startswith("application/json")
        return json.loads(data)

    def start(self) -> None:
        init = self.post(
            "initialize",
            {
                "protocolVersion": self.version,
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        )
        assert init["result"]["protocolVersion"] == self.version
        self.post("notifications/initialized", notify=True)


def _start(project: Path) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillpath", "serve", "--cwd", str(project), "--http", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    assert proc.stderr is not None
    deadline = time.monotonic() + LIMIT
    while time.monotonic() < deadline:
        m = re.search(r"127\.0\.0\.1:(\d+)/mcp", proc.stderr.readline())
        if m:
            return proc, int(m.group(1))
    proc.kill()
    raise AssertionError("the server did not report its URL")


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


LISTINGS = ("tools/list", "prompts/list", "resources/list", "resources/templates/list")


def test_cached_listings_equal_the_first_answer_per_protocol_version(world: Any) -> None:
    proc, port = _start(_project(world.project))
    try:
        answers: dict[str, dict[str, Any]] = {}
        for version in ("2025-03-26", "2025-06-18"):
            client = _Http(port, version)
            client.start()
            for method in LISTINGS:
                first = client.post(method)["result"]
                again = client.post(method)["result"]
                other = _Http(port, version)
                other.start()
                assert first == again == other.post(method)["result"], (version, method)
                # params other than none at all take the SDK's whole path: the same answer
                assert client.post(method, {"cursor": "x"})["result"] == first
                answers[f"{version} {method}"] = first
        prompts = {p["name"] for p in answers["2025-06-18 prompts/list"]["prompts"]}
        assert {"alpha", "beta"} <= prompts
        uris = {r["uri"] for r in answers["2025-06-18 resources/list"]["resources"]}
        assert {"skill://alpha/SKILL.md", "skill://alpha/refs/guide.md"} <= uris
        tools = {t["name"] for t in answers["2025-03-26 tools/list"]["tools"]}
        assert tools == {"list_skills", "load_skill", "search_skills"}
    finally:
        _stop(proc)


def test_a_cached_listing_still_refuses_bad_params(world: Any) -> None:
    proc, port = _start(_project(world.project))
    try:
        client = _Http(port, "2025-06-18")
        client.start()
        for method in LISTINGS:
            assert "result" in client.post(method)  # now cached
            bad = client.post(method, {"cursor": 5})
            assert "result" not in bad and bad["error"]["code"] == -32602, (method, bad)
    finally:
        _stop(proc)


def test_http_connections_are_nodelay() -> None:
    """Before: the listening socket did not name TCP, so asyncio left Nagle on for its
    connections and a small answer written in two parts waited for a delayed ACK."""
    from skillpath_mcp.server import _listen

    async def scenario() -> int:
        sock = _listen(0)
        port = sock.getsockname()[1]
        accepted: list[Any] = []
        done = anyio.Event()

        class Proto:
            def connection_made(self, transport: Any) -> None:
                accepted.append(transport.get_extra_info("socket"))
                done.set()

            def connection_lost(self, exc: Exception | None) -> None:
                pass

        import asyncio

        loop = asyncio.get_running_loop()
        server = await loop.create_server(Proto, sock=sock)
        client = socket.create_connection(("127.0.0.1", port), timeout=LIMIT)
        try:
            with anyio.fail_after(LIMIT):
                await done.wait()
            return int(accepted[0].getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        finally:
            client.close()
            server.close()

    assert anyio.run(scenario) != 0


def test_writes_of_one_turn_go_out_as_one() -> None:
    """An answer's head and body (two writes) leave as one ``send``; ``close``
    sends what is pending first, ``abort`` drops it."""
    import asyncio

    from skillpath_mcp._guard import _CoalescingTransport

    class Fake:
        def __init__(self) -> None:
            self.writes: list[bytes] = []
            self.closed = False

        def write(self, data: bytes) -> None:
            self.writes.append(data)

        def is_closing(self) -> bool:
            return self.closed

        def close(self) -> None:
            self.closed = True

        def abort(self) -> None:
            self.closed = True

        def get_extra_info(self, name: str) -> str:
            return f"info:{name}"

    async def scenario() -> tuple[list[bytes], list[bytes], list[bytes], str]:
        loop = asyncio.get_running_loop()
        one, two, three = Fake(), Fake(), Fake()
        t = _CoalescingTransport(one, loop)
        t.write(b"HTTP/1.1 200 OK\r\n\r\n")
        t.write(b"body")
        await asyncio.sleep(0)  # the end of the turn
        t.write(b"next")
        await asyncio.sleep(0)
        closing = _CoalescingTransport(two, loop)
        closing.write(b"last words")
        closing.close()
        dropped = _CoalescingTransport(three, loop)
        dropped.write(b"never")
        dropped.abort()
        await asyncio.sleep(0)
        return one.writes, two.writes, three.writes, t.get_extra_info("peername")

    first, second, third, info = asyncio.run(scenario())
    assert first == [b"HTTP/1.1 200 OK\r\n\r\nbody", b"next"]
    assert second == [b"last words"]
    assert third == []
    assert info == "info:peername"
