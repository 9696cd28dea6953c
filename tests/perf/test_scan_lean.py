"""The leaner per-skill path of the scan gives what the plain path gives.

An ASCII body is left undecoded until a missing description needs its first
paragraph; a body that is not valid UTF-8 is still reported; the plan
:func:`skillpath.frontmatter.frontmatter_values` keeps per key set gives the same
values and diagnostics as the keys read one by one, the last spelling of a field
standing.
"""

from __future__ import annotations

from pathlib import Path

from skillpath import SkillSource, scan_skills_dir
from skillpath.frontmatter import frontmatter_values, parse_frontmatter


def _scan(tmp_path: Path, files: dict[str, bytes]) -> tuple[dict[str, str], list[str]]:
    root = tmp_path / "skills"
    for name, raw in files.items():
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_bytes(raw)
    res = scan_skills_dir(root, SkillSource("custom", "user", root))
    return {s.name: s.description for s in res.skills}, [d.code for d in res.diagnostics]


def test_a_missing_description_comes_from_the_first_paragraph_of_an_ascii_body(
    tmp_path: Path,
) -> None:
    skills, codes = _scan(
        tmp_path,
        {
            "plain": b"---\nname: plain\n---\n\nFirst paragraph\nof the body.\n\nSecond.\n",
            "crlf": b"---\r\nname: crlf\r\n---\r\n\r\nFrom a CRLF body.\r\n",
            "unicode": "---\nname: unicode\n---\nCaf\u00e9 au lait.\n".encode(),
        },
    )
    assert skills == {
        "plain": "First paragraph of the body.",
        "crlf": "From a CRLF body.",
        "unicode": "Caf\u00e9 au lait.",
    }
    assert codes == []


def test_a_body_that_is_not_utf8_is_still_reported(tmp_path: Path) -> None:
    skills, codes = _scan(
        tmp_path, {"bad": b"---\nname: bad\ndescription: Fine.\n---\nBroken \xff byte.\n"}
    )
    assert skills == {"bad": "Fine."}
    assert codes == ["not-utf8"]
    parsed = parse_frontmatter(b"---\nname: x\n---\nascii body\n", None)
    assert parsed.body == "ascii body\n"
    assert isinstance(parsed.body, str)


def test_the_values_of_a_recurring_key_set_match_a_first_reading() -> None:
    data = {
        "name": "  tool  ",
        "allowed-tools": "Read, Grep",
        "allowedTools": "Bash Edit",
        "hide": "maybe",
        "x-extra": 1,
        "description": ["not", "a", "string"],
        "metadata": "flat",
        "other": {"k": "v"},
    }
    first = frontmatter_values(data, None)
    again = frontmatter_values(dict(data), None)
    assert first == again
    values, diags = first
    assert values["name"] == "tool"
    assert values["allowed_tools"] == ("Bash", "Edit")  # the last spelling stands
    assert values["extra"] == {"x-extra": 1, "other": {"k": "v"}}
    assert list(values["extra"]) == ["x-extra", "other"]
    assert [d.message.split("'")[1] for d in diags] == ["hide", "description", "metadata"]
    many = {f"k{i}": i for i in range(200)}  # a key set too large to keep a plan for
    assert frontmatter_values(many, None)[0]["extra"] == many
