"""Regular expressions compiled on first use.

A pattern compiled at import is paid for by every process, whether it is used or
not, and a ``skillpath list`` uses few of the core's. :func:`lazy_pattern` gives a
stand-in that compiles the pattern the first time one of its attributes is read
(``.match``, ``.sub``, ``.pattern`` …) and keeps that attribute, so later reads are
plain attribute reads of the compiled pattern's own methods.

Use it only for a pattern that is called through its methods: the stand-in is not a
:class:`re.Pattern` (``isinstance`` says no, and :func:`re.sub` does not take it).
"""

from __future__ import annotations

import re
from typing import cast

__all__ = ["lazy_pattern"]


class _LazyPattern:
    """A pattern compiled the first time one of its attributes is read."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> object:
        # called only for a name not in the instance's dict: the first read of each
        if name.startswith("__"):
            raise AttributeError(name)
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = self._compiled = re.compile(*self._source)
        value = getattr(compiled, name)
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"lazy_pattern({self._source[0]!r}, {self._source[1]!r})"


def lazy_pattern(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, done when the pattern is first used."""
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))
