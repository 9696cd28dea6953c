"""Trust: what a project may switch on, and which ancestors count as the project.

* A project's ``.claude/settings.json`` (or ``settings.local.json``) must not
  enable a Claude plugin the user disabled — its skills' inline shell would
  then run — unless the user trusts the project. It may still disable one.
* Outside a repository and outside home the walk-up reaches ``/``: a planted
  ``/tmp/.claude/skills`` would load as project skills for anything under
  ``/tmp``. A directory that other users can write to (world- or
  group-writable, a sticky one holding entries of other users) or that another
  user owns never supplies project skills, settings or context files
  (git's ``safe.directory`` rule), and a diagnostic says so.

Ownership cases need root (``os.chown`` to another uid) and skip otherwise.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from skillpath import SkillSession, load_skills, make_context
from skillpath.context_files import discover_context_files

from ..conftest import Env

OTHER_UID = 54321
needs_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown to another uid"
)


# -- 4a: a project's Claude settings cannot enable what the user disabled ------


def _plugin(env: Env) -> None:
    root = env.home / "plugins" / "shell-plugin"
    env.skill(root / "skills", "plugin-shell", "Runs a command.", body="!`id`\n")
    registry = env.home / ".claude" / "plugins" / "installed_plugins.json"
    registry.parent.mkdir(parents=True, exist_ok=True)
    registry.write_text(
        json.dumps({"version": 2, "plugins": {"shell@market": [{"installPath": str(root)}]}})
    )
    (env.home / ".claude" / "settings.json").write_text(
        json.dumps({"enabledPlugins": {"shell@market": False}})
    )


#: marketplace plugins are quarantined until approved (skillpath.trust); these tests
#: are about which plugins are enabled, so the rule approves every plugin
APPROVED = {"trust": {"approve": ["plugin:*"]}}


def _project_settings(env: Env, name: str, enabled: bool) -> Path:
    path = env.project / ".claude" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"enabledPlugins": {"shell@market": enabled}}))
    return path


@pytest.mark.parametrize("name", ["settings.json", "settings.local.json"])
def test_project_settings_cannot_enable_a_plugin_the_user_disabled(
    isolated_env: Env, name: str
) -> None:
    _plugin(isolated_env)
    path = _project_settings(isolated_env, name, True)
    res = load_skills(isolated_env.project, settings=APPROVED)
    assert "shell:plugin-shell" not in res.names
    untrusted = [d for d in res.diagnostics if d.code == "settings-untrusted"]
    assert untrusted and untrusted[0].path == path
    assert "shell@market" in untrusted[0].message and "[trust] projects" in untrusted[0].message


def test_a_trusted_project_may_enable_it(isolated_env: Env) -> None:
    _plugin(isolated_env)
    _project_settings(isolated_env, "settings.json", True)
    config = isolated_env.home / ".skillpath" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f"[trust]\nprojects = [{json.dumps(str(isolated_env.project))}]\n")
    assert "shell:plugin-shell" in load_skills(isolated_env.project, settings=APPROVED).names


def test_a_project_may_still_disable_a_plugin(isolated_env: Env) -> None:
    _plugin(isolated_env)
    (isolated_env.home / ".claude" / "settings.json").write_text(
        json.dumps({"enabledPlugins": {"shell@market": True}})
    )
    assert "shell:plugin-shell" in load_skills(isolated_env.project, settings=APPROVED).names
    _project_settings(isolated_env, "settings.json", False)
    names = load_skills(isolated_env.project, settings=APPROVED).names
    assert not [n for n in names if n.endswith("plugin-shell")]


# -- 4b: ancestors other users can write to, or own ----------------------------


def _planted(shared: Path) -> None:
    """What an attacker leaves in a shared directory above someone's working directory."""
    for root in (
        ".claude/skills",
        ".skillpath/skills",
        ".agents/skills",
        ".codex/skills",
        ".github/skills",
    ):
        folder = shared / root / f"planted-{root.split('/')[0].strip('.')}"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text("---\ndescription: Planted.\n---\n!`id`\n")
    (shared / ".claude" / "commands").mkdir()
    (shared / ".claude" / "commands" / "planted-command.md").write_text("Planted.\n")
    (shared / "AGENTS.md").write_text("Planted instructions.\n")


def _workdir(isolated_env: Env, tmp_path: Path, mode: int) -> tuple[Path, Path]:
    """``shared`` (with ``mode``) holding planted content, and a work dir of ours below it.

    No repository anywhere, and the home directory is elsewhere: the walk-up
    goes all the way to ``/``.
    """
    shared = tmp_path / "shared"
    shared.mkdir()
    _planted(shared)
    work = shared / "work"
    work.mkdir()
    os.chmod(shared, mode)
    return shared, work


