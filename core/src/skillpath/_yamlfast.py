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
import sys
from typing import Any

__all__ = ["parse_simple"]

_KEY_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")
#: key text -> the one string kept for it, or ``""`` when it is no plain key. A handful
#: of keys recur across a corpus: every mapping of every file holds the same string
#: objects (interned, so the index stores and loads them once) instead of a copy each
_KEYS: dict[str, str] = {}
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
_DIGITS = frozenset("0123456789")
_ASCII_OK = b"\n" + bytes(range(0x20, 0x7F))  # the line break and printable ASCII
_MAX_NODES = 20_000
_MAX_DEPTH = 32  # nesting deeper than this goes to pyyaml (and its limits)


class _Fallback(Exception):
    """The text leaves the supported subset."""


def _key_value(line: str) -> tuple[str, str] | None:
    """``(key, value)`` of a ``key: value`` line, the value without surrounding
    spaces; ``None`` unless the line matches ``[A-Za-z_][A-Za-z0-9_-]*:( +.*)?``.

    The key is the text before the first colon, which must be followed by
    the end of the line or a space; a partition and a cached check of the key
    instead of a regex run over every line. A key seen before is returned as the
    string kept for it (:data:`_KEYS`).
    """
    key, colon, rest = line.partition(":")
    if not colon or (rest and rest[0] != " "):
        return None
    kept = _KEYS.get(key)
    if kept is None:
        kept = sys.intern(key) if _KEY_NAME.match(key) is not None else ""
        if len(_KEYS) < 1024:
            _KEYS[kept or key] = kept
    return (kept, rest.strip(" ")) if kept else None


def _number_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """pyyaml's implicit float and int patterns (YAML 1.1), and the decimal
    subsets of them this module converts itself; compiled on first use."""
    global _NUMBERS
    if _NUMBERS is None:
        _NUMBERS = (
            re.compile(
                r"""(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
                |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
                |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
                |[-+]?\.(?:inf|Inf|INF)
                |\.(?:nan|NaN|NAN))\Z""",
                re.X,
            ),
            re.compile(
                r"""(?:[-+]?0b[0-1_]+
                |[-+]?0[0-7_]+
                |[-+]?(?:0|[1-9][0-9_]*)
                |[-+]?0x[0-9a-fA-F_]+
                |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)\Z""",
                re.X,
            ),
            re.compile(
                r"[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?\Z|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?\Z"
            ),
            re.compile(r"[-+]?(?:0|[1-9][0-9_]*)\Z"),
        )
    return _NUMBERS


_NUMBERS: tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]] | None = None


def _number(value: str) -> Any:
    """A plain scalar that starts like a number, as pyyaml resolves it.

    pyyaml tries its float pattern, then its int pattern; a timestamp (tried
    after them) is kept as the string written, as anything matching neither is.
    Only plain decimals are converted here (the way pyyaml's constructors do);
    octal, hexadecimal, binary, sexagesimal and non-finite values fall back.
    """
    if len(value) > 64:
        raise _Fallback
    any_float, any_int, decimal_float, decimal_int = _number_patterns()
    if any_float.match(value):
        if not decimal_float.match(value):
            raise _Fallback
        digits = value.replace("_", "")
        sign = -1 if digits[0] == "-" else 1
        number = sign * float(digits.lstrip("+-"))
        if number - number != 0.0:  # inf or nan
            raise _Fallback
        return number
    if any_int.match(value):
        if not decimal_int.match(value):
            raise _Fallback
        return int(value.replace("_", ""))
    return value


def _plain(value: str, *, flow: bool = False) -> Any:
    """A plain scalar as pyyaml resolves it (string, bool, null, int or float)."""
    if value in _SPECIAL:
        return True if value in _TRUE else False if value in _FALSE else None
    first = value[0]
    # a digit, a dot, or a sign before a digit: pyyaml's float and int patterns
    # are tried (``./run.sh`` is text, ``.5`` a number, ``.inf`` falls back)
    numeric = first in _DIGITS or first == "." or (first in "-+" and value[1:2] in _DIGITS)
    if first in _RISKY_FIRST and not numeric:
        raise _Fallback
    if ": " in value or " #" in value or value.endswith(":"):
        raise _Fallback
    if flow and not _FLOW_BAD.isdisjoint(value):
        raise _Fallback
    return _number(value) if numeric else value


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
        items.append(_shared(_scalar(part, flow=True)))
    return items


