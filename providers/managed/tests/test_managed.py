"""Managed-specific rules: names, sanitised descriptions, always loaded, always loses."""

from __future__ import annotations

from pathlib import Path

import pytest
from skillpath_managed import sanitize_description
from skillpath_testing import Layout, discover, load, make_layout, write_skill


@pytest.fixture
def world(tmp_path: Path) -> Layout:
    """A fake home and project."""
    return make_layout(tmp_path)


def managed_root(world: Layout) -> Path:
    """The managed skills root under the fake home."""
    return world.home / ".skillpath" / "managed-skills"


@pytest.mark.parametrize(
    "name",
    ["Upper", "under_score", "-leading", "dot.ted", "a" * 65, "ünï"],
)
def test_invalid_names_are_skipped_with_a_diagnostic(world: Layout, name: str) -> None:
    path = write_skill(managed_root(world), name, "learned")
    write_skill(managed_root(world), "valid-name-1", "learned")
    result = discover("managed", world)
    assert [s.name for s in result.skills] == ["valid-name-1"]
    (diag,) = [d for d in result.diagnostics if d.code == "invalid-managed-name"]
    assert diag.path == path and diag.level == "error"


def test_frontmatter_name_is_checked_too(world: Layout) -> None:
    path = write_skill(managed_root(world), "folder", "learned", name="Not_Valid")
    result = discover("managed", world)
    assert result.skills == ()
    assert [d.path for d in result.diagnostics if d.code == "invalid-managed-name"] == [path]


def test_longest_valid_name(world: Layout) -> None:
    write_skill(managed_root(world), "a" * 64, "learned")
    assert [s.name for s in discover("managed", world).skills] == ["a" * 64]


def test_description_is_sanitised(world: Layout) -> None:
    raw = '"Use <b>this</b> `rm -rf` \\u0007bell\\ttab\\u202eend"'
    path = write_skill(managed_root(world), "learned", raw)
    result = discover("managed", world)
    (skill,) = result.skills
    assert skill.description == "Use bthis/b rm -rf bell tabend"  # U+202E is dropped
    assert skill.frontmatter.description == skill.description
    assert skill.body == "Body of the skill.\n"
    # the core's builder flags the raw description, the provider reports its cleaning
    assert sorted(d.code for d in result.diagnostics) == [
        "description-sanitized",
        "invisible-characters",
    ]
    (diag,) = [d for d in result.diagnostics if d.code == "description-sanitized"]
    assert (diag.code, diag.level, diag.path) == ("description-sanitized", "info", path)


def test_clean_description_is_untouched(world: Layout) -> None:
    write_skill(managed_root(world), "clean", "Plain words, nothing odd.")
    result = discover("managed", world)
    assert result.skills[0].description == "Plain words, nothing odd."
    assert result.diagnostics == ()


def test_description_empty_after_sanitising_is_skipped(world: Layout) -> None:
    path = write_skill(managed_root(world), "empty", '"<>``"')
    result = discover("managed", world)
    assert result.skills == ()
    assert [(d.code, d.path) for d in result.diagnostics] == [
        ("description-no-text", path),
        ("missing-description", path),
    ]


def test_sanitize_description_function() -> None:
    assert sanitize_description("a\nb\r\nc") == "a b c"
    assert sanitize_description("x\x00y\x1bz") == "xyz"
    assert sanitize_description("<script>`x`</script>") == "scriptx/script"
    assert sanitize_description("keep ü and — dashes") == "keep ü and — dashes"


def test_always_loaded_and_always_loses(world: Layout) -> None:
    write_skill(managed_root(world), "dup", "learned copy")
    write_skill(managed_root(world), "solo", "learned only")
    write_skill(world.project / "custom", "dup", "hand written in a custom dir")
    everything_off = {
        f"skills.enable_{k}": False
        for k in (
            "native_user",
            "native_project",
            "claude_user",
            "claude_project",
            "codex_user",
            "agents_user",
            "agents_project",
        )
    }
    res = load(
        world,
        plugins=["managed"],
        settings={**everything_off, "skills.custom_directories": ["custom"]},
    )
    assert res.get("solo").source.provider == "managed"  # type: ignore[union-attr]
    assert res.get("dup").source.provider == "custom"  # type: ignore[union-attr]
    (lost,) = res.shadowed
    assert lost.skill.source.provider == "managed"


def test_loses_to_any_provider(world: Layout) -> None:
    write_skill(managed_root(world), "dup", "learned copy")
    write_skill(world.project / ".github" / "skills", "dup", "github copy (priority 30)")
    res = load(world, plugins=["managed", "github"])
    assert res.get("dup").source.provider == "github"  # type: ignore[union-attr]


def test_skillpath_home_moves_the_root(world: Layout, tmp_path: Path) -> None:
    moved = make_layout(tmp_path, {"SKILLPATH_HOME": str(world.tmp / "swh")})
    write_skill(world.tmp / "swh" / "managed-skills", "moved", "x")
    write_skill(managed_root(world), "default", "x")
    assert [s.name for s in discover("managed", moved).skills] == ["moved"]
