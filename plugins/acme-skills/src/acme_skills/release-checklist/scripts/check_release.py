#!/usr/bin/env python3
"""Pre-release checks. Usage: check_release.py VERSION [REPO_DIR]

Exit status 0 when releasable, 1 with one line per problem otherwise.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path


def git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)


def project_version(repo: Path) -> str | None:
    pyproject = repo / "pyproject.toml"
    if pyproject.is_file():
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        return data.get("project", {}).get("version")
    package = repo / "package.json"
    if package.is_file():
        return json.loads(package.read_text(encoding="utf-8")).get("version")
    return None


def check(version: str, repo: Path) -> list[str]:
    problems = []
    if not re.fullmatch(r"\d+\.\d+\.\d+([.-]?[0-9A-Za-z.]+)?", version):
        problems.append(f"{version!r} is not a semantic version (X.Y.Z)")
    status = git(repo, "status", "--porcelain")
    if status.returncode != 0:
        problems.append("not a git repository")
    elif status.stdout.strip():
        problems.append("working tree is not clean (commit or stash first)")
    found = project_version(repo)
    if found is None:
        problems.append("no version found in pyproject.toml or package.json")
    elif found != version:
        problems.append(f"project version is {found}, expected {version}")
    changelog = next((p for p in (repo / "CHANGELOG.md", repo / "CHANGES.md") if p.is_file()), None)
    if changelog is None:
        problems.append("no CHANGELOG.md")
    elif not re.search(
        rf"^##\s*\[?v?{re.escape(version)}\]?", changelog.read_text(encoding="utf-8"), re.M
    ):
        problems.append(f"{changelog.name} has no section for {version}")
    if git(repo, "rev-parse", "-q", "--verify", f"refs/tags/v{version}").returncode == 0:
        problems.append(f"tag v{version} already exists")
    return problems


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    repo = Path(argv[2]) if len(argv) > 2 else Path.cwd()
    problems = check(argv[1], repo)
    for p in problems:
        print(f"- {p}")
    if not problems:
        print(f"Ready to release {argv[1]}.")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
