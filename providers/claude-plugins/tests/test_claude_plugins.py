"""installed_plugins.json parsing, plugin manifests, the recorded source, env vars."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from skillweave_testing import Layout, discover, load, make_layout, write_skill


@pytest.fixture
def world(tmp_path: Path) -> Layout:
    """A fake home and project."""
    return make_layout(tmp_path)


def registry(world: Layout) -> Path:
    """Claude Code's registry under the fake home."""
    return world.home / ".claude" / "plugins" / "installed_plugins.json"


def write_json(path: Path, data: Any) -> Path:
    """Write ``data`` as JSON (a string is written verbatim)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def plugin(world: Layout, name: str, *skills: str) -> Path:
    """A plugin root with ``skills/<name>/SKILL.md`` for each of ``skills``."""
    root = world.tmp / "store" / name
    root.mkdir(parents=True, exist_ok=True)
    for skill in skills:
        write_skill(root / "skills", skill, f"{skill} from {name}")
    return root


def test_source_records_the_plugin(world: Layout) -> None:
    root = plugin(world, "tools", "fmt")
    reg = write_json(
        registry(world),
        {
            "version": 2,
            "plugins": {
                "tools@acme-market": [
                    {"scope": "user", "installPath": str(root), "version": "1.4.0"}
                ]
            },
        },
    )
    result = discover("claude-plugins", world)
    (skill,) = result.skills
    assert skill.name == "fmt"  # plugin skills keep their own names
    assert skill.source.level == "user"
    assert skill.source.root == root / "skills"
    assert dict(skill.source.detail) == {
        "plugin": "tools",
        "marketplace": "acme-market",
        "version": "1.4.0",
        "scope": "user",
        "plugin_root": str(root),
        "registry": str(reg),
    }
    assert not result.diagnostics


def test_roots_in_file_order_then_skillweave_registry(world: Layout) -> None:
    first, second, third = (plugin(world, n, "dup", f"only-{n}") for n in ("b", "a", "c"))
    write_json(
        registry(world),
        {"plugins": {"b@m": [{"installPath": str(first)}], "a@m": [{"installPath": str(second)}]}},
    )
    write_json(
        world.home / ".skillweave" / "plugins" / "installed_plugins.json",
        {"plugins": {"c@m": [{"installPath": str(third)}]}},
    )
    result = load(world, plugins=["claude-plugins"])
    assert result.get("dup").source.detail["plugin"] == "b"  # type: ignore[union-attr]
    assert [s.skill.source.detail["plugin"] for s in result.shadowed] == ["a", "c"]
    assert {"only-a", "only-b", "only-c"} <= set(result.names)


def test_version_1_entries_are_read(world: Layout) -> None:
    root = plugin(world, "old", "legacy")
    write_json(registry(world), {"version": 1, "plugins": {"old@m": {"installPath": str(root)}}})
    assert [s.name for s in discover("claude-plugins", world).skills] == ["legacy"]


def test_manifest_skill_paths(world: Layout) -> None:
    root = plugin(world, "p", "default-one")
    write_skill(root / "extra", "extra-one", "x")
    write_skill(root / "more" / "skills", "more-one", "x")
    write_json(
        root / ".claude-plugin" / "plugin.json",
        {"name": "p", "skills": ["./extra", "more/skills", "skills", "../escape", "/abs"]},
    )
    write_skill(world.tmp / "store" / "escape", "escaped", "must not load")
    write_json(registry(world), {"plugins": {"p@m": [{"installPath": str(root)}]}})
    result = discover("claude-plugins", world)
    assert [s.name for s in result.skills] == ["extra-one", "more-one", "default-one"]
    manifest = root / ".claude-plugin" / "plugin.json"
    assert [(d.code, d.path) for d in result.diagnostics] == [
        ("bad-plugin-manifest", manifest),
        ("bad-plugin-manifest", manifest),
    ]
    assert "'..'" in result.diagnostics[0].message
    assert "absolute" in result.diagnostics[1].message


def test_manifest_skills_as_a_string(world: Layout) -> None:
    root = plugin(world, "p")
    write_skill(root / "custom", "from-string", "x")
    write_json(root / ".claude-plugin" / "plugin.json", {"skills": "custom"})
    write_json(registry(world), {"plugins": {"p@m": [{"installPath": str(root)}]}})
    assert [s.name for s in discover("claude-plugins", world).skills] == ["from-string"]


@pytest.mark.parametrize(
    ("manifest", "needle"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ({"skills": 3}, "'skills' must be"),
        ({"skills": ["ok", 4]}, "'skills' must be"),
    ],
)
def test_bad_manifest_is_a_diagnostic_and_default_skills_still_load(
    world: Layout, manifest: Any, needle: str
) -> None:
    root = plugin(world, "p", "still-here")
    path = write_json(root / ".claude-plugin" / "plugin.json", manifest)
    write_json(registry(world), {"plugins": {"p@m": [{"installPath": str(root)}]}})
    result = discover("claude-plugins", world)
    assert [s.name for s in result.skills] == ["still-here"]
    (diag,) = result.diagnostics
    assert diag.path == path and needle in diag.message and diag.level == "error"


@pytest.mark.parametrize(
    ("content", "code", "needle"),
    [
        ('{"version": 2, "plugins": {', "bad-plugin-registry", "not valid JSON"),
        ("[]", "bad-plugin-registry", "must be a JSON object"),
        ({"version": 2}, "bad-plugin-registry", "no 'plugins' object"),
        ({"plugins": []}, "bad-plugin-registry", "'plugins' must be an object"),
        ({"plugins": {"x@m": 3}}, "bad-plugin-entry", "expected a list of installs"),
        ({"plugins": {"x@m": ["str"]}}, "bad-plugin-entry", "expected an object"),
        ({"plugins": {"x@m": [{"scope": "user"}]}}, "bad-plugin-entry", "'installPath' is missing"),
        ({"plugins": {"x@m": [{"installPath": 5}]}}, "bad-plugin-entry", "non-empty string"),
        ({"plugins": {"x@m": [{"installPath": "rel/dir"}]}}, "bad-plugin-entry", "absolute"),
    ],
)
def test_bad_registry_is_a_diagnostic_with_the_path(
    world: Layout, content: Any, code: str, needle: str
) -> None:
    bad = write_json(registry(world), content)
    good = plugin(world, "good", "survivor")
    write_json(
        world.home / ".skillweave" / "plugins" / "installed_plugins.json",
        {"plugins": {"good@m": [{"installPath": str(good)}]}},
    )
    result = discover("claude-plugins", world)
    assert [s.name for s in result.skills] == ["survivor"]
    (diag,) = result.diagnostics
    assert (diag.code, diag.path, diag.provider) == (code, bad, "claude-plugins")
    assert needle in diag.message
    if needle == "not valid JSON":
        assert diag.line == 1


def test_one_bad_entry_does_not_stop_the_next(world: Layout) -> None:
    root = plugin(world, "fine", "ok")
    reg = write_json(
        registry(world),
        {"plugins": {"broken@m": [{"nope": 1}], "fine@m": [{"installPath": str(root)}]}},
    )
    result = discover("claude-plugins", world)
    assert [s.name for s in result.skills] == ["ok"]
    assert [(d.code, d.path) for d in result.diagnostics] == [("bad-plugin-entry", reg)]
    assert "'broken@m'" in result.diagnostics[0].message


def test_missing_install_path_is_a_warning(world: Layout) -> None:
    gone = world.tmp / "store" / "uninstalled"
    as_file = world.tmp / "store" / "file"
    as_file.parent.mkdir(parents=True)
    as_file.write_text("x")
    write_json(
        registry(world),
        {
            "plugins": {
                "gone@m": [{"installPath": str(gone)}],
                "f@m": [{"installPath": str(as_file)}],
            }
        },
    )
    result = discover("claude-plugins", world)
    assert [(d.code, d.path, d.level) for d in result.diagnostics] == [
        ("plugin-missing", gone, "warning"),
        ("plugin-missing", as_file, "warning"),
    ]
    assert "does not exist" in result.diagnostics[0].message
    assert "not a directory" in result.diagnostics[1].message


def test_unreadable_registry_is_a_diagnostic(world: Layout) -> None:
    registry(world).mkdir(parents=True)  # a directory where the file belongs
    (diag,) = discover("claude-plugins", world).diagnostics
    assert diag.code == "unreadable-plugin-registry" and diag.path == registry(world)


def test_claude_config_dir_and_skillweave_home_move_the_registries(
    world: Layout, tmp_path: Path
) -> None:
    cfg, sw = world.tmp / "cfg", world.tmp / "sw"
    moved = make_layout(tmp_path, {"CLAUDE_CONFIG_DIR": str(cfg), "SKILLWEAVE_HOME": str(sw)})
    a, b, c = plugin(world, "a", "from-cfg"), plugin(world, "b", "from-sw"), plugin(world, "c", "x")
    write_json(
        cfg / "plugins" / "installed_plugins.json", {"plugins": {"a@m": [{"installPath": str(a)}]}}
    )
    write_json(
        sw / "plugins" / "installed_plugins.json", {"plugins": {"b@m": [{"installPath": str(b)}]}}
    )
    write_json(registry(world), {"plugins": {"c@m": [{"installPath": str(c)}]}})  # not read
    result = discover("claude-plugins", moved)
    assert [s.name for s in result.skills] == ["from-cfg", "from-sw"]


def test_tilde_install_path_uses_the_home(world: Layout) -> None:
    write_skill(world.home / "plugs" / "t" / "skills", "tilde", "x")
    write_json(registry(world), {"plugins": {"t@m": [{"installPath": "~/plugs/t"}]}})
    (skill,) = discover("claude-plugins", world).skills
    assert skill.source.root == world.home / "plugs" / "t" / "skills"


def test_key_without_marketplace(world: Layout) -> None:
    root = plugin(world, "solo", "s")
    write_json(registry(world), {"plugins": {"solo": [{"installPath": str(root), "version": 3}]}})
    (skill,) = discover("claude-plugins", world).skills
    assert skill.source.detail["plugin"] == "solo"
    assert skill.source.detail["marketplace"] is None
    assert skill.source.detail["version"] == "3"


def test_no_toggle_of_its_own(world: Layout) -> None:
    root = plugin(world, "p", "plug")
    write_json(registry(world), {"plugins": {"p@m": [{"installPath": str(root)}]}})
    named_off = {
        f"skills.enable_{k}": False
        for k in ("native_user", "native_project", "claude_user", "claude_project", "codex_user")
    }
    assert load(world, plugins=["claude-plugins"], settings=named_off).names == []
    one_on = {**named_off, "skills.enable_codex_user": True}
    assert load(world, plugins=["claude-plugins"], settings=one_on).names == ["plug"]
