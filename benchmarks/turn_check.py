"""The check ``AgentSkills.begin_turn()`` makes before each model turn, unchanged tree.

Not a test: run it by hand on an otherwise idle machine::

    python3 -m uv run python benchmarks/turn_check.py [N]     # N = 10,000 by default

It writes N skills in two project roots (then waits past the index's racy
window, as for a tree not written this very moment), opens two agent sessions
(one watching its roots, the default; one with ``SKILLPATH_NO_WATCH=1``) and
prints, for three rounds, the minimum of 20 calls of: a ``stat`` of every path
the check used to look at (every root, skill folder and ``SKILL.md``), the
watching session's ``begin_turn()`` and the other's, all in the same process.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from skillpath.agent import AgentSkills, disk_state, watch_paths
from skillpath.session import SkillSession


def fastest(call: Callable[[], object], runs: int = 20) -> float:
    """The minimum time of ``runs`` calls, in milliseconds."""
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - t)
    return best * 1000


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    tmp = Path(tempfile.mkdtemp(prefix="skillpath-turn-"))
    try:
        home = tmp / "home"
        proj = home / "work" / "proj"
        (proj / ".git").mkdir(parents=True)
        for root, count in ((".claude/skills", n // 2), (".agents/skills", n - n // 2)):
            for i in range(count):
                folder = proj / root / f"{root[1:7]}-{i:05d}"
                folder.mkdir(parents=True)
                (folder / "SKILL.md").write_text(
                    f"---\ndescription: Skill {i} does things.\n---\nBody {i}.\n"
                )
        time.sleep(2.5)  # past the racy window
        env = {"HOME": str(home), "XDG_CACHE_HOME": str(tmp / "cache"), "PATH": os.defpath}
        watching = AgentSkills(SkillSession.open(proj, home=home, env=env))
        stat_only = AgentSkills(
            SkillSession.open(proj, home=home, env={**env, "SKILLPATH_NO_WATCH": "1"})
        )
        s = watching.session
        paths = watch_paths(s.result, (*s.skills(), *s.pending()))
        state = disk_state(paths)
        print(f"{len(s.skills())} skills; a stat of every path: {len(paths)} paths")
        for r in range(3):
            every = fastest(lambda: disk_state(paths) == state)
            watched = fastest(watching.begin_turn)
            stat = fastest(stat_only.begin_turn)
            print(
                f"round {r}: stat of every path {every:.2f} ms | begin_turn, watching "
                f"{watched:.3f} ms | begin_turn, SKILLPATH_NO_WATCH=1 {stat:.2f} ms"
            )
        assert watching.begin_turn() is False and stat_only.begin_turn() is False
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
