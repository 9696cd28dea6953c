"""``skillpath serve`` under abuse: what any local process (HTTP) or a misbehaving
stdio client can try, scaled down with ``--limit`` so each attack needs tens of
requests rather than thousands. Every wait is on an event (a line of output, a
closed socket, a process exit) bounded by ``LIMIT``."""

from __future__ import annotations

import asyncio
import fcntl
import http.client
import json
import os
import select
import signal
import socket
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client
from mcp import types as mt

LIMIT = 60  # seconds: no single wait may take longer

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "attacker", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _project(root: Path) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    _write(
        root / ".skillpath" / "skills" / "hello" / "SKILL.md",
        "---\ndescription: Say hello.\n---\nHello $ARGUMENTS.\n",
    )
    return root


def _serve(project: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "skillpath", "serve", "--cwd", str(project), *extra]


def _readline(stream: Any) -> bytes:
    """One line from ``stream`` (an unbuffered pipe), waiting at most ``LIMIT`` seconds."""
    fd = stream.fileno()
    ready, _, _ = select.select([fd], [], [], LIMIT)
    assert ready, "no output within the limit"
    return stream.readline()


@contextmanager
def _http_server(project: Path, env: dict[str, str], *extra: str) -> Iterator[Any]:
    """``serve --http 0`` running; yields ``(process, port)``; always stopped afterwards."""
    proc = subprocess.Popen(
        _serve(project, "--http", "0", *extra),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        bufsize=0,  # unbuffered: select() sees every byte not yet read
    )
    try:
        assert proc.stderr is not None
        port = None
        for _ in range(20):
            line = _readline(proc.stderr).decode()
            if not line:
                break
            if "listening on http://127.0.0.1:" in line:
                port = int(line.rsplit(":", 1)[1].split("/")[0])
                break
        assert port is not None, "the server did not report its port"
        _readline(proc.stderr)  # the shell note
        yield proc, port
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(LIMIT)


