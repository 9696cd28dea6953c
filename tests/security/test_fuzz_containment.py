"""Property-based tests of the one containment check (``skillpath.safety``).

A fixed tree on the real file system holds a skill dir whose symlinks point
inside, outside (relative and absolute), at a sibling whose name extends the
base's, nowhere, and at themselves. Generated relative paths either resolve to
a real path under the base or are refused; a file outside is never returned.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import unicodedata
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st
from skillpath.errors import ResolveError
from skillpath.safety import ContainmentError, check_relative, is_inside, resolve_inside

SECRET = "TOP-SECRET-OUTSIDE"


def _build(top: Path) -> Path:
    outside = top / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    (outside / "SKILL.md").write_text(SECRET)
    sibling = top / "base-sibling"  # shares the base's name as a prefix
    sibling.mkdir()
    (sibling / "x.txt").write_text(SECRET)
    base = top / "base"
    (base / "sub" / "deeper").mkdir(parents=True)
    (base / "SKILL.md").write_text("---\ndescription: inside\n---\nbody\n")
    (base / "a.txt").write_text("inside a")
    (base / "sub" / "b.txt").write_text("inside b")
    (base / "sub" / "deeper" / "c.md").write_text("inside c")
    links = {
        "link-in": "sub",
        "sub/up": "..",
        "sub/deeper/top": "../..",
        "file-in": "sub/b.txt",
        "link-out": "../outside",
        "file-out": "../outside/secret.txt",
        "abs-out": str(outside / "secret.txt"),
        "abs-dir-out": str(outside),
        "sub/deep-out": "../../outside",
        "prefix-out": "../base-sibling",
        "root-link": "/",
        "dangling": "does-not-exist",
        "loop": "loop",
        "loop-a": "loop-b",
        "loop-b": "loop-a",
    }
    for name, target in links.items():
        os.symlink(target, base / name)
    os.symlink(base, top / "base-via-link")
    return base


@pytest.fixture(scope="module")
def tree() -> Iterator[Path]:
    top = Path(tempfile.mkdtemp(prefix="sw-contain-"))
    try:
        yield _build(top)
    finally:
        shutil.rmtree(top)


def _inside_inodes(base: Path) -> set[tuple[int, int]]:
    """Identity of every file physically under ``base`` (symlinks not followed)."""
    out = set()
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        for name in [*filenames, *dirnames, "."]:
            p = os.path.join(dirpath, name)
            if not os.path.islink(p):
                st_ = os.stat(p)
                out.add((st_.st_dev, st_.st_ino))
    return out


SEGMENTS = [
    "a.txt",
    "SKILL.md",
    "sub",
    "b.txt",
    "deeper",
    "c.md",
    "up",
    "top",
    "link-in",
    "file-in",
    "link-out",
    "file-out",
    "abs-out",
    "abs-dir-out",
    "deep-out",
    "prefix-out",
    "root-link",
    "x.txt",
    "secret.txt",
    "dangling",
    "loop",
    "loop-a",
    "outside",
    "base",
    "etc",
    "passwd",
    "..",
    ".",
    "",
    "...",
    "%2e%2e",
    "..\\..",
    "C:",
    "\x00",
    "a\x1fb",
    "\u202e",
    "．．",  # fullwidth dots
    "‥",  # two-dot leader
]
rel_paths = st.one_of(
    st.lists(st.sampled_from(SEGMENTS), max_size=8).map("/".join),
    st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=4).map(lambda p: "/" + "/".join(p)),
    st.text(st.characters(blacklist_categories=()), max_size=30),
)


@given(rel=rel_paths)
def test_resolve_inside_never_leaves_the_base(tree: Path, rel: str) -> None:
    for base in (tree, tree.parent / "base-via-link"):
        real_base = os.path.realpath(base)
        try:
            got = resolve_inside(base, rel)
        except ContainmentError as exc:
            assert isinstance(exc, ResolveError)  # callers catch one type
            continue
        s = os.fspath(got)
        assert s == os.path.realpath(s), "the returned path is already resolved"
        assert s == real_base or s.startswith(real_base + os.sep)
        assert is_inside(got, base)
        if os.path.isfile(got):
            st_ = os.stat(got)
            assert (st_.st_dev, st_.st_ino) in _inside_inodes(Path(real_base))
            assert SECRET not in got.read_text()


@given(rel=rel_paths)
def test_check_relative_output_is_clean(rel: str) -> None:
    try:
        clean = check_relative(rel)
    except ContainmentError:
        return
    assert isinstance(clean, PurePosixPath)
    assert not clean.is_absolute()
    assert clean.parts and all(p not in ("", ".", "..") for p in clean.parts)
    text = str(clean)
    assert "\\" not in text
    assert not any(unicodedata.category(c) == "Cc" for c in text)
    # lexically it can only go down
    assert os.path.normpath(os.path.join("/base", text)).startswith("/base/")


@pytest.mark.parametrize(
    "rel",
    [
        "../outside/secret.txt",
        "link-out/secret.txt",
        "file-out",
        "abs-out",
        "abs-dir-out/secret.txt",
        "sub/deep-out/secret.txt",
        "sub/deeper/top/../outside/secret.txt",
        "prefix-out/x.txt",
        "root-link/etc/passwd",
        "/etc/passwd",
        "C:\\Windows",
        "sub/../../outside/secret.txt",
        "a.txt\x00.md",
        "",
        "x" * 5000,
    ],
)
def test_known_escapes_are_refused(tree: Path, rel: str) -> None:
    with pytest.raises(ContainmentError):
        resolve_inside(tree, rel)


@pytest.mark.parametrize(
    ("rel", "expected"),
    [
        ("a.txt", "a.txt"),
        ("./sub//b.txt", "sub/b.txt"),
        ("link-in/b.txt", "sub/b.txt"),
        ("file-in", "sub/b.txt"),
        ("sub/up/a.txt", "a.txt"),
        ("sub/deeper/top/SKILL.md", "SKILL.md"),
        ("missing.txt", "missing.txt"),
    ],
)
def test_links_that_stay_inside_are_allowed(tree: Path, rel: str, expected: str) -> None:
    assert resolve_inside(tree, rel) == Path(os.path.realpath(tree)) / expected


def test_loops_and_dangling_links_do_not_escape_or_hang(tree: Path) -> None:
    for rel in ("loop", "loop-a/x", "dangling", "dangling/x"):
        try:
            got = resolve_inside(tree, rel)
        except ContainmentError:
            continue
        assert is_inside(got, tree) and not got.exists()
