"""The frontmatter fast path returns exactly what pyyaml returns, or declines."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skillpath import frontmatter
from skillpath._yamlfast import _key_value, parse_simple


def reference(text: str) -> Any:
    """pyyaml through the parser's own loader, JSON-safe; ``Exception`` class on error."""
    try:
        loaded = frontmatter._yaml_load(text)
    except yaml.YAMLError:
        return yaml.YAMLError
    return frontmatter._json_safe(loaded, [frontmatter.MAX_NODES])


def check(text: str) -> Any:
    fast = parse_simple(text)
    if fast is not None:
        ref = reference(text)
        assert ref is not yaml.YAMLError, f"fast path accepted invalid YAML: {text!r}"
        if ref is None:
            ref = {}
        assert typed(fast) == typed(ref), text
    return fast


def typed(value: Any) -> Any:
    """``value`` with the type of every node beside it (``1 == 1.0 == True`` in Python),
    mapping keys in order."""
    if isinstance(value, dict):
        return ("dict", [(k, typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [typed(v) for v in value])
    return (type(value).__name__, repr(value))


CASES = [
    ("name: pdf\ndescription: Read PDFs.\n", {"name": "pdf", "description": "Read PDFs."}),
    ('description: "quoted: with colon"\n', {"description": "quoted: with colon"}),
    ("description: 'it''s'\n", {"description": "it's"}),
    ("hide: yes\nalways: Off\nx: ~\ny:\n", {"hide": True, "always": False, "x": None, "y": None}),
    ("description: >-\n  folded\n  text\n", {"description": "folded text"}),
    ("description: >\n  folded\n  text\n", {"description": "folded text\n"}),
    ("description: |\n  line 1\n    more\n", {"description": "line 1\n  more\n"}),
    ("description: |-\n  a\n  b\nname: x\n", {"description": "a\nb", "name": "x"}),
    ('paths: [src/**/*.py, "docs/**"]\n', {"paths": ["src/**/*.py", "docs/**"]}),
    ("paths: []\n", {"paths": []}),
    ("tools:\n- Read\n- 'Bash'\n", {"tools": ["Read", "Bash"]}),
    ("tools:\n  - Read\n  - Grep\nname: x\n", {"tools": ["Read", "Grep"], "name": "x"}),
    (
        "metadata:\n  author: me\n  version: '1.0'\n",
        {"metadata": {"author": "me", "version": "1.0"}},
    ),
    ("# comment\nname: x # not a comment? no: a comment\n", None),
    ("url: http://example.com/a#b\n", {"url": "http://example.com/a#b"}),
    ("name: C# tips\n", {"name": "C# tips"}),
    ("", {}),
    ("# only a comment\n", {}),
    ("name: x\nname: y\n", {"name": "y"}),
    ("version: 1.0\n", {"version": 1.0}),
    (
        "version: 1.1.0\nn: 12\nm: -3\nf: +1_0.5\ne: 1.5e+3\n",
        {"version": "1.1.0", "n": 12, "m": -3, "f": 10.5, "e": 1500.0},
    ),
    ("date: 2024-01-01\n", {"date": "2024-01-01"}),
    ("nested:\n  deeper:\n    x: y\n", {"nested": {"deeper": {"x": "y"}}}),
    (
        "metadata:\n  version: 1.1.0\n  last_updated: 2025-12-08\n  n: 2\n"
        "  keywords:\n    - react\n    - next.js\n  tags: [a, b]\nlicense: MIT\n",
        {
            "metadata": {
                "version": "1.1.0",
                "last_updated": "2025-12-08",
                "n": 2,
                "keywords": ["react", "next.js"],
                "tags": ["a", "b"],
            },
            "license": "MIT",
        },
    ),
    (
        'hooks:\n  PreToolUse:\n    - matcher: "Bash"\n      hooks:\n'
        "        - type: command\n          command: ./check.sh\n",
        {
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}
                ]
            }
        },
    ),
    ("a:\n- x: 1\n  y: [2]\n- z\nb: c\n", {"a": [{"x": 1, "y": [2]}, "z"], "b": "c"}),
    ("m:\n  d: >-\n    folded\n    text\n  e: x\n", {"m": {"d": "folded text", "e": "x"}}),
    ("argument-hint: [issue-number]\n", {"argument-hint": ["issue-number"]}),
    (
        "n: 0o17\nrun: ./x.sh\nv: [1, 2.5, -3, .5, 1_000]\n",
        {"n": "0o17", "run": "./x.sh", "v": [1, 2.5, -3, 0.5, 1000]},
    ),
    # block scalars: blank lines after the last line end it, before the next key
    # or the end of the text
    ("description: >-\n  a\n  b\n\nname: x\n", {"description": "a b", "name": "x"}),
    ("description: |\n  a\n\n\n", {"description": "a\n"}),
    ("m:\n  d: |\n    x\n\n  e: y\n", {"m": {"d": "x\n", "e": "y"}}),
    ("description: |-\n  a\n    b\n  c\nname: x\n", {"description": "a\n  b\nc", "name": "x"}),
]