def _post(port: int, body: dict[str, Any], session: str | None = None) -> tuple[int, Any, str]:
    """POST one JSON-RPC message to ``/mcp``: ``(status, session id header, body text)``."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=LIMIT)
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    if session is not None:
        headers["mcp-session-id"] = session
        headers["mcp-protocol-version"] = "2025-06-18"
    try:
        conn.request("POST", "/mcp", json.dumps(body), headers)
        resp = conn.getresponse()
        return resp.status, resp.getheader("mcp-session-id"), resp.read().decode()
    finally:
        conn.close()


def _initialize_and_drop(port: int) -> str:
    status, sid, _ = _post(port, INIT)
    assert status == 200, status
    assert sid
    status, _, _ = _post(port, INITIALIZED, sid)
    assert status in (200, 202), status
    return sid


async def _sdk_prompts(port: int) -> list[str]:
    from mcp.client.streamable_http import streamable_http_client

    async with (
        streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, *_),
        ClientSession(read, write) as s,
    ):
        await s.initialize()
        return [p.name for p in (await s.list_prompts()).prompts]


def _run(coro: Any) -> Any:
    async def bounded() -> Any:
        return await asyncio.wait_for(coro, LIMIT)

    return asyncio.run(bounded())


# -- HTTP -------------------------------------------------------------------------


def test_initialize_and_drop_sessions_never_lock_clients_out(world: Any) -> None:
    """Before: 10,000 abandoned sessions gave every new client 503 for 30 minutes.
    Now the least recently used idle session is evicted (here at 4 sessions)."""
    project = _project(world.project)
    with _http_server(project, world.env, "--poll", "0", "--limit", "max_sessions=4") as (
        _proc,
        port,
    ):
        sids = [_initialize_and_drop(port) for _ in range(12)]  # each one admitted
        assert "hello" in _run(_sdk_prompts(port))
        # the oldest abandoned sessions were evicted, the newest is still there
        assert _post(port, {"jsonrpc": "2.0", "id": 2, "method": "ping"}, sids[0])[0] == 404
        assert _post(port, {"jsonrpc": "2.0", "id": 2, "method": "ping"}, sids[-1])[0] == 200


def test_every_live_session_gets_list_changed(world: Any) -> None:
    """Before: after 64 sessions the earliest clients stopped getting ``list_changed``."""
    from mcp.client.streamable_http import streamable_http_client

    project = _project(world.project)
    notes: list[Any] = []

    with _http_server(project, world.env, "--poll", "0.2") as (_proc, port):

        async def scenario() -> bool:
            seen = asyncio.Event()

            async def on_message(message: Any) -> None:
                notes.append(message)
                if isinstance(message, mt.PromptListChangedNotification):
                    seen.set()

            async with (
                streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, *_),
                ClientSession(read, write, message_handler=on_message) as s,
            ):
                await s.initialize()
                await s.list_prompts()
                for _ in range(70):  # more than the 64 the server used to remember
                    await asyncio.to_thread(_initialize_and_drop, port)
                _write(
                    project / ".skillpath" / "skills" / "fresh" / "SKILL.md",
                    "---\ndescription: New.\n---\nNew.\n",
                )
                await seen.wait()
                return "fresh" in {p.name for p in (await s.list_prompts()).prompts}

        assert _run(scenario()) is True


def _wait_closed(sock: socket.socket) -> bool:
    """Whether the server closed ``sock`` (EOF or reset) within ``LIMIT`` seconds."""
    sock.settimeout(LIMIT)
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return True
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_half_open_connections_are_closed_and_bounded(world: Any) -> None:
    """Before: 1,100 connections sending half a request head blocked every client
    (no deadline for a request, no bound on connections)."""
    project = _project(world.project)
    with _http_server(
        project,
        world.env,
        "--poll",
        "0",
        "--limit",
        "max_connections=8",
        "--limit",
        "request_timeout=1",
    ) as (_proc, port):
        socks = []
        try:
            for i in range(20):
                sock = socket.create_connection(("127.0.0.1", port), timeout=LIMIT)
                if i % 2:  # half a request head; the others send nothing at all
                    sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le")
                socks.append(sock)
            assert "hello" in _run(_sdk_prompts(port))
            # a body that never completes is cut off as well
            slow = socket.create_connection(("127.0.0.1", port), timeout=LIMIT)
            socks.append(slow)
            slow.sendall(
                b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: 1000\r\n\r\n{"
            )
            assert all(_wait_closed(s) for s in socks)
        finally:
            for s in socks:
                s.close()


def _open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts /proc/<pid>/fd")
@pytest.mark.parametrize("half", [False, True])
def test_connections_beyond_the_cap_hold_no_descriptors(world: Any, half: bool) -> None:
    """Before: 3,000 half-open connections held 2,185 file descriptors at once against
    a cap of 128 (asyncio accepted up to 2,048 connections in one turn, before any
    was closed), and a new client waited 7.2 s. Sampled after every connection, the
    server's descriptors stay within the cap plus a few accept batches, and a new
    client is answered while the attack's connections are still open."""
    from skillpath_mcp._guard import ACCEPT_BATCH

    cap = 8
    project = _project(world.project)
    with _http_server(project, world.env, "--poll", "0", "--limit", f"max_connections={cap}") as (
        proc,
        port,
    ):
        base = _open_fds(proc.pid)
        socks = []
        peak = 0
        try:
            for _ in range(400):
                sock = socket.create_connection(("127.0.0.1", port), timeout=LIMIT)
                if half:
                    sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                socks.append(sock)
                peak = max(peak, _open_fds(proc.pid))
            status, _sid, _body = _post(port, INIT)
            assert status == 200
            assert peak <= base + cap + 6 * min(ACCEPT_BATCH, cap), (peak, base)
            # beyond the cap, the server closed the least recently active ones
            closed = sum(_wait_closed(s) for s in socks[: len(socks) - cap])
            assert closed == len(socks) - cap
        finally:
            for s in socks:
                s.close()


