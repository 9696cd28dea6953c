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

Beside the ratio of the medians, each row prints the median of the per-round ratios
(the two runs of a round are back to back, so a slow drift of the machine's load
cancels in each) and their quartiles: on a machine whose cold runs vary by 10% and
more, that is the figure that shows whether a 5% target is met. ``--rows`` runs only
the rows named (``--rows cold --runs 21``: the cold row alone, with more rounds).

``--instructions`` also counts the machine instructions of one cold run with the checks
on and one with them off under ``valgrind --tool=callgrind`` (when ``valgrind`` is on
``PATH``; each run takes about 50 times as long): a count that does not depend on the
machine's load, the same from one run to the next, so the cost of the checks shows
without the noise (it leaves out what instructions do not show, such as cache misses).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
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


def instructions(argv: Sequence[str], env: dict[str, str], cwd: str, log: Path) -> int | None:
    """The instructions one run of ``argv`` executes, counted by ``valgrind
    --tool=callgrind`` (``None``: no ``valgrind``, or no count in its log)."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    out = log.with_suffix(".out")
    cmd = [valgrind, "--tool=callgrind", f"--callgrind-out-file={out}", f"--log-file={log}"]
    subprocess.run(
        [*cmd, *argv], env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    m = (
        re.search(r"Collected\s*:\s*(\d+)", log.read_text(errors="replace"))
        if log.exists()
        else None
    )
    out.unlink(missing_ok=True)
    return int(m.group(1)) if m else None


#: The rows' short names (``--rows``), in the order they run.
ROWS = ("cold", "first-look", "first-run", "index-only", "warm")


def quartiles(xs: Sequence[float]) -> tuple[float, float, float]:
    """The lower quartile, median and upper quartile of ``xs`` (one value: it three times)."""
    if len(xs) < 2:
        return xs[0], xs[0], xs[0]
    q1, q2, q3 = statistics.quantiles(xs, n=4, method="inclusive")
    return q1, q2, q3


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10_000, help="corpus size (default 10,000)")
    ap.add_argument("--runs", type=int, default=5, help="timed rounds per row (default 5)")
    ap.add_argument("--corpus", default="default", choices=sorted(bench.SHAPES))
    ap.add_argument("--keep", action="store_true", help="keep the corpus (its path is printed)")
    ap.add_argument(
        "--rows",
        default=",".join(ROWS),
        help=f"the rows to run, comma-separated (default: all of {', '.join(ROWS)})",
    )
    ap.add_argument(
        "--instructions",
        action="store_true",
        help="also count the instructions of one cold run on and off (needs valgrind)",
    )
    args = ap.parse_args(argv)
    wanted = [r.strip() for r in args.rows.split(",") if r.strip()]
    unknown = sorted(set(wanted) - set(ROWS))
    if unknown or not wanted:
        ap.error(
            f"--rows: unknown {', '.join(unknown) or '(none given)'}; choose from {', '.join(ROWS)}"
        )
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
        table: tuple[tuple[str, str, dict[str, str], Callable[[], None] | None], ...] = (
            ("cold", "cold list --json (no index), store kept", cold, None),
            ("first-look", "first look: cold, store removed each run", cold, drop_store),
            ("first-run", "first run: empty cache (builds the index)", {}, wipe),
            (
                "index-only",
                "index only (SKILLPATH_NO_SNAPSHOT=1)",
                {"SKILLPATH_NO_SNAPSHOT": "1"},
                None,
            ),
            ("warm", "warm (index and replay)", {}, None),
        )
        for short, label, extra, before in table:
            if short not in wanted:
                continue
            (cpu_on, wall_on), (cpu_off, wall_off) = rounds(
                cmd, ({**env, **extra}, {**off, **extra}), cwd, args.runs, before
            )
            c_on, c_off = statistics.median(cpu_on), statistics.median(cpu_off)
            w_on, w_off = statistics.median(wall_on), statistics.median(wall_off)
            pairs = quartiles([a / b for a, b in zip(cpu_on, cpu_off, strict=True)])
            rows.append((short, label, c_on, c_off, w_on, w_off, pairs))
            if before is not None:  # leave a store for the rows after
                bench.run_once(cmd, env={**env, **extra}, cwd=cwd)
                time.sleep(bench.RACY_S)
        print()
        cols = ("cpu on", "cpu off", "ratio", "wall on", "wall off", "pairs", "quartiles")
        print(f"{'row':44} " + " ".join(f"{c:>8}" for c in cols))
        for _short, label, c_on, c_off, w_on, w_off, (q1, q2, q3) in rows:
            print(
                f"{label:44} {c_on * 1000:6.0f}ms {c_off * 1000:6.0f}ms {c_on / c_off:7.2f}x "
                f"{w_on * 1000:6.0f}ms {w_off * 1000:6.0f}ms {q2:7.3f}x {q1:.3f}-{q3:.3f}"
            )
        print()
        for short, _label, c_on, c_off, _w_on, _w_off, (_q1, q2, _q3) in rows:
            if short not in ("cold", "first-run"):
                continue
            ratio = c_on / c_off
            name = "cold" if short == "cold" else "first run (empty cache)"
            print(
                f"{name} list --json with the checks on: {100 * (ratio - 1):+.1f}% processor "
                f"time, {100 * (q2 - 1):+.1f}% the median round "
                f"(target <= +5%: {'PASS' if ratio <= 1.05 and q2 <= 1.05 else 'FAIL'})"
            )
        if args.instructions:
            # python -m skillpath: the interpreter itself under valgrind, not a launcher
            py = [sys.executable, "-m", "skillpath", "list", "--json"]
            on_env = {**env, **cold, "PYTHONHASHSEED": "0"}
            off_env = {**on_env, "SKILLPATH_NO_CONTENT_CHECKS": "1"}
            for e in (on_env, off_env):  # what a first run of this command writes, written
                bench.run_once(py, env=e, cwd=cwd)
            counts = [
                instructions(py, e, cwd, tmp / f"callgrind-{k}.log")
                for k, e in (("on", on_env), ("off", off_env))
            ]
            if None in counts:
                print("instructions: not counted (valgrind not found, or it gave no count)")
            else:
                i_on, i_off = counts
                assert i_on is not None and i_off is not None
                print(
                    f"cold list --json, instructions (callgrind): {i_on:,} on, {i_off:,} off: "
                    f"{100 * (i_on / i_off - 1):+.2f}% with the checks on"
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
