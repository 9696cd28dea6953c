"""The frontmatter parser: tolerant, JSON-safe, never raises."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from skillpath import SkillSource, scan_skills_dir
from skillpath.frontmatter import (
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
    # loaded, but the parser says it had to repair it (strict parsers reject it)
    assert p.repaired and not p.recovered and not p.unclosed
    (d,) = p.diagnostics
    assert (d.level, d.code, d.line) == ("info", "frontmatter-repaired", 3)
    assert "'description'" in d.message and "quote the value" in d.message
    clean = parse_frontmatter("---\nname: a\ndescription: 'Use when: quoted'\n---\n")
    assert clean.diagnostics == () and not clean.repaired


_COLON_LINES = (
    "name: a",
    "description: Use when: x",
    "description: a: b # c",
    "x: 'q: r'",
    "k: v: w",
    "  - item: z",
    "t: [a: b]",
    "m:\n  k: v: w",
    "d: >-\n  a: b",
    'e: "x: y',
    "f: a:b",
    "h: -x: y",
    "i: |\n  k: v",
    "j: x:  y",
    "l: x: y:",
    "n: &a x: y",
    "o: x: 'y'",
    "q: 1: 2",
    "r: true: no",
    "s: x: y\n  more",
    "u:\tx: y",
    "z: ~: ~",
    "- a: b",
)


def _load_both(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[object, object]:
    from skillpath import frontmatter

    def parse(text: str) -> object:
        diags: list[object] = []
        mode: list[str] = []
        data = frontmatter._load_mapping(text, None, diags, mode)  # type: ignore[arg-type]
        return repr(data), diags, mode

    fast = parse(text)
    with monkeypatch.context() as m:
        m.setattr(frontmatter, "_plainly_repaired", lambda text: None)
        slow = parse(text)
    return fast, slow


def test_colon_repair_without_pyyaml_matches_pyyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    # a plain value holding ": " is read as the repaired text is read by pyyaml,
    # with the same diagnostics, for every mix of these lines (comments, nested
    # mappings, block scalars, quotes left open, values that stay errors)
    import itertools
    import random

    from skillpath.frontmatter import _plainly_repaired

    rng = random.Random(7)
    texts = ["\n".join(pair) for pair in itertools.permutations(_COLON_LINES, 2)]
    texts += [
        "\n".join(rng.choice(_COLON_LINES) for _ in range(rng.randint(1, 5)))
        + rng.choice(("", "\n"))
        for _ in range(500)
    ]
    taken = 0
    for text in texts:
        fast, slow = _load_both(text, monkeypatch)
        assert fast == slow, text
        taken += _plainly_repaired(text) is not None
    assert taken > 100  # the fast path did answer many of them


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


def test_recovery_keeps_fragments_of_broken_yaml_as_text() -> None:
    text = "---\nname: really-broken\ndescription: [unclosed\n  foo: : :\nnote: x: : y\n---\nbody\n"
    p = parse_frontmatter(text)
    assert p.recovered and not p.repaired
    # as other agents (oh-my-pi) read it: the text written, with a warning
    assert p.data == {"name": "really-broken", "description": "[unclosed", "note": "x: : y"}
    (d,) = p.diagnostics
    assert d.code == "frontmatter-yaml-error" and d.level == "warning" and d.line == 4
    assert "kept the value of description, note as the text written" in d.message
    # a balanced flow value on a broken document is kept as written, too
    q = parse_frontmatter("---\ndescription: [a] and {b}\nbad: {x: [\n---\n")
    assert q.data == {"description": "[a] and {b}", "bad": "{x: ["}


def test_unclosed_frontmatter_is_flagged_and_feeds_no_description(tmp_path: Path) -> None:
    p = parse_frontmatter("---\nname: unterminated\ndescription: no closing\nbody\n")
    assert p.unclosed and not p.has_frontmatter and p.data == {}
    assert p.body is not None and p.body.startswith("---")
    root = tmp_path / "skills"
    (root / "unterminated").mkdir(parents=True)
    (root / "unterminated" / "SKILL.md").write_text(
        "---\nname: unterminated\ndescription: no closing\n\nSecond paragraph.\n"
    )
    (skill,) = scan_skills_dir(root, SkillSource("t", "project")).skills
    assert skill.name == "unterminated" and skill.description == ""
    # a closed block still lets the body stand in for a missing description
    (root / "closed").mkdir()
    (root / "closed" / "SKILL.md").write_text("---\nname: closed\n---\nFirst paragraph.\n")
    by_name = {s.name: s for s in scan_skills_dir(root, SkillSource("t", "project")).skills}
    assert by_name["closed"].description == "First paragraph."


@pytest.mark.parametrize(
    ("yaml_value", "expected"),
    [("[issue]", "[issue]"), ("[issue, branch]", "[issue] [branch]"), ("'<file>'", "<file>")],
)
def test_argument_hint_flow_list_is_claude_codes_spelling(yaml_value: str, expected: str) -> None:
    p = parse_frontmatter(f"---\ndescription: Fix\nargument-hint: {yaml_value}\n---\n")
    fm, diags = to_frontmatter(p.data)
    assert diags == []
    assert fm.argument_hint == expected


def test_bad_values_name_the_key_as_written() -> None:
    _fm, diags = to_frontmatter(
        {"when-to-use": ["a"], "disableModelInvocation": "maybe", "hooks": 3}
    )
    messages = sorted(d.message for d in diags)
    assert messages[0].startswith("'disableModelInvocation' must be a boolean")
    assert messages[1] == "'hooks' must be a mapping"
    assert messages[2].startswith("'when-to-use' must be a string, got a list")
    assert not any("_" in m.split("'")[1] for m in messages)