def test_sessions_beyond_the_cap_are_evicted_or_refused(world: Any) -> None:
    """Sessions are held to ``max_sessions``: N+k abandoned sessions leave exactly N
    alive (the k oldest evicted, 404), and when every session is busy (a GET stream
    open on each) a new one is refused with 503 instead of exceeding the cap."""
    cap = 4
    project = _project(world.project)
    with _http_server(project, world.env, "--poll", "0", "--limit", f"max_sessions={cap}") as (
        _proc,
        port,
    ):
        sids = [_initialize_and_drop(port) for _ in range(cap + 6)]
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        alive = [sid for sid in sids if _post(port, ping, sid)[0] == 200]
        assert alive == sids[-cap:]
        streams = []
        try:
            for sid in alive:
                stream = socket.create_connection(("127.0.0.1", port), timeout=LIMIT)
                streams.append(stream)
                stream.sendall(
                    f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                    f"Accept: text/event-stream\r\nmcp-session-id: {sid}\r\n"
                    "mcp-protocol-version: 2025-06-18\r\n\r\n".encode()
                )
                assert _recv_head(stream).startswith(b"HTTP/1.1 200")
            refused = [_post(port, INIT)[0] for _ in range(3)]
            assert refused == [503, 503, 503]
        finally:
            for stream in streams:
                stream.close()
        # a stream closed: its session is idle again, and a new client gets in
        for _ in range(LIMIT * 10):
            if _post(port, INIT)[0] == 200:
                break
            threading.Event().wait(0.1)
        else:
            raise AssertionError("no session was freed after the streams closed")


def test_busy_port_is_one_line(world: Any) -> None:
    project = _project(world.project)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        proc = subprocess.run(
            _serve(project, "--http", str(port)),
            capture_output=True,
            text=True,
            env=world.env,
            timeout=LIMIT,
            stdin=subprocess.DEVNULL,
        )
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert f"cannot listen on 127.0.0.1:{port}" in lines[0]
    assert "in use" in lines[0]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_http_signal_is_one_line(world: Any, sig: signal.Signals) -> None:
    project = _project(world.project)
    with _http_server(project, world.env, "--poll", "0") as (proc, _port):
        proc.send_signal(sig)
        assert proc.wait(LIMIT) == 128 + sig
        rest = proc.stderr.read().decode()
    assert rest.strip().splitlines() == [f"skillpath: error: serve stopped by {sig.name}"], rest


def _recv_head(sock: socket.socket) -> bytes:
    """The response head the server sent on ``sock`` (waiting at most ``LIMIT`` seconds)."""
    sock.settimeout(LIMIT)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, "the server closed the connection before answering"
        data += chunk
    return data


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_http_signal_with_open_streams_is_one_line(world: Any, sig: signal.Signals) -> None:
    """Before: a signal while a session's GET stream or a half-sent request was open
    printed the lifespan's ``CancelledError`` traceback before the one-line message."""
    project = _project(world.project)
    with _http_server(project, world.env, "--poll", "0") as (proc, port):
        sid = _initialize_and_drop(port)
        stream = socket.create_connection(("127.0.0.1", port), timeout=LIMIT)
        half = socket.create_connection(("127.0.0.1", port), timeout=LIMIT)
        try:
            stream.sendall(
                f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n"
                f"mcp-session-id: {sid}\r\nmcp-protocol-version: 2025-06-18\r\n\r\n".encode()
            )
            assert _recv_head(stream).startswith(b"HTTP/1.1 200")  # the stream is open
            half.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            _ = _post(port, {"jsonrpc": "2.0", "id": 9, "method": "ping"}, sid)  # both seen
            proc.send_signal(sig)
            assert proc.wait(LIMIT) == 128 + sig
            rest = proc.stderr.read().decode()
        finally:
            stream.close()
            half.close()
    assert rest.strip().splitlines() == [f"skillpath: error: serve stopped by {sig.name}"], rest


# -- arguments --------------------------------------------------------------------


