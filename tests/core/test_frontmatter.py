"""The frontmatter parser: tolerant, JSON-safe, never raises."""

from __future__ import annotations

import json

import pytest
from skillweave.frontmatter import (
    coerce_bool,
    normalize_key,
    parse_frontmatter,
    strip_frontmatter,
    to_frontmatter,
)


def test_basic_fields_and_body() -> None:
    p = parse_frontmatter(b"---\nname: pdf\ndescription: Read PDFs\n---\n# Title\nBody\n")
    assert p.has_frontmatter
    assert p.data == {"name": "pdf", "description": "Read PDFs"}
    assert p.body == "# Title\nBody\n"
    assert p.body_line == 5
    assert p.diagnostics == ()


def test_bom_and_crlf() -> None:
    raw = "\ufeff---\r\nname: x\r\ndescription: y\r\n---\r\nbody\r\n".encode()
    p = parse_frontmatter(raw)
    assert p.data == {"name": "x", "description": "y"}
    assert p.body == "body\r\n"
    assert strip_frontmatter(raw) == "body\r\n"


def test_dates_stay_strings_and_output_is_json_safe() -> None:
    p = parse_frontmatter("---\ncreated: 2024-01-02\nat: 2024-01-02T03:04:05Z\nn: .nan\n---\n")
    assert p.data["created"] == "2024-01-02"
    assert isinstance(p.data["at"], str)
    json.dumps(p.data)  # must not raise


def test_colon_in_value_is_repaired() -> None:
    p = parse_frontmatter("---\nname: a\ndescription: Use when: the user asks\n---\n")
    assert p.data["description"] == "Use when: the user asks"
    assert p.diagnostics == ()


def test_unparseable_yaml_recovers_line_by_line_with_line_number() -> None:
    text = "---\nname: a\ndescription: fine\nbad: [unclosed\n---\nbody"
    p = parse_frontmatter(text)
    assert p.data["name"] == "a"
    assert p.data["description"] == "fine"
    (d,) = p.diagnostics
    assert d.code == "frontmatter-yaml-error" and d.level == "warning"
    assert d.line is not None and d.line >= 4


def test_no_frontmatter_and_unclosed() -> None:
    p = parse_frontmatter("# Just markdown\n")
    assert not p.has_frontmatter and p.data == {} and p.diagnostics == ()
    q = parse_frontmatter("---\nname: a\nno closing fence\n")
    assert q.data == {}
    assert [d.code for d in q.diagnostics] == ["frontmatter-unclosed"]


def test_non_mapping_frontmatter() -> None:
    p = parse_frontmatter("---\n- a\n- b\n---\n")
    assert p.data == {}
    assert p.diagnostics[0].code == "frontmatter-not-mapping"


def test_alias_bomb_is_refused() -> None:
    lines = ["---", 'a: &a ["x","x","x","x","x","x","x","x","x"]']
    prev = "a"
    for i in range(10):
        cur = f"b{i}"
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
        prev = cur
    lines.append("---")
    p = parse_frontmatter("\n".join(lines))
    assert p.data == {}
    assert p.diagnostics[0].code == "frontmatter-too-complex"


def test_deep_nesting_is_refused() -> None:
    p = parse_frontmatter("---\nx: " + "[" * 5000 + "]" * 5000 + "\n---\n")
    # either refused outright or recovered as a plain string, but always reported
    assert p.diagnostics
    assert p.data == {} or isinstance(p.data["x"], str)
    json.dumps(p.data)


def test_binary_is_a_diagnostic() -> None:
    p = parse_frontmatter(b"\x00\x01\x02---\n")
    assert p.diagnostics[0].code == "binary-file"


def test_invalid_utf8_is_replaced_with_warning() -> None:
    p = parse_frontmatter(b"---\ndescription: caf\xe9\n---\n")
    assert p.data["description"] == "caf\ufffd"
    assert p.diagnostics[0].code == "not-utf8"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, True),
        ("yes", True),
        ("On", True),
        ("1", True),
        (1, True),
        ("no", False),
        ("off", False),
        ("0", False),
        (0, False),
        ("false", False),
        ("maybe", None),
        (7, None),
    ],
)
def test_coerce_bool(value: object, expected: bool | None) -> None:
    assert coerce_bool(value) is expected


def test_key_normalisation() -> None:
    assert normalize_key("disable-model-invocation") == "disable_model_invocation"
    assert normalize_key("disableModelInvocation") == "disable_model_invocation"
    assert normalize_key("alwaysApply") == "always_apply"
    assert normalize_key("user-invokable") == "user_invocable"
    assert normalize_key("argument-hint") == "argument_hint"


def test_typed_frontmatter() -> None:
    fm, diags = to_frontmatter(
        {
            "name": "x",
            "description": "d",
            "disable-model-invocation": "yes",
            "hide": "off",
            "allowed-tools": "Read Bash(git:*)",
            "arguments": ["file", "mode"],
            "paths": "src/**, docs/*.md",
            "user-invocable": "no",
            "x-custom": {"a": 1},
            "when_to_use": "When asked",
        }
    )
    assert diags == []
    assert fm.disable_model_invocation is True
    assert fm.hide is False
    assert fm.allowed_tools == ("Read", "Bash(git:*)")
    assert fm.arguments == ("file", "mode")
    assert fm.paths == ("src/**", "docs/*.md")
    assert fm.user_invocable is False
    assert fm.when_to_use == "When asked"
    assert fm.extra == {"x-custom": {"a": 1}}


def test_bad_boolean_is_reported_and_defaulted() -> None:
    fm, diags = to_frontmatter({"hide": "sometimes"})
    assert fm.hide is False
    assert diags[0].code == "frontmatter-bad-value"
