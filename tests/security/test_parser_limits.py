"""Resource limits of the frontmatter parser: YAML bombs stay small and fast."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from skillpath import SkillSource, scan_skills_dir
from skillpath.frontmatter import parse_frontmatter


def _merge_bomb(levels: int) -> str:
    lines = ["---", "l0: &l0 {k0: v, k1: v}"]
    for i in range(1, levels + 1):
        refs = ", ".join([f"*l{i - 1}"] * 9)
        lines.append(f"l{i}: &l{i} {{<<: [{refs}], own{i}: x}}")
    lines.append("---")
    return "\n".join(lines) + "\n"


def test_merge_key_bomb_is_bounded() -> None:
    # PyYAML < 6.0.4 (allowed by the dependency range) expands nested merges
    # exponentially: 12 levels of 9 aliases are ~3e11 pairs there.
    start = time.perf_counter()
    p = parse_frontmatter(_merge_bomb(12))
    assert time.perf_counter() - start < 2
    assert p.diagnostics == ()
    assert p.data["l12"] == {"k0": "v", "k1": "v", **{f"own{i}": "x" for i in range(1, 13)}}


def test_merges_still_follow_yaml_rules() -> None:
    p = parse_frontmatter(
        "---\nbase: &b {x: 1, y: 2}\nover: {<<: *b, y: 3}\nmany: {<<: [{z: 0}, *b], x: 9}\n---\n"
    )
    assert p.data["over"] == {"x": 1, "y": 3}
    assert p.data["many"] == {"z": 0, "x": 9, "y": 2}


def test_merge_of_a_scalar_is_a_yaml_error_with_recovery() -> None:
    p = parse_frontmatter("---\ndescription: ok\nbad: {<<: 5}\n---\n")
    assert p.data["description"] == "ok"
    assert [d.code for d in p.diagnostics] == ["frontmatter-yaml-error"]
    assert p.diagnostics[0].line == 3


@pytest.mark.parametrize("shift", range(4))
@pytest.mark.parametrize("fenced", [True, False])
def test_a_head_cut_inside_a_character_is_not_invalid_utf8(
    tmp_path: Path, shift: int, fenced: bool
) -> None:
    # multi-byte text straddling the first read chunk (8 KiB) must not be
    # reported as invalid UTF-8 when only the head is read for listing
    head = "---\ndescription: 中文技能\n---\n" if fenced else ""
    text = head + "x" * shift + "技能说明。" * 3000
    folder = tmp_path / "skills" / "zh"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    res = scan_skills_dir(tmp_path / "skills", SkillSource("t", "user"))
    assert [d.code for d in res.diagnostics] == []
    (skill,) = res.skills
    assert skill.body.endswith("技能说明。")
