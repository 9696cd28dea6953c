"""The scanner says why something in a skills root is not a skill ("why is my skill missing?")."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from skillpath import Discovery, SkillSource, scan_skills_dir
from skillpath.cache.index import DiscoveryIndex, activate
from skillpath.model import Diagnostic, RootScan
from skillpath.scan import near_miss_roots

SRC = SkillSource("test", "project")


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _notes(diags: tuple[Diagnostic, ...] | list[Diagnostic]) -> dict[str, Diagnostic]:
    return {d.path.name if d.path else "": d for d in diags if d.code == "not-a-skill"}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A skills root with one real skill and every common near miss."""
    r = tmp_path / "skills"
    _write(r / "real" / "SKILL.md", "---\ndescription: Real.\n---\nbody\n")
    _write(r / "lowercase-file" / "skill.md", "---\ndescription: x\n---\n")
    (r / "empty-dir").mkdir()
    _write(r / "assets-only" / "logo.txt", "x")
    _write(r / "just-md.md", "---\nname: just-md\ndescription: d\n---\n")
    _write(r / "README.md", "# My skills\n")
    _write(r / "SKILL.md", "---\ndescription: root itself\n---\n")
    _write(r / "group" / "inner" / "SKILL.md", "---\ndescription: nested\n---\n")
    (r / "__pycache__").mkdir()
    return r


def _index(tmp_path: Path) -> DiscoveryIndex:
    # "now" well after every file was written: nothing is racy, listings are reused
    return DiscoveryIndex(tmp_path / "idx", now_ns=time.time_ns() + 10**12)


def test_each_near_miss_is_an_info_diagnostic(root: Path) -> None:
    res = scan_skills_dir(root, SRC)
    assert [s.name for s in res.skills] == ["real"]
    notes = _notes(res.diagnostics)
    assert set(notes) == {"skill.md", "empty-dir", "assets-only", "just-md.md", "SKILL.md"}
    assert all(d.level == "info" and d.provider == "test" for d in notes.values())
    assert notes["skill.md"].path == root / "lowercase-file" / "skill.md"
    assert "agents look for SKILL.md exactly" in notes["skill.md"].message
    assert "it is empty" in notes["empty-dir"].message
    assert "logo.txt" in notes["assets-only"].message
    assert notes["just-md.md"].path == root / "just-md.md"
    assert "move it to just-md/SKILL.md" in notes["just-md.md"].message
    assert "directly in a skills root" in notes["SKILL.md"].message
    # README.md and __pycache__ are normal in a skills root; nested skills keep their own code
    codes = {d.code for d in res.diagnostics}
    assert "nested-skills-ignored" in codes
    assert not any(d.path is not None and d.path.name == "README.md" for d in res.diagnostics)
    assert not any(d.path is not None and d.path.name == "__pycache__" for d in res.diagnostics)


def test_the_index_keeps_the_same_notes(root: Path, tmp_path: Path) -> None:
    """The listing the index keeps includes *.md files: a reused listing says the same."""
    plain = scan_skills_dir(root, SRC)
    index = _index(tmp_path)
    with activate(index):
        first = scan_skills_dir(root, SRC)
    index.flush()
    index = _index(tmp_path)
    with activate(index):
        second = scan_skills_dir(root, SRC)
    assert index.stats.listings_reused == 1
    assert _notes(plain.diagnostics) == _notes(first.diagnostics) == _notes(second.diagnostics)


def test_a_missing_root_next_to_a_near_name_is_reported(tmp_path: Path) -> None:
    project = tmp_path / "p"
    _write(project / ".claude" / "skill" / "typo-root" / "SKILL.md", "---\ndescription: x\n---\n")
    _write(project / ".claude" / "Skills-old.txt", "not a dir")
    d = Discovery("claude", 80)
    d.scan(project / ".claude" / "skills", "project")
    d.scan(project / ".nothing" / "skills", "project")  # parent missing: silent
    (diag,) = [x for x in d.result().diagnostics if x.code == "near-miss-root"]
    assert diag.level == "info" and diag.provider == "claude"
    assert diag.path == project / ".claude" / "skill"
    assert "did you mean 'skills'" in diag.message


def test_a_sibling_that_is_itself_a_root_is_not_a_near_miss(tmp_path: Path) -> None:
    # OpenCode reads both .opencode/skills and .opencode/skill
    base = tmp_path / ".opencode"
    _write(base / "skill" / "a" / "SKILL.md", "---\ndescription: x\n---\n")
    d = Discovery("opencode", 55)
    d.scan(base / "skills", "project")
    d.scan(base / "skill", "project")
    assert [s.name for s in d.skills] == ["a"]
    assert not [x for x in d.result().diagnostics if x.code == "near-miss-root"]


def test_near_miss_lists_each_parent_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".agent" / "skil").mkdir(parents=True)
    calls: list[str] = []
    real = os.listdir

    def counting(path: str) -> list[str]:
        calls.append(os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "listdir", counting)
    roots = [
        RootScan("agents", "project", tmp_path / ".agent" / "skills", False),
        RootScan("agents", "project", tmp_path / ".agent" / "skill", False),
        RootScan("agents", "project", tmp_path / ".agents" / "skills", False),
        RootScan("agents", "project", tmp_path / "present", True),
    ]
    diags = near_miss_roots(roots)
    assert [d.path for d in diags] == [tmp_path / ".agent" / "skil"]
    # one listing of .agent (shared by two missing roots), one failed attempt for .agents
    assert calls == [str(tmp_path / ".agent"), str(tmp_path / ".agents")]
