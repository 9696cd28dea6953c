"""skillpath.claude_plugins: the one reader of Claude Code plugins (settings precedence,
enabledPlugins order, directory marketplaces, entries), and the provider and the view
agreeing because they use it. The same rules against the real claude:
tests/counterparts/test_claude_plugins.py."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from skillpath import SkillSession, load_skills
from skillpath import claude_plugins as cp
from skillpath.views import view

APPROVED = {"trust": {"approve": ["plugin:*"]}}


def _write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


class World:
    """A home, a repository with cwd two levels down, a managed dir, a marketplace."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp.resolve()
        self.home = self.tmp / "home"
        self.repo = self.tmp / "repo"
        self.cwd = self.repo / "a" / "b"
        self.cwd.mkdir(parents=True)
        self.home.mkdir()
        subprocess.run(["git", "init", "-q", str(self.repo)], check=True)
        self.managed = self.tmp / "etc-claude-code"
        self.market = self.tmp / "market"
        self.env = {"HOME": str(self.home), cp.MANAGED_DIR_ENV: str(self.managed)}
        self.claude = self.home / ".claude"
        self.installed: dict[str, Any] = {}

    def plugin(self, name: str, files: dict[str, str], *, directory: bool = True) -> Path:
        """Install plugin ``name@mkt`` (in the marketplace folder, with a cache copy)."""
        source = self.market / name
        cache = self.claude / "plugins" / "cache" / "mkt" / name / "1.0.0"
        for root in (source, cache):
            for rel, text in files.items():
                _write(root / rel, text)
        self.installed[f"{name}@mkt"] = [{"scope": "user", "installPath": str(cache)}]
        _write(
            self.claude / "plugins" / "installed_plugins.json",
            {"version": 2, "plugins": self.installed},
        )
        entries = [
            {"name": k.split("@")[0], "source": f"./{k.split('@')[0]}"} for k in self.installed
        ]
        _write(
            self.market / ".claude-plugin" / "marketplace.json", {"name": "mkt", "plugins": entries}
        )
        if directory:
            _write(
                self.claude / "plugins" / "known_marketplaces.json",
                {"mkt": {"source": {"source": "directory", "path": str(self.market)}}},
            )
        return cache

    def settings(self, rel: str, switches: dict[str, bool]) -> Path:
        return _write(
            self.tmp / rel, {"enabledPlugins": {f"{k}@mkt": v for k, v in switches.items()}}
        )


@pytest.fixture
def w(tmp_path: Path) -> World:
    return World(tmp_path)


def test_settings_files_lowest_precedence_first(w: World) -> None:
    _write(w.managed / "managed-settings.d" / "20-b.json", "{}")
    _write(w.managed / "managed-settings.d" / "10-a.json", "{}")
    _write(w.managed / "managed-settings.d" / "notes.txt", "")
    files = cp.settings_files(w.home, w.env, w.cwd)
    assert [(f.scope, f.path) for f in files] == [
        ("user", w.claude / "settings.json"),
        ("project", w.cwd / ".claude" / "settings.json"),
        ("local", w.cwd / ".claude" / "settings.local.json"),
        ("local", w.repo / ".claude" / "settings.local.json"),
        ("managed", w.managed / "managed-settings.json"),
        ("managed", w.managed / "managed-settings.d" / "10-a.json"),
        ("managed", w.managed / "managed-settings.d" / "20-b.json"),
    ]
    # at the repository root the local file is read once; CLAUDE_CONFIG_DIR moves the user's
    moved = {**w.env, "CLAUDE_CONFIG_DIR": str(w.tmp / "cfg")}
    at_root = cp.settings_files(w.home, moved, w.repo)
    assert [f.path for f in at_root][:3] == [
        w.tmp / "cfg" / "settings.json",
        w.repo / ".claude" / "settings.json",
        w.repo / ".claude" / "settings.local.json",
    ]


