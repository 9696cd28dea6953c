"""Long-running hosts (``skillpath serve --poll 0``): what a session remembers is bounded,
and splitting an argument string costs time linear in its length."""

from __future__ import annotations

import random
import shlex
import sys

import pytest
from skillpath import session as session_module
from skillpath._split import split_words
from skillpath.transforms import parse_arguments

from .conftest import Runtime


def test_remembered_invocations_are_bounded(rt: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: every distinct argument string of a ``load_skill`` stayed in memory."""
    monkeypatch.setattr(session_module, "MAX_REMEMBERED", 8)
    rt.project_skill("echo", description="Echo.", body="Echo $ARGUMENTS.\n")
    s = rt.session()
    big = "x" * 100_000
    for i in range(40):
        s.invoke("echo", f"{big} {i}", trigger="tool", force=True)
    remembered = s._loaded
    assert len(remembered) == 8
    # the argument text itself is not kept (its digest is)
    assert sum(sys.getsizeof(k[1]) for k in remembered) < 8 * 200
    # the most recent invocations are the ones remembered
    assert "already loaded" in s.invoke("echo", f"{big} 39", trigger="tool").content
    assert "already loaded" not in s.invoke("echo", f"{big} 0", trigger="tool").content


def _words(text: str, split: object) -> object:
    try:
        return split(text)  # type: ignore[operator]
    except ValueError:
        return "error"


def test_split_words_is_shlex_split() -> None:
    rng = random.Random(14)
    alphabet = "ab \t\n\r\x0b'\"\\é$"
    cases = ["", " ", "a 'b c' \"d e\" f\\ g", 'open "quote', "tail\\", '"a\\"b\\\\c\\d"', "''"]
    cases += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16))) for _ in range(5000)]
    for text in cases:
        assert _words(text, split_words) == _words(text, shlex.split), repr(text)


def test_parse_arguments_handles_megabytes() -> None:
    """Before: shlex built a word one character at a time (one 3.9 MB argument: 300 s of
    CPU). Linear time is measured by ``benchmarks/serve_abuse.py``; here the answer."""
    word = "x" * 2_000_000
    assert parse_arguments(f'{word} "{word}"') == [word, word]
    assert parse_arguments(f"{word} 'unbalanced") == [word, "'unbalanced"]
