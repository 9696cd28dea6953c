"""Claude Code plugins installed with ``--scope project`` and ``--scope local``, and two
marketplaces shipping a plugin of the same name: the real ``claude`` against the
``claude-code`` view and skillpath's catalog (the ``claude-plugins`` provider).

Two directory marketplaces, ``mone`` and ``mtwo``, both ship a plugin ``same`` (each with
a skill of its own and one skill ``dup`` in both); ``mone`` also ships ``projp``
(installed ``--scope project`` in a git project) and ``locp`` (``--scope local``).
Claude Code runs once in that project and once in another one.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agentrun import claude_listing, run_agent
from fakemodel import FakeModel, fake_model
from skillpath import load_skills
from skillpath.views import view

APPROVED = {"trust": {"approve": ["plugin:*"]}}
CLAUDE_OWN = ("plugin-authoring",)

MARKETS: dict[str, dict[str, dict[str, str]]] = {
    "mone": {
        "same": {
            "skills/s1/SKILL.md": "---\ndescription: From mone.\n---\nOne.\n",
            "skills/dup/SKILL.md": "---\ndescription: Dup from mone.\n---\nD1.\n",
        },
        "projp": {"skills/pp/SKILL.md": "---\ndescription: Project scoped.\n---\nP.\n"},
        "locp": {"skills/lp/SKILL.md": "---\ndescription: Local scoped.\n---\nL.\n"},
    },
    "mtwo": {
        "same": {
            "skills/s2/SKILL.md": "---\ndescription: From mtwo.\n---\nTwo.\n",
            "skills/dup/SKILL.md": "---\ndescription: Dup from mtwo.\n---\nD2.\n",
        },
    },
}


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))


def _market(root: Path, name: str, plugins: dict[str, dict[str, str]]) -> None:
    for plugin, files in plugins.items():
        _write(root / plugin / ".claude-plugin" / "plugin.json", {"name": plugin, "version": "1"})
        for rel, text in files.items():
            _write(root / plugin / rel, text)
    entries = [{"name": p, "source": f"./{p}"} for p in plugins]
    _write(
        root / ".claude-plugin" / "marketplace.json",
        {"name": name, "owner": {"name": "test"}, "plugins": entries},
    )


class World:
    def __init__(self, base: Path) -> None:
        self.base, self.home = base, base / "home"
        self.project, self.other = base / "project", base / "other"
        self.claude_env: dict[str, str] = {}
        self.listings: dict[Path, list[str]] = {}


@pytest.fixture(scope="module")
def world(counterpart: Callable[[str], Path], tmp_path_factory: Any) -> World:
    w = World(tmp_path_factory.mktemp("claude-plugin-scopes"))
    w.home.mkdir()
    for repo in (w.project, w.other):
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for name, plugins in MARKETS.items():
        _market(w.base / name, name, plugins)
    w.claude_env = {
        "HOME": str(w.home),
        "PATH": os.environ.get("PATH", ""),
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    claude = str(counterpart("claude"))
    steps = [
        ["plugin", "marketplace", "add", str(w.base / "mone")],
        ["plugin", "marketplace", "add", str(w.base / "mtwo")],
        ["plugin", "install", "same@mone"],
        ["plugin", "install", "same@mtwo"],
        ["plugin", "install", "projp@mone", "--scope", "project"],
        ["plugin", "install", "locp@mone", "--scope", "local"],
    ]
    for args in steps:
        done = subprocess.run(
            [claude, *args],
            cwd=w.project,
            env=w.claude_env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    with fake_model() as fm:
        for cwd in (w.project, w.other):
            w.listings[cwd] = _real(counterpart, fm, w, cwd)
    return w


def _real(counterpart: Callable[[str], Path], fm: FakeModel, w: World, cwd: Path) -> list[str]:
    bodies = run_agent("claude", counterpart("claude"), fm, home=w.home, cwd=cwd)
    listing = claude_listing(bodies)
    assert listing is not None, "claude sent no skills listing"
    return [line for line in listing.split("\n") if line[2:].split(":")[0] not in CLAUDE_OWN]


def _catalog(w: World, cwd: Path) -> list[str]:
    result = load_skills(cwd, home=w.home, env={"HOME": str(w.home)}, settings=APPROVED)
    return sorted(s.name for s in result.skills if s.source.provider == "claude-plugins")


def test_install_scopes_write_the_files_the_readers_read(world: World) -> None:
    registry = json.loads((world.home / ".claude/plugins/installed_plugins.json").read_text())
    scopes = {key: [e["scope"] for e in entries] for key, entries in registry["plugins"].items()}
    assert scopes == {
        "same@mone": ["user"],
        "same@mtwo": ["user"],
        "projp@mone": ["project"],
        "locp@mone": ["local"],
    }
    project = json.loads((world.project / ".claude/settings.json").read_text())
    local = json.loads((world.project / ".claude/settings.local.json").read_text())
    assert project["enabledPlugins"] == {"projp@mone": True}
    assert local["enabledPlugins"] == {"locp@mone": True}


@pytest.mark.parametrize("where", ["project", "other"])
def test_the_view_lists_what_claude_lists(world: World, where: str) -> None:
    cwd = getattr(world, where)
    real = world.listings[cwd]
    assert view("claude-code", cwd, env={"HOME": str(world.home)}).listing.split("\n") == real
    scoped = {"- projp:pp: Project scoped.", "- locp:lp: Local scoped."}
    # project- and local-scoped installs load only in their project
    assert (scoped <= set(real)) == (where == "project")
    assert (scoped & set(real) == set()) == (where == "other")
    # a plugin name in two marketplaces: both load under one plugin name; a skill in both
    # is listed once, from the marketplace enabled first
    assert real[:3] == [
        "- same:dup: Dup from mone.",
        "- same:s1: From mone.",
        "- same:s2: From mtwo.",
    ]


@pytest.mark.parametrize("where", ["project", "other"])
def test_the_catalog_loads_what_claude_loads(world: World, where: str) -> None:
    cwd = getattr(world, where)
    listed = sorted(line[2:].split(": ", 1)[0] for line in world.listings[cwd])
    assert _catalog(world, cwd) == listed


def test_a_file_url_marketplace_is_refused(
    counterpart: Callable[[str], Path], world: World
) -> None:
    """A git marketplace needs a remote (``owner/repo`` or ``https://``): a ``file://``
    URL is refused and a local repository's path is a directory marketplace, so no git
    marketplace can be made here without the network (docs/agents.md)."""
    repo = world.base / "gitmkt"
    _market(repo, "gitmkt", {"gp": {"skills/gs/SKILL.md": "---\ndescription: G.\n---\nG.\n"}})
    done = subprocess.run(
        [str(counterpart("claude")), "plugin", "marketplace", "add", f"file://{repo}"],
        cwd=world.other,
        env=world.claude_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "Invalid marketplace source format" in done.stdout + done.stderr
