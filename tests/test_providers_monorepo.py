"""End to end, as real subprocesses: a monorepo entered below its root (github, opencode,
codex) and Claude Code plugins that are project-scoped or disabled in settings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


def put(root: Path, name: str, description: str) -> Path:
    """Write ``<root>/<name>/SKILL.md``."""
    path = root / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\ndescription: {description}\n---\nBody of {name}.\n", encoding="utf-8")
    return path


def write_json(path: Path, data: Any) -> Path:
    """Write ``data`` as JSON (parents created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def run(tmp: Path, *args: str | Path) -> tuple[int, Any, str]:
    """``skillpath <args> --json`` with HOME and every agent dir inside ``tmp``."""
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(tmp / "home"),
        "XDG_CONFIG_HOME": str(tmp / "home" / ".config"),
        "XDG_CACHE_HOME": str(tmp / "cache"),
        "SKILLPATH_CLAUDE_POLICY_DIR": str(tmp / "etc-claude"),
        "SKILLPATH_CODEX_ADMIN_DIR": str(tmp / "etc-codex"),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "skillpath", *map(str, args), "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp,
        timeout=120,
    )
    return proc.returncode, json.loads(proc.stdout) if proc.stdout else None, proc.stderr


@pytest.fixture
def monorepo(tmp_path: Path) -> tuple[Path, Path]:
    """A repository with .github, .opencode and .codex skills at its root; cwd two levels down."""
    tmp = tmp_path.resolve()
    (tmp / "home").mkdir()
    repo = tmp / "mono"
    (repo / ".git").mkdir(parents=True)
    put(repo / ".github" / "skills", "gh-root", "GitHub root skill.")
    put(repo / ".opencode" / "skills", "oc-root", "OpenCode root skill.")
    put(repo / ".codex" / "skills", "cx-root", "Codex project root skill.")
    api = repo / "packages" / "api"
    api.mkdir(parents=True)
    return repo, api


def test_list_below_the_root_finds_the_repository_skills(monorepo: tuple[Path, Path]) -> None:
    repo, api = monorepo
    code, data, err = run(repo.parent, "list", "--cwd", api)
    assert code == 0, err
    skills = {s["name"]: s for s in data["skills"]}
    assert (skills["gh-root"]["provider"], skills["gh-root"]["level"]) == ("github", "project")
    assert (skills["oc-root"]["provider"], skills["oc-root"]["level"]) == ("opencode", "project")
    # Codex reads .codex/skills up to the repository root too
    assert (skills["cx-root"]["provider"], skills["cx-root"]["level"]) == ("codex", "project")
    assert not [d for d in data["diagnostics"] if d["code"] == "codex-skills-above"]


def test_explain_finds_the_codex_skill_at_the_root(monorepo: tuple[Path, Path]) -> None:
    repo, api = monorepo
    code, data, _ = run(repo.parent, "explain", "cx-root", "--cwd", api)
    assert code == 0 and data["available"] is True
    code, data, _ = run(repo.parent, "explain", "oc-root", "--cwd", api)
    assert code == 0 and data["available"] is True


def test_project_scoped_and_disabled_plugins(tmp_path: Path) -> None:
    tmp = tmp_path.resolve()
    home, project, other = tmp / "home", tmp / "proj", tmp / "other"
    for folder in (project, other):
        (folder / ".git").mkdir(parents=True)
    store = tmp / "store"
    put(store / "projonly" / "skills", "proj-plug", "Project-scoped plugin skill.")
    put(store / "superpowers" / "skills", "brainstorm", "From a disabled plugin.")
    put(store / "tools" / "skills", "fmt", "From an enabled plugin.")
    registry = write_json(
        home / ".claude" / "plugins" / "installed_plugins.json",
        {
            "version": 2,
            "plugins": {
                "projonly@acme": [
                    {
                        "scope": "project",
                        "projectPath": str(project),
                        "installPath": str(store / "projonly"),
                    }
                ],
                "superpowers@obra": [{"scope": "user", "installPath": str(store / "superpowers")}],
                "tools@acme": [{"scope": "user", "installPath": str(store / "tools")}],
            },
        },
    )
    settings = write_json(
        home / ".claude" / "settings.json",
        {"enabledPlugins": {"projonly@acme": True, "superpowers@obra": False, "tools@acme": True}},
    )
    # marketplace plugins are quarantined until approved (skillpath.trust); this test is
    # about which plugins load, so the user's config approves every plugin
    (home / ".skillpath").mkdir()
    (home / ".skillpath" / "config.toml").write_text('[trust]\napprove = ["plugin:*"]\n')
    code, data, err = run(tmp, "list", "--all", "--cwd", other)
    assert code == 0, err
    plugin_skills = [s for s in data["skills"] if s["provider"] == "claude-plugins"]
    assert [s["name"] for s in plugin_skills] == ["tools:fmt"]
    infos = {(d["code"], d["path"]) for d in data["diagnostics"] if d["level"] == "info"}
    assert {("plugin-other-project", str(registry)), ("plugin-disabled", str(settings))} <= infos
    inside = project / "src"
    inside.mkdir()
    code, data, err = run(tmp, "list", "--cwd", inside)
    assert code == 0, err
    levels = {s["name"]: s["level"] for s in data["skills"] if s["provider"] == "claude-plugins"}
    assert levels == {"tools:fmt": "user", "projonly:proj-plug": "project"}
    code, data, _ = run(tmp, "explain", "fmt", "--cwd", inside)  # the bare name resolves
    assert code == 0 and data["available"] is True
    assert [(e["name"], e["provider"]) for e in data["entries"]] == [
        ("tools:fmt", "claude-plugins")
    ]
