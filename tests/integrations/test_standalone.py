"""Adapters (and providers) that are uv projects of their own run their tests in their own
environments.

A framework whose requirements cannot share the workspace's lock (strands-agents needs an
MCP SDK older than the MCP provider's) is developed as a project of its own under
``integrations/<id>`` with its own ``uv.lock``. The root suite, which the README's test
command runs, runs each such project's suite with ``uv run --project … --locked`` (the first
run creates that project's ``.venv`` from its lock).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
STANDALONE = sorted(
    p.parent for area in ("integrations", "providers") for p in (REPO / area).glob("*/uv.lock")
)


def _root() -> dict[str, object]:
    data: dict[str, object] = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))
    return data


def test_the_workspace_excludes_exactly_the_standalone_projects() -> None:
    tool = _root()["tool"]
    assert isinstance(tool, dict)
    workspace = tool["uv"]["workspace"]
    rel = [str(p.relative_to(REPO)) for p in STANDALONE]
    assert sorted(workspace.get("exclude", [])) == rel
    assert not set(rel) & set(workspace["members"])
    addopts = tool["pytest"]["ini_options"]["addopts"].split()
    for path in rel:
        assert f"--ignore={path}" in addopts, path
    assert STANDALONE, "integrations/strands has its own lock"


@pytest.mark.parametrize("project", STANDALONE, ids=lambda p: p.name)
def test_the_standalone_suite_passes(project: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "PYTHONPATH"}}
    env.pop("UV_PROJECT_ENVIRONMENT", None)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "uv",
            "run",
            "--quiet",
            "--project",
            str(project),
            "--locked",
            "pytest",
            "-q",
            str(project),
        ],
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-6000:]
    assert " passed" in done.stdout
