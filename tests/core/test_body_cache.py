"""A skill's body is loaded on first use, once, whoever asks first.

A skill built by hand with a ``path`` and no body loader (as a third-party
provider's ``discover_skills`` builds one, or a user's own code) reads its body
from that file on first use, split where the frontmatter parser splits it.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import attrs
import pytest
from skillpath import DiscoveryResult, PluginHost, SkillContext, hookimpl, load_skills
from skillpath.frontmatter import parse_frontmatter, read_body
from skillpath.model import Skill, SkillSource
from skillpath.scan import load_skill_file

from ..conftest import Env


def _skill(loader: object) -> Skill:
    return Skill(
        name="demo",
        description="A demo.",
        path=None,
        base_dir=None,
        source=SkillSource("test", "user", None),
        body_cache=loader,
    )


def test_the_body_loads_once_for_concurrent_readers_and_evolved_copies() -> None:
    calls: list[int] = []
    entered = threading.Event()
    go = threading.Event()

    def loader() -> str:
        calls.append(1)
        entered.set()
        assert go.wait(10)
        return "the body"

    skill = _skill(loader)
    copy = attrs.evolve(skill, description="Another.")
    got: list[str] = []
    first = threading.Thread(target=lambda: got.append(skill.body))
    first.start()
    assert entered.wait(10)  # the first reader is inside the loader, holding the lock
    others = [
        threading.Thread(target=lambda s=s: got.append(s.body)) for s in (skill, copy, skill, copy)
    ]
    for t in others:
        t.start()
    go.set()
    for t in (first, *others):
        t.join(10)
    assert got == ["the body"] * 5
    assert calls == [1]
    assert copy.body == skill.body == "the body" and calls == [1]


def test_a_body_never_asked_for_is_never_loaded() -> None:
    calls: list[int] = []
    skill = _skill(lambda: calls.append(1) or "x")
    assert skill.name == "demo" and skill.description == "A demo."
    assert calls == []


#: ``SKILL.md`` files whose body start is easy to get wrong, and the body each has.
TRICKY: dict[str, tuple[bytes, str]] = {
    "lf": (b"---\nname: t\ndescription: d\n---\n# T\nBody\n", "# T\nBody\n"),
    "crlf": (b"---\r\nname: t\r\ndescription: d\r\n---\r\nBody\r\n", "Body\r\n"),
    "bom": (b"\xef\xbb\xbf---\nname: t\ndescription: d\n---\nBody\n", "Body\n"),
    "bom-crlf": (b"\xef\xbb\xbf---\r\ndescription: d\r\n---\r\n\r\nB\r\n", "\r\nB\r\n"),
    "fence-with-blanks": (b"---  \t\ndescription: d\n---\t \nBody\n", "Body\n"),
    "closing-fence-at-eof": (b"---\ndescription: d\n---", ""),
    "body-holds-fences": (
        b"---\ndescription: d\n---\n---\nnot: frontmatter\n---\nrest\n",
        "---\nnot: frontmatter\n---\nrest\n",
    ),
    "body-starts-with-bom": (b"---\ndescription: d\n---\n\xef\xbb\xbfBody\n", "Body\n"),
    "four-dashes-is-no-fence": (
        b"---\ndescription: d\n----\nstill frontmatter\n---\nBody\n",
        "Body\n",
    ),
    "unclosed": (b"---\ndescription: d\n\n# Body\n", "---\ndescription: d\n\n# Body\n"),
    "no-frontmatter": (b"# Just Markdown\n\nText.\n", "# Just Markdown\n\nText.\n"),
    "bom-no-frontmatter": (b"\xef\xbb\xbf# Title\n", "# Title\n"),
    "indented-fence": (b" ---\ndescription: d\n---\nx\n", " ---\ndescription: d\n---\nx\n"),
    "empty": (b"", ""),
    "not-utf8": (b"---\ndescription: d\n---\ncaf\xe9\n", "caf\ufffd\n"),
}


def _by_hand(path: Path) -> Skill:
    return Skill(
        name="by-hand",
        description="Built by hand.",
        path=path,
        base_dir=path.parent,
        source=SkillSource("third-party", "user", path.parent.parent),
    )


@pytest.mark.parametrize("case", sorted(TRICKY))
def test_a_skill_built_by_hand_reads_the_body_the_loader_reads(tmp_path: Path, case: str) -> None:
    raw, body = TRICKY[case]
    path = tmp_path / "skills" / case / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(raw)
    assert _by_hand(path).body == body
    assert read_body(path) == body
    assert parse_frontmatter(raw, path).body == body  # the parser splits it there too
    loaded, _diags = load_skill_file(path, SkillSource("native", "user", path.parent.parent))
    if loaded is not None:  # (a file without a description does not load)
        assert loaded.body == body


def test_a_skill_built_by_hand_reads_its_file_on_first_use_and_keeps_it(tmp_path: Path) -> None:
    path = tmp_path / "late" / "SKILL.md"
    skill = _by_hand(path)  # no file yet: building reads nothing
    path.parent.mkdir()
    path.write_bytes(b"---\r\ndescription: d\r\n---\r\nFirst.\r\n")
    copy = attrs.evolve(skill, description="A copy.")
    assert skill.body == "First.\r\n"
    path.write_text("---\ndescription: d\n---\nSecond.\n")
    assert skill.body == copy.body == "First.\r\n"  # read once, shared with the copy
    assert _by_hand(path).body == "Second.\n"


def test_a_skill_without_a_path_or_loader_has_an_empty_body() -> None:
    assert _skill(None).body == ""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_skill_built_by_hand_on_a_fifo_refuses_it_without_blocking(tmp_path: Path) -> None:
    path = tmp_path / "fifo" / "SKILL.md"
    path.parent.mkdir()
    os.mkfifo(path)
    start = time.monotonic()
    with pytest.raises(OSError, match="not a regular file"):
        _ = _by_hand(path).body
    assert time.monotonic() - start < 5


def test_a_providers_hand_built_skill_reads_its_body_through_the_load(isolated_env: Env) -> None:
    root = isolated_env.project / "registry"
    path = root / "tricky" / "SKILL.md"
    path.parent.mkdir(parents=True)
    raw, body = TRICKY["bom-crlf"]
    path.write_bytes(raw)

    class HandBuilt:
        @hookimpl
        def discover_skills(self, ctx: SkillContext) -> DiscoveryResult:
            skill = Skill(
                name="tricky",
                description="Built by hand.",
                path=path,
                base_dir=path.parent,
                source=SkillSource("hand-built", "project", root),
            )
            return DiscoveryResult("hand-built", 50, skills=(skill,))

    host = PluginHost.create(autoload=False, env={})
    assert host.add(HandBuilt(), "hand-built")
    res = load_skills(isolated_env.project, home=isolated_env.home, env=isolated_env.env, host=host)
    got = res.get("tricky")
    assert got is not None and got.provider == "hand-built"
    assert got.body == body