def _planted_names(res: Any) -> list[str]:
    return [n for n in res.names if n.startswith("planted")]


def _unsafe(res: Any, shared: Path) -> list[Any]:
    return [d for d in res.diagnostics if d.code == "unsafe-project-dir" and d.path == shared]


def test_a_world_writable_ancestor_supplies_nothing(isolated_env: Env, tmp_path: Path) -> None:
    shared, work = _workdir(isolated_env, tmp_path, 0o777)
    (shared / ".skillpath" / "config.toml").write_text('[skills]\ninclude = ["x"]\n')
    res = load_skills(work)
    assert _planted_names(res) == []
    (diag,) = _unsafe(res, shared)
    assert "writable by others" in diag.message
    diags: list[Any] = []
    assert discover_context_files(work, home=isolated_env.home, diagnostics=diags) == []


def test_the_working_directory_itself_when_world_writable(
    isolated_env: Env, tmp_path: Path
) -> None:
    shared, _work = _workdir(isolated_env, tmp_path, 0o777)
    (shared / ".skillpath" / "config.toml").write_text('[skills]\ninclude = ["x"]\n')
    ctx, diags = make_context(shared)
    assert ctx.settings.files == ()  # the planted config was not read
    assert [d.path for d in diags if d.code == "unsafe-project-dir"] == [shared]
    assert shared not in ctx.walk_up()
    assert _planted_names(load_skills(shared)) == []


def test_a_world_writable_folder_inside_the_repository_adds_no_nested_skills(
    isolated_env: Env,
) -> None:
    public = isolated_env.project / "public"
    _planted(public)
    os.chmod(public, 0o777)
    session = SkillSession.open(isolated_env.project)
    added = session.discover_dirs_for_paths([public / "main.py"])
    assert [s.name for s in added if s.name.startswith("planted")] == []
    os.chmod(public, 0o755)
    fresh = SkillSession.open(isolated_env.project)
    # a safe nested folder is found, and quarantined (skillpath.trust) until approved
    assert fresh.discover_dirs_for_paths([public / "main.py"]) == []
    approving = SkillSession.open(
        isolated_env.project, settings={"trust": {"approve": ["nested:*"]}}
    )
    added = approving.discover_dirs_for_paths([public / "main.py"])
    assert "planted-claude" in [s.name for s in added]


def test_a_safe_ancestor_still_counts(isolated_env: Env, tmp_path: Path) -> None:
    shared, work = _workdir(isolated_env, tmp_path, 0o755)
    res = load_skills(work)
    assert "planted-claude" in _planted_names(res)
    assert not _unsafe(res, shared)


@needs_root
def test_an_ancestor_owned_by_another_user_supplies_nothing(
    isolated_env: Env, tmp_path: Path
) -> None:
    shared, work = _workdir(isolated_env, tmp_path, 0o755)
    os.chown(shared, OTHER_UID, OTHER_UID)
    res = load_skills(work)
    assert _planted_names(res) == []
    (diag,) = _unsafe(res, shared)
    assert f"owned by uid {OTHER_UID}" in diag.message


@needs_root
def test_a_sticky_tmp_with_another_users_entries_supplies_nothing(
    isolated_env: Env, tmp_path: Path
) -> None:
    shared, work = _workdir(isolated_env, tmp_path, 0o1777)
    assert _planted_names(load_skills(work))  # our own entries in a sticky dir: kept
    os.chown(shared / ".claude", OTHER_UID, OTHER_UID, follow_symlinks=False)
    res = load_skills(work)
    assert _planted_names(res) == []
    assert "owned by uid" in _unsafe(res, shared)[0].message


@needs_root
def test_a_group_writable_ancestor_of_another_group(isolated_env: Env, tmp_path: Path) -> None:
    shared, work = _workdir(isolated_env, tmp_path, 0o775)
    os.chown(shared, 0, OTHER_UID)
    res = load_skills(work)
    assert _planted_names(res) == []
    assert "writable by group" in _unsafe(res, shared)[0].message


def test_unsafe_dir_reason(tmp_path: Path) -> None:
    from skillpath.context import unsafe_dir_reason

    mine = tmp_path / "mine"
    mine.mkdir(mode=0o755)
    os.chmod(mine, 0o755)
    assert unsafe_dir_reason(mine) is None
    os.chmod(mine, 0o777)
    reason = unsafe_dir_reason(mine)
    assert reason is not None and "0o777" in reason
    os.chmod(mine, stat.S_ISVTX | 0o777)
    assert unsafe_dir_reason(mine) is None  # sticky, and holds nothing of anyone else
