"""End to end: skills in every built-in provider's places, ``skillpath list --json`` as a
real subprocess, with HOME, CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_CONFIG_HOME and
SKILLPATH_HOME pointing into a temp dir."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest


@attrs.frozen
class Place:
    """One place a skill can live, in the order the pipeline must visit it."""

    provider: str
    level: str
    root: Path
    command: bool = False  # a legacy Claude command folder (<name>.md files)

    def put(self, name: str, description: str | None = "x", extra: str = "") -> Path:
        """Write skill ``name`` here and return its file."""
        desc = f"description: {description}\n" if description is not None else ""
        text = f"---\n{desc}{extra}---\nBody of {name}.\n"
        path = self.root / f"{name}.md" if self.command else self.root / name / "SKILL.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path


@attrs.frozen
class World:
    tmp: Path
    home: Path
    project: Path
    cwd: Path
    claude_cfg: Path
    codex_home: Path
    xdg: Path
    sw_home: Path
    policy: Path
    places: tuple[Place, ...]

    def env(self) -> dict[str, str]:
        """The complete environment of the subprocess (nothing from the real home)."""
        return {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": str(self.home),
            "CLAUDE_CONFIG_DIR": str(self.claude_cfg),
            "CODEX_HOME": str(self.codex_home),
            "XDG_CONFIG_HOME": str(self.xdg),
            "XDG_CACHE_HOME": str(self.tmp / "cache"),
            "XDG_DATA_HOME": str(self.tmp / "data"),
            "SKILLPATH_HOME": str(self.sw_home),
            "SKILLPATH_CLAUDE_POLICY_DIR": str(self.policy),
        }


def register(registry: Path, plugins: dict[str, Any]) -> None:
    """Write an installed_plugins.json."""
    registry.parent.mkdir(parents=True, exist_ok=True)
    registry.write_text(json.dumps({"version": 2, "plugins": plugins}), encoding="utf-8")


def build_world(tmp: Path) -> World:
    tmp = tmp.resolve()
    home, project = tmp / "home", tmp / "project"
    cwd = project / "app"
    cwd.mkdir(parents=True)
    (project / ".git").mkdir()
    cfg, codex_home, xdg, sw = tmp / "claude-cfg", tmp / "codex-home", tmp / "xdg", tmp / "sw"
    policy = tmp / "etc" / "claude-code" / ".claude" / "skills"
    plugin1, plugin2 = tmp / "plugins" / "one", tmp / "plugins" / "two"
    plugin1.mkdir(parents=True)
    plugin2.mkdir(parents=True)
    register(
        cfg / "plugins" / "installed_plugins.json",
        {"one@market": [{"scope": "user", "installPath": str(plugin1), "version": "1.0.0"}]},
    )
    register(
        sw / "plugins" / "installed_plugins.json",
        {
            "broken@market": [{"scope": "user"}],  # no installPath: a diagnostic
            "two@market": [{"scope": "user", "installPath": str(plugin2), "version": "2.0.0"}],
        },
    )
    # plugins from a marketplace are third party, quarantined until approved: this test
    # is about where skills are found, so the user's config approves every one
    sw.mkdir(parents=True, exist_ok=True)
    # plugin skills keep their own names here (this test is about places and priority;
    # Claude Code's `plugin:skill` names are the provider's tests')
    (sw / "config.toml").write_text(
        '[trust]\napprove = ["*"]\n[skills]\nnamespace_plugin_skills = false\n', encoding="utf-8"
    )
    # enabled, as `claude plugin install` leaves it (Claude Code loads only enabled plugins)
    (cfg / "settings.json").write_text('{"enabledPlugins": {"one@market": true}}')
    places = (
        Place("native", "project", cwd / ".skillpath" / "skills"),
        Place("native", "project", project / ".skillpath" / "skills"),
        Place("native", "user", sw / "skills"),
        Place("claude", "managed", policy),
        Place("claude", "user", cfg / "skills"),
        Place("claude", "project", cwd / ".claude" / "skills"),
        Place("claude", "project", project / ".claude" / "skills"),
        Place("claude", "user", cfg / "commands", command=True),
        Place("claude", "project", cwd / ".claude" / "commands", command=True),
        Place("claude-plugins", "user", plugin1 / "skills"),
        Place("claude-plugins", "user", plugin2 / "skills"),
        Place("agents", "project", cwd / ".agent" / "skills"),
        Place("agents", "project", project / ".agents" / "skills"),
        Place("agents", "user", home / ".agents" / "skills"),
        Place("agents", "user", home / ".agent" / "skills"),
        Place("codex", "user", codex_home / "skills"),
        Place("codex", "project", cwd / ".codex" / "skills"),
        Place("opencode", "user", xdg / "opencode" / "skills"),
        Place("opencode", "project", cwd / ".opencode" / "skill"),
        Place("github", "project", cwd / ".github" / "skills"),
        Place("managed", "user", sw / "managed-skills"),
    )
    return World(tmp, home, project, cwd, cfg, codex_home, xdg, sw, policy, places)


def run_list(world: World) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "skillpath", "list", "--json", "--cwd", str(world.cwd)],
        capture_output=True,
        text=True,
        env=world.env(),
        cwd=world.tmp,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> tuple[World, dict[str, Any]]:
    world = w = build_world(tmp_path_factory.mktemp("e2e"))
    for i, place in enumerate(world.places):
        place.put("everywhere", f"copy {i}")
        place.put(f"only-{i:02d}", f"unique {i}")
    natives, claude_user_cmds = world.places[1], world.places[7]
    # a symlinked duplicate: the same file reached through ~/.agents/skills
    natives.put("twin", "the real one")
    (w.home / ".agents" / "skills" / "twin").symlink_to(natives.root / "twin")
    # a skill beats a legacy command of the same name inside claude
    claude_user_cmds.put("cmd-vs-skill", "the command")
    world.places[6].put("cmd-vs-skill", "the skill")
    # managed (auto-learned) skills never override a hand-written one
    world.places[20].put("learned", "auto-learned copy")
    world.places[14].put("learned", "hand-written copy")
    world.places[20].put("Bad_Name", "auto-learned, invalid name")
    world.places[20].put("sneaky", '"Use <b>me</b> `now`"')
    # bad YAML: recovered line by line (claude), unrecoverable where a description is needed
    (w.project / ".claude" / "skills" / "bad-yaml").mkdir(parents=True)
    (w.project / ".claude" / "skills" / "bad-yaml" / "SKILL.md").write_text(
        "---\ndescription: [unclosed\n---\nBody.\n"
    )
    (w.cwd / ".github" / "skills" / "no-yaml").mkdir(parents=True)
    (w.cwd / ".github" / "skills" / "no-yaml" / "SKILL.md").write_text("---\n: : :\n---\nB.\n")
    # a dangling symlink in a root
    (w.codex_home / "skills" / "gone").symlink_to(w.tmp / "nowhere")
    # the default locations the environment variables moved away from: never read
    for default in (
        w.home / ".claude" / "skills",
        w.home / ".codex" / "skills",
        w.home / ".config" / "opencode" / "skills",
        w.home / ".skillpath" / "skills",
        w.home / ".skillpath" / "managed-skills",
        w.tmp / "default-plugin" / "skills",
    ):
        Place("x", "user", default).put("not-read", "must not appear")
    register(
        w.home / ".claude" / "plugins" / "installed_plugins.json",
        {"default@m": [{"installPath": str(w.tmp / "default-plugin")}]},
    )
    return world, run_list(world)


def skill_map(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["name"]: s for s in data["skills"]}


def test_every_place_is_found_with_provider_and_level(
    scenario: tuple[World, dict[str, Any]],
) -> None:
    world, data = scenario
    skills = skill_map(data)
    for i, place in enumerate(world.places):
        skill = skills[f"only-{i:02d}"]
        assert (skill["provider"], skill["level"]) == (place.provider, place.level), place
        expected = place.root / (f"only-{i:02d}.md" if place.command else f"only-{i:02d}/SKILL.md")
        assert skill["path"] == str(expected)
        assert skill["description"] == f"unique {i}"


def test_priority_order_and_shadowing(scenario: tuple[World, dict[str, Any]]) -> None:
    world, data = scenario
    winner = skill_map(data)["everywhere"]
    first = world.places[0]
    assert (winner["provider"], winner["level"]) == (first.provider, first.level)
    assert winner["path"] == str(first.root / "everywhere" / "SKILL.md")
    losers = [s for s in data["shadowed"] if s["name"] == "everywhere"]
    assert [(s["provider"], s["level"]) for s in losers] == [
        (p.provider, p.level) for p in world.places[1:]
    ]
    assert [s["path"] for s in losers] == [
        str(p.root / ("everywhere.md" if p.command else "everywhere/SKILL.md"))
        for p in world.places[1:]
    ]
    assert {s["shadowed_by"] for s in losers} == {winner["path"]}
    assert {s["reason"] for s in losers} == {"name"}
    conflicts = [
        d
        for d in data["diagnostics"]
        if d["code"] == "name-conflict" and "'everywhere'" in d["message"]
    ]
    assert len(conflicts) == len(world.places) - 1


def test_symlinked_duplicate_loads_once(scenario: tuple[World, dict[str, Any]]) -> None:
    world, data = scenario
    twin = skill_map(data)["twin"]
    assert twin["provider"] == "native"
    (dup,) = [s for s in data["shadowed"] if s["name"] == "twin"]
    assert (dup["provider"], dup["reason"]) == ("agents", "duplicate-file")
    assert dup["path"] == str(world.home / ".agents" / "skills" / "twin" / "SKILL.md")


def test_skill_beats_command_and_hand_written_beats_managed(
    scenario: tuple[World, dict[str, Any]],
) -> None:
    world, data = scenario
    skills = skill_map(data)
    assert skills["cmd-vs-skill"]["description"] == "the skill"
    (cmd,) = [s for s in data["shadowed"] if s["name"] == "cmd-vs-skill"]
    assert cmd["path"] == str(world.claude_cfg / "commands" / "cmd-vs-skill.md")
    assert skills["learned"]["provider"] == "agents"
    (auto,) = [s for s in data["shadowed"] if s["name"] == "learned"]
    assert auto["provider"] == "managed"
    assert skills["sneaky"]["description"] == "Use bme/b now"


def diag_at(data: dict[str, Any], path: Path) -> list[dict[str, Any]]:
    return [d for d in data["diagnostics"] if d["path"] == str(path)]


def test_diagnostics_name_the_files(scenario: tuple[World, dict[str, Any]]) -> None:
    world, data = scenario
    skills = skill_map(data)
    bad_yaml = world.project / ".claude" / "skills" / "bad-yaml" / "SKILL.md"
    assert [(d["level"], d["code"]) for d in diag_at(data, bad_yaml)] == [
        ("warning", "frontmatter-yaml-error")
    ]
    # recovered line by line; the unclosed flow list is kept as the text written
    assert skills["bad-yaml"]["description"] == "[unclosed"
    no_yaml = world.cwd / ".github" / "skills" / "no-yaml" / "SKILL.md"
    assert "no-yaml" not in skills
    assert "missing-description" in {d["code"] for d in diag_at(data, no_yaml)}
    gone = diag_at(data, world.codex_home / "skills" / "gone")
    assert [d["code"] for d in gone] == ["broken-symlink"]
    registry = world.sw_home / "plugins" / "installed_plugins.json"
    assert [d["code"] for d in diag_at(data, registry)] == ["bad-plugin-entry"]
    bad_name = world.sw_home / "managed-skills" / "Bad_Name" / "SKILL.md"
    assert [d["code"] for d in diag_at(data, bad_name)] == ["invalid-managed-name"]
    assert "Bad_Name" not in skills
    assert all(d["path"] for d in data["diagnostics"] if d["level"] == "error")


def test_environment_variables_are_honoured(scenario: tuple[World, dict[str, Any]]) -> None:
    world, data = scenario
    text = json.dumps(data)
    assert "not-read" not in text
    assert str(world.home / ".claude") not in text
    assert str(world.home / ".codex") not in text
    assert str(world.home / ".config") not in text
    assert str(world.home / ".skillpath") not in text


def test_output_is_stable(scenario: tuple[World, dict[str, Any]]) -> None:
    world, data = scenario
    assert run_list(world) == data
    names = [s["name"] for s in data["skills"]]
    assert names == sorted(names, key=lambda n: (n.casefold(), n))
