"""Lazy extraction: deterministic targets, once per process, verification, refusals."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest
from skillpath import extract
from skillpath.extract import (
    MANIFEST,
    ExtractionError,
    Member,
    cache_root,
    ensure_extracted,
    make_tree,
    reset_extraction_state,
    verify_tree,
)
from skillpath.safety import ContainmentError


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    reset_extraction_state()
    yield {"SKILLPATH_CACHE_DIR": str(tmp_path / "cache")}
    reset_extraction_state()


def members() -> list[Member]:
    return [
        Member.from_bytes("demo/SKILL.md", b"---\ndescription: d\n---\nbody\n"),
        Member.from_bytes("demo/references/a.md", b"A\n"),
        Member.from_bytes("demo/scripts/run.py", b"#!/usr/bin/env python3\nprint(1)\n"),
    ]


def test_cache_root_honours_the_override_and_xdg(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cache_root({"SKILLPATH_CACHE_DIR": str(tmp_path / "c")}) == tmp_path / "c"
    monkeypatch.delenv("SKILLPATH_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    if sys.platform.startswith("linux"):
        assert cache_root({}) == tmp_path / "xdg" / "skillpath"


@pytest.mark.parametrize(
    ("xdg", "home"),
    [
        ("/x/cache", "/home/u"),
        ("/x/cache/", "/home/u"),
        (None, "/home/u"),
        ("", "/home/u"),
        (None, "/home/u/"),
        ("relative/cache", "/home/u"),
        ("  ", "/home/u"),
        (" /x/cache", "/home/u"),
        (None, "relative-home"),
        (None, None),
        ("", ""),
    ],
)
def test_cache_root_is_platformdirs_without_importing_it(
    xdg: str | None, home: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import platformdirs
    from skillpath.cache import files

    monkeypatch.delenv("SKILLPATH_CACHE_DIR", raising=False)
    for var, value in (("XDG_CACHE_HOME", xdg), ("HOME", home)):
        if value is None:
            monkeypatch.delenv(var, raising=False)
        else:
            monkeypatch.setenv(var, value)
    plain = files._xdg_cache_dir(os.environ, None)
    usual = xdg is None or xdg == "" or os.path.isabs(xdg)  # platformdirs uses a relative one
    if plain is not None and usual:  # where it answers, it answers what platformdirs answers
        assert plain == platformdirs.user_cache_dir("skillpath", appauthor=False)
    if usual:
        assert files.cache_root() == platformdirs.user_cache_dir("skillpath", appauthor=False)
    if xdg and not os.path.isabs(xdg) and home == "/home/u" and plain is not None:
        assert plain == "/home/u/.cache/skillpath"  # a relative XDG_CACHE_HOME is ignored
    if sys.platform.startswith("linux") and xdg == "/x/cache":
        assert plain == "/x/cache/skillpath"
    if sys.platform.startswith("linux") and xdg is None and home == "/home/u":
        assert plain == "/home/u/.cache/skillpath"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="XDG layout")
def test_cache_root_follows_the_environment_it_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A load with its own environment (a host, a test) never lands in the process's
    user cache: the pack trees follow the ``env`` mapping, as the index does."""
    from skillpath.cache import files

    monkeypatch.delenv("SKILLPATH_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "process-cache"))
    monkeypatch.setenv("HOME", str(tmp_path / "process-home"))
    given = {"XDG_CACHE_HOME": str(tmp_path / "given-cache"), "HOME": str(tmp_path / "h")}
    assert extract.cache_root(given) == tmp_path / "given-cache" / "skillpath"
    assert extract.cache_root({"HOME": str(tmp_path / "h")}) == tmp_path / "h/.cache/skillpath"
    assert files.cache_root(given) == str(extract.cache_root(given))
    tree = make_tree("packs", "acme-1.0", members(), label="t", env=given)
    assert tree.target.parent == tmp_path / "given-cache" / "skillpath" / "packs"
    assert extract.cache_root() == tmp_path / "process-cache" / "skillpath"


def test_target_is_deterministic_and_keyed_by_content(env: dict[str, str]) -> None:
    a = make_tree("packs", "acme-1.0", members(), label="t", env=env)
    b = make_tree("packs", "acme-1.0", list(reversed(members())), label="t", env=env)
    assert a.target == b.target and a.digest == b.digest
    assert a.target.parent == Path(env["SKILLPATH_CACHE_DIR"]) / "packs"
    assert a.target.name == f"acme-1.0-{a.digest[:16]}"
    changed = [*members()[:2], Member.from_bytes("demo/scripts/run.py", b"print(2)\n")]
    c = make_tree("packs", "acme-1.0", changed, label="t", env=env)
    assert c.target != a.target
    odd = make_tree("packs", "we/ird name", members(), label="t", env=env)
    assert odd.target.name.startswith("we_ird_name-")
    assert not Path(env["SKILLPATH_CACHE_DIR"]).exists()  # building a tree writes nothing


def test_extraction_writes_files_modes_and_manifest(env: dict[str, str]) -> None:
    tree = make_tree("packs", "acme-1.0", members(), label="t", env=env)
    assert verify_tree(tree) == "not extracted"
    assert ensure_extracted(tree) == tree.target
    root = tree.target
    assert (root / "demo" / "references" / "a.md").read_bytes() == b"A\n"
    assert (root / "demo" / "SKILL.md").stat().st_mode & 0o777 == 0o600
    assert (root / "demo" / "scripts" / "run.py").stat().st_mode & 0o777 == 0o700
    assert (root / "demo").stat().st_mode & 0o777 == 0o700
    assert root.stat().st_mode & 0o777 == 0o700
    manifest = json.loads((root / MANIFEST).read_text())
    assert manifest["digest"] == tree.digest
    assert set(manifest["files"]) == {m.rel for m in members()}
    assert verify_tree(tree) is None
    debris = [p.name for p in root.parent.iterdir() if p.name.startswith((".tmp-", ".stale-"))]
    assert debris == []


@pytest.mark.parametrize(
    "tamper",
    ["change", "delete", "extra", "symlink", "manifest"],
)
def test_a_tampered_tree_is_detected_and_redone(env: dict[str, str], tamper: str) -> None:
    tree = make_tree("packs", "acme-1.0", members(), label="t", env=env)
    ensure_extracted(tree)
    a = tree.target / "demo" / "references" / "a.md"
    if tamper == "change":
        a.write_bytes(b"evil\n")
    elif tamper == "delete":
        a.unlink()
    elif tamper == "extra":
        (tree.target / "demo" / "new.txt").write_text("x")
    elif tamper == "symlink":
        a.unlink()
        a.symlink_to("/etc/hostname")
    else:
        (tree.target / MANIFEST).write_text("{}")
    assert verify_tree(tree) is not None
    reset_extraction_state()  # a new process
    ensure_extracted(tree)
    assert verify_tree(tree) is None
    assert not a.is_symlink() and a.read_bytes() == b"A\n"
    assert not (tree.target / "demo" / "new.txt").exists()


def test_once_per_process_even_under_threads(env: dict[str, str]) -> None:
    reads: list[str] = []
    lock = threading.Lock()

    def counting(m: Member) -> Member:
        data = m.read()

        def read() -> bytes:
            with lock:
                reads.append(m.rel)
            return data

        return attrs.evolve(m, read=read)

    tree = make_tree("packs", "acme-1.0", [counting(m) for m in members()], label="t", env=env)
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            barrier.wait()
            ensure_extracted(tree)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(reads) == sorted(m.rel for m in members())  # each member read once
    ensure_extracted(tree)
    assert len(reads) == 3


def test_leftover_temp_dirs_are_cleaned(env: dict[str, str]) -> None:
    tree = make_tree("packs", "acme-1.0", members(), label="t", env=env)
    tree.target.parent.mkdir(parents=True)
    junk = tree.target.parent / f".tmp-{tree.target.name}-deadbeef"
    (junk / "half").mkdir(parents=True)
    ensure_extracted(tree)
    assert not junk.exists()


@pytest.mark.parametrize(
    ("rel", "reason"),
    [
        ("../x", "traversal"),
        ("demo/../../x", "traversal"),
        ("/etc/passwd", "absolute"),
        ("C:/x", "absolute"),
        ("demo\\x", "backslash"),
        ("demo/\x1b[2J", "control character"),
        (f"demo/{MANIFEST}", "reserved"),
        ("", "empty"),
    ],
)
def test_hostile_member_paths_are_refused(env: dict[str, str], rel: str, reason: str) -> None:
    with pytest.raises(ContainmentError, match=reason):
        make_tree("packs", "x", [Member.from_bytes(rel, b"x")], label="t", env=env)


def test_file_and_directory_clash_and_duplicates(env: dict[str, str]) -> None:
    with pytest.raises(ExtractionError, match="both a file and a directory"):
        make_tree(
            "packs",
            "x",
            [Member.from_bytes("a", b"1"), Member.from_bytes("a/b", b"2")],
            label="t",
            env=env,
        )
    with pytest.raises(ExtractionError, match="twice"):
        make_tree(
            "packs",
            "x",
            [Member.from_bytes("a", b"1"), Member.from_bytes("a", b"2")],
            label="t",
            env=env,
        )
    with pytest.raises(ExtractionError, match="not normalised"):
        make_tree("packs", "x", [Member.from_bytes("./a//b", b"1")], label="t", env=env)


def test_a_source_that_changed_since_listing_is_refused(env: dict[str, str]) -> None:
    m = Member.from_bytes("demo/SKILL.md", b"old")
    changed = attrs.evolve(m, read=lambda: b"new")
    tree = make_tree("packs", "x", [changed], label="pack 'x'", env=env)
    with pytest.raises(ExtractionError, match="changed since the skills were listed"):
        ensure_extracted(tree)
    assert not tree.target.exists()
    assert [p.name for p in tree.target.parent.iterdir()] == [".locks"]


def test_a_symlink_at_the_target_is_replaced_not_followed(
    env: dict[str, str], tmp_path: Path
) -> None:
    tree = make_tree("packs", "acme-1.0", members(), label="t", env=env)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    tree.target.parent.mkdir(parents=True)
    tree.target.symlink_to(elsewhere, target_is_directory=True)
    assert verify_tree(tree) == "target is not a directory"
    ensure_extracted(tree)
    assert not tree.target.is_symlink() and tree.target.is_dir()
    assert list(elsewhere.iterdir()) == []


def test_an_unusable_cache_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "cache-is-a-file"
    blocker.write_text("x")
    tree = make_tree(
        "packs",
        "acme-1.0",
        members(),
        label="pack 'acme'",
        env={"SKILLPATH_CACHE_DIR": str(blocker)},
    )
    with pytest.raises(ExtractionError, match=r"pack 'acme': cannot extract to .*cache-is-a-file"):
        ensure_extracted(tree)
