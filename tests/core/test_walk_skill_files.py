"""``skillpath.resources.walk_skill_files``: the one walk of a skill's folder.

Its rules (bounds, containment, refused names, dot entries, skipped folders, order)
and that every path naming a skill's files follows them: ``show --json``, the search
index, ``skill://`` listings, the plugin copy and the MCP server's walk.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from skillpath.resources import (
    MAX_WALK_DEPTH,
    SKIP_FOLDERS,
    SkillWalk,
    WalkEntry,
    walk_skill_files,
)
from skillpath.textguard import name_refusal

ZWSP = "\u200b"
TAG = "\U000e0041"


def _tree(tmp_path: Path) -> Path:
    """A skill folder with every kind of entry the walk has a rule for."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    base = tmp_path / "skill"
    for rel, text in {
        "SKILL.md": "---\nname: skill\ndescription: d\n---\nbody\n",
        "b.md": "b\n",
        "a.txt": "a\n",
        "references/guide.md": "guide\n",
        "references/deep/more.md": "more\n",
        "scripts/run.sh": "#!/bin/sh\n",
        ".env": "TOKEN=x\n",
        ".github/ci.yml": "ci\n",
        "__pycache__/x.cpython-312.pyc": "pyc",
        "node_modules/pkg/index.js": "js\n",
        ".git/config": "git\n",
        f"run{ZWSP}.sh": "hidden by name\n",
        f"notes{TAG}/inside.md": "never walked\n",
        "r\u00e9sum\u00e9.md": "fine\n",
    }.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (base / "inner.md").symlink_to(base / "references" / "guide.md")
    (base / "linked-refs").symlink_to(base / "references", target_is_directory=True)
    (base / "escape.md").symlink_to(outside / "secret.txt")
    (base / "outdir").symlink_to(outside, target_is_directory=True)
    (base / "loop").symlink_to(base, target_is_directory=True)
    os.mkfifo(base / "pipe.md")
    return base


def _rels(walk: SkillWalk) -> list[str]:
    return [e.rel for e in walk.entries]


def test_the_default_rules(tmp_path: Path) -> None:
    base = _tree(tmp_path)
    walk = walk_skill_files(base)
    # os.walk's order: a folder's files by name, then each sub-folder by name; a link
    # inside the folder is followed (linked-refs), one back to a parent is not (loop)
    assert _rels(walk) == [
        "SKILL.md",
        "a.txt",
        "b.md",
        "inner.md",
        "r\u00e9sum\u00e9.md",
        "linked-refs/guide.md",
        "linked-refs/deep/more.md",
        "references/guide.md",
        "references/deep/more.md",
        "scripts/run.sh",
    ]
    assert not walk.truncated
    inner = walk.entries[3]
    assert inner.is_link and not inner.is_dir and inner.path == base / "inner.md"
    assert {(r.rel, r.is_dir) for r in walk.refused} == {
        (f"run{ZWSP}.sh", False),
        (f"notes{TAG}", True),
    }
    assert all(r.reason == name_refusal(r.path.name) for r in walk.refused)
    # the links leaving the folder are reported, never followed
    assert sorted((e.rel, e.is_dir) for e in walk.links) == [
        ("escape.md", False),
        ("outdir", True),
    ]
    assert walk.folders[0] == base and base / "references" / "deep" in walk.folders
    assert all(e.size is None for e in walk.entries)


def test_hidden_entries_and_no_links(tmp_path: Path) -> None:
    base = _tree(tmp_path)
    walk = walk_skill_files(base, hidden=True, follow_links=False)
    rels = _rels(walk)
    assert ".env" in rels and ".github/ci.yml" in rels
    assert not any(r.startswith((".git/", "__pycache__/", "node_modules/")) for r in rels)
    assert "inner.md" not in rels and "references/guide.md" in rels
    assert sorted(e.rel for e in walk.links) == [
        "escape.md",
        "inner.md",
        "linked-refs",
        "loop",
        "outdir",
    ]
    assert {".git", "__pycache__", "node_modules"} == SKIP_FOLDERS
    assert "node_modules/pkg/index.js" in _rels(walk_skill_files(base, skip={".git"}))


