#!/usr/bin/env python3
"""``watch_skills`` with many folders in one root: how long a stop takes (not a test).

Run from the repository root::

    python3 -m uv run python benchmarks/watch_many.py [N ...]

For each size (default 20,000 and 80,000 folders) it prints the time of the
watcher's set-up step (listing the folders and splitting those the native
watcher can take from those it cannot) and how long ``watch_skills`` takes to
return once its stop event is set as the listing starts. The previous split (a
list-membership test per folder) is timed beside it on the same paths, up to
40,000 folders (it is quadratic: 80,000 take over a minute).
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any


def _old_split(paths: list[str]) -> tuple[list[str], list[str]]:
    from skillpath.watch import _encodable

    watched = [p for p in paths if _encodable(p)]
    polled = [p for p in paths if p not in watched]
    return watched, polled


def main(sizes: list[int]) -> None:
    from skillpath import watch as w
    from skillpath.loader import load_skills

    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            project = Path(tmp) / "proj"
            (project / ".git").mkdir(parents=True)
            root = project / ".claude" / "skills"
            root.mkdir(parents=True)
            for i in range(n):
                os.mkdir(root / f"f{i:06d}")
            env = {**os.environ, "HOME": str(Path(tmp) / "home"), "XDG_CACHE_HOME": tmp}
            result = load_skills(project, env=env)
            start = time.perf_counter()
            paths = w._watch_paths(result)
            w._split_encodable(paths)
            new = time.perf_counter() - start
            if n <= 40_000:
                start = time.perf_counter()
                _old_split(w._watch_paths(result))
                old = f"{time.perf_counter() - start:.2f} s"
            else:
                old = "not run (quadratic)"
            stop = threading.Event()
            real = w._watch_paths

            def listing(*args: Any, _real: Any = real, _stop: Any = stop) -> list[str]:
                _stop.set()
                return _real(*args)

            w._watch_paths = listing  # type: ignore[assignment]
            start = time.perf_counter()
            try:
                for _ in w.watch_skills(project, env=env, stop_event=stop, poll_ms=50):
                    pass
            finally:
                w._watch_paths = real  # type: ignore[assignment]
            stopped = time.perf_counter() - start
            print(
                f"{n} folders: listing+split {new:.2f} s (before: {old}); "
                f"watch_skills returns {stopped:.2f} s after start with the stop set "
                f"as the listing begins (load included)",
                flush=True,
            )


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [20_000, 80_000])
