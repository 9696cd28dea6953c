"""Property-based tests of lazy extraction (what a pack or bundled skill may write).

Any set of member paths and any pack key either is refused before anything is
written, or extracts every file inside its deterministic target under the cache
directory — never outside it, never through a symlink, with private modes.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

from hypothesis import event, given
from hypothesis import strategies as st
from skillpath.errors import SkillpathError
from skillpath.extract import Member, ensure_extracted, make_tree, reset_extraction_state

SEGMENTS = [
    "demo",
    "SKILL.md",
    "refs",
    "a.md",
    "run.sh",
    "..",
    ".",
    "",
    "...",
    "%2e%2e",
    "C:",
    "\\..",
    "\x00",
    "\x1b",
    "\u202e",
    ".skillpath-manifest.json",
    "outside",
    "~",
]
_clean_paths = st.lists(
    st.sampled_from(["demo", "refs", "a.md", "SKILL.md", "run.sh", "x y", "é"]),
    min_size=1,
    max_size=3,
).map("/".join)
member_paths = st.lists(
    st.one_of(
        _clean_paths,
        _clean_paths,
        _clean_paths,
        st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=4).map("/".join),
        st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=3).map(
            lambda p: "/" + "/".join(p)
        ),
        st.text(st.characters(blacklist_categories=()), max_size=12),
    ),
    min_size=1,
    max_size=6,
)
keys = st.sampled_from(["acme-1.0", "../../outside", "/abs", "we/ird name", "..", "x\x00y", ""])


def _snapshot(top: Path, skip: Path) -> set[str]:
    out = set()
    for dirpath, dirnames, filenames in os.walk(top):
        if Path(dirpath) == skip or skip in Path(dirpath).parents:
            continue
        for n in dirnames + filenames:
            p = os.path.join(dirpath, n)
            if p != str(skip):
                out.add(p)
    return out


@given(paths=member_paths, key=keys, content=st.binary(max_size=64))
def test_extraction_writes_only_inside_its_target(
    paths: list[str], key: str, content: bytes
) -> None:
    top = Path(tempfile.mkdtemp(prefix="sw-extract-"))
    try:
        cache = top / "cache"
        (top / "outside").mkdir()
        (top / "outside" / "keep.txt").write_text("untouched")
        before = _snapshot(top, cache)
        env = {"SKILLPATH_CACHE_DIR": str(cache)}
        reset_extraction_state()
        members = [Member.from_bytes(p, content + p.encode("utf-8", "replace")) for p in paths]
        try:
            tree = make_tree("packs", key, members, label="fuzz", env=env)
        except SkillpathError:
            event("refused when listed")
            assert _snapshot(top, cache) == before
            assert not cache.exists() or not any(cache.rglob("*.md"))
            return
        packs = os.path.realpath(cache / "packs")
        assert os.path.realpath(tree.target).startswith(packs + os.sep)
        try:
            ensure_extracted(tree)
        except SkillpathError:
            event("refused when extracted")
            assert _snapshot(top, cache) == before
            return
        event("extracted")
        assert _snapshot(top, cache) == before  # nothing outside the cache changed
        real_target = os.path.realpath(tree.target)
        written = []
        for dirpath, dirnames, filenames in os.walk(tree.target):
            for n in dirnames + filenames:
                p = os.path.join(dirpath, n)
                st_ = os.lstat(p)
                assert not stat.S_ISLNK(st_.st_mode), p
                assert os.path.realpath(p).startswith(real_target + os.sep)
                assert st_.st_mode & 0o077 == 0, (p, oct(st_.st_mode))  # private
                if stat.S_ISREG(st_.st_mode):
                    written.append(os.path.relpath(p, tree.target))
        assert set(paths) <= set(written)
        for m in members:
            assert (tree.target / m.rel).read_bytes() == m.read()
    finally:
        reset_extraction_state()
        shutil.rmtree(top, ignore_errors=True)


@given(
    names=st.lists(
        st.text(st.characters(blacklist_categories=("Cc", "Cs", "Cf", "Co", "Cn")), min_size=1)
        .map(lambda t: t.replace("/", "_").replace("\\", "_").strip())
        .filter(lambda t: t not in ("", ".", "..") and t != ".skillpath-manifest.json"),
        min_size=1,
        max_size=5,
        unique=True,
    ),
    key=keys,
)
def test_any_key_and_clean_members_extract_inside_the_cache(names: list[str], key: str) -> None:
    top = Path(tempfile.mkdtemp(prefix="sw-extract-"))
    try:
        cache = top / "cache"
        env = {"SKILLPATH_CACHE_DIR": str(cache)}
        reset_extraction_state()
        members = [Member.from_bytes(f"demo/{n}", n.encode()) for n in names]
        tree = make_tree("packs", key, members, label="fuzz", env=env)
        ensure_extracted(tree)
        real_packs = os.path.realpath(cache / "packs")
        assert os.path.realpath(tree.target).startswith(real_packs + os.sep)
        assert sorted(os.listdir(top)) == ["cache"]
        for m in members:
            assert (tree.target / m.rel).read_bytes() == m.read()
    finally:
        reset_extraction_state()
        shutil.rmtree(top, ignore_errors=True)