#: Strings up to this length inside a nested mapping or a list are interned (:func:`_shared`).
_SHARED_LEN = 40


def _shared(value: Any) -> Any:
    """``value``, a short string interned: the items of lists and the values of nested
    mappings (tool names, tags, a ``metadata`` author or version) recur across the
    files of a corpus, and every skill holding the same object keeps one copy (the
    index writes an interned string once and loads it back shared)."""
    if type(value) is str and len(value) <= _SHARED_LEN:
        return sys.intern(value)
    return value


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _block_scalar(
    style: str, lines: list[str], i: int, at_end: bool, parent: int
) -> tuple[str, int]:
    """Lines ``i..`` that belong to a block scalar whose key is indented by
    ``parent`` spaces; returns (value, next index).

    One pass over the lines: the scalar ends at the first line indented by
    ``parent`` spaces or fewer; blank lines end it too when no line of it
    follows them (one does: blank lines inside change folding, and fall back).
    """
    n = len(lines)
    folded = style[0] == ">"
    width = -1
    content: list[str] = []
    j = i
    while j < n:
        line = lines[j]
        if not line:
            k = j + 1
            while k < n and not lines[k]:
                k += 1
            if k < n and _indent(lines[k]) > parent:
                raise _Fallback  # blank lines inside (or before) the scalar
            j = k
            break
        body = line.lstrip(" ")
        ind = len(line) - len(body)
        if ind <= parent:
            break
        if not body:
            raise _Fallback  # spaces-only lines may carry content
        if width < 0:
            width = ind
        elif ind < width or (ind > width and folded):
            raise _Fallback
        if folded and line[-1] == " ":
            raise _Fallback
        content.append(line[width:])
        j += 1
    if not content:
        raise _Fallback
    if j >= n and not at_end:
        raise _Fallback  # no final line break: chomping differs
    text = ("\n" if not folded else " ").join(content)
    if style[-1] != "-":
        text += "\n"
    return text, j


