"""The description fallback and line-by-line YAML recovery, on what real skills hold."""

from __future__ import annotations

from pathlib import Path

import pytest
from skillpath.model import SkillSource
from skillpath.scan import load_skill_file

SRC = SkillSource("test", "project")


def _load(tmp_path: Path, text: str) -> tuple[str | None, list[str]]:
    path = tmp_path / "skill" / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    skill, diags = load_skill_file(path, SRC)
    return (skill.description if skill is not None else None), [d.code for d in diags]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("---\n\nThe first prose.\n", "The first prose."),  # a Markdown rule
        ("***\n\nAfter a rule.\n", "After a rule."),
        ("# Title\n\nAfter a heading.\n", "After a heading."),
        ("Title\n=====\n\nAfter an underlined heading.\n", "After an underlined heading."),
        ("Title\n-----\nAfter a setext heading.\n", "After a setext heading."),
        ("```bash\nls\n\nrm -rf build\n```\n\nAfter a fence.\n", "After a fence."),
        ("~~~\ncode\n~~~\nAfter a tilde fence.\n", "After a tilde fence."),
        ("<!-- note\n\nstill a comment -->\n\nAfter a comment.\n", "After a comment."),
        ("| a | b |\n|---|---|\n| 1 | 2 |\n\nAfter a table.\n", "After a table."),
        ("...\n\n—\n\nAfter punctuation.\n", "After punctuation."),
        ("Two lines\nof prose.\n\nNot this.\n", "Two lines of prose."),
    ],
)
def test_the_fallback_is_the_first_prose_paragraph(
    tmp_path: Path, body: str, expected: str
) -> None:
    description, _codes = _load(tmp_path, "---\nname: skill\n---\n" + body)
    assert description == expected


def test_a_body_without_prose_gives_no_description(tmp_path: Path) -> None:
    description, _codes = _load(tmp_path, "---\nname: skill\n---\n# Only\n\n---\n\n```\nx\n```\n")
    assert description == ""


@pytest.mark.parametrize("value", ['"..."', '"-"', "'—'", '"?!"'])
def test_a_punctuation_description_counts_as_missing(tmp_path: Path, value: str) -> None:
    description, codes = _load(tmp_path, f"---\ndescription: {value}\n---\nThe real text.\n")
    assert description == "The real text."
    assert "description-no-text" in codes


def test_unparseable_yaml_keeps_the_value_written(tmp_path: Path) -> None:
    description, codes = _load(tmp_path, "---\nname: skill\ndescription: [unclosed\n---\nBody.\n")
    assert description == "[unclosed"
    assert codes == ["frontmatter-yaml-error"]
