"""installed_plugins.json parsing, plugin manifests, the recorded source, env vars."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from skillpath_testing import Layout, discover, load, make_layout, write_skill


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


def register(world: Layout, data: Any, *, enable: bool = True) -> Path:
    """Write Claude Code's registry; with ``enable``, also set every plugin ``true`` in the
    user's ``enabledPlugins``, as ``claude plugin install`` does."""
    path = write_json(registry(world), data)
    plugins = data.get("plugins") if isinstance(data, dict) else None
    if enable and isinstance(plugins, dict):
        settings = world.home / ".claude" / "settings.json"
        current = json.loads(settings.read_text()) if settings.exists() else {}
        current.setdefault("enabledPlugins", {}).update(dict.fromkeys(plugins, True))
        write_json(settings, current)
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
    reg = register(
        world,
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
    assert skill.name == "tools:fmt"  # Claude Code's name: plugin:skill
    assert skill.source.level == "user"
    assert skill.source.root == root / "skills"
    assert dict(skill.source.detail) == {
        "plugin": "tools",
        "marketplace": "acme-market",
        "version": "1.4.0",
        "scope": "user",
        "project_path": None,
        "plugin_root": str(root),
        "registry": str(reg),
    }
    assert not result.diagnostics


def test_roots_in_file_order_then_skillpath_registry(world: Layout) -> None:
    first, second, third = (plugin(world, n, "dup", f"only-{n}") for n in ("b", "a", "c"))
    register(
        world,
        {"plugins": {"b@m": [{"installPath": str(first)}], "a@m": [{"installPath": str(second)}]}},
    )
    write_json(
        world.home / ".skillpath" / "plugins" / "installed_plugins.json",
        {"plugins": {"c@m": [{"installPath": str(third)}]}},
    )
    own_names = {"skills.namespace_plugin_skills": False}
    result = load(world, plugins=["claude-plugins"], settings=own_names)
    assert result.get("dup").source.detail["plugin"] == "b"  # type: ignore[union-attr]
    assert [s.skill.source.detail["plugin"] for s in result.shadowed] == ["a", "c"]
    assert {"only-a", "only-b", "only-c"} <= set(result.names)


def test_version_1_entries_are_read(world: Layout) -> None:
    root = plugin(world, "old", "legacy")
    register(world, {"version": 1, "plugins": {"old@m": {"installPath": str(root)}}})
    assert [s.name for s in discover("claude-plugins", world).skills] == ["old:legacy"]


def test_manifest_skill_paths(world: Layout) -> None:
    root = plugin(world, "p", "default-one")
    write_skill(root / "extra", "extra-one", "x")
    write_skill(root / "more" / "skills", "more-one", "x")
    write_json(
        root / ".claude-plugin" / "plugin.json",
        {"name": "p", "skills": ["./extra", "more/skills", "skills", "../escape", "/abs"]},
    )
    write_skill(world.tmp / "store" / "escape", "escaped", "must not load")
    register(world, {"plugins": {"p@m": [{"installPath": str(root)}]}})
    result = discover("claude-plugins", world)
    # skills/ first, then the manifest's paths in order (Claude Code's listing order)
    assert [s.name for s in result.skills] == ["p:default-one", "p:extra-one", "p:more-one"]
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
    register(world, {"plugins": {"p@m": [{"installPath": str(root)}]}})
    assert [s.name for s in discover("claude-plugins", world).skills] == ["p:from-string"]


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
    register(world, {"plugins": {"p@m": [{"installPath": str(root)}]}})
    result = discover("claude-plugins", world)
    assert [s.name for s in result.skills] == ["p:still-here"]
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
    bad = register(world, content)
    good = plugin(world, "good", "survivor")
    write_json(
        world.home / ".skillpath" / "plugins" / "installed_plugins.json",
        {"plugins": {"good@m": [{"installPath": str(good)}]}},
    )
    result = discover("claude-plugins", world)
    assert [s.name for s in result.skills] == ["good:survivor"]
    (diag,) = result.diagnostics
    assert (diag.code, diag.path, diag.provider) == (code, bad, "claude-plugins")
    assert needle in diag.message
    if needle == "not valid JSON":
        assert diag.line == 1


def test_one_bad_entry_does_not_stop_the_next(world: Layout) -> None:
    root = plugin(world, "fine", "ok")
    reg = register(
        world,
        {"plugins": {"broken@m": [{"nope": 1}], "fine@m": [{"installPath": str(root)}]}},
    )
    result = discover("claude-plugins", world)
    assert [s.name for s in result.skills] == ["fine:ok"]
    assert [(d.code, d.path) for d in result.diagnostics] == [("bad-plugin-entry", reg)]
    assert "'broken@m'" in result.diagnostics[0].message


def test_missing_install_path_is_a_warning(world: Layout) -> None:
    gone = world.tmp / "store" / "uninstalled"
    as_file = world.tmp / "store" / "file"
    as_file.parent.mkdir(parents=True)
    as_file.write_text("x")
    register(
        world,
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


def test_claude_config_dir_and_skillpath_home_move_the_registries(
    world: Layout, tmp_path: Path
) -> None:
    cfg, sw = world.tmp / "cfg", world.tmp / "sw"
    moved = make_layout(tmp_path, {"CLAUDE_CONFIG_DIR": str(cfg), "SKILLPATH_HOME": str(sw)})
    a, b, c = plugin(world, "a", "from-cfg"), plugin(world, "b", "from-sw"), plugin(world, "c", "x")
    write_json(
        cfg / "plugins" / "installed_plugins.json", {"plugins": {"a@m": [{"installPath": str(a)}]}}
    )
    write_json(
        sw / "plugins" / "installed_plugins.json", {"plugins": {"b@m": [{"installPath": str(b)}]}}
    )
    register(world, {"plugins": {"c@m": [{"installPath": str(c)}]}})  # not read
    write_json(cfg / "settings.json", {"enabledPlugins": {"a@m": True, "c@m": True}})
    result = discover("claude-plugins", moved)
    assert [s.name for s in result.skills] == ["a:from-cfg", "b:from-sw"]


def test_tilde_install_path_uses_the_home(world: Layout) -> None:
    write_skill(world.home / "plugs" / "t" / "skills", "tilde", "x")
    register(world, {"plugins": {"t@m": [{"installPath": "~/plugs/t"}]}})
    (skill,) = discover("claude-plugins", world).skills
    assert skill.source.root == world.home / "plugs" / "t" / "skills"


def test_key_without_marketplace(world: Layout) -> None:
    root = plugin(world, "solo", "s")
    register(world, {"plugins": {"solo": [{"installPath": str(root), "version": 3}]}})
    (skill,) = discover("claude-plugins", world).skills
    assert skill.source.detail["plugin"] == "solo"
    assert skill.source.detail["marketplace"] is None
    assert skill.source.detail["version"] == "3"


def test_no_toggle_of_its_own(world: Layout) -> None:
    root = plugin(world, "p", "plug")
    register(world, {"plugins": {"p@m": [{"installPath": str(root)}]}})
    named_off = {
        f"skills.enable_{k}": False
        for k in ("native_user", "native_project", "claude_user", "claude_project", "codex_user")
    }
    assert load(world, plugins=["claude-plugins"], settings=named_off).names == []
    one_on = {**named_off, "skills.enable_codex_user": True}
    assert load(world, plugins=["claude-plugins"], settings=one_on).names == ["p:plug"]


# -- which installs apply: project scope, enabledPlugins --------------------------------


def install(root: Path, scope: str = "user", project: Path | str | None = None) -> dict[str, Any]:
    """One install entry of installed_plugins.json (version 2)."""
    entry: dict[str, Any] = {"scope": scope, "installPath": str(root), "version": "1.0.0"}
    if project is not None:
        entry["projectPath"] = str(project)
    return entry


@pytest.mark.parametrize("scope", ["project", "local"])
def test_project_scope_applies_inside_its_project_only(world: Layout, scope: str) -> None:
    mine, other = plugin(world, "mine", "proj-plug"), plugin(world, "other", "elsewhere")
    deep = world.project / "packages" / "api"
    deep.mkdir(parents=True)
    reg = register(
        world,
        {
            "version": 2,
            "plugins": {
                "mine@m": [install(mine, scope, world.project)],
                "other@m": [install(other, scope, world.tmp / "some" / "other-project")],
            },
        },
    )
    for cwd in (world.project, deep):
        result = discover("claude-plugins", world, cwd=cwd)
        (skill,) = result.skills
        assert (skill.name, skill.source.level) == ("mine:proj-plug", "project")
        assert skill.source.detail["project_path"] == str(world.project)
        (diag,) = result.diagnostics
        assert (diag.level, diag.code, diag.path) == ("info", "plugin-other-project", reg)
        assert "'other@m'" in diag.message and str(world.tmp / "some" / "other-project") in (
            diag.message
        )
    outside = world.tmp / "elsewhere-dir"
    outside.mkdir()
    result = discover("claude-plugins", world, cwd=outside)
    assert result.skills == ()
    assert [d.code for d in result.diagnostics] == ["plugin-other-project"] * 2


def test_project_path_through_a_symlink_still_matches(world: Layout) -> None:
    root = plugin(world, "p", "linked")
    link = world.tmp / "link-to-project"
    link.symlink_to(world.project, target_is_directory=True)
    register(world, {"plugins": {"p@m": [install(root, "project", link)]}})
    assert [s.name for s in discover("claude-plugins", world).skills] == ["p:linked"]


@pytest.mark.parametrize("project", [None, "relative/dir", 7, ""])
def test_project_scope_without_a_usable_project_path(world: Layout, project: Any) -> None:
    root = plugin(world, "p", "nope")
    entry = install(root, "project")
    if project is not None:
        entry["projectPath"] = project
    reg = register(world, {"plugins": {"p@m": [entry]}})
    result = discover("claude-plugins", world)
    assert result.skills == ()
    (diag,) = result.diagnostics
    assert (diag.level, diag.code, diag.path) == ("warning", "bad-plugin-entry", reg)
    assert "needs an absolute 'projectPath'" in diag.message


def test_user_scope_ignores_project_path(world: Layout) -> None:
    root = plugin(world, "p", "everywhere")
    register(
        world,
        {"plugins": {"p@m": [install(root, "user", world.tmp / "somewhere-else")]}},
    )
    (skill,) = discover("claude-plugins", world).skills
    assert skill.source.level == "user" and skill.source.detail["project_path"] is None


def user_settings(world: Layout) -> Path:
    """Claude Code's user settings file under the fake home."""
    return world.home / ".claude" / "settings.json"


def test_plugin_disabled_in_user_settings_is_skipped(world: Layout) -> None:
    on, off = plugin(world, "on", "kept"), plugin(world, "superpowers", "brainstorm")
    register(
        world,
        {"plugins": {"on@m": [install(on)], "superpowers@obra": [install(off)]}},
    )
    settings = write_json(
        user_settings(world), {"enabledPlugins": {"superpowers@obra": False, "on@m": True}}
    )
    result = discover("claude-plugins", world)
    assert [s.name for s in result.skills] == ["on:kept"]
    (diag,) = result.diagnostics
    assert (diag.level, diag.code, diag.path) == ("info", "plugin-disabled", settings)
    assert "'superpowers@obra'" in diag.message and str(settings) in diag.message


def test_project_settings_override_user_settings_key_by_key(world: Layout) -> None:
    a, b, c = plugin(world, "a", "from-a"), plugin(world, "b", "from-b"), plugin(world, "c", "c1")
    register(
        world,
        {"plugins": {"a@m": [install(a)], "b@m": [install(b)], "c@m": [install(c)]}},
    )
    write_json(user_settings(world), {"enabledPlugins": {"a@m": False, "b@m": False}})
    project = world.project / ".claude"
    write_json(project / "settings.json", {"enabledPlugins": {"a@m": True, "c@m": False}})
    local = write_json(project / "settings.local.json", {"enabledPlugins": {"a@m": False}})
    result = discover("claude-plugins", world)
    assert result.skills == ()
    by_plugin = {d.message.split("'")[1]: d.path for d in result.diagnostics}
    assert by_plugin == {
        "a@m": local,
        "b@m": user_settings(world),
        "c@m": project / "settings.json",
    }
    write_json(project / "settings.local.json", {"enabledPlugins": {"b@m": True}})
    # a project cannot switch back on what the user switched off ...
    result = discover("claude-plugins", world)
    assert result.skills == ()
    untrusted = {
        d.message.split("'")[1]: d.path
        for d in result.diagnostics
        if d.code == "settings-untrusted"
    }
    assert untrusted == {"a@m": project / "settings.json", "b@m": local}
    # ... unless the user trusts the project
    config = world.home / ".skillpath" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"[trust]\nprojects = [{json.dumps(str(world.project))}]\n")
    result = discover("claude-plugins", world)
    assert [s.name for s in result.skills] == ["a:from-a", "b:from-b"]


def test_project_settings_are_read_from_the_working_directory(world: Layout) -> None:
    root = plugin(world, "p", "still-on")
    register(world, {"plugins": {"p@m": [install(root)]}})
    write_json(world.project / ".claude" / "settings.json", {"enabledPlugins": {"p@m": False}})
    sub = world.project / "sub"
    sub.mkdir()
    assert [s.name for s in discover("claude-plugins", world, cwd=sub).skills] == ["p:still-on"]
    assert discover("claude-plugins", world).skills == ()


def test_claude_config_dir_moves_the_user_settings(world: Layout, tmp_path: Path) -> None:
    cfg = world.tmp / "cfg"
    moved = make_layout(tmp_path, {"CLAUDE_CONFIG_DIR": str(cfg)})
    root = plugin(world, "p", "s")
    write_json(cfg / "plugins" / "installed_plugins.json", {"plugins": {"p@m": [install(root)]}})
    write_json(user_settings(world), {"enabledPlugins": {"p@m": False}})  # not read
    write_json(cfg / "settings.json", {"enabledPlugins": {"p@m": True}})
    assert [s.name for s in discover("claude-plugins", moved).skills] == ["p:s"]
    settings = write_json(cfg / "settings.json", {"enabledPlugins": {"p@m": False}})
    (diag,) = discover("claude-plugins", moved).diagnostics
    assert diag.path == settings


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ('{"enabledPlugins": {', "not valid JSON"),
        ("[]", "must be a JSON object"),
        ({"enabledPlugins": ["p@m"]}, "'enabledPlugins' must be an object"),
        ({"enabledPlugins": {"p@m": "no"}}, "must be true or false"),
    ],
)
def test_bad_settings_are_a_warning_and_plugins_still_load(
    world: Layout, content: Any, needle: str
) -> None:
    root = plugin(world, "p", "loads")
    register(world, {"plugins": {"p@m": [install(root)]}}, enable=False)
    bad = write_json(user_settings(world), content)
    project = write_json(
        world.project / ".claude" / "settings.json", {"enabledPlugins": {"p@m": True}}
    )
    result = discover("claude-plugins", world)
    assert [s.name for s in result.skills] == ["p:loads"]
    (diag,) = result.diagnostics
    assert (diag.level, diag.code, diag.path) == ("warning", "bad-claude-settings", bad)
    assert needle in diag.message
    project.unlink()  # nothing else enables it now: not loaded, and said so
    result = discover("claude-plugins", world)
    assert result.skills == ()
    assert [d.code for d in result.diagnostics] == ["bad-claude-settings", "plugin-not-enabled"]


