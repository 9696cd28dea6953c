#!/usr/bin/env python3
"""Every row of the performance targets in one run (not a test).

Runs, one after another in this Python, the benchmark scripts at the sizes the
targets are set for, prints each script's own table as it comes, then every
line that carries a verdict (``PASS``/``FAIL``) once more, together::

    python3 -m uv run python benchmarks/all.py            # full sizes (about 20-30 minutes)
    python3 -m uv run python benchmarks/all.py --quick    # each script's quick mode

The scripts are ``bench.py`` (cold and replayed ``list --json`` at 10,000
skills on both corpus shapes, start-up), ``inprocess.py`` (a second load,
a refresh, peak memory), ``mcp_list.py`` (``list`` with a stdio MCP server)
and ``serve.py`` (an idle server, many HTTP clients). Each compares against
baselines measured in its own run; see ``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

FULL: list[list[str]] = [
    ["bench.py", "--sizes", "10000", "--corpus", "default,rich", "--no-external"],
    ["inprocess.py"],
    ["mcp_list.py"],
    ["serve.py"],
]
QUICK: list[list[str]] = [
    ["bench.py", "--quick", "--no-external"],
    ["inprocess.py", "--quick"],
    ["mcp_list.py", "--quick"],
    ["serve.py", "--quick"],
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="each script's quick mode")
    args = ap.parse_args()
    verdicts: list[str] = []
    status = 0
    for script, *rest in QUICK if args.quick else FULL:
        cmd = [sys.executable, str(HERE / script), *rest]
        print(f"\n=== {' '.join([script, *rest])} (load average {os.getloadavg()[0]:.1f})")
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1
        )
        assert proc.stdout is not None
        for line in proc.stdout:
            print(line, end="", flush=True)
            if "PASS" in line or "FAIL" in line:
                verdicts.append(f"{script}: {line.strip()}")
        code = proc.wait()
        status = status or code
        print(f"=== {script}: exit {code}, {time.perf_counter() - start:.0f} s")
    print("\n=== every verdict of this run")
    for line in verdicts:
        print(line)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
