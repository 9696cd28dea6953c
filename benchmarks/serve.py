#!/usr/bin/env python3
"""``skillpath serve`` under its two workloads: idle, and many HTTP clients (not a test).

Run from the repository root::

    python3 -m uv run python benchmarks/serve.py           # 3,000 / 1,000 skills, 30 s idle
    python3 -m uv run python benchmarks/serve.py --quick   # small sizes, under a minute

Rows (each against a baseline measured in the same run, with its target and PASS/FAIL):

* **idle** — ``skillpath serve`` over stdio with default options on a project of
  3,000 skills: the process's CPU time (``/proc/<pid>/stat``) over a fixed wall
  interval after a warm-up, as a share of one core; next to it a process that
  only sleeps, and the server's former behaviour (the whole catalog read again
  every 2 s, run in a process of its own through ``SkillServer.reload``).
* **HTTP** — ``skillpath serve --http`` on a project of 1,000 skills: 50
  concurrent clients (one asyncio task each, keep-alive connections, in this
  process), each sending 100 requests as four sessions of 25, the way an agent
  host talks to a server: ``initialize`` (after ending the previous session with
  ``DELETE``; ``notifications/initialized`` follows), ``tools/list``,
  ``prompts/list``, ``resources/list``, then 21 requests of a seeded mix of
  ``resources/read`` of ``skill://`` URLs, ``prompts/get`` and ``tools/call`` of
  ``load_skill``. Latency per HTTP request (p50, p95, p99; the ``DELETE`` and
  the ``notifications/initialized`` of a session change are timed as requests
  of their own), errors (a status other than 200/202, or a JSON-RPC error),
  and the server's RSS after a warm-up and after each of two rounds. A third
  round (``uniform``, no target) draws every request but the ``initialize``
  uniformly from all six kinds, so half of them
  are whole listings (hundreds of KB each at 1,000 skills): a stress figure.
  During the warm-up every answer is parsed in full; in the timed rounds the
  client checks each answer's JSON-RPC envelope (``"id"`` and ``"result"``)
  without parsing the listing, so its own CPU time stays small.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PROTOCOL = "2025-06-18"
ROWS: list[tuple[str, str, str, str, str]] = []


def row(measured: str, value: str, baseline: str, target: str, ok: bool | None) -> None:
    verdict = "" if ok is None else ("PASS" if ok else "FAIL")
    value += f" (load average {os.getloadavg()[0]:.1f})"  # other jobs on the machine
    ROWS.append((measured, value, baseline, target, verdict))
    print(f"{measured}: {value} ({baseline}) target {target} {verdict}", file=sys.stderr)


def make_project(root: Path, n: int, seed: int = 19) -> Path:
    """A project (a git root) with ``n`` skills: a ``SKILL.md`` of 1–6 KB, a guide
    under ``refs/`` and, for every third skill, a script; one in ten is not
    user-invocable."""
    rng = random.Random(seed)
    (root / ".git").mkdir(parents=True, exist_ok=True)
    skills = root / ".skillpath" / "skills"
    for i in range(n):
        name = f"skill-{i:05d}"
        folder = skills / name
        (folder / "refs").mkdir(parents=True)
        body = " ".join(rng.choice(("alpha", "beta", "gamma", "delta")) for _ in range(200))
        invocable = "" if i % 10 else "user-invocable: false\n"
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Skill {i}: use when asked about topic {i} "
            f"and its {rng.randint(1, 99)} variants.\nargument-hint: <topic>\n{invocable}---\n"
            f"# {name}\n\nWork on $ARGUMENTS.\n\n" + body * rng.randint(1, 6) + "\n",
            encoding="utf-8",
        )
        (folder / "refs" / "guide.md").write_text(f"# Guide {i}\n", encoding="utf-8")
        if i % 3 == 0:
            (folder / "run.py").write_text("print('hi')\n", encoding="utf-8")
    return root


def environment(base: Path) -> dict[str, str]:
    home = base / "home"
    home.mkdir(exist_ok=True)
    env = dict(os.environ)
    env.update(
        HOME=str(home),
        XDG_CACHE_HOME=str(base / "cache"),
        XDG_CONFIG_HOME=str(base / "config"),
        XDG_DATA_HOME=str(base / "data"),
    )
    env.pop("SKILLPATH_HOME", None)
    return env


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def stop(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


# -- idle ------------------------------------------------------------------------

_OLD_LOOP = """
import sys, time
from skillpath_mcp.server import SkillServer
app = SkillServer(sys.argv[1])
print("ready", flush=True)
while True:  # what the server did before: the whole catalog read again every 2 s
    time.sleep(2.0)
    app.reload()
