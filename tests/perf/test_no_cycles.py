"""A load leaves nothing that only the cyclic garbage collector could free.

``load_skills`` (and ``skillpath list``) pause the cyclic collector. A
reference cycle made during a load — typically an exception kept with its
traceback, which holds the frame that keeps the exception — then survives,
and with that frame every caller's frame and everything they hold: the whole
catalog stays alive until the interpreter's final collection walks it at exit.
"""

from __future__ import annotations

import gc
import weakref

import pytest
from skillpath import load_skills
from skillpath.cache import reuse as _reuse
from skillpath.frontmatter import parse_frontmatter

from ..conftest import Env

BROKEN = [
    '---\nname: broken\ndescription: "unterminated\ntags: [a, b\n---\nBody.\n',
    "---\nname: colon\ndescription: Use when: x: y\n  bad: indent\n---\nBody.\n",
    "---\n- a list\n- not a mapping\n---\nBody.\n",
]
#: A list that holds itself: a cycle of the data, not of frames (it does not
#: keep the load alive).
RECURSIVE = "---\na: &a [*a]\n---\n"


@pytest.fixture
def paused() -> object:
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    yield
    if was:
        gc.enable()


@pytest.mark.parametrize("text", BROKEN)
def test_parse_leaves_no_cycle(text: str, paused: object) -> None:
    parsed = parse_frontmatter(text.encode())
    assert parsed.diagnostics
    before = len(gc.get_objects())
    for _ in range(50):
        parse_frontmatter(text.encode())
    # nothing accumulates: every object of a parse is freed by reference counting
    assert len(gc.get_objects()) - before < 50


def test_load_with_broken_yaml_is_freed_by_reference_counting(
    isolated_env: Env, paused: object
) -> None:
    root = isolated_env.project / ".claude" / "skills"
    for i, text in enumerate([*BROKEN, RECURSIVE]):
        folder = root / f"broken-{i}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(text)
    isolated_env.skill(root, "fine", "A fine skill.")
    result = load_skills(isolated_env.project, home=isolated_env.home, env=isolated_env.env)
    assert "frontmatter-yaml-error" in {d.code for d in result.diagnostics}
    skill = weakref.ref(result.get("fine"))
    assert skill() is not None
    del result
    # what the in-process reuse keeps on purpose (the last scan of each root and the
    # last merge, see skillpath.cache.reuse) is let go; nothing else may hold the load
    _reuse.clear()
    assert skill() is None
