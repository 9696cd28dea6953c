#!/usr/bin/env python3
"""What the ``libraries`` provider costs (not a test): prints one table.

Run from the repository root::

    python3 -m uv run python benchmarks/libraries.py [--dists 300] [--runs 15]

It installs nothing: it lays out a site directory with ``--dists`` distributions (a
package and a ``.dist-info`` each; every twentieth ships a skill in
``<package>/.agents/skills``), puts it on ``PYTHONPATH`` (so ``sys.path`` has it, as
for a real virtual environment), and times in the same run, medians of ``--runs``:

* ``skillpath list --json`` in a new process, warm (the discovery index built and the
  output recorded for replay), with the provider and with it blocked
  (``SKILLPATH_DISABLE_PLUGINS=libraries``) — the target is at most 10 ms more;
* the same with replay off (``SKILLPATH_NO_SNAPSHOT=1``), where the provider runs;
* in-process, one ``library_roots()`` scan of that ``sys.path``, first call and
  repeated (directories whose modification time did not change are not read again).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def lay_out(site: Path, dists: int) -> int:
    skills = 0
    for i in range(dists):
        pkg = site / f"lib{i:04d}"
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        if i % 20 == 0:
            folder = pkg / ".agents" / "skills" / f"lib{i:04d}-guide"
            folder.mkdir(parents=True)
            (folder / "SKILL.md").write_text(
                f"---\ndescription: How to use lib{i:04d} well.\n---\nUse it.\n"
            )
            skills += 1
        info = site / f"lib{i:04d}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: lib{i:04d}\nVersion: 1.0\n")
    return skills


def timed(args: list[str], env: dict[str, str], cwd: Path, runs: int) -> float:
    subprocess.run(args, env=env, cwd=cwd, capture_output=True, check=True)  # warm-up
    subprocess.run(args, env=env, cwd=cwd, capture_output=True, check=True)  # recorded
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(args, env=env, cwd=cwd, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dists", type=int, default=300)
    parser.add_argument("--runs", type=int, default=15)
    opts = parser.parse_args()
    exe = str(Path(sys.executable).with_name("skillpath"))
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        site, home, project = base / "site", base / "home", base / "project"
        n_skills = lay_out(site, opts.dists)
        home.mkdir()
        # what is measured is a scan of sys.path: the environment skillpath runs in
        (home / ".skillpath").mkdir()
        (home / ".skillpath" / "config.toml").write_text(
            '[skills]\nlibraries_environment = "interpreter"\n'
        )
        (project / ".git").mkdir(parents=True)
        # older than the racy window, so the index and the replay may vouch for it
        old = time.time() - 60
        for dirpath, dirnames, filenames in os.walk(base):
            for name in dirnames + filenames:
                os.utime(os.path.join(dirpath, name), (old, old))
            os.utime(dirpath, (old, old))
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(home),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "PYTHONPATH": str(site),
            "SKILLPATH_DISABLE_PACKS": "*",
        }
        # the workspace's own libraries stay on sys.path: both runs see them
        off = dict(env, SKILLPATH_DISABLE_PLUGINS="libraries")
        args = [exe, "list", "--json"]
        rows = []
        with_p = timed(args, env, project, opts.runs)
        without = timed(args, off, project, opts.runs)
        rows.append(("list --json, warm (replayed)", with_p, without))
        raw = dict(env, SKILLPATH_NO_SNAPSHOT="1")
        raw_off = dict(off, SKILLPATH_NO_SNAPSHOT="1")
        rows.append(
            (
                "list --json, warm (index, no replay)",
                timed(args, raw, project, opts.runs),
                timed(args, raw_off, project, opts.runs),
            )
        )
        sys.path.insert(0, str(site))
        from skillpath_libraries import _MEMO, library_roots

        start = time.perf_counter()
        found = library_roots(cwd=str(project))
        first = (time.perf_counter() - start) * 1000
        start = time.perf_counter()
        for _ in range(opts.runs):
            library_roots(cwd=str(project))
        again = (time.perf_counter() - start) * 1000 / opts.runs
        _MEMO.clear()
    print(f"libraries provider, {opts.dists} distributions on sys.path, {n_skills} with skills")
    print(f"{'measure':<40} {'with':>9} {'without':>9} {'extra':>9}  target")
    for label, a, b in rows:
        verdict = "PASS" if a - b <= 10 else "FAIL"
        print(f"{label:<40} {a:8.1f}ms {b:8.1f}ms {a - b:8.1f}ms  <= 10 ms {verdict}")
    print(f"{'library_roots() first call':<40} {first:8.1f}ms  ({len(found)} roots)")
    print(f"{'library_roots() again, unchanged':<40} {again:8.2f}ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