"""


def _idle_share(proc: subprocess.Popen[Any], warmup: float, window: float) -> float:
    time.sleep(warmup)
    before, start = cpu_seconds(proc.pid), time.monotonic()
    time.sleep(window)
    return (cpu_seconds(proc.pid) - before) / (time.monotonic() - start)


def _stdio_ready(proc: subprocess.Popen[bytes]) -> None:
    """Initialize over stdio and wait for the answer (the server is up)."""
    assert proc.stdin is not None and proc.stdout is not None
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"},
        },
    }
    proc.stdin.write((json.dumps(init) + "\n").encode())
    proc.stdin.flush()
    proc.stdout.readline()
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    proc.stdin.write((json.dumps(note) + "\n").encode())
    proc.stdin.flush()


def bench_idle(base: Path, n: int, window: float) -> None:
    project = make_project(base / f"idle-{n}", n)
    env = environment(base)
    py = sys.executable
    # warm-up: past the watcher's first tick (it reads the catalog once more then)
    warmup = 6.0
    sleeper = subprocess.Popen([py, "-c", f"import time; time.sleep({warmup + window + 60})"])
    try:
        sleep_share = _idle_share(sleeper, warmup, window)
    finally:
        sleeper.kill()
        sleeper.wait()
    server = subprocess.Popen(
        [py, "-m", "skillpath", "serve", "--cwd", str(project)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        _stdio_ready(server)
        share = _idle_share(server, warmup, window)
    finally:
        if server.stdin is not None:
            server.stdin.close()
        stop(server)
    old = subprocess.Popen(
        [py, "-c", _OLD_LOOP, str(project)], stdout=subprocess.PIPE, env=env, cwd=project
    )
    try:
        assert old.stdout is not None
        old.stdout.readline()
        old_share = _idle_share(old, warmup, window)
    finally:
        stop(old)
    row(
        f"serve idle, {n:,} skills, default options ({window:.0f} s)",
        f"{share * 100:.2f}% of a core",
        f"a sleeping process {sleep_share * 100:.2f}%; re-read every 2 s (before) "
        f"{old_share * 100:.1f}%",
        "≤ 1%",
        share <= 0.01,
    )


# -- HTTP ------------------------------------------------------------------------


class Client:
    """One keep-alive HTTP/1.1 connection speaking streamable HTTP (JSON or SSE answers)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.sid: str | None = None
        self.ids = 0
        #: Parse every answer in full (else: check the JSON-RPC envelope only).
        self.full_check = False

    async def _connect(self) -> None:
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)

    async def request(
        self, method: str, body: bytes | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        for attempt in (0, 1):
            if self.writer is None:
                await self._connect()
            assert self.reader is not None and self.writer is not None
            head = [
                f"{method} /mcp HTTP/1.1",
                f"Host: 127.0.0.1:{self.port}",
                "Accept: application/json, text/event-stream",
                "Content-Type: application/json",
                f"Content-Length: {len(body or b'')}",
            ]
            if self.sid:
                head += [f"mcp-session-id: {self.sid}", f"mcp-protocol-version: {PROTOCOL}"]
            try:
                self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + (body or b""))
                return await self._response()
            except (ConnectionError, asyncio.IncompleteReadError):
                # a keep-alive connection the server closed while idle: once more
                self.writer = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    async def _response(self) -> tuple[int, dict[str, str], bytes]:
        assert self.reader is not None
        status_line = await self.reader.readuntil(b"\r\n")
        status = int(status_line.split()[1])
        headers: dict[str, str] = {}
        while True:
            line = await self.reader.readuntil(b"\r\n")
            if line == b"\r\n":
                break
            key, _, value = line.decode("latin-1").partition(":")
            headers[key.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    await self.reader.readuntil(b"\r\n")
                    break
                parts.append(await self.reader.readexactly(size))
                await self.reader.readexactly(2)
            data = b"".join(parts)
        else:
            data = await self.reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            self.close()
        return status, headers, data

    async def call(self, method: str, params: dict[str, Any] | None = None) -> bool:
        """Send one JSON-RPC request; ``True`` when it was answered without an error."""
        self.ids += 1
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": self.ids, "method": method}
        if params is not None:
            msg["params"] = params
        status, headers, data = await self.request("POST", json.dumps(msg).encode())
        if method == "initialize" and status == 200:
            self.sid = headers.get("mcp-session-id")
        if status != 200:
            return False
        if not self.full_check and data[:1] == b"{":
            # the envelope only: {"jsonrpc":"2.0","id":N,"result":{...}}
            head = data[:64].replace(b" ", b"")
            return head.startswith(b'{"jsonrpc":"2.0","id":%d,"result":{' % self.ids) and (
                data.rstrip().endswith(b"}")
            )
        answer = _decode(data)
        return answer is not None and answer.get("id") == self.ids and "result" in answer

    async def initialize(self, out: list[tuple[float, bool, str]] | None = None) -> bool:
        """End the current session (``DELETE``), ``initialize``, ``notifications/initialized``:
        three HTTP requests, each timed on its own into ``out``."""
        steps: list[tuple[float, bool, str]] = []
        if self.sid:
            start = time.perf_counter()
            status, _h, _d = await self.request("DELETE")
            steps.append((time.perf_counter() - start, status == 200, "DELETE"))
            self.sid = None
        start = time.perf_counter()
        ok = await self.call(
            "initialize",
            {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"},
            },
        )
        steps.append((time.perf_counter() - start, ok, "initialize"))
        note = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode()
        start = time.perf_counter()
        status, _h, _d = await self.request("POST", note)
        steps.append((time.perf_counter() - start, status == 202, "notifications/initialized"))
        if out is not None:
            out.extend(steps)
        return all(ok for _t, ok, _m in steps)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


def _decode(data: bytes) -> dict[str, Any] | None:
    """The JSON-RPC answer in a JSON body or in the ``data:`` lines of an SSE body."""
    text = data.decode("utf-8")
    if text.lstrip().startswith("{"):
        return json.loads(text)
    for block in text.split("\n\n"):
        lines = [ln[5:].lstrip() for ln in block.splitlines() if ln.startswith("data:")]
        if lines:
            msg = json.loads("\n".join(lines))
            if "id" in msg:
                return msg
    return None


Plan = list[tuple[str, dict[str, Any] | None]]
_LISTINGS: Plan = [("tools/list", None), ("prompts/list", None), ("resources/list", None)]


def _mix(rng: random.Random, n_skills: int, uniform: bool = False) -> Plan:
    """100 requests: four sessions of ``initialize``, the listings, then reads and calls
    (``uniform``: every request but ``initialize`` drawn from all six kinds)."""
    invocable = [i for i in range(n_skills) if i % 10]
    out: Plan = []
    for k in range(100):
        if k % 25 == 0:
            out.append(("initialize", None))
            continue
        if not uniform and k % 25 <= 3:
            out.append(_LISTINGS[k % 25 - 1])
            continue
        i = rng.choice(invocable)
        name = f"skill-{i:05d}"
        uri = f"skill://{name}/{rng.choice(('SKILL.md', 'refs/guide.md'))}"
        kinds: Plan = [
            ("resources/read", {"uri": uri}),
            ("prompts/get", {"name": name, "arguments": {"args": f"topic {i}"}}),
            ("tools/call", {"name": "load_skill", "arguments": {"name": name, "args": "x"}}),
        ]
        out.append(rng.choice(kinds + _LISTINGS if uniform else kinds))
    return out


async def _client(port: int, plan: Plan, out: Any, full_check: bool) -> None:
    client = Client(port)
    client.full_check = full_check
    try:
        for method, params in plan:
            start = time.perf_counter()
            try:
                if method == "initialize":
                    await client.initialize(out)
                    continue
                ok = await client.call(method, params)
            except (OSError, asyncio.IncompleteReadError, ValueError):
                ok = False
                client.close()
            out.append((time.perf_counter() - start, ok, method))
        if client.sid:
            await client.request("DELETE")  # a client that is done ends its session
    finally:
        client.close()


async def _load(
    port: int,
    clients: int,
    n_skills: int,
    seed: int,
    *,
    uniform: bool = False,
    full_check: bool = False,
) -> list[tuple[float, bool, str]]:
    results: list[tuple[float, bool, str]] = []
    plans = [_mix(random.Random(seed + c), n_skills, uniform) for c in range(clients)]
    await asyncio.gather(*(_client(port, plan, results, full_check) for plan in plans))
    return results


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _http_rounds(
    project: Path, env: dict[str, str], n: int, clients: int, mixes: tuple[bool, ...]
) -> tuple[float, int, list[tuple[int, bool, float, Any, float]]]:
    """Start ``serve --http``, warm it up, run one round per entry of ``mixes``
    (``True``: uniform); RSS after the warm-up, warm-up errors, and the rounds."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillpath", "serve", "--cwd", str(project), "--http", "0"],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    rounds = []
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline().decode()
        port = int(line.rsplit(":", 1)[1].split("/")[0])
        proc.stderr.readline()
        # warm-up: every client once through the host mix, a few through the uniform
        # one, every answer parsed in full (RSS after it is the reference for "flat")
        warmup = asyncio.run(_load(port, clients, n, seed=1000, full_check=True))
        warmup += asyncio.run(_load(port, 5, n, seed=2000, uniform=True, full_check=True))
        warm_errors = sum(not ok for _t, ok, _m in warmup)
        warm = rss_mb(proc.pid)
        for r, uniform in enumerate(mixes, 1):
            start, cpu, own = time.perf_counter(), cpu_seconds(proc.pid), time.process_time()
            results = asyncio.run(_load(port, clients, n, seed=r * 100, uniform=uniform))
            spent = time.perf_counter() - start
            server_ms = (cpu_seconds(proc.pid) - cpu) / len(results) * 1000
            client_ms = (time.process_time() - own) / len(results) * 1000
            print(
                f"  round {r}: CPU per request: server {server_ms:.2f} ms, "
                f"clients {client_ms:.2f} ms",
                file=sys.stderr,
            )
            rounds.append((r, uniform, spent, results, rss_mb(proc.pid)))
    finally:
        stop(proc)
    return warm, warm_errors, rounds


def _summary(results: Any, spent: float) -> tuple[str, float, int]:
    lat = [t * 1000 for t, _ok, _m in results]
    errors = sum(not ok for _t, ok, _m in results)
    p99 = _pct(lat, 0.99)
    text = (
        f"p50 {_pct(lat, 0.5):.0f} ms, p95 {_pct(lat, 0.95):.0f} ms, p99 {p99:.0f} ms, "
        f"max {max(lat):.0f} ms; {errors} errors; {len(results) / spent:.0f} req/s"
    )
    return text, p99, errors


def _by_method(r: int, results: Any) -> None:
    by_method: dict[str, list[float]] = {}
    for t, _ok, m in results:
        by_method.setdefault(m, []).append(t * 1000)
    print(
        f"  round {r} p50/p99 by method: "
        + ", ".join(
            f"{m} {_pct(v, 0.5):.0f}/{_pct(v, 0.99):.0f} ms" for m, v in sorted(by_method.items())
        ),
        file=sys.stderr,
    )


def _sources_of(ref: str, dest: Path) -> str:
    """The ``core`` and ``skillpath-mcp`` sources of git ``ref``, as a ``PYTHONPATH``."""
    root = Path(__file__).resolve().parents[1]
    archive = subprocess.run(
        ["git", "-C", str(root), "archive", ref, "core/src", "providers/mcp/src"],
        capture_output=True,
        check=True,
    ).stdout
    dest.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return os.pathsep.join([str(dest / "core" / "src"), str(dest / "providers" / "mcp" / "src")])


def bench_http(base: Path, n: int, clients: int, before: str | None = None) -> None:
    project = make_project(base / f"http-{n}", n)
    env = environment(base)
    if before:
        # the same load against the sources of an earlier commit (one round, host mix)
        old_env = {**env, "PYTHONPATH": _sources_of(before, base / "before")}
        old_warm, old_warm_errors, old = _http_rounds(project, old_env, n, clients, (False,))
        _r, _u, spent, results, rss = old[0]
        text, _p99, errors = _summary(results, spent)
        if old_warm_errors:
            text += f" ({old_warm_errors} errors in the warm-up)"
        row(
            f"before ({before}): serve --http, {n:,} skills, {clients} clients × 100 "
            "requests, host mix",
            text,
            f"RSS {old_warm:.0f} MB after warm-up, {rss:.0f} MB after the round",
            "—",
            None,
        )
        _by_method(0, results)
    warm, warm_errors, rounds = _http_rounds(project, env, n, clients, (False, False, True))
    for r, uniform, spent, results, rss in rounds:
        text, p99, errors = _summary(results, spent)
        errors += warm_errors if r == 1 else 0
        if r == 1 and warm_errors:
            text += f" ({warm_errors} errors in the warm-up)"
        mix = "uniform mix (stress, no target)" if uniform else "host mix"
        row(
            f"serve --http, {n:,} skills, {clients} clients × 100 requests, {mix}, round {r}",
            text,
            f"RSS {warm:.0f} MB after warm-up, {rss:.0f} MB after round {r}",
            "—" if uniform else "p99 ≤ 100 ms, 0 errors, RSS flat",
            None if uniform else (p99 <= 100 and errors == 0 and rss <= warm * 1.1 + 5),
        )
        _by_method(r, results)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (under a minute)")
    ap.add_argument("--only", choices=("idle", "http"), help="one workload only")
    ap.add_argument(
        "--before",
        metavar="REF",
        help="also run the HTTP load (one round) against the sources of git REF",
    )
    args = ap.parse_args(argv)
    idle_n, window, http_n, clients = (300, 5.0, 100, 20) if args.quick else (3000, 30.0, 1000, 50)
    with tempfile.TemporaryDirectory(prefix="skillpath-serve-bench-") as tmp:
        base = Path(tmp)
        if args.only in (None, "idle"):
            bench_idle(base, idle_n, window)
        if args.only in (None, "http"):
            bench_http(base, http_n, clients, args.before)
    print("| measured | result | baseline (same run) | target | |")
    print("| --- | --- | --- | --- | --- |")
    for r in ROWS:
        print("| " + " | ".join(r) + " |")
    return 0 if all(r[4] != "FAIL" for r in ROWS) else 1


if __name__ == "__main__":
    sys.exit(main())
