"""``skillpath serve --print-config``, taken as printed by the real Claude Code and Codex
CLI: the `claude mcp add` command registers a server Claude Code connects to, and the
Codex table is read as a stdio server running the same command."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from skillpath_testing import isolate_environment


def _printed(project: Path, client: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "skillpath", "serve", "--print-config", client],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return out.stdout


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    home, project = isolate_environment(monkeypatch, tmp_path)
    skill = project / ".agents" / "skills" / "hello" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: hello\ndescription: Say hello.\n---\nHello.\n", "utf-8")
    return home, project


def test_claude_code_connects_to_the_registered_server(
    counterpart: Callable[[str], Path],
    node_path: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counterpart("claude")
    _home, project = _project(tmp_path, monkeypatch)
    env = {**os.environ, "PATH": node_path}
    command = _printed(project, "claude-code").strip()
    assert command.startswith("claude mcp add skillpath -- ")
    added = subprocess.run(
        command, shell=True, cwd=project, env=env, capture_output=True, text=True, timeout=120
    )
    assert added.returncode == 0, added.stderr
    got = subprocess.run(
        ["claude", "mcp", "get", "skillpath"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert got.returncode == 0, got.stderr
    assert "Connected" in got.stdout, got.stdout
    assert f"serve --cwd {project.resolve()}" in got.stdout


def test_codex_reads_the_printed_table(
    counterpart: Callable[[str], Path],
    node_path: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counterpart("codex")
    _home, project = _project(tmp_path, monkeypatch)
    codex_home = tmp_path / "codex-home"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(_printed(project, "codex"), "utf-8")
    env = {**os.environ, "PATH": node_path, "CODEX_HOME": str(codex_home)}
    got = subprocess.run(
        ["codex", "mcp", "get", "skillpath"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert got.returncode == 0, got.stderr
    assert "transport: stdio" in got.stdout
    assert f"args: serve --cwd {project.resolve()}" in got.stdout or (
        f"skillpath serve --cwd {project.resolve()}" in got.stdout
    )
