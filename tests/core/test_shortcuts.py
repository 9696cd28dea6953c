"""Shortcuts that skip an import must give what the long way gives."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st
from skillpath import loader, survey
from skillpath.known import KNOWN_PROVIDERS

_names = st.text(alphabet=st.sampled_from(list("skilcomandSK_-.é")), max_size=12)


@settings(max_examples=2000, deadline=None)
@given(_names, _names)
def test_quick_ratio_is_difflibs(a: str, b: str) -> None:
    assert survey._quick_ratio(a, b) == difflib.SequenceMatcher(None, a, b).quick_ratio()


@settings(max_examples=500, deadline=None)
@given(_names, st.lists(_names, max_size=6))
def test_the_prefilter_keeps_every_close_match(word: str, names: list[str]) -> None:
    kept = [n for n in names if survey._quick_ratio(word, n) >= survey._NEAR_CUTOFF]
    assert difflib.get_close_matches(word, kept, n=3, cutoff=survey._NEAR_CUTOFF) == (
        difflib.get_close_matches(word, names, n=3, cutoff=survey._NEAR_CUTOFF)
    )


def test_the_built_in_providers_are_the_known_table() -> None:
    # the loader skips the table (and its import) when all of these are installed
    assert {k.provider for k in KNOWN_PROVIDERS} == loader._BUILTIN_PROVIDERS