def test_precedence_and_order_of_enabled_plugins(w: World) -> None:
    w.settings("home/.claude/settings.json", {"u": True, "p": True, "l": True, "m": True})
    w.settings("repo/a/b/.claude/settings.json", {"p": False, "l": False, "new": True})
    w.settings("repo/a/b/.claude/settings.local.json", {"l": True, "root": True})
    w.settings("repo/.claude/settings.local.json", {"root": False})
    w.settings("repo/.claude/settings.json", {"above": True})  # not read: cwd's only
    w.settings("etc-claude-code/managed-settings.json", {"m": False})
    w.settings("etc-claude-code/managed-settings.d/1.json", {"m": True, "drop": False})
    merged = cp.enabled_plugins(w.home, w.env, w.cwd)
    assert {k: (s.enabled, s.scope) for k, s in merged.items()} == {
        "u@mkt": (True, "user"),
        "p@mkt": (False, "project"),
        "l@mkt": (True, "local"),
        "m@mkt": (True, "managed"),
        "new@mkt": (True, "project"),
        "root@mkt": (False, "local"),
        "drop@mkt": (False, "managed"),
    }
    # a key keeps the place where it first appeared: the order plugins load in
    assert list(merged) == ["u@mkt", "p@mkt", "l@mkt", "m@mkt", "new@mkt", "root@mkt", "drop@mkt"]
    assert merged["root@mkt"].settings == w.repo / ".claude" / "settings.local.json"


def test_only_enabled_plugins_load_in_enabled_plugins_order(w: World) -> None:
    for name in ("one", "two", "three", "absent"):
        w.plugin(name, {f"skills/{name}-s/SKILL.md": f"---\ndescription: {name}.\n---\nB.\n"})
    w.settings("home/.claude/settings.json", {"three": True, "one": True, "two": False})
    loaded = cp.loaded_plugins(w.home, w.env, w.cwd)
    assert [p.key for p in loaded] == ["three@mkt", "one@mkt"]
    result = load_skills(w.cwd, home=w.home, env=w.env, settings=APPROVED)
    names = [s.name for s in result.skills if s.source.provider == "claude-plugins"]
    assert sorted(names) == ["one:one-s", "three:three-s"]
    codes = {d.code: d.message for d in result.diagnostics if d.provider == "claude-plugins"}
    assert "'absent@mkt'" in codes["plugin-not-enabled"]
    assert "'two@mkt'" in codes["plugin-disabled"]
    v = view("claude-code", w.cwd, env=w.env)
    assert [s.name for s in v.skills if s.scope == "plugin"] == ["three:three-s", "one:one-s"]
    assert v.explain("absent-s").startswith(
        "Claude Code skips it: its plugin 'absent@mkt' is installed but no settings file enables it"
    )
    assert "set to false in enabledPlugins" in v.explain("two:two-s")
    # `explain` says why a skill of a plugin that does not load is missing
    from skillpath.doctor import build_report, explain

    for name, code in (("absent-s", "plugin-not-enabled"), ("two:two-s", "plugin-disabled")):
        why = explain(build_report(result), name)
        assert not why.available and [d.code for d in why.diagnostics] == [code], name


def test_a_directory_marketplace_is_read_from_its_folder(w: World) -> None:
    cache = w.plugin(
        "tb",
        {
            "skills/s/SKILL.md": "---\ndescription: S.\n---\nRun ${CLAUDE_PLUGIN_ROOT}/x.sh\n",
        },
    )
    w.settings("home/.claude/settings.json", {"tb": True})
    _write(w.market / "tb" / "skills" / "only-source" / "SKILL.md", "---\ndescription: O.\n---\n")
    _write(cache / "skills" / "only-cache" / "SKILL.md", "---\ndescription: C.\n---\n")
    (plugin,) = cp.loaded_plugins(w.home, w.env, w.cwd)
    assert (plugin.root, plugin.source, plugin.folder) == (cache, w.market / "tb", w.market / "tb")
    result = load_skills(w.cwd, home=w.home, env=w.env, settings=APPROVED)
    names = sorted(s.name for s in result.skills if s.source.provider == "claude-plugins")
    assert names == ["tb:only-source", "tb:s"]
    skill = result.get("tb:s")
    assert skill is not None and skill.source.detail["plugin_root"] == str(w.market / "tb")
    session = SkillSession.open(w.cwd, home=w.home, env=w.env, settings=APPROVED)
    assert f"Run {w.market / 'tb'}/x.sh" in session.invoke("tb:s").text
    assert [s.name for s in view("claude-code", w.cwd, env=w.env).skills] == [
        "tb:only-source",
        "tb:s",
    ]


def test_other_marketplaces_are_read_from_the_install_path(w: World) -> None:
    cache = w.plugin("tb", {"skills/s/SKILL.md": "---\ndescription: S.\n---\n"}, directory=False)
    w.settings("home/.claude/settings.json", {"tb": True})
    (plugin,) = cp.loaded_plugins(w.home, w.env, w.cwd)
    assert plugin.source is None and plugin.folder == cache