DECLINED = [
    "description: Use when: x\n",  # invalid YAML, repaired by the slow path
    "n: 017\n",  # octal in YAML 1.1
    "n: 0x1F\n",
    "n: 0b101\n",
    "n: 1:30\n",  # sexagesimal
    "n: 1.0e+999\n",  # infinite
    "n: .inf\n",
    "n: -.5\n",
    "- a\n",
    "a:\n  - x\n  b: y\n",
    "a:\n  -\n",
    "a:\n  - - x\n",
    "a:\n  - x\n    y\n",
    "a:\n  b: x\n c: y\n",
    "anchor: &a x\nref: *a\n",
    "description: multi\n  line\n",
    "description: 'unterminated\n",
    'description: "esc\\n"\n',
    "tag: !!str x\n",
    "m: {a: b}\n",
    "x:\tvalue\n",
    "description: >\n  a\n\n  b\n",
    "description: |\n\n  a\n",  # a blank line before the first
    "description: |\n  a\n\n\n  b\n",
    "description: >\n  a\n   \n",  # a spaces-only line
    "description: |\n  a\n \nname: x\n",
    "description: |-\n  a\n  b",  # no final line break
    "description: |\n  a\n b\n",  # less indented than the first line
    "description: >\n  a\n    b\n",  # more indented, folded
    "description: >\n  a \n",  # a trailing space, folded
    "description: |\nname: x\n",  # empty
    "on: x\n",
    "  indented: x\n",
    "line\u2028sep: x\n",
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_known_cases(text: str, expected: Any) -> None:
    assert check(text) == expected


@pytest.mark.parametrize("text", DECLINED)
def test_declined(text: str) -> None:
    assert parse_simple(text) is None


_ATOMS = [
    "a",
    "Skill",
    "x y",
    " ",
    "  ",
    ":",
    ": ",
    "#",
    " #",
    "'",
    "''",
    '"',
    "\\",
    "-",
    "- ",
    "[",
    "]",
    "{",
    "}",
    ",",
    ", ",
    "|",
    ">",
    "?",
    "!",
    "&",
    "*",
    "%",
    "@",
    "`",
    "~",
    "0",
    "1.5",
    "yes",
    "No",
    "null",
    "true",
    "é",
    "—",
    "中",
    "\u2028",
    "\x85",
    "\t",
    "http://x",
    "2024-01-01",
    "<<",
    "=",
    ".inf",
    "0x1F",
]
_SAFE = ["read", "PDF", " ", "tables", "é", "中", "(", ")", "/", "*", ".", "!", "a:b", "'", "x"]
_tricky = st.lists(st.sampled_from(_ATOMS), max_size=6).map("".join)
_safe = st.lists(st.sampled_from(_SAFE), min_size=1, max_size=8).map("".join)
_quoted = st.one_of(_safe.map(lambda v: f'"{v}"'), _safe.map(lambda v: "'" + v + "'"))
_value = st.one_of(_safe, _safe, _quoted, _tricky)
_key = st.sampled_from(["name", "description", "paths", "on", "hide", "a-b", "x_y", "NULL"])


@st.composite
def documents(draw: Any) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.integers(0, 12))
        key = draw(_key)
        if kind <= 3:
            lines.append(f"{key}: {draw(_value)}")
        elif kind == 4:
            lines.append(f"{key}: {draw(st.sampled_from(['|', '|-', '>', '>-']))}")
            for _ in range(draw(st.integers(0, 3))):
                lines.append(" " * draw(st.integers(0, 4)) + draw(_value))
        elif kind == 5:
            lines.append(f"{key}:")
            indent = " " * draw(st.integers(0, 3))
            for _ in range(draw(st.integers(0, 3))):
                lines.append(f"{indent}- {draw(_value)}")
        elif kind == 6:
            lines.append(f"{key}:")
            indent = " " * draw(st.integers(1, 3))
            for _ in range(draw(st.integers(0, 3))):
                lines.append(f"{indent}{draw(_key)}: {draw(_value)}")
        elif kind == 7:
            items = draw(st.lists(_value, max_size=4))
            lines.append(f"{key}: [{', '.join(items)}]")
        elif kind == 8:
            lines.append(draw(st.sampled_from(["", "   ", "# c", "  # c"])))
        elif kind == 9:
            lines.append(draw(_value))
        else:
            lines.append(f"{key}: {draw(_safe)}")
    text = "\n".join(lines)
    if draw(st.booleans()):
        text += "\n"
    return text


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_fast_path_equals_pyyaml(text: str) -> None:
    check(text)