def test_settings_are_not_read_without_plugins(world: Layout) -> None:
    write_json(user_settings(world), "{broken")
    assert discover("claude-plugins", world).diagnostics == ()


def test_a_valid_entry_next_to_a_bad_one_still_counts(world: Layout) -> None:
    root = plugin(world, "p", "gone")
    register(world, {"plugins": {"p@m": [install(root)]}})
    write_json(user_settings(world), {"enabledPlugins": {"x@m": [1], "p@m": False}})
    result = discover("claude-plugins", world)
    assert result.skills == ()
    assert [d.code for d in result.diagnostics] == ["bad-claude-settings", "plugin-disabled"]


# -- names: skills keep their own names; explain finds Claude Code's plugin:skill ----------


def test_explain_finds_the_plugin_skill_spelling(world: Layout) -> None:
    from skillpath.doctor import build_report, explain

    first, second = plugin(world, "superpowers", "tdd"), plugin(world, "other", "tdd")
    register(
        world,
        {"plugins": {"superpowers@obra": [install(first)], "other@m": [install(second)]}},
    )
    own_names = {"skills.namespace_plugin_skills": False}
    result = load(world, plugins=["claude-plugins"], settings=own_names)
    assert result.names == ["tdd"]  # their own names: the second copy is shadowed
    report = build_report(result)
    loaded = explain(report, "superpowers:tdd")
    assert loaded.available
    assert [(e.name, e.status) for e in loaded.entries] == [("tdd", "loaded")]
    assert loaded.verdict().startswith(
        "superpowers:tdd = skill 'tdd' of plugin 'superpowers' "
        "(skillpath does not prefix plugin skills): loaded"
    )
    shadowed = explain(report, "other:tdd")
    assert not shadowed.available and shadowed.found
    assert [(e.name, e.status) for e in shadowed.entries] == [("tdd", "shadowed")]
    assert "none loaded" in shadowed.verdict()
    unknown = explain(report, "nope:tdd")
    assert not unknown.found and unknown.near[0] == "tdd"


