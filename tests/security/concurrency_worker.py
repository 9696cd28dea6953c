"""A worker process for the concurrency tests (run as a script, not collected).

``python concurrency_worker.py <action> <worker-id> <iterations> <project> <home> <go-file>``

Every worker waits for ``<go-file>`` so all start together, then loops:
load the catalog (discovery index on), read a pack skill (lazy extraction),
write the shared managed skill, rewrite the ``churn`` native skill atomically,
and check every invariant a reader can see. It prints one JSON line: the
errors seen (an empty list is success) and what it observed.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
import traceback
from pathlib import Path

BODY_LINES = 400  # about 30 KB per managed body: a torn write would show


def managed_body(wid: int, i: int) -> str:
    """The body writer ``wid`` writes at iteration ``i`` (self-checking)."""
    lines = [f"writer {wid} iteration {i}"]
    lines += [f"{wid}:{i}:{n:04d} " + "x" * 60 for n in range(BODY_LINES)]
    lines.append(f"end {wid} {i}")
    return "\n".join(lines) + "\n"


def check_managed_body(body: str) -> str | None:
    """Why ``body`` is not one whole body written by some writer, or ``None``."""
    m = re.match(r"writer (\d+) iteration (\d+)\n", body)
    if not m:
        return f"managed body has no header: {body[:60]!r}"
    expected = managed_body(int(m.group(1)), int(m.group(2)))
    if body != expected:
        return f"managed body is torn or mixed (len {len(body)} vs {len(expected)})"
    return None


def write_churn(project: Path, wid: int, i: int) -> None:
    """Replace the ``churn`` skill atomically with a description naming this write."""
    folder = project / ".skillpath" / "skills" / "churn"
    tmp = folder / f".tmp-{wid}-{i}"
    tmp.write_text(f"---\ndescription: churn {wid} {i}\n---\nChurn body {wid} {i}.\n")
    os.replace(tmp, folder / "SKILL.md")


def main() -> int:
    action, wid_s, iters_s, project_s, home_s, go = sys.argv[1:7]
    wid, iterations = int(wid_s), int(iters_s)
    project, home = Path(project_s), Path(home_s)
    from skillpath import SkillSession
    from skillpath.managed import write_managed_skill

    env = dict(os.environ)
    settings = {"autolearn": {"enabled": True}}
    errors: list[str] = []
    seen: dict[str, object] = {"pack": set(), "loads": 0, "writes": 0}
    deadline = time.monotonic() + 600  # a hang guard: the go file comes right after start
    while not os.path.exists(go):
        if time.monotonic() > deadline:
            print(json.dumps({"errors": ["go file never appeared"]}))
            return 1
        time.sleep(0.005)
    for i in range(iterations):
        try:
            session = SkillSession.open(project, home=home, env=env, settings=settings)
            seen["loads"] = int(seen["loads"]) + 1  # type: ignore[call-overload]
            res = session.result
            bad = [d for d in res.diagnostics if d.level == "error"]
            if bad:
                errors.append(f"error diagnostics: {[(d.code, d.message) for d in bad]}")
            names = set(res.names)
            for required in ("stable-one", "stable-two", "churn", "code-review"):
                if required not in names:
                    errors.append(f"iteration {i}: {required} missing from {sorted(names)}")
            churn = session.get("churn")
            if churn is not None and not re.fullmatch(r"churn \d+ \d+", churn.description):
                errors.append(f"churn description torn: {churn.description!r}")
            shared = session.get("shared-learned")
            if shared is not None:
                if not re.fullmatch(r"writer-\d+", shared.description):
                    errors.append(f"managed description torn: {shared.description!r}")
                why = check_managed_body(shared.body)
                if why:
                    errors.append(why)
            if action in ("mixed", "reader"):
                pack = session.resolve("skill://code-review").content
                seen["pack"].add(len(pack))  # type: ignore[attr-defined]
                listed = session.resolve("skill://code-review/.").content
                if "SKILL.md" not in listed:
                    errors.append(f"extracted tree incomplete: {listed!r}")
            if action in ("mixed", "writer"):
                write_managed_skill(
                    "shared-learned",
                    f"writer-{wid}",
                    managed_body(wid, i),
                    cwd=project,
                    home=home,
                    env=env,
                    settings=settings,
                )
                write_churn(project, wid, i)
                seen["writes"] = int(seen["writes"]) + 1  # type: ignore[call-overload]
        except Exception:  # every failure is reported, the loop goes on
            errors.append(traceback.format_exc(limit=6))
    seen["pack"] = sorted(seen["pack"])  # type: ignore[arg-type]
    print(json.dumps({"errors": errors, "seen": seen}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
