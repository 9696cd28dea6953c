"""Property-based tests of the ``skill://`` resolver on the real file system.

Any URL gives content from inside the named skill's directory, or a
``ResolveError``; a file outside is never returned, whatever the symlinks,
percent-encoding, dot segments or odd characters in the URL.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from skillpath import ResolveError, Skill, SkillSource, scan_skills_dir
from skillpath.session import SkillSession
from skillpath.urls import resolve_skill_url

from ..conftest import Env

SECRET = "TOP-SECRET-OUTSIDE-THE-SKILL"


def _build(top: Path) -> dict[str, Skill]:
    outside = top / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    (outside / "SKILL.md").write_text(f"---\ndescription: {SECRET}\n---\n{SECRET}\n")
    (top / "pdf-sibling").mkdir()
    (top / "pdf-sibling" / "x.md").write_text(SECRET)
    root = top / "skills"
    pdf = root / "pdf"
    (pdf / "docs" / "deep").mkdir(parents=True)
    (pdf / "SKILL.md").write_text("---\ndescription: PDF forms\n---\nRead docs/guide.md\n")
    (pdf / "docs" / "guide.md").write_text("inside guide")
    (pdf / "docs" / "deep" / "notes.txt").write_text("inside notes")
    (pdf / "data.json").write_text('{"inside": true}')
    (pdf / "bin.dat").write_bytes(b"\x00\x01inside-binary")
    (pdf / "odd name %41.md").write_text("inside odd")
    links = {
        "link-in": "docs",
        "docs/up": "..",
        "link-out": "../../outside",
        "file-out": "../../outside/secret.txt",
        "abs-out": str(outside / "secret.txt"),
        "prefix-out": "../../pdf-sibling",
        "root-link": "/",
        "dangling": "nowhere",
        "loop": "loop",
    }
    for name, target in links.items():
        os.symlink(target, pdf / name)
    os.mkfifo(pdf / "fifo")
    # a second skill whose own SKILL.md is fine, to confuse names
    (root / "other").mkdir()
    (root / "other" / "SKILL.md").write_text("---\ndescription: other\n---\nother body\n")
    res = scan_skills_dir(root, SkillSource("fuzz", "user"))
    return {s.name: s for s in res.skills}


@pytest.fixture(scope="module")
def skills() -> Iterator[dict[str, Skill]]:
    top = Path(tempfile.mkdtemp(prefix="sw-urls-"))
    try:
        yield _build(top)
    finally:
        shutil.rmtree(top)


NAMES = ["pdf", "other", "PDF", "pdf%2F..", "%70df", "..", "%2e%2e", "", "pdf ", "nope"]
SEGMENTS = [
    "SKILL.md",
    "docs",
    "guide.md",
    "deep",
    "notes.txt",
    "data.json",
    "bin.dat",
    "odd name %2541.md",
    "up",
    "link-in",
    "link-out",
    "file-out",
    "abs-out",
    "prefix-out",
    "root-link",
    "dangling",
    "loop",
    "fifo",
    "secret.txt",
    "x.md",
    "outside",
    "etc",
    "passwd",
    "..",
    ".",
    "",
    "%2e%2e",
    "%2E%2E",
    ".%2e",
    "%252e%252e",
    "..%2f..",
    "..%5c..",
    "%2f",
    "%2fetc%2fpasswd",
    "%00",
    "%ff",
    "%c0%ae%c0%ae",
    "%e2%80%ae",
    "?",
    "#frag",
    "~",
    "\\..\\..",
    "\u202e",
]
# every code point, lone surrogates included (JSON can carry them)
_any_char = st.characters(blacklist_categories=())
urls = st.one_of(
    st.tuples(
        st.sampled_from(["skill://", "SKILL://", "skill:/", "file://"]),
        st.sampled_from(NAMES),
        st.lists(st.sampled_from(SEGMENTS), max_size=7),
        st.booleans(),
    ).map(lambda t: t[0] + t[1] + ("/" + "/".join(t[2]) if t[2] or t[3] else "")),
    st.text(_any_char, max_size=40).map(lambda t: "skill://pdf/" + t),
    st.text(_any_char, max_size=40),
)


def _inside(path: Path, skill: Skill) -> bool:
    assert skill.base_dir is not None
    real_base = os.path.realpath(skill.base_dir)
    real = os.path.realpath(path)
    return real == real_base or real.startswith(real_base + os.sep)


@given(url=urls)
def test_any_url_reads_inside_the_skill_or_is_refused(skills: dict[str, Skill], url: str) -> None:
    try:
        res = resolve_skill_url(url, skills)
    except ResolveError as exc:
        assert str(exc)  # a reason, always
        assert SECRET not in str(exc)
        return
    if res.skill is None:  # skill:// alone: the index of the skills, no file read
        assert url[len("skill://") :] in ("", "/") and res.path is None
        assert SECRET not in res.content
        return
    assert res.skill in skills
    skill = skills[res.skill]
    assert res.path is not None and _inside(res.path, skill), (url, res.path)
    assert SECRET not in res.content
    if not res.is_directory:
        assert os.path.isfile(res.path)
        assert res.content == Path(res.path).read_text(encoding="utf-8", errors="replace")
        expected = "text/markdown" if res.path.suffix == ".md" else None
        if expected:
            assert res.mime_type == expected


@pytest.mark.parametrize(
    "url",
    [
        "skill://pdf/../outside/secret.txt",
        "skill://pdf/%2e%2e/%2e%2e/outside/secret.txt",
        "skill://pdf/..%2f..%2foutside%2fsecret.txt",
        "skill://pdf/%2fetc%2fpasswd",
        "skill://pdf/link-out/secret.txt",
        "skill://pdf/file-out",
        "skill://pdf/abs-out",
        "skill://pdf/prefix-out/x.md",
        "skill://pdf/root-link/etc/passwd",
        "skill://pdf/docs/up/link-out/secret.txt",
        "skill://pdf/fifo",
        "skill://pdf/bin.dat",
        "skill://pdf/loop",
        "skill://pdf/dangling",
        "skill://pdf/a%00b",
        "skill://pdf/%ff",
        "skill://pdf/\ud800",
        "skill://%2e%2e/outside/secret.txt",
        "skill://../outside/secret.txt",
    ],
)
def test_known_hostile_urls_are_refused(skills: dict[str, Skill], url: str) -> None:
    with pytest.raises(ResolveError):
        resolve_skill_url(url, skills)


def test_hostile_urls_through_a_session_and_plugins(isolated_env: Env) -> None:
    outside = isolated_env.home / "secret.txt"
    outside.write_text(SECRET)
    folder = isolated_env.project / ".skillpath" / "skills" / "pdf"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\ndescription: pdf\n---\nbody\n")
    os.symlink(outside, folder / "key")
    env = {**isolated_env.env, "SKILLPATH_PLUGINS": "native"}
    session = SkillSession.open(isolated_env.project, home=isolated_env.home, env=env)
    assert "body" in session.resolve("skill://pdf").content
    for url in ("skill://pdf/key", "skill://pdf/%2e%2e/%2e%2e/%2e%2e/home/secret.txt"):
        with pytest.raises(ResolveError) as info:
            session.resolve(url)
        assert SECRET not in str(info.value)