def test_namespace_setting_names_plugin_skills_like_claude_code(world: Layout) -> None:
    first, second = plugin(world, "superpowers", "tdd"), plugin(world, "other", "tdd")
    register(
        world,
        {
            "plugins": {
                "superpowers@obra": [install(first)],
                "other@m": [install(second)],
                "we ird@m": [install(plugin(world, "weird", "odd"))],
            }
        },
    )
    result = load(world, plugins=["claude-plugins"])  # the default: Claude Code's names
    assert result.names == ["other:tdd", "superpowers:tdd", "we ird:odd"]
    skill = result.get("superpowers:tdd")
    assert skill is not None and skill.source.detail["plugin"] == "superpowers"
    assert skill.frontmatter.name is None and skill.path == first / "skills" / "tdd" / "SKILL.md"
    assert not result.shadowed  # no collision any more
    off = {"skills.namespace_plugin_skills": False}
    assert load(world, plugins=["claude-plugins"], settings=off).names == ["odd", "tdd"]


def test_namespace_setting_keeps_an_invalid_combined_name(world: Layout) -> None:
    root = plugin(world, "p", "fine")
    register(world, {"plugins": {"bad/plugin@m": [install(root)]}})
    on = {"skills.namespace_plugin_skills": True}
    result = load(world, plugins=["claude-plugins"], settings=on)
    assert result.names == ["fine"]
    (diag,) = [d for d in result.diagnostics if d.code == "invalid-name"]
    assert diag.level == "warning" and diag.path == root / "skills" / "fine" / "SKILL.md"
    assert "keeps its own name" in diag.message


