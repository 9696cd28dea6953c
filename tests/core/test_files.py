"""``skillpath.files``: the one atomic file writer and the one folder swap every writer
uses, and ``skillpath.safety.describe_oserror``, the one short reason for an OSError."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest
from skillpath.errors import SkillpathError
from skillpath.files import atomic_path, replace_folder, write_atomic
from skillpath.safety import describe_oserror


def _names(folder: Path) -> list[str]:
    return sorted(os.listdir(folder))


def test_write_atomic_replaces_the_file_and_leaves_nothing_beside_it(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "lock.json"
    write_atomic(target, b"one")
    write_atomic(target, b"two")
    assert target.read_bytes() == b"two"
    assert _names(target.parent) == ["lock.json"]


def test_write_atomic_private_mode_and_no_parents(tmp_path: Path) -> None:
    target = tmp_path / "record.json"
    write_atomic(target, b"{}", mode=0o600, parents=False)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    with pytest.raises(FileNotFoundError):
        write_atomic(tmp_path / "missing" / "x", b"", parents=False)
    assert not (tmp_path / "missing").exists()


def test_write_atomic_replaces_a_link_without_following_it(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    link = tmp_path / "lock.json"
    link.symlink_to(victim)
    write_atomic(link, b"new")
    assert not link.is_symlink() and link.read_bytes() == b"new"
    assert victim.read_text() == "keep me"


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "index.db"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_bytes(b"half")
        raise RuntimeError("disk full")
    assert target.read_bytes() == b"old"
    assert _names(tmp_path) == ["index.db"]


def test_replace_folder_swaps_in_the_new_files(tmp_path: Path) -> None:
    final = tmp_path / "skills" / "hello"
    replace_folder(final, {"SKILL.md": b"old", "old.txt": b"x"})
    replace_folder(final, {"SKILL.md": b"new", "scripts/run.sh": b"#!/bin/sh\n"})
    assert sorted(p.relative_to(final).as_posix() for p in final.rglob("*")) == [
        "SKILL.md",
        "scripts",
        "scripts/run.sh",
    ]
    assert (final / "SKILL.md").read_bytes() == b"new"
    assert not os.access(final / "scripts" / "run.sh", os.X_OK)
    assert _names(final.parent) == ["hello"]


def test_replace_folder_keeps_scripts_runnable_when_asked(tmp_path: Path) -> None:
    final = tmp_path / "hello"
    replace_folder(final, {"run.sh": b"#!/bin/sh\n", "notes.md": b"#"}, executable_scripts=True)
    assert stat.S_IMODE((final / "run.sh").stat().st_mode) == 0o755
    assert not os.access(final / "notes.md", os.X_OK)


def test_replace_folder_makes_and_replaces_a_link(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    (source / "SKILL.md").write_text("canonical")
    final = tmp_path / "agent" / "hello"
    replace_folder(final, {"SKILL.md": b"a copy"})
    replace_folder(final, link_to=source)
    assert final.is_symlink() and (final / "SKILL.md").read_text() == "canonical"
    replace_folder(final, {"SKILL.md": b"a copy again"})
    assert not final.is_symlink() and (final / "SKILL.md").read_bytes() == b"a copy again"
    assert (source / "SKILL.md").read_text() == "canonical"  # the old link was not followed
    assert _names(final.parent) == ["hello"]


def test_replace_folder_refuses_a_linked_parent_when_asked(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "skills").symlink_to(elsewhere)
    with pytest.raises(SkillpathError, match="is a symbolic link"):
        replace_folder(tmp_path / "skills" / "hello", {"SKILL.md": b"x"}, refuse_linked_parent=True)
    assert _names(elsewhere) == []


def test_a_failed_swap_leaves_the_old_folder(tmp_path: Path) -> None:
    final = tmp_path / "hello"
    replace_folder(final, {"SKILL.md": b"old"})
    with pytest.raises(OSError):
        replace_folder(final, {"SKILL.md": b"new", "SKILL.md/inside": b"x"})
    assert (final / "SKILL.md").read_bytes() == b"old"
    assert _names(tmp_path) == ["hello"]


@pytest.mark.parametrize(
    ("exc", "reason"),
    [
        (IsADirectoryError(errno.EISDIR, "Is a directory"), "is a directory"),
        (OSError(errno.ELOOP, "Too many levels"), "symlink loop"),
        (NotADirectoryError(errno.ENOTDIR, "Not a directory"), "not a directory"),
        (PermissionError(errno.EACCES, "Permission denied"), "permission denied"),
        (PermissionError(errno.EPERM, "Operation not permitted"), "permission denied"),
        (OSError(errno.EIO, "Input/output error"), "Input/output error"),
        (OSError("no errno"), "no errno"),
    ],
)
def test_describe_oserror(exc: OSError, reason: str) -> None:
    assert describe_oserror(exc) == reason


def test_the_core_and_the_providers_share_one_describe_oserror() -> None:
    from skillpath import _rootlist

    assert _rootlist._describe_oserror is describe_oserror
    root = Path(__file__).resolve().parents[2]
    sources = [*(root / "core" / "src").rglob("*.py"), *(root / "providers").glob("*/src/**/*.py")]
    copies = [
        str(p.relative_to(root))
        for p in sources
        if "templates" not in p.parts
        and p.name != "safety.py"
        and 'return "symlink loop"' in p.read_text(encoding="utf-8")
    ]
    assert copies == []
