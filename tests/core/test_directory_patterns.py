"""Glob patterns in directory entries (``custom_directories``, ``SKILLPATH``)."""

from __future__ import annotations

from pathlib import Path

from skillpath import load_skills
from skillpath.context import make_context
from skillpath.loader import expand_directory_entries

from ..conftest import Env, skill_md


def _skill(folder: Path, description: str = "A skill.") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(skill_md(description), encoding="utf-8")


def test_patterns_expand_in_sorted_order_each_match_a_root(isolated_env: Env) -> None:
    clone = isolated_env.home / "src" / "claude-skills" / "plugins"
    for plugin in ("zeta", "alpha", "mid"):
        _skill(clone / plugin / "skills" / f"{plugin}-skill")
    (clone / "no-skills").mkdir()
    (clone / ".hidden" / "skills").mkdir(parents=True)
    (clone / "file-not-dir").write_text("x")
    ctx, _ = make_context(isolated_env.project, home=isolated_env.home)
    roots, diags = expand_directory_entries(
        [
            "~/src/claude-skills/plugins/*/skills",
            "plain",
            "~/src/claude-skills/plugins/alpha/skills",
        ],
        ctx,
    )
    assert roots == [
        clone / "alpha" / "skills",
        clone / "mid" / "skills",
        clone / "zeta" / "skills",
        isolated_env.project / "plain",  # a plain entry stays, even when missing
    ]
    assert diags == []


def test_a_pattern_matching_nothing_is_reported(isolated_env: Env) -> None:
    ctx, _ = make_context(isolated_env.project, home=isolated_env.home)
    roots, diags = expand_directory_entries(["vendor/*/skills"], ctx)
    assert roots == []
    (d,) = diags
    assert d.code == "pattern-no-match" and "vendor/*/skills" in d.message


def test_one_custom_directories_line_loads_a_marketplace_clone(isolated_env: Env) -> None:
    clone = isolated_env.home / "src" / "claude-skills" / "plugins"
    for plugin in ("one", "two", "three"):
        _skill(clone / plugin / "skills" / plugin)
    result = load_skills(
        isolated_env.project,
        home=isolated_env.home,
        settings={"skills.custom_directories": ["~/src/claude-skills/plugins/*/skills"]},
    )
    custom = sorted(s.name for s in result.skills if s.source.provider == "custom")
    assert custom == ["one", "three", "two"]
    assert [r.path for r in result.roots if r.provider == "custom"] == [
        clone / "one" / "skills",
        clone / "three" / "skills",
        clone / "two" / "skills",
    ]
