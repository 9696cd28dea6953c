"""Concurrency: 8 processes loading, extracting the same pack and writing the
same managed skill against the same directories at once; then processes
killed (SIGKILL) in the middle of their writes.

Nothing crashes, no reader ever sees a partial file, the extraction cache holds
one complete tree, and afterwards a load through the discovery index equals a
load without it.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import importlib_metadata
import pytest

from .concurrency_worker import check_managed_body

WORKER = Path(__file__).with_name("concurrency_worker.py")


def _has_example_pack() -> bool:
    eps = importlib_metadata.entry_points(group="skillpath.packs")
    return any(ep.dist is not None and ep.dist.name == "acme-skills" for ep in eps)


pytestmark = pytest.mark.skipif(
    not _has_example_pack(), reason="the acme-skills example pack is not installed"
)


class World:
    """A project and a home shared by every process, with a shared cache dir."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.project = tmp / "project"
        self.home = tmp / "home"
        self.cache = tmp / "cache"
        (self.project / ".git").mkdir(parents=True)
        self.home.mkdir()
        skills = self.project / ".skillpath" / "skills"
        for name in ("stable-one", "stable-two", "churn"):
            (skills / name).mkdir(parents=True)
            (skills / name / "SKILL.md").write_text(
                f"---\ndescription: {'churn 0 0' if name == 'churn' else name}\n---\nBody.\n"
            )
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            # the example pack is on the test run's PYTHONPATH (see conftest.py)
            "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "SKILLPATH_CACHE_DIR": str(self.cache),
            "SKILLPATH_PLUGINS": "native,packs,managed",
            "SKILLPATH_CLAUDE_POLICY_DIR": str(tmp / "no-policy"),
        }

    def spawn(self, action: str, wid: int, iterations: int, go: Path) -> subprocess.Popen[str]:
        argv = [sys.executable, str(WORKER), action, str(wid), str(iterations)]
        argv += [str(self.project), str(self.home), str(go)]
        return subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env
        )

    def snapshot(self, *, index: bool) -> dict:
        code = textwrap.dedent(
            f"""
            import json
            from skillpath import load_skills
            res = load_skills({str(self.project)!r}, home={str(self.home)!r})
            print(json.dumps({{
                "skills": sorted(
                    [s.name, s.description, s.source.provider, str(s.path), s.body]
                    for s in res.skills
                ),
                "diagnostics": sorted(
                    [d.level, d.code, str(d.path)] for d in res.diagnostics
                ),
            }}))
            """
        )
        env = dict(self.env)
        if not index:
            env["SKILLPATH_NO_INDEX"] = "1"
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
        )
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)


def _results(procs: list[subprocess.Popen[str]], timeout: float = 120) -> list[dict]:
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=timeout)
        assert p.returncode == 0, stderr
        out.append(json.loads(stdout.strip().splitlines()[-1]))
    return out


def _leftovers(world: World) -> list[str]:
    found = []
    for base in (world.home / ".skillpath", world.cache, world.project):
        for dirpath, dirnames, filenames in os.walk(base):
            for n in dirnames + filenames:
                if n.endswith(".tmp") or ".tmp-" in n or n.startswith(".tmp"):
                    found.append(os.path.join(dirpath, n))
    return sorted(found)


def _check_final_state(world: World) -> None:
    with_index = world.snapshot(index=True)
    again = world.snapshot(index=True)
    without = world.snapshot(index=False)
    assert with_index == without == again
    names = {s[0] for s in without["skills"]}
    assert {"stable-one", "stable-two", "churn", "code-review", "shared-learned"} <= names
    assert not [d for d in without["diagnostics"] if d[0] == "error"], without["diagnostics"]
    shared = next(s for s in without["skills"] if s[0] == "shared-learned")
    assert check_managed_body(shared[4]) is None
    trees = [p for p in (world.cache / "packs").iterdir() if p.name.startswith("acme-skills-")]
    assert len(trees) == 1, trees


def test_eight_processes_load_extract_and_write_at_once(tmp_path: Path) -> None:
    world = World(tmp_path)
    go = tmp_path / "go"
    actions = ["mixed"] * 4 + ["writer"] * 2 + ["reader"] * 2
    procs = [world.spawn(a, i, 10, go) for i, a in enumerate(actions)]
    time.sleep(0.3)  # let every interpreter start before the gun
    go.touch()
    results = _results(procs)
    errors = [e for r in results for e in r["errors"]]
    assert errors == [], "\n".join(errors[:5])
    assert sum(r["seen"]["loads"] for r in results) == 8 * 10
    assert sum(r["seen"]["writes"] for r in results) == 6 * 10
    # every reader extracted or reused the same tree: one content length
    assert len({n for r in results for n in r["seen"]["pack"]}) == 1
    assert _leftovers(world) == []
    _check_final_state(world)


def test_processes_killed_mid_write_leave_a_consistent_state(tmp_path: Path) -> None:
    world = World(tmp_path)
    rng = random.Random(1234)
    for round_ in range(3):
        go = tmp_path / f"go-{round_}"
        procs = [world.spawn("mixed", 10 * round_ + i, 200, go) for i in range(4)]
        time.sleep(0.3)
        go.touch()
        for p in procs:
            time.sleep(rng.uniform(0.05, 0.4))
            os.kill(p.pid, signal.SIGKILL)
        for p in procs:
            p.communicate(timeout=30)
            assert p.returncode == -signal.SIGKILL
    # the survivors of a kill are at most temporary files; a normal run then succeeds
    go = tmp_path / "go-final"
    go.touch()
    (result,) = _results([world.spawn("mixed", 99, 3, go)])
    assert result["errors"] == []
    _check_final_state(world)
    # a writer killed mid-write may leave its temporary file behind: always a
    # dot file, which no scanner reads and no skill lists
    assert all(os.path.basename(p).startswith(".") for p in _leftovers(world))