def test_oversized_arguments_are_refused_with_a_clear_error(world: Any) -> None:
    """Before: one 3.9 MB argument cost 300 s of CPU (quadratic splitting), with no cap."""
    project = _project(world.project)
    limit = 1000

    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        params = StdioServerParameters(
            command=sys.executable,
            args=_serve(project, "--poll", "0", "--limit", f"max_argument_chars={limit}")[1:],
            env=world.env,
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            fits = await s.get_prompt("hello", {"args": "x" * limit})
            out["fits"] = fits.messages[0].content.text
            try:
                await s.get_prompt("hello", {"args": "x" * (limit + 1)})
                out["prompt"] = None
            except MCPError as exc:
                out["prompt"] = str(exc)
            tool = await s.call_tool("load_skill", {"name": "hello", "args": "y" * (limit + 1)})
            out["tool"] = (tool.is_error, tool.content[0].text)
        return out

    out = _run(scenario())
    assert "x" * limit in out["fits"]
    assert out["prompt"] is not None
    assert f"arguments too large ({limit + 1} characters; the limit is {limit})" in out["prompt"]
    assert out["tool"][0] is True
    assert "arguments too large" in out["tool"][1]


# -- stdio ------------------------------------------------------------------------


@contextmanager
def _stdio_server(project: Path, env: dict[str, str], *extra: str) -> Iterator[Any]:
    proc = subprocess.Popen(
        _serve(project, *extra),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        bufsize=0,  # unbuffered: select() sees every byte not yet read
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            # SIGTERM: the server ends the process groups of inline commands still
            # running (SIGKILL would leave them behind, e.g. a `cat` of a FIFO)
            proc.terminate()
            try:
                proc.wait(LIMIT)
            except subprocess.TimeoutExpired:
                proc.kill()
        proc.wait(LIMIT)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            try:
                stream.close()
            except OSError:
                pass


def _send(proc: Any, message: dict[str, Any]) -> None:
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


def _handshake(proc: Any) -> None:
    _send(proc, INIT)
    answer = json.loads(_readline(proc.stdout))
    assert answer["id"] == 1 and "result" in answer
    _send(proc, INITIALIZED)


def test_stdio_sigint_stops_while_stdin_stays_open(world: Any) -> None:
    """Before: SIGINT was ignored until the client closed stdin."""
    project = _project(world.project)
    with _stdio_server(project, world.env, "--poll", "0") as proc:
        _handshake(proc)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(LIMIT) == 128 + signal.SIGINT
        err = proc.stderr.read().decode()
    assert err.strip().splitlines() == ["skillpath: error: serve stopped by SIGINT"], err


_OUTPUT_LOST = (
    "skillpath: error: serve stopped: the client closed the server's output (stdout) "
    "while keeping its input open"
)


@pytest.mark.parametrize("then", ["silent", "request"])
def test_stdio_exits_when_the_client_closes_its_output(world: Any, then: str) -> None:
    """Before: a client that closed the server's stdout but kept stdin open left the
    server idle until killed. It now stops, silent client or not, with one line."""
    project = _project(world.project)
    with _stdio_server(project, world.env, "--poll", "0") as proc:
        _handshake(proc)
        proc.stdout.close()  # stdin stays open
        if then == "request":
            _send(proc, {"jsonrpc": "2.0", "id": 2, "method": "prompts/list"})
        assert proc.wait(LIMIT) == 1
        err = proc.stderr.read().decode()
    assert err.strip().splitlines() == [_OUTPUT_LOST], err


def test_stdio_client_closing_both_ends_is_an_ordinary_disconnect(world: Any) -> None:
    project = _project(world.project)
    with _stdio_server(project, world.env, "--poll", "0") as proc:
        _handshake(proc)
        proc.stdin.close()  # the end of the input is there before the output goes
        proc.stdout.close()
        assert proc.wait(LIMIT) == 0
        err = proc.stderr.read().decode()
    assert err.strip() == "", err


def test_stdio_sigterm_kills_the_running_command_group(world: Any, tmp_path: Path) -> None:
    """Before: SIGTERM during an inline command left the command's process group running."""
    project = _project(world.project)
    fifo = tmp_path / "held"
    os.mkfifo(fifo)
    world.config("[shell]\ntimeout = 600\n")
    _write(
        world.home / ".skillpath" / "skills" / "slow" / "SKILL.md",
        "---\ndescription: Runs a long command.\n---\n"
        f"Now: !`{{ echo $$; sleep 300 & wait; }} > '{fifo}'`\n",
    )
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # so the command's open succeeds
    pgid = None
    try:
        with _stdio_server(project, world.env, "--poll", "0") as proc:
            _handshake(proc)
            _send(
                proc,
                {"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": "slow"}},
            )
            ready, _, _ = select.select([reader], [], [], LIMIT)
            assert ready, "the command did not start"
            pgid = int(os.read(reader, 100).split()[0])  # the shell's pid: its group
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(LIMIT) == 128 + signal.SIGTERM
            err = proc.stderr.read().decode()
        # every process of the group had the FIFO open: EOF means they are all gone
        ready, _, _ = select.select([reader], [], [], LIMIT)
        assert ready and os.read(reader, 100) == b"", "the command's group is still running"
        assert err.strip().splitlines()[-1] == "skillpath: error: serve stopped by SIGTERM"
    finally:
        os.close(reader)
        if pgid is not None:
            try:
                os.killpg(pgid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def test_stdio_client_that_never_reads_gets_backpressure(world: Any) -> None:
    """Before: a client writing requests without reading the answers made the server
    queue answers without bound (17 MB/s). Now it stops reading and says so."""
    project = _project(world.project)
    ping = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "prompts/list"}).encode() + b"\n"
    total = 40_000  # far more than the pipes and the server's read-ahead hold
    with _stdio_server(project, world.env, "--poll", "0", "--limit", "max_in_flight=4") as proc:
        _handshake(proc)
        fcntl.fcntl(proc.stdout.fileno(), 1031, 4096)  # F_SETPIPE_SZ: a small stdout pipe
        done = threading.Event()

        def flood() -> None:
            try:
                for i in range(total):
                    proc.stdin.write(ping.replace(b'"id": 0', b'"id": %d' % (i + 2)))
                proc.stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                return
            done.set()

        writer = threading.Thread(target=flood, daemon=True)
        writer.start()
        line = b""
        while not line.strip() or b"not reading" not in line:
            line = _readline(proc.stderr)
            assert line, "the server exited"
            assert not done.is_set(), "the server read every request without answers read"
        # requests wait in the pipe: the writer keeps writing and nothing reads them (it
        # may not have run again yet when the notice arrives, so it is waited for)
        waiting = bytearray(4)
        deadline = time.monotonic() + LIMIT
        while True:
            fcntl.ioctl(proc.stdin.fileno(), termios.FIONREAD, waiting)
            if int.from_bytes(waiting, sys.byteorder) > 0 or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        assert int.from_bytes(waiting, sys.byteorder) > 0
        proc.kill()
        writer.join(LIMIT)
    assert not done.is_set()


