#!/usr/bin/env python3
"""Summarise a git diff for review: files, added/removed lines, risky paths.

Usage: diffstat.py [BASE]   (default BASE: origin/main, falling back to HEAD~1)
"""

from __future__ import annotations

import re
import subprocess
import sys

RISKY = [
    (re.compile(r"(^|/)migrations?/"), "database migration"),
    (re.compile(r"(^|/)\.github/workflows/|(^|/)\.gitlab-ci\.yml$|(^|/)Jenkinsfile$"), "CI"),
    (
        re.compile(
            r"(^|/)(pyproject\.toml|requirements.*\.txt|package\.json|go\.mod|Cargo\.toml)$"
        ),
        "dependencies",
    ),
    (re.compile(r"(^|/)(\.env|.*\.pem|.*\.key|id_rsa.*)$"), "secrets-looking file"),
    (re.compile(r"(^|/)Dockerfile$|(^|/)docker-compose.*\.ya?ml$"), "container"),
]
LARGE = 400


def numstat(base: str) -> list[tuple[int, int, str]]:
    out = subprocess.run(
        ["git", "diff", "--numstat", f"{base}...HEAD"], capture_output=True, text=True
    )
    if out.returncode != 0:
        out = subprocess.run(
            ["git", "diff", "--numstat", "HEAD~1"], capture_output=True, text=True, check=True
        )
    rows = []
    for line in out.stdout.splitlines():
        added, removed, path = line.split("\t", 2)
        rows.append(
            (int(added) if added != "-" else 0, int(removed) if removed != "-" else 0, path)
        )
    return rows


def main(argv: list[str]) -> int:
    base = argv[1] if len(argv) > 1 else "origin/main"
    rows = numstat(base)
    if not rows:
        print("No changes.")
        return 0
    total_a = sum(r[0] for r in rows)
    total_r = sum(r[1] for r in rows)
    print(f"{len(rows)} files, +{total_a} -{total_r}")
    for added, removed, path in sorted(rows, key=lambda r: -(r[0] + r[1])):
        flags = [why for rx, why in RISKY if rx.search(path)]
        if added + removed > LARGE:
            flags.append("large diff: consider splitting")
        note = f"  <- {', '.join(flags)}" if flags else ""
        print(f"  +{added:<5} -{removed:<5} {path}{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
