"""Read JSON files that others may control, with limits on size and nesting.

A manifest, a lock or a registry file in a shared folder or a cloned repository
may be a FIFO (a plain read waits forever), a link to ``/dev/zero`` (a plain
read fills the memory), gigabytes of whitespace, or ``[[[[…]]]]`` nested a
hundred thousand levels (``json.loads`` raises :class:`RecursionError`).
:func:`read_json_bounded` refuses each with an :class:`OSError` or a
:class:`JSONLimitError` (a :class:`ValueError`) that names the file and the
reason, so callers catch ``(OSError, ValueError)`` and report it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from skillpath._lazyre import lazy_pattern
from skillpath.safety import read_bounded

__all__ = ["DEFAULT_MAX_BYTES", "DEFAULT_MAX_DEPTH", "JSONLimitError", "read_json_bounded"]

#: The default size limit: far above any lock or manifest skillpath writes.
DEFAULT_MAX_BYTES = 8 * 1024 * 1024
#: The default nesting limit (objects and arrays): locks and manifests nest 4 or 5 deep.
DEFAULT_MAX_DEPTH = 64

# A JSON string (escapes included): its brackets are not structure.
_STRING = lazy_pattern(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = lazy_pattern(r"[\[\]{}]")


class JSONLimitError(ValueError):
    """A JSON text is nested deeper than allowed (``path`` and ``limit`` say where and how deep)."""

    def __init__(self, message: str, path: str, limit: int) -> None:
        super().__init__(message)
        self.path = path
        self.limit = limit


def _depth(text: str) -> int:
    """How deep ``text`` nests objects and arrays (strings skipped; unbalanced text counts
    its openers, which ``json.loads`` then rejects)."""
    depth = deepest = 0
    for m in _BRACKET.finditer(_STRING.sub("", text)):
        if m.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def read_json_bounded(
    path: str | os.PathLike[str],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
    follow: bool = True,
) -> Any:
    """The JSON value in regular file ``path``, read within limits.

    The file is opened without blocking and must be a regular file (not a FIFO,
    a device or a socket) of at most ``max_bytes`` bytes; without ``follow`` a
    symbolic link is refused too. Its text (UTF-8, a BOM allowed) must nest
    objects and arrays at most ``max_depth`` deep, checked before parsing.

    :raises OSError: when it cannot be opened or read, is not a regular file,
        or is larger than ``max_bytes`` (``errno.EFBIG``).
    :raises JSONLimitError: when it nests deeper than ``max_depth``.
    :raises ValueError: when it is not UTF-8 JSON.
    """
    where = os.fspath(path)
    data = read_bounded(Path(where), max_bytes, follow=follow)
    text = data.decode("utf-8")  # UnicodeDecodeError is a ValueError
    if text.startswith("\ufeff"):
        text = text[1:]
    deepest = _depth(text)
    if deepest > max_depth:
        raise JSONLimitError(
            f"{where}: JSON nested {deepest} levels deep (the limit is {max_depth})",
            where,
            max_depth,
        )
    return json.loads(text)
