"""``skillpath list`` with one local stdio MCP server configured, against the same
``list`` without the server (issue 19's MCP row).

Every figure is a whole process (``skillpath list --json``), timed in one run
of this script with the variants interleaved (each round runs every variant
once, in turn), so machine noise hits them alike; medians and minima are
printed. The variants, all over the same project and home:

* **without the server** — the config file has an ``[mcp]`` table and no
  server (the baseline);
* **server, cached** — one ``[[mcp.servers]]`` entry whose listing is in the
  cache (the default ``cache_ttl``);
* **server, listed every run** — the same entry with ``cache_ttl = 0``: the
  server is started and listed by every run (what every run cost before the
  listing cache).

Each is measured with the default layers (an unchanged ``list`` is replayed
from its snapshot) and with ``SKILLPATH_NO_SNAPSHOT=1`` (every run loads the
plugins and the index; the cached listing is read from its file). Target:
server cached ≤ 1.2× without the server, in both modes.

The server is a small MCP SDK server (``MCPServer``) with 20 prompts, started
with this Python. ``SKILLPATH_INDEX_RACY_MS=0`` for every variant, so that
files written by the setup are vouched for at once.

    python benchmarks/mcp_list.py            # 200 local skills, 15 rounds
    python benchmarks/mcp_list.py --quick    # 20 local skills, 5 rounds (< 1 minute)
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SERVER = """
from mcp.server.mcpserver import MCPServer

app = MCPServer("bench-prompts", version="1.0")

for i in range(20):
    def make(i=i):
        def prompt(topic: str = "x") -> str:
            return f"Prompt {i} about {topic}."
        prompt.__name__ = f"bench_prompt_{i:02d}"
        return prompt
    app.prompt(description=f"Benchmark prompt number {i}.")(make())

if __name__ == "__main__":
    app.run()
"""

TARGET = 1.2


def _skillpath() -> list[str]:
    script = Path(sys.executable).with_name("skillpath")
    return [str(script)] if script.exists() else [sys.executable, "-m", "skillpath"]


def _project(root: Path, skills: int) -> Path:
    project = root / "project"
    (project / ".git").mkdir(parents=True)
    for i in range(skills):
        folder = project / ".skillpath" / "skills" / f"local-{i:04d}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: local-{i:04d}\ndescription: Local skill number {i} of the bench.\n"
            f"---\n# Local {i}\n\n" + "Body text. " * 200 + "\n",
            encoding="utf-8",
        )
    return project


def _home(home: Path) -> dict[str, str]:
    """A home of its own for one variant (its config, caches and snapshots)."""
    (home / ".skillpath").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SKILLPATH", "XDG_"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        SKILLPATH_LIBRARIES="",
        SKILLPATH_INDEX_RACY_MS="0",
    )
    return env


def _config(home: Path, server: Path | None, ttl: int | None) -> None:
    lines = ["[mcp]", "timeout = 60"]
    if server is not None:
        lines += [
            "[[mcp.servers]]",
            'name = "bench"',
            f"command = {str(sys.executable)!r}".replace("'", '"'),
            f"args = [{str(server)!r}]".replace("'", '"'),
        ]
        if ttl is not None:
            lines.append(f"cache_ttl = {ttl}")
    (home / ".skillpath" / "config.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, bytes]:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return elapsed, done.stdout


def main() -> None:
    """Run the benchmark and print the table (with the target and PASS/FAIL)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="20 skills, 5 rounds")
    parser.add_argument("--skills", type=int, default=None, help="local skills in the project")
    parser.add_argument("--rounds", type=int, default=None, help="timed rounds")
    args = parser.parse_args()
    skills = args.skills or (20 if args.quick else 200)
    rounds = args.rounds or (5 if args.quick else 15)
    root = Path(tempfile.mkdtemp(prefix="skillpath-mcp-bench-"))
    try:
        project = _project(root, skills)
        server = root / "server.py"
        server.write_text(SERVER, encoding="utf-8")
        cmd = [*_skillpath(), "list", "--json"]
        variants = {
            "without the server": (None, None),
            "server, cached": (server, None),
            "server, listed every run": (server, 0),
        }
        modes: dict[str, dict[str, str]] = {
            "replay (default)": {},
            "no replay": {"SKILLPATH_NO_SNAPSHOT": "1"},
        }
        envs: dict[str, dict[str, str]] = {}
        for i, (name, (srv, ttl)) in enumerate(variants.items()):
            home = root / f"home-{i}"
            envs[name] = _home(home)
            _config(home, srv, ttl)
        times: dict[tuple[str, str], list[float]] = {}
        outputs: dict[tuple[str, str], bytes] = {}
        log = root / "snapshots.log"
        # warm-up: index, entry points, snapshots and the listing cache are built
        for name in variants:
            for extra in modes.values():
                for _ in range(3):
                    _run(cmd, project, {**envs[name], **extra})
        for _ in range(rounds):
            for name in variants:
                for mode, extra in modes.items():
                    elapsed, out = _run(cmd, project, {**envs[name], **extra})
                    times.setdefault((name, mode), []).append(elapsed)
                    outputs[(name, mode)] = out
        # how a cached-listing list with the default layers is served
        # (the log variable is part of the snapshot's key: the second run is the one)
        for _ in range(2):
            _run(cmd, project, {**envs["server, cached"], "SKILLPATH_SNAPSHOT_LOG": str(log)})
        lines = log.read_text().strip().splitlines() if log.exists() else ["?"]
        decision = lines[-1].split(" ", 1)[0]
        same = (
            outputs[("server, cached", "replay (default)")]
            == outputs[("server, cached", "no replay")]
        )
        print(f"skillpath list --json: {skills} local skills + one stdio MCP server (20 prompts)")
        print(f"{rounds} interleaved rounds after warm-up; times in ms (median / min)\n")
        header = f"{'mode':<18} {'variant':<26} {'median':>8} {'min':>8} {'ratio':>7}  target"
        print(header)
        print("-" * len(header))
        verdicts = []
        for mode in modes:
            base = statistics.median(times[("without the server", mode)])
            for name in variants:
                t = times[(name, mode)]
                med = statistics.median(t)
                ratio = med / base
                target = ""
                if name == "server, cached":
                    ok = ratio <= TARGET
                    verdicts.append(ok)
                    target = f"≤ {TARGET}×  {'PASS' if ok else 'FAIL'}"
                print(
                    f"{mode:<18} {name:<26} {med * 1000:8.1f} {min(t) * 1000:8.1f} "
                    f"{ratio:6.2f}×  {target}"
                )
        print(
            f"\nnotes: a cached-listing list with the default layers was {decision} "
            f"(snapshot log); cached output identical with and without replay: {same}"
        )
        print("overall:", "PASS" if all(verdicts) else "FAIL")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
