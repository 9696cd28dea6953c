"""``lazy_pattern``: the compiled pattern's answers, compiled only when first used."""

from __future__ import annotations

import re

import pytest
from skillpath._lazyre import lazy_pattern


def test_it_answers_as_the_compiled_pattern() -> None:
    lazy = lazy_pattern(r"(?P<k>[a-z]+)=(\d+)", re.IGNORECASE)
    real = re.compile(r"(?P<k>[a-z]+)=(\d+)", re.IGNORECASE)
    text = "A=1 bb=22 c=x"
    assert lazy.match(text).groups() == real.match(text).groups()  # type: ignore[union-attr]
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert lazy.sub("-", text) == real.sub("-", text)
    assert lazy.fullmatch("x=1") is not None
    assert (lazy.pattern, lazy.flags, lazy.groups, lazy.groupindex) == (
        real.pattern,
        real.flags,
        real.groups,
        real.groupindex,
    )


def test_nothing_is_compiled_before_first_use(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    compile_ = re.compile
    monkeypatch.setattr(re, "compile", lambda p, f=0: calls.append(p) or compile_(p, f))
    lazy = lazy_pattern("a+")
    assert calls == []
    assert lazy.search("baa") is not None
    assert lazy.search("aa") is not None and lazy.sub("", "aab") == "b"
    assert calls == ["a+"]  # once, whatever is read after


def test_a_bad_pattern_fails_where_it_is_used() -> None:
    lazy = lazy_pattern("(")
    with pytest.raises(re.error):
        lazy.match("x")