def test_a_marketplace_source_leaving_its_folder_is_refused(w: World) -> None:
    cache = w.plugin("tb", {"skills/s/SKILL.md": "---\ndescription: S.\n---\n"})
    _write(
        w.market / ".claude-plugin" / "marketplace.json",
        {"name": "mkt", "plugins": [{"name": "tb", "source": "../elsewhere"}]},
    )
    w.settings("home/.claude/settings.json", {"tb": True})
    problems: list[tuple[str, str]] = []
    (plugin,) = cp.loaded_plugins(
        w.home, w.env, w.cwd, lambda lv, code, msg, path, line: problems.append((lv, code))
    )
    assert plugin.folder == cache
    assert problems == [("warning", "bad-marketplace-manifest")]


def test_commands_are_named_and_loaded_as_claude_code_does(w: World) -> None:
    w.plugin(
        "tb",
        {
            "commands/go.md": "---\ndescription: Go.\n---\nGo $ARGUMENTS\n",
            "commands/ns/deep.md": "Deep.\n",
            "commands/.hidden/x.md": "Hidden.\n",
            "more/extra.md": "---\ndescription: Extra.\n---\nE.\n",
            ".claude-plugin/plugin.json": json.dumps({"name": "tb", "commands": ["./more"]}),
        },
    )
    w.settings("home/.claude/settings.json", {"tb": True})
    folder = w.market / "tb"
    assert [
        (n, f.relative_to(folder).as_posix()) for n, f, _ in cp.command_files("tb", folder)
    ] == [
        ("tb:extra", "more/extra.md"),
        ("tb:go", "commands/go.md"),
        ("tb:ns:deep", "commands/ns/deep.md"),
    ]
    result = load_skills(w.cwd, home=w.home, env=w.env, settings=APPROVED)
    go = result.get("tb:go")
    assert go is not None and go.base_dir is None and go.source.loaded_from == "commands"
    assert result.get("tb:ns:deep") is not None and result.get("deep") is not None
    off = load_skills(
        w.cwd,
        home=w.home,
        env=w.env,
        settings={**APPROVED, "skills": {"namespace_plugin_skills": False}},
    )
    assert sorted(s.name for s in off.skills if s.source.provider == "claude-plugins") == [
        "extra",
        "go",
        "ns:deep",
    ]


def test_a_user_skill_and_a_plugin_skill_of_one_name(w: World) -> None:
    w.plugin("tb", {"skills/dup/SKILL.md": "---\ndescription: Plugin's.\n---\nP.\n"})
    w.settings("home/.claude/settings.json", {"tb": True})
    _write(w.claude / "skills" / "dup" / "SKILL.md", "---\ndescription: User's.\n---\nU.\n")
    result = load_skills(w.cwd, home=w.home, env=w.env, settings=APPROVED)
    user, plugin = result.get("dup"), result.get("tb:dup")
    assert user is not None and user.source.provider == "claude"
    assert plugin is not None and plugin.source.provider == "claude-plugins"
    assert not [s for s in result.shadowed if s.skill.name.endswith("dup")]


def test_managed_settings_win_in_the_provider(w: World) -> None:
    w.plugin("tb", {"skills/s/SKILL.md": "---\ndescription: S.\n---\n"})
    w.settings("home/.claude/settings.json", {"tb": True})
    managed = w.settings("etc-claude-code/managed-settings.json", {"tb": False})
    result = load_skills(w.cwd, home=w.home, env=w.env, settings=APPROVED)
    assert result.get("tb:s") is None
    (diag,) = [d for d in result.diagnostics if d.code == "plugin-disabled"]
    assert diag.path == managed


def test_a_plugin_skill_named_apart_from_its_folder(w: World) -> None:
    w.plugin("tb", {"skills/folder/SKILL.md": "---\nname: named\ndescription: N.\n---\nN.\n"})
    w.settings("home/.claude/settings.json", {"tb": True})
    result = load_skills(w.cwd, home=w.home, env=w.env, settings=APPROVED)
    skill = result.get("tb:named")
    assert skill is not None
    # Claude Code lists it "tb:folder (tb:named)" and runs it by any of the three names
    assert result.get("tb:folder") is skill and result.get("named") is skill
    (listed,) = [s for s in view("claude-code", w.cwd, env=w.env).skills if s.scope == "plugin"]
    assert listed.name == "tb:folder (tb:named)"