_NUMBERS = [
    "12", "-3", "+4", "0", "-0", "00", "0_", "017", "019", "0o7", "0x1F", "0b101", "1_000",
    "1__", "0.5", "1.", ".5", "-.5", "+.inf", ".inf", ".NaN", "1.5e+3", "1.5E-3", "1e5",
    "1.0e+999", "1:30", "1:30.5", "1.0.0", "1.1.0", "2025-12-08", "2025-1-8 1:02:03",
    "3.14abc", "-1x", ".x", "./a.sh", "..", "1.5 #c", "1_0.5_", "-", "+", ".",
]  # fmt: skip
_number_value = st.sampled_from(_NUMBERS)
_leaf = st.one_of(_safe, _quoted, _number_value, _tricky)


@st.composite
def _leaf_line(draw: Any) -> str:
    """The text after ``key: `` or ``- ``: a scalar, a flow sequence or a block indicator."""
    kind = draw(st.integers(0, 5))
    if kind == 0:
        items = draw(st.lists(st.one_of(_safe, _number_value, _quoted), max_size=3))
        return "[" + ", ".join(items) + "]"
    if kind == 1:
        return draw(st.sampled_from(["|", "|-", ">", ">-", ""]))
    return draw(_leaf)


@st.composite
def nested(draw: Any, column: int = 0, depth: int = 0) -> list[str]:
    """Lines of a block mapping at ``column``: scalars, nested mappings and
    sequences (of scalars, flow sequences and mappings), block scalars, comments,
    and now and then a line indented one space off."""
    lines: list[str] = []
    pad = " " * column
    for _ in range(draw(st.integers(1, 4))):
        key = draw(_key)
        kind = draw(st.integers(0, 9 if depth < 3 else 3))
        if kind <= 2:
            value = draw(_leaf_line())
            lines.append(f"{pad}{key}: {value}".rstrip(" ") if value else f"{pad}{key}:")
            if value in ("|", "|-", ">", ">-"):
                for _ in range(draw(st.integers(0, 3))):
                    lines.append(" " * (column + draw(st.integers(0, 4))) + draw(_safe))
        elif kind == 3:
            lines.append(draw(st.sampled_from(["", "  ", f"{pad}# c", f"{pad}  # c"])))
        elif kind <= 5:
            lines.append(f"{pad}{key}:")
            lines += draw(nested(column + draw(st.integers(1, 3)), depth + 1))
        else:
            lines.append(f"{pad}{key}:")
            col = column + draw(st.integers(0, 3))
            for _ in range(draw(st.integers(1, 3))):
                item = draw(st.integers(0, 3))
                if item <= 1:
                    lines.append(" " * col + "- " + draw(_leaf_line()))
                else:
                    sub = draw(nested(col + 2, depth + 1))
                    first = sub[0]
                    if first.strip(" ") and not first.lstrip(" ").startswith("#"):
                        sub[0] = " " * col + "- " + first[col + 2 :]
                    lines += sub
        if draw(st.integers(0, 15)) == 0 and lines and lines[-1]:
            lines[-1] = " " + lines[-1]  # one space off
    return lines


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nested(), st.booleans())
def test_fast_path_equals_pyyaml_nested(lines: list[str], final_break: bool) -> None:
    check("\n".join(lines) + ("\n" if final_break else ""))


def test_fast_path_takes_nested_frontmatter() -> None:
    # the nested generator exercises the fast path, not only its refusals
    taken = 0
    for text in [
        "a:\n  b:\n    - x\n    - c: 1\n      d: [2, y]\n",
        "a:\n- 1.5\n- 2025-01-02\nb: 3\n",
    ]:
        taken += check(text) is not None
    assert taken == 2


