#!/usr/bin/env python3
"""Build a collection of published skills from repository snapshots on disk (not a test).

    python3 benchmarks/collect_skills.py OUT SNAPSHOT...

Each ``SNAPSHOT`` is a repository already on this machine: a bare git directory (its
``HEAD`` tree is read with ``git archive``) or a checked-out folder. Its name in the
collection is ``owner+name``: the folder's own name, or its parent's when the folder is
called ``repo`` or ``.git`` (``/mirrors/owner+name/repo`` gives ``owner+name``).

Every folder holding a ``SKILL.md`` (``.git`` and ``node_modules`` skipped, symlinked
files and folders not followed) is copied to ``OUT/<owner>+<name>/<its path>``, with the
files of its folder but without the folders below it that are skills of their own (they
are copied on their own), and without files of ``--max-file`` bytes and more. A leading dot
of a path part is dropped (``skills/.curated/x`` becomes ``skills/curated/x``), so a scan
that skips hidden folders still sees the skill. A ``SKILL.md`` whose bytes are those of one
already taken (same SHA-256, in this run or in a repository given earlier) is skipped:
aggregating repositories copy the same skills, so give the original repositories first.
Nothing is fetched; ``OUT/SOURCES.md`` names each repository, its commit (for a git
snapshot), the ``SKILL.md`` files found and the skills taken.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Taken:
    """What one snapshot gave the collection."""

    repo: str
    commit: str
    found: int
    taken: int


def snapshot_name(path: Path) -> str:
    """``owner+name`` of a snapshot folder (the parent's name for ``repo`` and ``.git``)."""
    path = path.resolve()
    return path.parent.name if path.name in ("repo", ".git") else path.name


def is_git_dir(path: Path) -> bool:
    """Whether ``path`` is a bare git directory (or a work tree's ``.git``)."""
    return (path / "HEAD").is_file() and (path / "objects").is_dir()


def skill_folders(top: Path) -> Iterator[Path]:
    """Every folder under ``top`` with a regular ``SKILL.md``, sorted, links not followed."""
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d not in (".git", "node_modules"))
        if "SKILL.md" in filenames:
            path = Path(dirpath, "SKILL.md")
            if path.is_file() and not path.is_symlink():
                yield path.parent


def undotted(rel: Path) -> Path:
    """``rel`` with the leading dots of its parts dropped (hidden folders made visible)."""
    return Path(*(part.lstrip(".") or "_" for part in rel.parts)) if rel.parts else rel


def copy_skill(src: Path, dest: Path, max_file: int) -> None:
    """Copy the skill folder ``src`` to ``dest``, without nested skills, links and big files."""

    def ignore(folder: str, names: list[str]) -> set[str]:
        skip = set()
        for name in names:
            full = os.path.join(folder, name)
            if name in (".git", "node_modules") or os.path.islink(full):
                skip.add(name)
            elif os.path.isdir(full):
                if os.path.isfile(os.path.join(full, "SKILL.md")):
                    skip.add(name)
            elif not os.path.isfile(full) or os.path.getsize(full) >= max_file:
                skip.add(name)
        return skip

    shutil.copytree(src, dest, ignore=ignore, dirs_exist_ok=True)


def collect(snapshot: Path, out: Path, seen: set[str], max_file: int) -> Taken:
    """Copy the new skills of one snapshot into ``out``; ``seen`` holds the digests taken."""
    name = snapshot_name(snapshot)
    commit = ""
    with tempfile.TemporaryDirectory(prefix="collect-") as tmp:
        tree = snapshot
        if is_git_dir(snapshot):
            git = ["git", f"--git-dir={snapshot}"]
            commit = subprocess.run(
                [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
            ).stdout.strip()
            tree = Path(tmp, "tree")
            tree.mkdir()
            with subprocess.Popen([*git, "archive", "HEAD"], stdout=subprocess.PIPE) as proc:
                assert proc.stdout is not None
                with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
                    tar.extractall(tree, filter="data")
            if proc.returncode:
                raise SystemExit(f"{snapshot}: git archive failed ({proc.returncode})")
        found = taken = 0
        for folder in skill_folders(tree):
            found += 1
            digest = hashlib.sha256((folder / "SKILL.md").read_bytes()).hexdigest()
            if digest in seen:
                continue
            seen.add(digest)
            rel = undotted(folder.relative_to(tree))
            copy_skill(folder, out / name / rel, max_file)
            taken += 1
    return Taken(name, commit, found, taken)


def write_sources(out: Path, rows: Sequence[Taken]) -> None:
    """Write ``out/SOURCES.md``: one row per snapshot, and the totals."""
    lines = [
        "# Published skills collected from repository snapshots",
        "",
        "Made by `benchmarks/collect_skills.py` of skillpath; identical `SKILL.md` files",
        "(same SHA-256) are taken once, from the first repository that has them.",
        "",
        "| repository | commit | `SKILL.md` found | skills taken |",
        "|---|---|---:|---:|",
    ]
    for row in rows:
        repo = row.repo.replace("+", "/", 1)
        lines.append(f"| {repo} | {row.commit or '-'} | {row.found:,} | {row.taken:,} |")
    found = sum(row.found for row in rows)
    taken = sum(row.taken for row in rows)
    lines += [f"| **total** | | {found:,} | {taken:,} |", ""]
    (out / "SOURCES.md").write_text("\n".join(lines), encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path, metavar="OUT")
    ap.add_argument("snapshots", nargs="+", type=Path, metavar="SNAPSHOT")
    ap.add_argument(
        "--max-file", type=int, default=1 << 20, help="skip files of this many bytes and more"
    )
    args = ap.parse_args(argv)
    names = [snapshot_name(s) for s in args.snapshots]
    if len(set(names)) != len(names):
        ap.error("two snapshots have the same name")
    for snapshot in args.snapshots:
        if not snapshot.is_dir():
            ap.error(f"{snapshot}: not a folder")
    args.out.mkdir(parents=True, exist_ok=True)
    seen: set[str] = set()
    rows = []
    for snapshot in args.snapshots:
        row = collect(snapshot, args.out, seen, args.max_file)
        print(f"{row.repo}: {row.found:,} SKILL.md, {row.taken:,} taken", flush=True)
        rows.append(row)
    write_sources(args.out, rows)
    print(f"total: {sum(r.taken for r in rows):,} skills in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
