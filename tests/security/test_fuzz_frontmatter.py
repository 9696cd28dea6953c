"""Property-based tests of the frontmatter parser.

Any bytes in -> a ParsedFrontmatter out (JSON-safe data, typed diagnostics),
never an exception; valid documents round-trip; the head read from disk parses
like the whole file; the body the parser reports is the body ``read_body`` gives.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import assume, given
from hypothesis import strategies as st
from skillpath.frontmatter import (
    ParsedFrontmatter,
    parse_frontmatter,
    read_body,
    read_head,
    strip_frontmatter,
    to_frontmatter,
)
from skillpath.model import Diagnostic, Frontmatter

# Fragments that steer random documents into the interesting parts of YAML:
# anchors/aliases, merges, flow and block collections, tags (including the
# unsafe python/* tags), quotes, fences, BOM, CRLF and invalid UTF-8.
_TOKENS = [
    b"---",
    b"\n",
    b"\r\n",
    b"  ",
    b"\t",
    b"- ",
    b": ",
    b":",
    b"name",
    b"description",
    b"hide",
    b"paths",
    b"x",
    b"&a ",
    b"*a",
    b"&b ",
    b"*b",
    b"<<: ",
    b"[",
    b"]",
    b"{",
    b"}",
    b", ",
    b"'",
    b'"',
    b"|",
    b">",
    b"#",
    b"? ",
    b"...",
    b"!!python/object/apply:os.system ",
    b"!!binary ",
    b"!!timestamp ",
    b"!!float ",
    b"2024-01-01",
    b".inf",
    b".nan",
    b"~",
    b"yes",
    b"\xef\xbb\xbf",
    b"\xff\xfe",
    b"\xc3",
    b"\\u0000",
    b"\x00",
    b"\x85",
    "\u202e".encode(),
    "\u200b".encode(),
    "é".encode(),
]

yamlish = st.lists(st.sampled_from(_TOKENS), max_size=80).map(b"".join)
documents: st.SearchStrategy[bytes | str] = st.one_of(
    st.binary(max_size=2048),
    yamlish,
    st.tuples(yamlish, yamlish).map(lambda t: b"---\n" + t[0] + b"\n---\n" + t[1]),
    st.text(max_size=512).map(lambda t: "---\n" + t + "\n---\nbody\n"),
)


def _check_result(p: Any) -> None:
    assert isinstance(p, ParsedFrontmatter)
    assert isinstance(p.data, dict)
    json.dumps(p.data, allow_nan=False)  # JSON-safe, no NaN/inf
    assert p.body is None or isinstance(p.body, str)
    assert isinstance(p.body_line, int) and p.body_line >= 1
    assert all(isinstance(d, Diagnostic) for d in p.diagnostics)
    assert all(d.level in ("error", "warning", "info") and d.code for d in p.diagnostics)


@given(documents)
def test_any_bytes_give_a_result_never_an_exception(raw: bytes | str) -> None:
    path = Path("/skills/x/SKILL.md")
    p = parse_frontmatter(raw, path)
    _check_result(p)
    # every diagnostic says where
    assert all(d.path == path for d in p.diagnostics)
    # and the typed layer never raises either
    fm, diags = to_frontmatter(p.data, path)
    assert isinstance(fm, Frontmatter)
    assert all(isinstance(d, Diagnostic) for d in diags)


@given(st.text(max_size=1024))
def test_any_text_gives_a_result(text: str) -> None:
    _check_result(parse_frontmatter(text))


# -- round trip -------------------------------------------------------------

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=40),
)
_values = st.recursive(
    _scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(min_size=1, max_size=12), children, max_size=4),
    ),
    max_leaves=25,
)
mappings = st.dictionaries(st.text(min_size=1, max_size=20), _values, max_size=8)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


_Dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# a NUL in the first 8 KiB marks a file binary, by design
bodies = st.text(
    st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=200
)


@given(
    mappings,
    bodies,
    st.booleans(),
    st.booleans(),
    st.sampled_from(["\n", "\r\n"]),
)
def test_valid_documents_round_trip(
    data: dict[str, Any], body: str, unicode: bool, bom: bool, newline: str
) -> None:
    dumped = yaml.dump(data, Dumper=_Dumper, allow_unicode=unicode, sort_keys=False)
    # PyYAML itself does not round-trip a few characters (raw U+0085 with
    # allow_unicode); the property is "we read what a YAML loader reads".
    assume(_same(yaml.load(dumped, Loader=_Loader), data))
    text = "---\n" + dumped + "---\n"
    if newline != "\n":
        assume("\n" not in body)  # the body keeps its own line ends
        text = text.replace("\n", newline)
    raw = (b"\xef\xbb\xbf" if bom else b"") + (text + body).encode("utf-8")
    p = parse_frontmatter(raw)
    assert p.diagnostics == ()
    assert p.has_frontmatter
    assert _same(p.data, data), (p.data, data)
    assert p.body == body
    assert p.body_line == text.count("\n") + 1
    json.dumps(p.data, allow_nan=False)


# -- the parse of the head equals the parse of the whole file ---------------


@given(mappings, bodies, st.integers(min_value=0, max_value=20_000))
def test_head_read_from_disk_parses_like_the_whole_file(
    data: dict[str, Any], body: str, padding: int
) -> None:
    # padding pushes the closing fence past the first read chunk
    doc = dict(data, zz_padding="p" * padding)
    raw = ("---\n" + yaml.dump(doc, Dumper=_Dumper) + "---\n" + body).encode()
    fd, name = tempfile.mkstemp(suffix=".md")
    try:
        os.write(fd, raw)
        os.close(fd)
        head, st_ = read_head(Path(name))
        assert st_.st_size == len(raw)
        assert len(head) <= len(raw)
        whole = parse_frontmatter(raw)
        part = parse_frontmatter(head)
        assert _same(part.data, whole.data)
        assert part.diagnostics == whole.diagnostics
        # the body used by invocations is the one the parser saw
        assert read_body(Path(name)) == whole.body
    finally:
        os.unlink(name)


@given(documents)
def test_strip_frontmatter_agrees_with_the_parser(raw: bytes | str) -> None:
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogatepass")
    assume(b"\x00" not in raw)
    p = parse_frontmatter(raw)
    assume(p.body is not None)
    assert strip_frontmatter(raw) == p.body
