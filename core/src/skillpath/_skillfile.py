"""Where the body of a ``SKILL.md`` begins, and the body of one on disk.

The one definition of the ``---`` fence at the start of a skill file (a UTF-8
BOM, CRLF line ends, a fence never closed, no frontmatter at all): the
frontmatter parser (:mod:`skillpath.frontmatter`, which re-exports these names,
their public home) splits a file with it, and so does the lazy
:attr:`Skill.body <skillpath.model.Skill.body>` of a skill built by hand with a
path and no body loader, so both find the same body.

A helper of the record layer, not a reader: it splits bytes at the fence
(no YAML, no text parsed, no record built) and reads one file, the record's own
``SKILL.md``, through :func:`skillpath._openfile.open_regular`. It imports
nothing else of skillpath, so :mod:`skillpath.model` reaches no reader.
"""

from __future__ import annotations

import os
from pathlib import Path

from skillpath._openfile import open_regular

__all__ = ["MAX_FILE_BYTES", "find_fence", "read_body", "split_frontmatter", "strip_frontmatter"]

#: Bodies larger than this are truncated when read.
MAX_FILE_BYTES = 8 * 1024 * 1024


def find_fence(raw: bytes, pos: int) -> tuple[int, int] | None:
    """``(start, end)`` of the first line at or after ``pos`` (a line start) that
    is ``---`` plus optional spaces, tabs and ``\r``: what the regular expression
    ``^---[ \t]*\r?$`` (multi-line) finds, without running it over every
    position of the text."""
    n = len(raw)
    if raw.startswith(b"---", pos):
        start = pos
    else:
        i = raw.find(b"\n---", pos)
        start = i + 1 if i != -1 else -1
    while start != -1:
        j = start + 3
        while j < n and raw[j] in b" \t":
            j += 1
        if j < n and raw[j] == 13:  # \r
            j += 1
        if j >= n or raw[j] == 10:  # end of data or \n
            return start, j
        i = raw.find(b"\n---", start)
        start = i + 1 if i != -1 else -1
    return None


def split_frontmatter(raw: bytes) -> tuple[bytes | None, bytes, int]:
    """Split raw file bytes into ``(frontmatter, rest, body_line)``.

    ``frontmatter`` is ``None`` when the file has no complete fenced block.
    A UTF-8 BOM and CRLF line ends are accepted.
    """
    start = 3 if raw.startswith(b"\xef\xbb\xbf") else 0
    first_nl = raw.find(b"\n", start)
    first = raw[start : first_nl if first_nl >= 0 else len(raw)].rstrip(b"\r \t")
    if first != b"---":
        return None, raw[start:], 1
    if first_nl < 0:
        return None, raw[start:], 1
    fence = find_fence(raw, first_nl + 1)
    if fence is None:
        return None, raw[start:], 1
    fm = raw[first_nl + 1 : fence[0]]
    end = fence[1]
    if raw[end : end + 1] == b"\n":
        end += 1
    body_line = raw.count(b"\n", 0, end) + 1
    return fm, raw[end:], body_line


def read_body(path: Path) -> str:
    """Read a ``SKILL.md`` and return its body without frontmatter (LF or CRLF)."""
    fd, _st = open_regular(path)
    try:
        chunks = []
        total = 0
        while total < MAX_FILE_BYTES:
            chunk = os.read(fd, min(1 << 20, MAX_FILE_BYTES - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    finally:
        os.close(fd)
    return strip_frontmatter(b"".join(chunks))


def strip_frontmatter(content: bytes | str) -> str:
    """Return ``content`` without its leading ``---`` fenced frontmatter block."""
    raw = content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content
    _fm, rest, _line = split_frontmatter(raw)
    if rest.startswith(b"\xef\xbb\xbf"):
        rest = rest[3:]
    return rest.decode("utf-8", errors="replace")