class _Block:
    """The lines of one frontmatter text and the block structure read from them.

    Mappings and sequences nest by indentation, as YAML's block style does:
    a mapping's keys all start in one column, a sequence's ``- `` items
    likewise (at the column of its key, or further right), and a mapping may
    start on an item's line (``- key: value``). Anything else falls back.
    """

    __slots__ = ("at_end", "lines", "n", "nodes")

    def __init__(self, lines: list[str], at_end: bool) -> None:
        self.lines = lines
        self.n = len(lines)
        self.at_end = at_end
        self.nodes = 0

    def skip(self, i: int) -> int:
        """The first line at or after ``i`` that is neither blank nor a comment."""
        lines = self.lines
        n = self.n
        while i < n:
            body = lines[i].lstrip(" ")
            if body and body[0] != "#":
                return i
            i += 1
        return i

    def continued(self, i: int, column: int) -> None:
        """Fall back when line ``i`` is indented past ``column``: it would
        continue the scalar just read (or be a comment whose meaning depends
        on that)."""
        if i < self.n:
            line = self.lines[i]
            if line[:1] == " " and _indent(line) > column and line.strip(" "):
                raise _Fallback

    def mapping(self, i: int, column: int, depth: int, out: dict[str, Any]) -> int:
        """Read the keys of a mapping at ``column`` into ``out``; the next line index."""
        if depth > _MAX_DEPTH:
            raise _Fallback
        lines = self.lines
        n = self.n
        # the loop runs for every line of nearly every file: blank and comment
        # lines, indentation and the check after a scalar are written out here
        # (what skip, _indent and continued do)
        while i < n:
            line = lines[i]
            if line[:1] == " ":
                body = line.lstrip(" ")
                ind = len(line) - len(body)
            else:
                body = line
                ind = 0
            if not body or body[0] == "#":
                i += 1
                continue
            if ind != column:
                if ind < column:
                    return i
                raise _Fallback  # an indented line where a key belongs
            pair = _key_value(body)
            if pair is None:
                raise _Fallback
            key, value = pair
            if key in _SPECIAL:
                raise _Fallback
            i += 1
            self.nodes += 1
            if not value:
                out[key], i = self.children(i, column, depth + 1)
                continue
            first = value[0]
            if value in _BLOCK_STYLES:
                out[key], i = _block_scalar(value, lines, i, self.at_end, column)
                continue
            if first == "[":
                items = _flow_sequence(value)
                self.nodes += len(items)
                out[key] = items
            elif first == "{":
                raise _Fallback
            elif depth:
                out[key] = _shared(_scalar(value))
            else:
                out[key] = _scalar(value)
            if i < n:
                # a following line indented further would continue the value
                nxt = lines[i]
                if nxt[:1] == " ":
                    rest = nxt.lstrip(" ")
                    if rest and len(nxt) - len(rest) > column:
                        raise _Fallback
        return i

    def children(self, i: int, column: int, depth: int) -> tuple[Any, int]:
        """The value of a key at ``column`` written with nothing after the colon."""
        j = self.skip(i)
        if j >= self.n:
            return None, j
        line = self.lines[j]
        ind = _indent(line)
        body = line[ind:]
        if body == "-" or body.startswith("- "):
            if ind < column:
                return None, j
            items: list[Any] = []
            return items, self.sequence(j, ind, depth, items)
        if ind <= column:
            return None, j
        mapping: dict[str, Any] = {}
        return mapping, self.mapping(j, ind, depth, mapping)

    def sequence(self, i: int, column: int, depth: int, out: list[Any]) -> int:
        """Read the ``- `` items at ``column`` into ``out``; the next line index."""
        if depth > _MAX_DEPTH:
            raise _Fallback
        lines = self.lines
        n = self.n
        while i < n:
            line = lines[i]
            body = line.lstrip(" ")
            if not body or body[0] == "#":
                i += 1
                continue
            ind = len(line) - len(body)
            if ind != column:
                if ind < column:
                    return i
                raise _Fallback
            if not body.startswith("- "):
                if body == "-":
                    raise _Fallback  # an empty item, or one on the following lines
                return i  # the key after a sequence written at its key's column
            rest = body[2:]
            item = rest.strip(" ")
            self.nodes += 1
            if not item or item[0] in "{|>" or item == "-" or item.startswith("- "):
                raise _Fallback
            if item[0] == "[":
                items = _flow_sequence(item)
                self.nodes += len(items)
                out.append(items)
                i += 1
                self.continued(i, column)
                continue
            if _key_value(item) is not None:
                # a mapping that starts on the item's line, its keys in this column
                start = ind + len(body) - len(rest.lstrip(" "))
                lines[i] = " " * start + item
                mapping: dict[str, Any] = {}
                i = self.mapping(i, start, depth + 1, mapping)
                out.append(mapping)
                continue
            out.append(_shared(_scalar(item)))
            i += 1
            self.continued(i, column)
        return i


def parse_simple(text: str) -> dict[str, Any] | None:
    """Parse ``text`` when it is in the simple subset; ``None`` otherwise.

    ``text`` is the frontmatter between the fences with ``\\n`` line ends. The
    result equals pyyaml's (JSON-safe) result for every text it accepts.
    """
    global _unusual
    lines = text.split("\n")
    if text.isascii():
        # printable ASCII is exactly \x20-\x7e: deleting [\x0a\x20-\x7e] from the
        # bytes leaves nothing (one table-driven C pass, no joined copy of the text)
        if text.encode("ascii").translate(None, _ASCII_OK):
            return None
    else:
        if _unusual is None:
            _unusual = re.compile(_UNUSUAL_PATTERN)
        if _unusual.search(text):
            return None
    at_end = text.endswith("\n")
    if at_end:
        lines.pop()
    block = _Block(lines, at_end)
    out: dict[str, Any] = {}
    try:
        if block.mapping(0, 0, 0, out) < block.n:
            return None
    except _Fallback:
        return None
    if block.nodes > _MAX_NODES:
        return None
    return out
