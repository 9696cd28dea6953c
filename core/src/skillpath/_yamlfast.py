"""A fast path for the frontmatter most ``SKILL.md`` files have.

Most frontmatter is a handful of top-level ``key: value`` lines. Running it
through pyyaml costs far more than reading the file (the C parser is fast, the
Python constructor around it is not), so :func:`parse_simple` handles a
conservative subset of YAML by hand and returns **exactly** what
``yaml.load(text, Loader=<safe loader keeping timestamps as strings>)`` would
return after the JSON-safe conversion — or ``None`` whenever the text leaves
that subset, and the caller falls back to pyyaml. Differential tests compare
the two on generated inputs.

The subset, all at the top level of a mapping:

* plain scalars that resolve to strings, booleans (``true``/``yes``/``on`` …)
  or null; anything that could be a number, timestamp, tag, anchor or alias
  falls back;
* single-quoted scalars and double-quoted scalars without escapes, on one line;
* block scalars ``|``, ``|-``, ``>``, ``>-`` with uniformly indented,
  non-blank lines;
* a key with no value followed by a block sequence or a one-level mapping of
  such scalars;
* flow sequences ``[a, "b"]`` of simple scalars.

Tabs, comments after values, continuation lines, non-printable characters and
anything else unusual fall back.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["parse_simple"]

_KEY_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")
_KEY_OK: dict[str, bool] = {}  # key text -> whether it is a plain key (a handful recur)
# Characters pyyaml's reader refuses, or reads as line breaks (\x85, \u2028,
# \u2029), or treats specially (\ufeff), send the text to pyyaml: ASCII text
# must be printable (see parse_simple); other text must hold none of
# the characters outside pyyaml's printable set (\x0a, \x20-\x7e, \xa0-\u2027,
# \u202a-\ud7ff, \ue000-\ufefe, \uff00-\ufffd, \U00010000-\U0010ffff), listed as
# themselves: the same set as the negated class of those ranges, which takes
# sre about 6 ms to compile where this takes under 1
_UNUSUAL_PATTERN = "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]"
_unusual: re.Pattern[str] | None = None  # compiled on first non-ASCII text
_TRUE = frozenset({"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})
_FALSE = frozenset({"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})
_NULL = frozenset({"~", "null", "Null", "NULL"})
_SPECIAL = _TRUE | _FALSE | _NULL
_BLOCK_STYLES = frozenset({"|", "|-", ">", ">-"})
# first characters that may make a plain scalar something other than a string,
# or that are YAML indicators
_RISKY_FIRST = frozenset("-+0123456789.<~=!&*?:,[]{}#|>'\"%@`")
_FLOW_BAD = frozenset(",[]{}:#")
_MAX_NODES = 20_000


class _Fallback(Exception):
    """The text leaves the supported subset."""


def _key_value(line: str) -> tuple[str, str] | None:
    """``(key, value)`` of a ``key: value`` line, the value without surrounding
    spaces; ``None`` unless the line matches ``[A-Za-z_][A-Za-z0-9_-]*:( +.*)?``.

    The key is the text before the first colon, which must be followed by
    the end of the line or a space; a partition and a cached check of the key
    instead of a regex run over every line.
    """
    key, colon, rest = line.partition(":")
    if not colon or (rest and rest[0] != " "):
        return None
    ok = _KEY_OK.get(key)
    if ok is None:
        ok = _KEY_NAME.match(key) is not None
        if len(_KEY_OK) < 1024:
            _KEY_OK[key] = ok
    return (key, rest.strip(" ")) if ok else None


def _plain(value: str, *, flow: bool = False) -> Any:
    """A plain scalar as pyyaml resolves it (string, bool or null)."""
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    if value in _NULL:
        return None
    if value[0] in _RISKY_FIRST:
        raise _Fallback
    if ": " in value or " #" in value or value.endswith(":"):
        raise _Fallback
    if flow and not _FLOW_BAD.isdisjoint(value):
        raise _Fallback
    return value


def _scalar(value: str, *, flow: bool = False) -> Any:
    """One scalar on one line (``value`` is stripped and non-empty)."""
    first = value[0]
    if first == '"':
        inner = value[1:-1]
        if len(value) < 2 or value[-1] != '"' or '"' in inner or "\\" in inner:
            raise _Fallback
        return inner
    if first == "'":
        inner = value[1:-1]
        if len(value) < 2 or value[-1] != "'" or "'" in inner.replace("''", ""):
            raise _Fallback
        return inner.replace("''", "'")
    return _plain(value, flow=flow)


def _flow_sequence(value: str) -> list[Any]:
    if value[-1] != "]":
        raise _Fallback
    inner = value[1:-1].strip(" ")
    if not inner:
        return []
    items = []
    for part in inner.split(","):
        part = part.strip(" ")
        if not part:
            raise _Fallback
        items.append(_scalar(part, flow=True))
    return items


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _block_scalar(style: str, lines: list[str], i: int, at_end: bool) -> tuple[str, int]:
    """Lines ``i..`` that belong to a block scalar; returns (value, next index)."""
    j = i
    n = len(lines)
    while j < n and (not lines[j] or lines[j][0] == " "):
        j += 1
    body = lines[i:j]
    if any(line and not line.strip(" ") for line in body):
        raise _Fallback  # spaces-only lines may carry content
    while body and not body[-1]:
        body.pop()
    if not body:
        raise _Fallback
    width = _indent(body[0])
    if width == 0:
        raise _Fallback
    content = []
    for line in body:
        if not line.strip(" "):
            raise _Fallback  # blank lines inside change folding
        ind = _indent(line)
        if ind < width or (ind > width and style[0] == ">"):
            raise _Fallback
        if style[0] == ">" and line.endswith(" "):
            raise _Fallback
        content.append(line[width:])
    if j >= n and not at_end:
        raise _Fallback  # no final line break: chomping differs
    text = ("\n" if style[0] == "|" else " ").join(content)
    if not style.endswith("-"):
        text += "\n"
    return text, j


def _children(lines: list[str], i: int) -> tuple[Any, int]:
    """The value of a key written with nothing after the colon."""
    n = len(lines)
    j = i
    while j < n and (not lines[j].strip(" ") or lines[j].lstrip(" ").startswith("#")):
        j += 1
    if j >= n:
        return None, j
    first = lines[j]
    width = _indent(first)
    stripped = first[width:]
    if stripped == "-" or stripped.startswith("- "):
        items: list[Any] = []
        while j < n:
            line = lines[j]
            body = line.strip(" ")
            if not body or body.startswith("#"):
                j += 1
                continue
            ind = _indent(line)
            if ind < width or (ind == 0 and not body.startswith("-")):
                break
            if ind > width or not body.startswith("- "):
                raise _Fallback
            item = body[2:].strip(" ")
            if not item or item[0] in "[{":
                raise _Fallback
            items.append(_scalar(item))
            j += 1
        return items, j
    if width == 0:
        return None, i
    mapping: dict[str, Any] = {}
    while j < n:
        line = lines[j]
        body = line.strip(" ")
        if not body or body.startswith("#"):
            j += 1
            continue
        ind = _indent(line)
        if ind < width:
            if ind != 0:
                raise _Fallback
            break
        if ind > width:
            raise _Fallback
        pair = _key_value(body)
        if pair is None:
            raise _Fallback
        key, value = pair
        if not value or value[0] in "[{|>" or key in _TRUE or key in _FALSE or key in _NULL:
            raise _Fallback
        mapping[key] = _scalar(value)
        j += 1
    return mapping, j


def parse_simple(text: str) -> dict[str, Any] | None:
    """Parse ``text`` when it is in the simple subset; ``None`` otherwise.

    ``text`` is the frontmatter between the fences with ``\\n`` line ends. The
    result equals pyyaml's (JSON-safe) result for every text it accepts.
    """
    global _unusual
    lines = text.split("\n")
    if text.isascii():
        # printable ASCII is exactly \x20-\x7e: with the line breaks taken out,
        # one C pass says whether any character is outside [\x0a\x20-\x7e]
        if not "".join(lines).isprintable():
            return None
    else:
        if _unusual is None:
            _unusual = re.compile(_UNUSUAL_PATTERN)
        if _unusual.search(text):
            return None
    at_end = text.endswith("\n")
    if at_end:
        lines.pop()
    out: dict[str, Any] = {}
    n = len(lines)
    i = 0
    nodes = 0
    try:
        while i < n:
            line = lines[i]
            first = line[:1]
            if first == " " or first == "#" or not first:
                stripped = line.strip(" ")
                if not stripped or stripped[0] == "#":
                    i += 1
                    continue
                return None  # an indented line where a key belongs
            pair = _key_value(line)
            if pair is None:
                return None
            key, value = pair
            if key in _SPECIAL:
                return None
            i += 1
            if not value:
                child, i = _children(lines, i)
                out[key] = child
                if child is not None:
                    nodes += len(child)
            elif value in _BLOCK_STYLES:
                out[key], i = _block_scalar(value, lines, i, at_end)
            elif value[0] == "[":
                items = _flow_sequence(value)
                out[key] = items
                nodes += len(items)
            elif value[0] == "{":
                return None
            else:
                out[key] = _scalar(value)
                # a following indented line would continue this scalar
                if i < n and lines[i][:1] == " " and lines[i].strip(" "):
                    return None
    except _Fallback:
        return None
    if nodes + len(out) > _MAX_NODES:
        return None
    return out