def test_stdio_cancelled_request_frees_its_place(world: Any, tmp_path: Path) -> None:
    """A request the client cancels is no longer waited for: with one request in flight
    allowed, a cancelled request that never answers must not stop the server reading."""
    project = _project(world.project)
    fifo = tmp_path / "gate"
    os.mkfifo(fifo)
    world.config("[shell]\ntimeout = 600\n")
    _write(
        world.home / ".skillpath" / "skills" / "gated" / "SKILL.md",
        f"---\ndescription: Waits for the test.\n---\nNow: !`cat '{fifo}'`\n",
    )
    gate = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # the command's open never blocks
    try:
        with _stdio_server(project, world.env, "--poll", "0", "--limit", "max_in_flight=1") as proc:
            _handshake(proc)
            get = {"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": "gated"}}
            _send(proc, get)
            _send(
                proc,
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": 2, "reason": "test"},
                },
            )
            _send(proc, {"jsonrpc": "2.0", "id": 3, "method": "ping"})
            answer = json.loads(_readline(proc.stdout))
            assert answer["id"] == 3 and "result" in answer
            os.write(gate, b"done\n")
    finally:
        os.close(gate)


@pytest.mark.parametrize(
    ("limit", "message"),
    [
        ("max_sesions=4", "unknown limit 'max_sesions=4'"),
        ("max_sessions=0", "max_sessions must be a positive number"),
        ("request_timeout=soon", "limit request_timeout: 'soon' is not a number"),
    ],
)
def test_a_bad_limit_is_one_line(world: Any, limit: str, message: str) -> None:
    proc = subprocess.run(
        _serve(world.project, "--http", "0", "--limit", limit),
        capture_output=True,
        text=True,
        env=world.env,
        timeout=LIMIT,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
