#!/usr/bin/env python3
"""What the load-time content checks cost ``skillpath list --json`` (not a test).

Run from the repository root (see ``benchmarks/README.md``)::

    python3 -m uv run python benchmarks/findings_cost.py              # N = 10,000, 5 rounds
    python3 -m uv run python benchmarks/findings_cost.py --n 1000 --runs 3

On the corpus of ``bench.py`` (same generator and seed), each row runs the same
command with the checks on and with them off (``SKILLPATH_NO_CONTENT_CHECKS=1``)
in alternation, in the same run, so a change in the machine's load hits both
alike; it prints the median processor time (user + system) and wall time of
each, and the ratio on / off:

* **cold**: ``SKILLPATH_NO_INDEX=1`` (every ``SKILL.md`` read and parsed), the
  findings store kept from the previous run — the cost of the checks on a run
  that discovers from scratch (target: at most 5% more);
* **first look**: the same, with the findings store removed before each run, so
  every skill is checked (what the first run after installing costs, once);
* **first run**: the cache folder removed before each run (no discovery index, no
  findings store): a user's first ``list --json``, which checks every
  ``SKILL.md`` whole and builds the index;
* **index only**: the discovery index on, the replay of an unchanged ``list``
  off (``SKILLPATH_NO_SNAPSHOT=1``): every plugin loads and every ``SKILL.md`` is
  ``stat``\\ ed;
* **warm**: index and replay on.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # the corpus generator and process runner of bench.py


def rounds(
    argv: Sequence[str],
    envs: tuple[dict[str, str], dict[str, str]],
    cwd: str,
    runs: int,
    before: Callable[[], None] | None = None,
) -> list[tuple[list[float], list[float]]]:
    """``runs`` rounds (after one untimed) of the two environments in alternation:
    ``(cpu seconds, wall seconds)`` of each."""
    out: list[tuple[list[float], list[float]]] = [([], []), ([], [])]
    for r in range(runs + 1):
        for k, env in enumerate(envs):
            if before is not None:
                before()
            wall, _rss, code = bench.run_once(argv, env=env, cwd=cwd)
            if code != 0:
                raise SystemExit(f"{' '.join(argv)} exited {code}")
            if r:
                out[k][0].append(bench.LAST_CPU[0])
                out[k][1].append(wall)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10_000, help="corpus size (default 10,000)")
    ap.add_argument("--runs", type=int, default=5, help="timed rounds per row (default 5)")
    ap.add_argument("--corpus", default="default", choices=sorted(bench.SHAPES))
    ap.add_argument("--keep", action="store_true", help="keep the corpus (its path is printed)")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="skillpath-findings-bench-"))
    try:
        manifest = bench.SHAPES[args.corpus](tmp / "corpus", args.n)
        cache = tmp / "cache"
        env = bench.corpus_env(manifest, cache)
        off = {**env, "SKILLPATH_NO_CONTENT_CHECKS": "1"}
        script = str(Path(sys.executable).with_name("skillpath"))
        cmd = [script, "list", "--json"]
        cwd = manifest["project"]
        print(
            f"skillpath findings benchmark: N = {args.n:,}, {args.corpus} corpus, "
            f"{args.runs} rounds per row (checks on / off in alternation)"
        )
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs; corpus in {tmp}")
        # the outputs agree apart from the findings
        bench.run_once(cmd, env=env, cwd=cwd)
        time.sleep(bench.RACY_S)
        store = next(cache.rglob("files.bin"), None)

        def drop_store() -> None:
            for name in ("findings.bin", "files.bin"):
                for found in cache.rglob(name):
                    found.unlink()

        def wipe() -> None:
            shutil.rmtree(cache, ignore_errors=True)

        rows = []
        cold = {"SKILLPATH_NO_INDEX": "1"}
        for label, extra, before in (
            ("cold list --json (no index), store kept", cold, None),
            ("first look: cold, store removed each run", cold, drop_store),
            ("first run: empty cache (builds the index)", {}, wipe),
            ("index only (SKILLPATH_NO_SNAPSHOT=1)", {"SKILLPATH_NO_SNAPSHOT": "1"}, None),
            ("warm (index and replay)", {}, None),
        ):
            (cpu_on, wall_on), (cpu_off, wall_off) = rounds(
                cmd, ({**env, **extra}, {**off, **extra}), cwd, args.runs, before
            )
            c_on, c_off = statistics.median(cpu_on), statistics.median(cpu_off)
            w_on, w_off = statistics.median(wall_on), statistics.median(wall_off)
            rows.append((label, c_on, c_off, w_on, w_off))
            if before is not None:  # leave a store for the rows after
                bench.run_once(cmd, env={**env, **extra}, cwd=cwd)
                time.sleep(bench.RACY_S)
        print()
        cols = ("cpu on", "cpu off", "ratio", "wall on", "wall off")
        print(f"{'row':44} " + " ".join(f"{c:>8}" for c in cols))
        for label, c_on, c_off, w_on, w_off in rows:
            print(
                f"{label:44} {c_on * 1000:6.0f}ms {c_off * 1000:6.0f}ms {c_on / c_off:7.2f}x "
                f"{w_on * 1000:6.0f}ms {w_off * 1000:6.0f}ms"
            )
        print()
        for label, row in (("cold", rows[0]), ("first run (empty cache)", rows[2])):
            ratio = row[1] / row[2]
            print(
                f"{label} list --json with the checks on: {100 * (ratio - 1):+.1f}% processor "
                f"time (target <= +5%: {'PASS' if ratio <= 1.05 else 'FAIL'})"
            )
        if store is not None and store.exists():
            print(
                f"findings of the files read without the index: {store.stat().st_size / 1e6:.2f} MB"
            )
    finally:
        if args.keep:
            print(f"corpus kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
