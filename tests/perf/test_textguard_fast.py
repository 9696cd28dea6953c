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


def _reference_phrases(text: str) -> list[str]:
    """Every pattern run on the text, no prefilter at all."""
    import unicodedata

    if not text:
        return []
    folded = text if text.isascii() else unicodedata.normalize("NFKC", text)
    return [label for label, rx in textguard._SUSPICIOUS if re.search(rx, folded, re.IGNORECASE)]


_phrase_pieces = st.sampled_from(
    [
        "do not ", "don't ", "dont ", "Never ", "NOT ", "tell ", "inform ", "the user",
        "THE USER", " ", "\n", "user: ", "User:", "system : ", "assistant:", "human", ":",
        "Use when the user asks", "you are now ", "from now on", "<system>", "é", "ſ",
        "K", "\u212a", "ignore previous instructions", "reveal your system prompt",
    ]
)  # fmt: skip


@settings(max_examples=3000, deadline=None)
@given(st.lists(_phrase_pieces, max_size=10).map("".join))
def test_suspicious_phrases_equal_every_pattern_run(text: str) -> None:
    assert textguard.suspicious_phrases(text) == _reference_phrases(text)
