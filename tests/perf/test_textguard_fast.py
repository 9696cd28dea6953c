"""textguard's keyword prefilter answers exactly what one regex over every keyword answers."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from skillpath import textguard

WORDS = sorted({w for words in textguard._KEYWORDS.values() for w in words})
#: The prefilter as one regex alternation of every keyword (the reference).
REFERENCE = re.compile("|".join(re.escape(w) for w in sorted(WORDS, key=len, reverse=True)))

_pieces = st.sampled_from(
    [*WORDS, *(w[:-1] for w in WORDS), " ", "a", "x", "<", "!", "-", "é", "\n", "use", "now:"]
)


@settings(max_examples=3000, deadline=None)
@given(st.lists(_pieces, max_size=12).map("".join))
def test_prefilter_equals_the_alternation(text: str) -> None:
    assert textguard._any_keyword(text) is (REFERENCE.search(text) is not None)


def test_every_keyword_is_covered() -> None:
    for word in WORDS:
        assert textguard._any_keyword(f"plain text {word} more"), word
        assert textguard._any_keyword(f"plain{word}text"), word
    assert not textguard._any_keyword("plain text with none of them")
