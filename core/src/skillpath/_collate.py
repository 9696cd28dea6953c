"""The order ``npx skills`` hashes a folder's files in: JavaScript's default
``String.prototype.localeCompare`` (the ICU root collation), not code-point order.

``computedHash`` is a SHA-256 over each relative path and its bytes in that order, so
``SKILL.md`` comes after ``notes.txt`` there, and before it in a plain ``sorted``. This
key reproduces the collation for the characters file names are made of: ASCII
punctuation, digits and letters in ICU's order, compared without case first, then by
accents, then lowercase before uppercase; other characters sort after ``z`` by code
point (an approximation, exact for ASCII paths).
"""

from __future__ import annotations

import unicodedata
from functools import cache

__all__ = ["npx_order"]

_ORDER = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"
_PRIMARY = {c: i for i, c in enumerate(_ORDER)}


@cache
def _char(ch: str) -> tuple[int, tuple[int, ...], int]:
    parts = unicodedata.normalize("NFD", ch)
    base, marks = parts[0], parts[1:]
    low = base.lower()
    primary = _PRIMARY.get(low, 1000 + ord(low))
    return primary, tuple(ord(m) for m in marks), 0 if base == low else 1


def npx_order(text: str) -> tuple[list[int], list[tuple[int, ...]], list[int]]:
    """Sort key: ``sorted(paths, key=npx_order)`` orders as ``localeCompare`` does."""
    chars = [_char(ch) for ch in text]
    return [c[0] for c in chars], [c[1] for c in chars], [c[2] for c in chars]
