#!/usr/bin/env python3
"""What the content checks find in real skills (not a test): the false-positive rate.

    python3 -m uv run python benchmarks/findings.py DIR...            # the summary
    python3 -m uv run python benchmarks/findings.py --high DIR...     # and each high finding

Every ``SKILL.md`` under each ``DIR`` (at any depth; hidden folders and
``node_modules`` skipped) is loaded as a skill and checked as ``skillpath
validate`` checks it (:func:`skillpath.contentscan.scan_skill`: name, description,
body and the text files of its folder). Prints the skills scanned, the findings per
id and severity (and in how many skills), and the share of skills with a ``high``
finding — the number the checks are tuned against (at most 1% on published skills).
``--high`` lists each high finding: skill folder, id, file:line and the text matched.
The cost of the checks at load time is ``findings_cost.py``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path


def skill_files(top: Path) -> Iterator[Path]:
    """Every ``SKILL.md`` under ``top``, in a stable order (links not followed)."""
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "node_modules")
        if "SKILL.md" in filenames:
            path = Path(dirpath, "SKILL.md")
            if not path.is_symlink():
                yield path


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="+", type=Path, metavar="DIR")
    ap.add_argument("--high", action="store_true", help="list every high finding")
    args = ap.parse_args(argv)

    from skillpath import SkillSource, load_skill_file
    from skillpath.contentscan import scan_skill

    scanned = unloadable = 0
    per: Counter[tuple[str, str]] = Counter()
    skills_per: Counter[tuple[str, str]] = Counter()
    high: list[tuple[Path, object]] = []
    with_high = 0
    for top in args.dirs:
        for path in skill_files(top):
            skill, _diags = load_skill_file(path, SkillSource("bench", "user", path.parent))
            if skill is None:
                unloadable += 1
                continue
            scanned += 1
            found = scan_skill(skill)
            per.update((f.id, f.severity) for f in found)
            skills_per.update({(f.id, f.severity) for f in found})
            highs = [f for f in found if f.severity == "high"]
            if highs:
                with_high += 1
                high.extend((path.parent, f) for f in highs)
    print(f"skills scanned: {scanned:,}" + (f" ({unloadable} not loadable)" if unloadable else ""))
    print(f"{'finding':24} {'severity':8} {'findings':>8} {'skills':>7}")
    for (fid, severity), n in sorted(per.items(), key=lambda kv: (kv[0][1], -kv[1], kv[0][0])):
        print(f"{fid:24} {severity:8} {n:8,} {skills_per[fid, severity]:7,}")
    share = with_high / scanned if scanned else 0.0
    print(
        f"skills with a high finding: {with_high:,} of {scanned:,} ({100 * share:.2f}%; "
        f"target <= 1%: {'PASS' if share <= 0.01 else 'FAIL'})"
    )
    if args.high:
        print()
        for folder, f in high:
            where = f"{os.path.relpath(f.path, folder)}:{f.line}" if f.path else "-"  # type: ignore[attr-defined]
            print(f"{folder}  {f.id}  {where}  {f.excerpt}")  # type: ignore[attr-defined]
    return 0


if __name__ == "__main__":
    sys.exit(main())
