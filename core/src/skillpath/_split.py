"""Shell-style splitting of an argument string in linear time.

:func:`shlex.split` builds every token one character at a time
(``token = token + c``), which costs time quadratic in the length of a word:
a single 4 MB argument takes minutes. :func:`split_words` gives exactly the
words ``shlex.split(text)`` gives (POSIX mode, no comments) and raises
:class:`ValueError` where it raises, in one regular-expression pass.
"""

from __future__ import annotations

import re

from skillpath._lazyre import lazy_pattern

__all__ = ["split_words"]

# One alternative per lexical item; every character is matched by one of them.
_ITEM = lazy_pattern(
    r"""
      (?P<ws>[ \t\r\n]+)
    | (?P<plain>[^ \t\r\n\\'"]+)
    | \\(?P<esc>.)
    | '(?P<single>[^']*)'
    | "(?P<double>[^"\\]*(?:\\.[^"\\]*)*)"
    | (?P<bad>.)
    """,
    re.VERBOSE | re.DOTALL,
)
# Inside double quotes a backslash escapes only ``"`` and ``\`` (it is kept otherwise).
_DQ_ESCAPE = lazy_pattern(r'\\(["\\])')


def _unescape_double(body: str) -> str:
    if "\\" not in body:
        return body
    return _DQ_ESCAPE.sub(r"\1", body)


def split_words(text: str) -> list[str]:
    """The words of ``text`` split like ``shlex.split(text)``, in linear time.

    :raises ValueError: on an unclosed quote or a trailing backslash.
    """
    words: list[str] = []
    parts: list[str] = []
    in_word = False
    for m in _ITEM.finditer(text):
        kind = m.lastgroup or "bad"  # every alternative is a named group
        if kind == "ws":
            if in_word:
                words.append("".join(parts))
                parts.clear()
                in_word = False
            continue
        if kind == "bad":
            raise ValueError(
                "No escaped character" if m.group() == "\\" else "No closing quotation"
            )
        value = m.group(kind) if kind != "double" else _unescape_double(m.group(kind))
        parts.append(value)
        in_word = True
    if in_word:
        words.append("".join(parts))
    return words