def test_fast_path_is_taken_for_common_frontmatter() -> None:
    text = (
        "name: pdf-tables\n"
        "description: >-\n  Extract tables from PDF files.\n  Use when the user asks for tables.\n"
        "allowed-tools: Read Grep Bash(git:*)\n"
        'metadata:\n  author: someone\n  version: "1.0"\n'
        "disable-model-invocation: true\n"
        'paths: ["src/**/*.py"]\n'
    )
    assert check(text) is not None


@settings(max_examples=3000, deadline=None)
@given(
    st.lists(
        st.sampled_from([b"---", b"\n", b"\r", b" ", b"\t", b"-", b"a", b"\r\n", b"\n---"]),
        max_size=14,
    ).map(b"".join),
    st.integers(0, 60),
)
def test_fence_search_equals_the_regex(raw: bytes, pos: int) -> None:
    starts = [0] + [i + 1 for i, b in enumerate(raw) if b == 10]
    pos = starts[pos % len(starts)]  # callers always pass a line start
    m = frontmatter._FENCE_RE.search(raw, pos)
    assert frontmatter._find_fence(raw, pos) == ((m.start(), m.end()) if m else None)


def test_unusual_characters_are_exactly_those_outside_the_printable_set() -> None:
    from skillpath import _yamlfast

    printable = re.compile(
        "[\x0a\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
    )
    unusual = re.compile(_yamlfast._UNUSUAL_PATTERN)
    wrong = [
        hex(c)
        for c in range(0x110000)
        if (unusual.match(chr(c)) is None) != (printable.match(chr(c)) is not None)
    ]
    assert wrong == []
    # every one of them (non-ASCII text) sends the text to pyyaml
    assert parse_simple("description: caf\u00e9 \u2014 ok\n") == {
        "description": "caf\u00e9 \u2014 ok"
    }
    for bad in ("\x85", "\u2028", "\ufeff", "\ufffe"):
        assert parse_simple(f"description: caf\u00e9{bad}\n") is None


_KEY_RE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?\Z")


@settings(max_examples=3000, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a", "Z", "_", "-", "0", ":", " ", "  ", "x y", "é", "#", "'", "."]),
        max_size=10,
    ).map("".join)
)
def test_key_split_equals_the_key_regex(line: str) -> None:
    m = _KEY_RE.match(line)
    expected = None if m is None else (m.group(1), (m.group(2) or "").strip(" "))
    assert _key_value(line) == expected


def test_ascii_check_is_the_printable_range() -> None:
    # ASCII text goes to pyyaml exactly when it holds a character outside \x0a, \x20-\x7e
    for c in range(128):
        text = f"name: a{chr(c)}b\n"
        outside = c != 0x0A and not 0x20 <= c <= 0x7E
        assert ("".join(text.split("\n")).isprintable()) is not outside, hex(c)
        if outside:
            assert parse_simple(text) is None, hex(c)


def test_a_key_is_one_string_across_files() -> None:
    """Every file's mapping holds the same key objects, not a copy each (memory of a
    large load); the values are still the file's own."""
    first = parse_simple("name: a\nmetadata:\n  version: '1'\n")
    second = parse_simple("".join(["na", "me: b\nmeta", "data:\n  vers", "ion: '2'\n"]))
    assert first is not None and second is not None
    assert second == {"name": "b", "metadata": {"version": "2"}}
    assert [id(k) for k in first] == [id(k) for k in second]
    assert next(iter(first["metadata"])) is next(iter(second["metadata"]))
    assert _key_value("not a key: x") is None


def test_short_items_and_nested_values_are_shared() -> None:
    """List items and short values of nested mappings are one object across files;
    top-level values and long strings stay the file's own."""
    texts = [
        "".join(["name: x\nallowed-tools: [Re", "ad, Grep]\ntags:\n  - sch", "ema\n"])
        + "".join(["metadata:\n  author: Ann", "a\n  note: ", "y" * 41, "\n"])
        for _ in range(2)
    ]
    first, second = (parse_simple(t) for t in texts)
    assert first == second
    assert first is not None and second is not None
    assert first["allowed-tools"][0] is second["allowed-tools"][0]
    assert first["tags"][0] is second["tags"][0]
    assert first["metadata"]["author"] is second["metadata"]["author"]
    assert first["metadata"]["note"] is not second["metadata"]["note"]
    fm1, _ = frontmatter.to_frontmatter({"allowed-tools": "".join(["Wri", "te, Bash"])})
    fm2, _ = frontmatter.to_frontmatter({"allowed-tools": "".join(["Wri", "te, Bash"])})
    assert fm1.allowed_tools == ("Write", "Bash")
    assert fm1.allowed_tools[0] is fm2.allowed_tools[0]
