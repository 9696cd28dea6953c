"""Uninstalling one provider distribution from a real environment removes exactly its skills.

A separate virtual environment is built in a temp dir; the core and three provider
distributions are installed from their local paths; ``skillpath list --json`` runs
from that environment before and after ``uv pip uninstall skillpath-claude``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]


def uv(*args: str | Path) -> None:
    """Run ``python -m uv`` with the caller's environment (package cache, index)."""
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    proc = subprocess.run(
        [sys.executable, "-m", "uv", *map(str, args)],
        capture_output=True,
        text=True,
        env={**env, "UV_NO_PROGRESS": "1"},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def write_skill(root: Path, name: str, description: str) -> None:
    (root / name).mkdir(parents=True, exist_ok=True)
    (root / name / "SKILL.md").write_text(f"---\ndescription: {description}\n---\nBody.\n")


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh environment with the core and the claude, agents and codex providers."""
    path = tmp_path_factory.mktemp("env") / "venv"
    uv("venv", "-q", "--python", sys.executable, path)
    python = path / "bin" / "python"
    uv(
        "pip", "install", "-q", "--python", python, REPO / "core",
        REPO / "providers" / "claude", REPO / "providers" / "agents", REPO / "providers" / "codex",
    )  # fmt: skip
    return path


def skillpath_list(venv: Path, home: Path, cwd: Path) -> dict[str, Any]:
    proc = subprocess.run(
        [str(venv / "bin" / "skillpath"), "list", "--json", "--cwd", str(cwd)],
        capture_output=True,
        text=True,
        env={
            "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', os.defpath)}",
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "SKILLPATH_CLAUDE_POLICY_DIR": str(home.parent / "policy"),
        },
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def sources(data: dict[str, Any]) -> dict[str, str]:
    return {s["name"]: s["provider"] for s in data["skills"]}


def test_uninstalling_a_provider_removes_exactly_its_skills(venv: Path, tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    write_skill(home / ".claude" / "skills", "claude-user", "claude")
    write_skill(project / ".claude" / "skills", "claude-project", "claude")
    (project / ".claude" / "commands").mkdir(parents=True)
    (project / ".claude" / "commands" / "claude-cmd.md").write_text("A command.\n")
    write_skill(project / ".claude" / "skills", "shared", "claude copy")
    write_skill(project / ".agents" / "skills", "shared", "agents copy")
    write_skill(home / ".agents" / "skills", "agents-user", "agents")
    write_skill(home / ".codex" / "skills", "codex-user", "codex")
    write_skill(project / ".skillpath" / "skills", "native-skill", "not installed here")

    before = skillpath_list(venv, home, project)
    assert sources(before) == {
        "claude-user": "claude",
        "claude-project": "claude",
        "claude-cmd": "claude",
        "shared": "claude",
        "agents-user": "agents",
        "codex-user": "codex",
    }
    assert [(s["name"], s["provider"]) for s in before["shadowed"]] == [("shared", "agents")]

    uv("pip", "uninstall", "-q", "--python", venv / "bin" / "python", "skillpath-claude")

    after = skillpath_list(venv, home, project)
    assert sources(after) == {"shared": "agents", "agents-user": "agents", "codex-user": "codex"}
    assert after["shadowed"] == []
    assert not [d for d in after["diagnostics"] if d["level"] == "error"], after["diagnostics"]
    # the other providers' skills are unchanged, byte for byte
    unchanged = {"agents-user", "codex-user"}
    assert [s for s in after["skills"] if s["name"] in unchanged] == [
        s for s in before["skills"] if s["name"] in unchanged
    ]

    # what is no longer read is named, with the distribution to install
    hints = {d["path"]: d["message"] for d in after["diagnostics"]}
    for root in (home / ".claude" / "skills", project / ".claude" / "skills"):
        assert "install skillpath-claude" in hints[str(root)], after["diagnostics"]
    native = project / ".skillpath" / "skills"
    assert "install skillpath-native" in hints[str(native)]
    assert "skillpath-agents" not in " ".join(hints.values())  # installed: no hint
    env = {
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', os.defpath)}",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "SKILLPATH_CLAUDE_POLICY_DIR": str(home.parent / "policy"),
    }
    for argv in (["explain", "claude-project"], ["doctor"], ["list"]):
        proc = subprocess.run(
            [str(venv / "bin" / "skillpath"), *argv, "--cwd", str(project)],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert "skillpath-claude" in proc.stdout + proc.stderr, (argv, proc.stdout, proc.stderr)
