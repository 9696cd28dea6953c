"""``AGENTS.md`` discovery: the home and repository-root walk rules."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from skillpath import ContextFile, discover_context_files
from skillpath.model import Diagnostic


@pytest.fixture
def top(tmp_path: Path) -> Path:
    t = (tmp_path / "top").resolve()
    (t / "home").mkdir(parents=True)
    return t


def agents(folder: Path, text: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "AGENTS.md"
    path.write_text(text if text is not None else f"rules of {folder.name}\n")
    return path


def found(cwd: Path, home: Path, top: Path) -> list[tuple[str, int]]:
    """(path relative to ``top``, depth) of every file found inside ``top``."""
    out = []
    for f in discover_context_files(cwd, home=home):
        assert isinstance(f, ContextFile)
        if top in f.path.parents:
            out.append((str(f.path.relative_to(top)), f.depth))
    return out


def test_repo_nested_under_home_walks_past_the_root_but_not_home(top: Path) -> None:
    home = top / "home"
    cwd = home / "ws" / "repo" / "pkg" / "sub"
    cwd.mkdir(parents=True)
    (home / "ws" / "repo" / ".git").mkdir()
    for d in (cwd, home / "ws" / "repo", home / "ws", home, top):
        agents(d)
    assert found(cwd, home, top) == [
        ("home/ws/repo/pkg/sub/AGENTS.md", 0),
        ("home/ws/repo/AGENTS.md", 2),
        ("home/ws/AGENTS.md", 3),
    ]


def test_no_repo_under_home_walks_up_to_and_including_home(top: Path) -> None:
    home = top / "home"
    cwd = home / "a" / "b"
    for d in (cwd, home / "a", home, top):
        agents(d)
    assert found(cwd, home, top) == [
        ("home/a/b/AGENTS.md", 0),
        ("home/a/AGENTS.md", 1),
        ("home/AGENTS.md", 2),
    ]


def test_repo_outside_home_stops_at_the_repo_root(top: Path) -> None:
    home = top / "home"
    repo = top / "outside" / "repo"
    cwd = repo / "x"
    (repo / ".git").mkdir(parents=True)
    for d in (cwd, repo, top / "outside", top, home):
        agents(d)
    assert found(cwd, home, top) == [("outside/repo/x/AGENTS.md", 0), ("outside/repo/AGENTS.md", 1)]


def test_no_repo_outside_home_walks_up_to_the_root(top: Path) -> None:
    home = top / "home"
    cwd = top / "free" / "y"
    for d in (cwd, top / "free", top):
        agents(d)
    files = discover_context_files(cwd, home=home)
    ours = [(str(f.path.relative_to(top)), f.depth) for f in files if top in f.path.parents]
    assert ours == [("free/y/AGENTS.md", 0), ("free/AGENTS.md", 1), ("AGENTS.md", 2)]
    assert all(f.depth >= 3 for f in files if top not in f.path.parents)  # beyond: up to /


def test_home_that_is_a_repo_root_is_included(top: Path) -> None:
    home = top / "home"
    (home / ".git").mkdir()
    cwd = home / "notes"
    for d in (cwd, home, top):
        agents(d)
    assert found(cwd, home, top) == [("home/notes/AGENTS.md", 0), ("home/AGENTS.md", 1)]


def test_hidden_owner_directories_are_skipped(top: Path) -> None:
    home = top / "home"
    cwd = home / "proj" / ".config" / "inner"
    for d in (cwd, home / "proj" / ".config", home / "proj"):
        agents(d)
    assert found(cwd, home, top) == [
        ("home/proj/.config/inner/AGENTS.md", 0),
        ("home/proj/AGENTS.md", 2),
    ]


def test_empty_files_claim_nothing(top: Path) -> None:
    home = top / "home"
    cwd = home / "a" / "b"
    agents(cwd, "")
    agents(home / "a", "  \n\t\n")
    agents(home, "home rules\n")
    assert found(cwd, home, top) == [("home/AGENTS.md", 2)]


def test_content_depth_and_symlink_dedup(top: Path) -> None:
    home = top / "home"
    cwd = home / "a" / "b"
    cwd.mkdir(parents=True)
    real = agents(home / "a", "shared rules\n")
    (cwd / "AGENTS.md").symlink_to(real)
    files = [f for f in discover_context_files(cwd, home=home) if top in f.path.parents]
    assert [(f.path, f.depth, f.content) for f in files] == [
        (cwd / "AGENTS.md", 0, "shared rules\n")
    ]
    assert files[0].directory == cwd
    assert files[0].to_json()["depth"] == 0


def test_unreadable_entries_are_diagnostics(top: Path) -> None:
    home = top / "home"
    cwd = home / "a"
    (cwd / "AGENTS.md").mkdir(parents=True)  # a directory named AGENTS.md
    agents(home)
    diags: list[Diagnostic] = []
    files = discover_context_files(cwd, home=home, diagnostics=diags)
    assert [f.path for f in files] == [home / "AGENTS.md"]
    assert [(d.code, d.path) for d in diags] == [("unreadable-context-file", cwd / "AGENTS.md")]


def test_default_home_comes_from_the_environment(
    top: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = top / "home"
    monkeypatch.setenv("HOME", os.fspath(home))
    cwd = home / "a"
    agents(cwd)
    agents(home)
    agents(top)
    files = [f for f in discover_context_files(cwd) if top in f.path.parents]
    assert [f.depth for f in files] == [0, 1]