def test_listing_one_folder(tmp_path: Path) -> None:
    base = _tree(tmp_path)
    top = walk_skill_files(base, max_depth=0, folders=True)
    shown = [e.rel + "/" if e.is_dir else e.rel for e in top.entries]
    assert shown == [
        "SKILL.md",
        "a.txt",
        "b.md",
        "inner.md",
        "linked-refs/",
        "loop/",
        "references/",
        "r\u00e9sum\u00e9.md",
        "scripts/",
    ]
    assert not top.truncated  # a listing names the folders it does not enter
    refs = walk_skill_files(base, under="references", max_depth=0, folders=True)
    assert [(e.rel, e.is_dir) for e in refs.entries] == [
        ("references/deep", True),
        ("references/guide.md", False),
    ]
    assert walk_skill_files(base, under="outdir") == SkillWalk()  # leaves the folder
    assert walk_skill_files(base, under="nope") == SkillWalk()
    missing = walk_skill_files(tmp_path / "missing")  # tried, so a watcher sees it come
    assert missing == SkillWalk(folders=(tmp_path / "missing",))


def test_bounds(tmp_path: Path) -> None:
    base = tmp_path / "skill"
    deep = base.joinpath(*[f"d{i}" for i in range(MAX_WALK_DEPTH + 2)])
    deep.mkdir(parents=True)
    (deep / "far.md").write_text("far\n")
    for i in range(5):
        (base / f"f{i}.md").write_text("x" * (10 * i))
    walk = walk_skill_files(base)
    assert walk.truncated and "far.md" not in " ".join(_rels(walk))
    assert len(walk.folders) == MAX_WALK_DEPTH + 1
    few = walk_skill_files(base, max_files=3)
    assert _rels(few) == ["f0.md", "f1.md", "f2.md"] and few.truncated
    exact = walk_skill_files(base, max_files=5, max_depth=0)
    assert len(exact.entries) == 5 and exact.truncated  # the folder d0 was not entered
    sized = walk_skill_files(base, max_bytes=20, max_depth=0)
    assert [(e.rel, e.size) for e in sized.entries] == [("f0.md", 0), ("f1.md", 10), ("f2.md", 20)]
    assert [(e.rel, e.size) for e in sized.too_large] == [("f3.md", 30), ("f4.md", 40)]


def test_entries_are_records(tmp_path: Path) -> None:
    entry = WalkEntry("a/b.md", tmp_path / "a" / "b.md")
    assert (entry.is_dir, entry.is_link, entry.size) == (False, False, None)
    with pytest.raises(AttributeError):
        entry.rel = "c"  # type: ignore[misc]


def test_every_path_names_the_same_files(tmp_path: Path) -> None:
    """show --json, the search index, skill:// listings, the plugin copy and the MCP
    server's walk all follow the one walk's rules."""
    from skillpath.cli.show import resources
    from skillpath.model import Diagnostic, Skill, SkillSource
    from skillpath.plugin_writer import _sibling_files
    from skillpath.search import _resources
    from skillpath.urls import resolve_skill_url

    base = _tree(tmp_path)
    rels = _rels(walk_skill_files(base))
    files, truncated = resources(base)
    assert [f["path"] for f in files] == sorted(rels) and not truncated
    assert _resources(base).split(" ") == [r for r in rels if r != "SKILL.md"]
    source = SkillSource("native", "project", root=base.parent)
    skill = Skill("skill", "d", base / "SKILL.md", base, source)
    listing = resolve_skill_url("skill://skill/.", {"skill": skill}).content.splitlines()
    assert "references/" in listing and "escape.md" not in listing and "outdir/" not in listing
    assert not any(name_refusal(e.rstrip("/")) for e in listing)
    diags: list[Diagnostic] = []
    copied = _sibling_files(skill, diags)
    assert ".env" in copied and "escape.md" not in copied and "inner.md" not in copied
    assert not any(k.startswith(("__pycache__/", "node_modules/", ".git/")) for k in copied)
    codes = sorted({d.code for d in diags})
    assert codes == ["export-name-refused", "export-symlink-skipped"]
    server = pytest.importorskip("skillpath_mcp.server")
    walked, folders = server._walk(base)
    assert [rel for rel, _p in walked] == ["SKILL.md", *sorted(r for r in rels if r != "SKILL.md")]
    assert folders[0] == str(base)