# -- a long-running host sees a settings edit ------------------------------------------


def test_a_host_sees_enabled_plugins_change_without_a_skill_edit(world: Layout) -> None:
    """``enabledPlugins`` decides what loads, so an agent that lives across turns must
    notice an edit of the settings file alone (no skills folder changes)."""
    from skillpath import AgentSkills

    root = plugin(world, "toolbox", "pskill")
    register(world, {"version": 2, "plugins": {"toolbox@m": [install(root)]}})
    agent = AgentSkills.of(
        cwd=world.cwd, home=world.home, env=world.env, settings={"trust.approve": ["*"]}
    )
    assert "toolbox:pskill" in agent.session.result.names
    assert registry(world) in agent.session.result.inputs
    settings = world.home / ".claude" / "settings.json"
    assert settings in agent.session.result.inputs

    write_json(settings, {"enabledPlugins": {"toolbox@m": False}})
    agent.begin_turn()
    assert "toolbox:pskill" not in agent.session.result.names

    write_json(settings, {"enabledPlugins": {"toolbox@m": True}})
    agent.begin_turn()
    assert "toolbox:pskill" in agent.session.result.names


def test_watch_sees_enabled_plugins_change(world: Layout) -> None:
    """:func:`skillpath.watch_skills` reloads on an edit of a provider's declared input."""
    from skillpath import watch_skills

    root = plugin(world, "toolbox", "pskill")
    register(world, {"version": 2, "plugins": {"toolbox@m": [install(root)]}})
    settings = world.home / ".claude" / "settings.json"
    changes = watch_skills(
        world.cwd,
        home=world.home,
        env={**world.env, "SKILLPATH_NO_WATCH": "1"},
        settings={"trust.approve": ["*"]},
        initial=True,
        timeout=60,
        poll_ms=20,
    )
    first = next(changes)
    assert "toolbox:pskill" in first.result.names
    write_json(settings, {"enabledPlugins": {"toolbox@m": False}})
    second = next(changes)
    assert "toolbox:pskill" not in second.result.names
    changes.close()
