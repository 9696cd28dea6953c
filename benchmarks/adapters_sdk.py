#!/usr/bin/env python3
"""pydantic-ai, ADK and Claude Agent SDK adapters: overhead per turn and import (not a test).

Run from the repository root::

    python3 -m uv run python benchmarks/adapters_sdk.py          # 1,000 skills, 20 runs
    python3 -m uv run python benchmarks/adapters_sdk.py --skills 200 --runs 5   # quick

What it does, in one run:

* writes N deterministic skills (each with a reference file) under a temporary
  project's ``.skillpath/skills`` and opens one ``SkillSession`` over them
  (only the ``native`` provider, private home and cache);
* **baseline, SkillSession alone**: the work a hand-wired agent loop does for
  one model turn (``docs/examples/agent_loop.py``): the listing, the Skill
  tool definition and one Skill tool call (a full render);
* **per adapter**, the work the adapter does for one model turn, on the same
  session, and the difference to the baseline (the adapter's overhead):

  - ``pydantic-ai``: ``get_instructions`` + ``get_tools`` + one ``call_tool``
    (``Skill``) of ``SkillpathToolset``;
  - ``adk``: the catalog (``SkillpathSkillToolset._list_skills``, what
    ``list_skills`` and the system instruction read) + one ``load_skill``
    fetch (``SkillpathRegistry.get_skill``);
  - ``claude-agent-sdk``: model turns run in the Claude Code CLI, which reads
    the plugin from disk: no adapter code runs per turn. Its cost is at
    session start (``options()`` and the ``SessionStart`` hook): the first
    write of the plugin, and a sync of an unchanged plugin (a stamp of every
    skill's files compared with the manifest) plus ``skill_names()``;

* **import time**: ``python -X importtime -c "import <framework>, <adapter>"``
  in new processes (median of up to 10): the framework's cumulative import
  time, and the adapter's beyond it (what it imports that the framework did
  not: skillpath itself, mostly).

Timings are CPU time of the process (all threads: the adapters run skill
calls in worker threads), which other load on the machine barely moves;
medians of ``--runs`` runs after one untimed warm-up run. Each per-turn
adapter row is timed alternately with its own baseline row.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

TARGET_MS = 5.0


def write_corpus(project: Path, n: int) -> None:
    """N skills with stable names, descriptions and one reference file each."""
    root = project / ".skillpath" / "skills"
    for i in range(n):
        folder = root / f"skill-{i:05d}"
        (folder / "references").mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            "---\n"
            f"name: skill-{i:05d}\n"
            f"description: Do task number {i} carefully; use when the user asks for task {i}.\n"
            "---\n"
            f"# Task {i}\n\nFollow these steps for $ARGUMENTS.\n\n" + "Step text. " * 80 + "\n",
            encoding="utf-8",
        )
        (folder / "references" / "notes.md").write_text(f"Notes {i}\n", encoding="utf-8")
    (project / ".git").mkdir(exist_ok=True)


def median_ms(fn: Callable[[], Any], runs: int) -> float:
    """Median CPU time of ``fn()`` in milliseconds (after one warm-up call)."""
    fn()
    times = []
    for _ in range(runs):
        start = time.process_time()
        fn()
        times.append((time.process_time() - start) * 1000)
    return statistics.median(times)


def paired_ms(base: Callable[[], Any], other: Callable[[], Any], runs: int) -> tuple[float, float]:
    """Medians of ``base()`` and ``other()`` in CPU milliseconds, timed alternately.

    CPU time of the whole process (all threads: the adapters run skill calls
    in worker threads) is far less disturbed by other processes than wall
    time; alternating the two makes what remains hit both alike.
    """
    base()
    other()
    a: list[float] = []
    b: list[float] = []
    for _ in range(runs):
        for fn, out in ((base, a), (other, b)):
            start = time.process_time()
            fn()
            out.append((time.process_time() - start) * 1000)
    return statistics.median(a), statistics.median(b)


def import_ms(framework: str, adapter: str, runs: int, env: dict[str, str]) -> tuple[float, float]:
    """Medians of ``python -X importtime -c "import framework, adapter"`` in a new process.

    Returns the framework's cumulative import time and the adapter's: what
    importing the adapter costs once its framework is imported (everything
    the adapter imports that the framework did not).
    """
    cmd = [sys.executable, "-X", "importtime", "-c", f"import {framework}, {adapter}"]
    fw_times: list[float] = []
    ad_times: list[float] = []
    for i in range(runs + 1):
        proc = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
        top: list[tuple[str, float]] = []  # the import statement's own modules, in order
        for line in proc.stderr.splitlines():
            parts = line.split("|")
            if len(parts) == 3 and not parts[2].startswith("  ") and parts[1].strip().isdigit():
                top.append((parts[2].strip(), int(parts[1]) / 1000))
        if i:  # the first run warms the caches
            fw_times.append(sum(ms for name, ms in top if name != adapter))
            ad_times.append(sum(ms for name, ms in top if name == adapter))
    return statistics.median(fw_times), statistics.median(ad_times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=1000, help="corpus size (default 1000)")
    parser.add_argument("--runs", type=int, default=20, help="timed runs per row (default 20)")
    args = parser.parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="skillpath-adapters-"))
    home, project, cache = tmp / "home", tmp / "project", tmp / "cache"
    home.mkdir()
    project.mkdir()
    write_corpus(project, args.skills)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("SKILLPATH_")},
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "SKILLPATH_CACHE_DIR": str(cache),
        "SKILLPATH_PLUGINS": "native",
    }
    os.environ.update(env)

    from skillpath import SkillSession

    session = SkillSession.open(project, home=home, env=env)
    name = "skill-00500" if args.skills > 500 else "skill-00000"
    assert session.get(name) is not None, "the corpus did not load"

    def baseline() -> None:
        session.forget_invocations()  # every run renders the skill in full
        session.listing()
        session.skill_tool(format="openai")
        session.invoke(name, "x", trigger="tool")

    rows: list[tuple[str, float, float | None]] = []

    # pydantic-ai
    from skillpath_pydantic_ai import SkillpathToolset

    toolset = SkillpathToolset(session)

    async def pyd_turn() -> None:
        session.forget_invocations()
        await toolset.get_instructions(None)  # type: ignore[arg-type]
        tools = await toolset.get_tools(None)  # type: ignore[arg-type]
        await toolset.call_tool("Skill", {"skill": name, "args": "x"}, None, tools["Skill"])  # type: ignore[arg-type]

    loop = asyncio.new_event_loop()
    base, pyd = paired_ms(baseline, lambda: loop.run_until_complete(pyd_turn()), args.runs)
    rows.append(("SkillSession alone (listing + tool + one call)", base, None))
    rows.append(("pydantic-ai: instructions + tools + one Skill call", pyd, pyd - base))

    # adk
    from skillpath_adk import SkillpathRegistry, SkillpathSkillToolset

    adk_toolset = SkillpathSkillToolset(session)
    registry = SkillpathRegistry(session)

    async def adk_turn() -> None:
        adk_toolset._list_skills()
        await registry.get_skill(name=name)

    base, adk = paired_ms(baseline, lambda: loop.run_until_complete(adk_turn()), args.runs)
    rows.append(("SkillSession alone (listing + tool + one call)", base, None))
    rows.append(("adk: catalog + one load_skill fetch", adk, adk - base))

    # claude-agent-sdk
    from skillpath_claude_agent_sdk import SkillpathPlugin

    plugin = SkillpathPlugin(session, tmp / "plugin")
    start = time.process_time()
    plugin.sync()
    first = (time.process_time() - start) * 1000

    def claude_turn() -> None:
        plugin.sync()
        plugin.skill_names()

    plugin.sync()  # stamps are recorded once the files are older than the racy window
    claude = median_ms(claude_turn, args.runs)
    rows.append(("claude-agent-sdk: per model turn (the CLI runs it)", 0.0, 0.0))
    rows.append(("claude-agent-sdk: session start, first plugin write", first, None))
    rows.append(("claude-agent-sdk: session start, sync unchanged", claude, None))
    loop.close()

    imports: list[tuple[str, float, float]] = []
    imp_runs = max(3, min(args.runs, 10))
    for adapter, framework in (
        ("skillpath_pydantic_ai", "pydantic_ai"),
        ("skillpath_claude_agent_sdk", "claude_agent_sdk"),
        ("skillpath_adk", "google.adk.agents, google.adk.tools.skill_toolset"),
    ):
        fw_ms, ad_ms = import_ms(framework, adapter, imp_runs, env)
        imports.append((adapter, fw_ms, ad_ms))

    print(f"Adapter overhead per model turn at {args.skills} skills (median of {args.runs})")
    print(f"{'row':<52} {'CPU ms':>9} {'overhead ms':>12}  target <= {TARGET_MS:.0f} ms")
    for label, ms, over in rows:
        verdict = "" if over is None else ("PASS" if over <= TARGET_MS else "FAIL")
        over_text = "" if over is None else f"{over:12.2f}"
        print(f"{label:<52} {ms:9.2f} {over_text:>12}  {verdict}")
    print()
    print(f"Import time (-X importtime, new process, median of {imp_runs})")
    print(f"{'adapter':<28} {'framework ms':>13} {'adapter beyond it ms':>21}")
    for adapter, fw_ms, ad_ms in imports:
        print(f"{adapter:<28} {fw_ms:13.1f} {ad_ms:21.1f}")
    print("(framework: pydantic_ai; claude_agent_sdk; google.adk.agents + its skill_toolset)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
