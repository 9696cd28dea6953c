#!/usr/bin/env python3
"""The audit of skillpath's speed layers (not a test): does each layer pay?

Run from the repository root (see ``benchmarks/README.md``)::

    python3 -m uv run python benchmarks/layers.py --busy       # N = 10,000, idle and busy
    python3 -m uv run python benchmarks/layers.py --quick      # N = 1,000, idle only

Every layer of :mod:`skillpath.cache` is timed on the row it serves, with the
layer on and with its switch off, runs alternated (on, off, off, on, ...) after
one untimed round, on ``bench.py``'s realistic corpus (rich frontmatter, 5% of
the skill folders symlinked as ``npx skills`` installs them, 3% broken files):

* ``index``: ``list --json``, index warm, replay off (``SKILLPATH_NO_INDEX=1``);
* ``replay``: ``list --json`` on the unchanged tree, and ``list`` on an empty
  project in two places, see below (``SKILLPATH_NO_SNAPSHOT=1``);
* ``entrypoints``: ``list`` on an empty project, replay off: start-up
  (``SKILLPATH_NO_ENTRY_POINT_CACHE=1``);
* ``findings``: cold ``list --json`` (index and replay off), content checks on
  (``SKILLPATH_NO_FINDINGS_CACHE=1``);
* ``reuse``: a second ``load_skills()`` in one process, and
  ``SkillSession.refresh()`` after one edit (``SKILLPATH_NO_REUSE=1``);
* ``notify``: ``SkillSession.refresh()`` after one edit (``SKILLPATH_NO_WATCH=1``).

The command-line rows are timed as the processor time (user + system) of a new
process; the in-process rows as the processor time of the call, each in a new
child process per round (median of ``--calls`` calls). The empty project is
timed where ``bench.py`` puts it (outside the home folder, in the temporary
folder, so the project's parent folders are walked up to ``/``) and under the
home folder.

With ``--busy`` every row is timed a second time while a child process this
script starts (and stops) spins on one core. The verdict applies the rule a
speed layer is kept by: it gains at least 15% of the processor time of its row
on an idle machine, and costs at most 2% with one core busy.

Each row also checks that the layer changes nothing: the bytes of the command's
output with the layer on and off (the untimed round), and for the in-process
rows the load's result against a load with every layer off.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # the corpus generator of bench.py
import inprocess  # its edit helpers

ON = "1"
#: Every layer off: the plain computation the layers are compared with.
PLAIN = {"SKILLPATH_NO_INDEX": ON, "SKILLPATH_NO_REUSE": ON, "SKILLPATH_NO_SNAPSHOT": ON}


class Row:
    """One layer on the row it serves: what runs, where, and the environment on and off."""

    def __init__(
        self,
        layer: str,
        label: str,
        kind: str,
        on: dict[str, str],
        off: dict[str, str],
        where: str = "corpus",
        argv: Sequence[str] = (),
    ) -> None:
        self.layer = layer
        self.label = label
        self.kind = kind  # "cli", "load" or "refresh"
        self.on = on
        self.off = off
        self.where = where  # "corpus", "empty-tmp" or "empty-home"
        self.argv = list(argv)


ROWS = [
    Row(
        "index",
        "list --json, index warm, replay off",
        "cli",
        {"SKILLPATH_NO_SNAPSHOT": ON},
        {"SKILLPATH_NO_SNAPSHOT": ON, "SKILLPATH_NO_INDEX": ON},
        argv=["list", "--json"],
    ),
    Row(
        "replay",
        "list --json, unchanged tree",
        "cli",
        {},
        {"SKILLPATH_NO_SNAPSHOT": ON},
        argv=["list", "--json"],
    ),
    Row(
        "replay",
        "list, empty project in the temp folder",
        "cli",
        {},
        {"SKILLPATH_NO_SNAPSHOT": ON},
        where="empty-tmp",
        argv=["list"],
    ),
    Row(
        "replay",
        "list, empty project under home",
        "cli",
        {},
        {"SKILLPATH_NO_SNAPSHOT": ON},
        where="empty-home",
        argv=["list"],
    ),
    Row(
        "entrypoints",
        "list, empty project, replay off (start-up)",
        "cli",
        {"SKILLPATH_NO_SNAPSHOT": ON},
        {"SKILLPATH_NO_SNAPSHOT": ON, "SKILLPATH_NO_ENTRY_POINT_CACHE": ON},
        where="empty-home",
        argv=["list"],
    ),
    Row(
        "findings",
        "cold list --json (index, replay off), checks on",
        "cli",
        {"SKILLPATH_NO_INDEX": ON, "SKILLPATH_NO_SNAPSHOT": ON},
        {"SKILLPATH_NO_INDEX": ON, "SKILLPATH_NO_SNAPSHOT": ON, "SKILLPATH_NO_FINDINGS_CACHE": ON},
        argv=["list", "--json"],
    ),
    Row("reuse", "second load_skills() in one process", "load", {}, {"SKILLPATH_NO_REUSE": ON}),
    Row(
        "reuse", "SkillSession.refresh() after one edit", "refresh", {}, {"SKILLPATH_NO_REUSE": ON}
    ),
    Row(
        "notify", "SkillSession.refresh() after one edit", "refresh", {}, {"SKILLPATH_NO_WATCH": ON}
    ),
]

#: The rule a speed layer is kept by.
MIN_GAIN_IDLE = 0.15
MAX_COST_BUSY = 1.02


# --------------------------------------------------------------------------- running


def run_cli(argv: Sequence[str], env: dict[str, str], cwd: str, out: Path) -> float:
    """Run ``argv`` once in a new process; its processor time (user + system) in seconds.

    Nothing is written to the temporary folder (``bench.run_once`` keeps GNU
    time's output there), so the timing itself does not touch a folder the
    empty-project row walks through."""
    with open(out, "wb") as stdout:
        proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=stdout, stderr=subprocess.DEVNULL)
        _pid, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(argv)} exited with status {status} in {cwd}")
    return usage.ru_utime + usage.ru_stime


def run_child(kind: str, manifest: Path, cache: Path, extra: dict[str, str], args: Any) -> Any:
    """Run one in-process measurement in a new child process; its JSON answer."""
    cmd = [
        sys.executable,
        os.path.abspath(__file__),
        "--child",
        kind,
        "--manifest",
        str(manifest),
        "--cache",
        str(cache),
        "--extra",
        json.dumps(extra),
        "--calls",
        str(args.calls),
        "--offset",
        str(args._offset),
    ]
    if args._check:
        cmd.append("--check")
    args._offset += args.calls + 1
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"child {kind} failed: {proc.stderr.strip()[-500:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _result_text(result: Any) -> str:
    return json.dumps(
        {
            "skills": [s.to_json() for s in result.skills],
            "conditional": [s.to_json() for s in result.conditional],
            "shadowed": [s.to_json() for s in result.shadowed],
            "diagnostics": [d.to_json() for d in result.diagnostics],
        },
        sort_keys=True,
    )


def child(args: argparse.Namespace) -> None:
    """In a child process: time ``--calls`` second loads or refreshes; print JSON."""
    manifest = json.loads(Path(args.manifest).read_text())
    env = bench.corpus_env(manifest, Path(args.cache))
    env.update(json.loads(args.extra))
    os.environ.clear()
    os.environ.update(env)
    from skillpath import SkillSession, load_skills

    project, home = manifest["project"], manifest["home"]
    cpu: list[float] = []
    if args.child == "load":
        for _ in range(2):  # the index, then the in-process memo
            result = load_skills(project, home=home, env=env)
        for _ in range(args.calls):
            c0 = time.process_time()
            result = load_skills(project, home=home, env=env)
            cpu.append(time.process_time() - c0)
    else:
        files = inprocess.editable_files(manifest, args.offset + args.calls)[args.offset :]
        session = SkillSession.open(project, home=home, env=env)
        session.refresh()
        for i, path in enumerate(files):
            inprocess.edit(path, args.offset + i)
            c0 = time.process_time()
            session.refresh()
            cpu.append(time.process_time() - c0)
        result = session.result
    same = None
    if args.check:
        plain = load_skills(project, home=home, env={**env, **PLAIN})
        same = _result_text(result) == _result_text(plain)
    print(json.dumps({"cpu": statistics.median(cpu), "same": same}))


class Spinner:
    """A child process that keeps one core busy while it runs."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Spinner:
        self.proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        time.sleep(0.2)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


def measure(row: Row, places: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """Time ``row`` with its layer on and off, alternated; processor seconds of each run."""
    place = places[row.where]
    env = place["env"]
    times: dict[str, list[float]] = {"on": [], "off": []}
    same = True
    replayed = 0
    log = place["dir"] / f"snapshots-{len(places['logs'])}.log"
    places["logs"].append(log)
    if row.kind == "cli":
        # the layer's caches filled first (the index built, then the run recorded)
        for _ in range(2):
            run_cli(
                [args.skillpath, *row.argv],
                {**env, **row.on},
                place["cwd"],
                place["dir"] / "out-on",
            )
    for r in range(args.runs + 1):
        order = ("on", "off") if r % 2 == 0 else ("off", "on")
        args._check = r == 0
        outs: dict[str, Path] = {}
        for mode in order:
            extra = row.on if mode == "on" else row.off
            if row.kind == "cli":
                run_env = {**env, **extra}
                if mode == "on" and row.layer == "replay":
                    run_env["SKILLPATH_SNAPSHOT_LOG"] = str(log)
                # every run writes to a file: the replay's key holds whether stdout
                # and stderr are one file, so the untimed round must not differ
                out = place["dir"] / f"out-{mode}"
                cpu = run_cli([args.skillpath, *row.argv], run_env, place["cwd"], out)
                outs[mode] = out
            else:
                got = run_child(row.kind, place["manifest"], place["cache"], extra, args)
                cpu = got["cpu"]
                if got["same"] is False:
                    same = False
            if r:
                times[mode].append(cpu)
        if outs:
            same = same and outs["on"].read_bytes() == outs["off"].read_bytes()
    if log.exists():
        lines = log.read_text().splitlines()
        replayed = sum(1 for ln in lines[-args.runs :] if ln.startswith("replayed"))
    on = statistics.median(times["on"])
    off = statistics.median(times["off"])
    return {"on": on, "off": off, "ratio": on / off, "same": same, "replayed": replayed}


def verdict(idle: dict[str, Any], busy: dict[str, Any] | None) -> str:
    gain = 1 - idle["ratio"]
    if gain < MIN_GAIN_IDLE:
        return f"does not pay (idle gain {gain:.0%} < 15%)"
    if busy is None:
        return "pays idle (busy not measured)"
    if busy["ratio"] > MAX_COST_BUSY:
        return f"does not pay (busy {busy['ratio']:.2f}x > 1.02x)"
    return "pays"


def setup(work: Path, n: int) -> dict[str, Any]:
    """The realistic corpus of ``n`` skills and the two empty projects."""
    t0 = time.perf_counter()
    manifest = bench.make_realistic_corpus(work / "corpus", n)
    print(
        f"corpus: {n} skills, {manifest['counts']} ({time.perf_counter() - t0:.0f} s)",
        file=sys.stderr,
    )
    time.sleep(bench.RACY_S)  # past the racy window: the files are vouched for by stat
    cache = work / "cache"
    places: dict[str, Any] = {
        "logs": [],
        "corpus": {
            "dir": work,
            "cwd": manifest["project"],
            "env": bench.corpus_env(manifest, cache),
            "manifest": work / "corpus" / "manifest.json",
            "cache": cache,
        },
    }
    # bench.py's empty project: outside the home folder, in the temp folder
    empty = work / "empty"
    (empty / "home").mkdir(parents=True)
    (empty / "proj").mkdir()
    places["empty-tmp"] = {
        "dir": empty,
        "cwd": str(empty / "proj"),
        "env": bench.corpus_env({"home": str(empty / "home")}, empty / "cache"),
    }
    (empty / "home" / "work" / "proj").mkdir(parents=True)
    places["empty-home"] = {
        "dir": empty,
        "cwd": str(empty / "home" / "work" / "proj"),
        "env": bench.corpus_env({"home": str(empty / "home")}, empty / "cache-home"),
    }
    return places


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: parse arguments, time every row, print the table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=10_000, help="skills in the corpus (default 10,000)")
    p.add_argument("--runs", type=int, default=5, help="timed rounds per row (default 5)")
    p.add_argument("--calls", type=int, default=5, help="timed calls per in-process child")
    p.add_argument("--busy", action="store_true", help="also time every row with one core busy")
    p.add_argument("--quick", action="store_true", help="N = 1,000, 3 rounds, idle only")
    p.add_argument("--only", default="", help="comma-separated layers to time (default: all)")
    p.add_argument("--skillpath", default=None, help="the skillpath console script to time")
    p.add_argument("--keep", action="store_true", help="keep the corpus directory")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    p.add_argument("--manifest", default=None, help=argparse.SUPPRESS)
    p.add_argument("--cache", default=None, help=argparse.SUPPRESS)
    p.add_argument("--extra", default="{}", help=argparse.SUPPRESS)
    p.add_argument("--offset", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--check", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        child(args)
        return 0
    if args.quick:
        args.n, args.runs = 1_000, 3
    args.skillpath = args.skillpath or shutil.which(
        "skillpath", path=os.path.dirname(sys.executable)
    )
    if not args.skillpath:
        print("no skillpath console script next to this interpreter", file=sys.stderr)
        return 1
    args._offset = 0
    args._check = False
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    rows = [r for r in ROWS if not only or r.layer in only]
    work = Path(tempfile.mkdtemp(prefix="skillpath-layers-"))
    results: list[tuple[Row, dict[str, Any], dict[str, Any] | None]] = []
    try:
        places = setup(work, args.n)
        for row in rows:
            print(f"timing {row.layer}: {row.label}", file=sys.stderr)
            idle = measure(row, places, args)
            busy = None
            if args.busy:
                with Spinner():
                    busy = measure(row, places, args)
            results.append((row, idle, busy))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(report(results, args))
    return 0


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def report(
    results: list[tuple[Row, dict[str, Any], dict[str, Any] | None]], args: argparse.Namespace
) -> str:
    """The table: per row, processor ms on/off and the gain, idle and busy, and a verdict."""
    load = "load average unknown"
    with contextlib.suppress(OSError):
        load = "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    head = (
        f"N = {args.n} (realistic corpus), {args.runs} alternated rounds, processor time "
        f"(user + sys) median, ms; {os.cpu_count()} CPUs, {load}"
    )
    lines = [
        head,
        "",
        "| layer | row | idle on / off | idle gain | busy on / off | busy ratio | same bytes "
        "| verdict |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row, idle, busy in results:
        b = busy or {}
        note = ""
        if row.layer == "replay" and row.kind == "cli":
            note = f" (replayed {idle['replayed']}/{args.runs}"
            note += f", {b['replayed']}/{args.runs})" if busy else ")"
        lines.append(
            "| {} | {}{} | {} / {} | {:.0%} | {} | {} | {} | {} |".format(
                row.layer,
                row.label,
                note,
                _ms(idle["on"]),
                _ms(idle["off"]),
                1 - idle["ratio"],
                f"{_ms(b['on'])} / {_ms(b['off'])}" if busy else "-",
                f"{b['ratio']:.2f}x" if busy else "-",
                "yes" if idle["same"] and b.get("same", True) else "NO",
                verdict(idle, busy),
            )
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
