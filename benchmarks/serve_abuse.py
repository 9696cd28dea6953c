#!/usr/bin/env python3
"""``skillpath serve`` and the MCP client under the attacks of the security page (not a test).

Run from the repository root::

    python3 -m uv run python benchmarks/serve_abuse.py

Prints one table. Each row is an attack, scaled to finish in seconds, with what
it cost; where the old behaviour can be measured in the same run (argument
splitting with :func:`shlex.split`), that baseline is printed next to it.
"""

from __future__ import annotations

import http.client
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}
FIXTURES = Path(__file__).resolve().parents[1] / "providers" / "mcp" / "tests" / "fixtures"
ROWS: list[tuple[str, str]] = []


def row(attack: str, result: str) -> None:
    ROWS.append((attack, result))
    print(f"{attack}: {result}", file=sys.stderr, flush=True)


def timed(fn: Any, *args: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - start, out


def bench_split() -> None:
    from skillpath._split import split_words

    for size in (100_000, 200_000, 400_000):
        word = "x" * size
        old, _ = timed(shlex.split, word)
        new, _ = timed(split_words, word)
        row(
            f"split one {size // 1000} KB argument",
            f"{new * 1000:.1f} ms (shlex.split, before: {old * 1000:.0f} ms)",
        )
    word = "x" * 4_000_000
    new, _ = timed(split_words, word)
    row("split one 4 MB argument", f"{new * 1000:.0f} ms")


def _project(root: Path) -> Path:
    (root / ".git").mkdir(parents=True)
    skill = root / ".skillpath" / "skills" / "hello" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\ndescription: Say hello.\n---\nHello $ARGUMENTS.\n")
    return root


def _start_http(project: Path, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    serve = ["serve", "--cwd", str(project), "--http", "0", "--poll", "0"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillpath", *serve],
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env=env,
    )
    assert proc.stderr is not None
    line = proc.stderr.readline().decode()
    port = int(line.rsplit(":", 1)[1].split("/")[0])
    proc.stderr.readline()
    return proc, port


def _post(port: int, body: dict[str, Any], sid: str | None = None) -> tuple[int, str | None]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if sid:
        headers["mcp-session-id"] = sid
        headers["mcp-protocol-version"] = "2025-06-18"
    conn.request("POST", "/mcp", json.dumps(body), headers)
    resp = conn.getresponse()
    resp.read()
    conn.close()
    return resp.status, resp.getheader("mcp-session-id")


#: Half-open connections opened against the default ``max_connections`` (128).
HALF_OPEN = 3000


def _fds(pid: int) -> int:
    """Open file descriptors of process ``pid`` (from ``/proc``; 0 where there is none)."""
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def bench_http(tmp: Path, env: dict[str, str]) -> None:
    project = _project(tmp / "http")
    proc, port = _start_http(project, env)
    try:
        n = 1000
        start = time.perf_counter()
        statuses = [_post(port, INIT)[0] for _ in range(n)]
        spent = time.perf_counter() - start
        refused = sum(s != 200 for s in statuses)
        fresh = _post(port, INIT)[0]
        row(
            f"{n} initialize-and-drop sessions (limit 256)",
            f"{refused} refused, {spent:.1f} s; a new client then gets {fresh}; "
            f"server RSS {_rss_kb(proc.pid) // 1024} MB",
        )
        socks = []
        base_fds = _fds(proc.pid)
        peak_fds = base_fds
        for _ in range(HALF_OPEN):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            socks.append(s)
            peak_fds = max(peak_fds, _fds(proc.pid))
        held_fds = _fds(proc.pid)
        start = time.perf_counter()
        status = _post(port, INIT)[0]
        spent = time.perf_counter() - start
        for s in socks:
            s.settimeout(30)
        closed_at = time.perf_counter()
        closed = 0
        for s in socks:
            try:
                if s.recv(10) == b"":
                    closed += 1
            except OSError:
                closed += 1
            s.close()
        row(
            f"{HALF_OPEN} half-open connections (limit 128, request deadline 10 s)",
            f"server file descriptors: {base_fds} before, peak {peak_fds} (sampled after "
            f"each connection), {held_fds} with all of them open; a new client gets "
            f"{status} in {spent * 1000:.0f} ms; all {closed} closed by the "
            f"server within {time.perf_counter() - closed_at + spent:.1f} s",
        )
        status, sid = _post(port, INIT)
        _post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
        big = "x" * 400_000
        start = time.perf_counter()
        for i in range(45):
            call = {
                "jsonrpc": "2.0",
                "id": i + 2,
                "method": "prompts/get",
                "params": {"name": "hello", "arguments": {"args": big}},
            }
            _post(port, call, sid)
        row("45 prompts/get with a 400 KB argument", f"{time.perf_counter() - start:.2f} s")
        rss = _rss_kb(proc.pid)
        for i in range(200):
            call = {
                "jsonrpc": "2.0",
                "id": 1000 + i,
                "method": "tools/call",
                "params": {
                    "name": "load_skill",
                    "arguments": {"name": "hello", "args": f"{i} " + "y" * 100_000},
                },
            }
            _post(port, call, sid)
        row(
            "200 load_skill calls with distinct 100 KB arguments (--poll 0)",
            f"server RSS {rss // 1024} MB before, {_rss_kb(proc.pid) // 1024} MB after",
        )
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


def _peak_rss(cmd: list[str], env: dict[str, str]) -> tuple[float, int, str, str]:
    """Run ``cmd``: seconds, its own peak RSS in MB (sampled VmHWM), stdout, stderr."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        peak = 0
        while proc.poll() is None:
            try:
                for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
            except OSError:
                pass
            time.sleep(0.05)
        spent = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        return spent, peak // 1024, out.read().decode(), err.read().decode()


def bench_hostile(tmp: Path, env: dict[str, str]) -> None:
    home = tmp / "home"
    config = home / ".skillpath" / "config.toml"
    config.parent.mkdir(parents=True)
    project = tmp / "consumer"
    (project / ".git").mkdir(parents=True)
    server = json.dumps(str(FIXTURES / "hostile_server.py"))
    config.write_text(
        '[mcp]\ntimeout = 120\n[[mcp.servers]]\nname = "evil"\n'
        f"command = {json.dumps(sys.executable)}\nargs = [{server}]\n"
        'env = {HOSTILE_PROMPTS = "100000", HOSTILE_SKILLS = "0", HOSTILE_DESCRIPTION = "100", '
        'HOSTILE_CONTENT = "50000000", HOSTILE_RESOURCES = "0"}\n'
    )
    child_env = dict(env, HOME=str(home), SKILLPATH_NO_INDEX="1")
    cmd = [sys.executable, "-m", "skillpath", "list", "--cwd", str(project), "--json"]
    spent, peak, out, _err = _peak_rss(cmd, child_env)
    kept = len(json.loads(out).get("skills", [])) if out else 0
    row(
        "a server with 100,000 prompts (one page)",
        f"list: {kept} kept, {spent:.1f} s, peak RSS of skillpath {peak} MB",
    )
    config.write_text(
        '[mcp]\ntimeout = 120\n[[mcp.servers]]\nname = "evil"\n'
        f"command = {json.dumps(sys.executable)}\nargs = [{server}]\n"
        'env = {HOSTILE_PROMPTS = "1", HOSTILE_SKILLS = "0", '
        'HOSTILE_CONTENT = "50000000", HOSTILE_RESOURCES = "0"}\n'
    )
    invoke = [sys.executable, "-m", "skillpath", "invoke", "--cwd", str(project), "p0"]
    spent, peak, _out, err = _peak_rss(invoke, child_env)
    row(
        "a 50 MB prompt",
        f"refused in {spent:.1f} s, peak RSS {peak} MB: {err.strip()[:160]}",
    )


def main() -> None:
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as tmp:
        bench_split()
        bench_http(Path(tmp), env)
        bench_hostile(Path(tmp), env)
    print("| Attack | Result |\n| --- | --- |")
    for attack, result in ROWS:
        print(f"| {attack} | {result} |")


if __name__ == "__main__":
    main()
