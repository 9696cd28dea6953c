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


# -- 4c: a sticky ancestor is judged by the entries read from it ---------------
#
# A sticky world-writable folder (``/tmp``) lets anyone create entries but not
# replace another user's. Only the names the project area reads from it
# (skillpath.context.PROJECT_AREA_ENTRIES, and a caller's own) are looked up,
# so a busy /tmp does not change the answer; a planted one is still refused.


def _sticky_diag(res: Any, shared: Path, entry: str, what: str) -> None:
    (diag,) = _unsafe(res, shared)
    assert f"writable by others (mode 0o1777), sticky, and its {entry} {what}" in diag.message
    assert diag.message.startswith("project skills, settings and context not loaded from here (")


@needs_root
@pytest.mark.parametrize("entry", [".claude", ".agents", ".agent", "AGENTS.md", ".skillpath"])
def test_another_users_entry_in_a_sticky_ancestor_is_refused(
    isolated_env: Env, tmp_path: Path, entry: str
) -> None:
    shared, work = _workdir(isolated_env, tmp_path, 0o1777)
    (shared / ".agent" / "skills" / "planted-agent").mkdir(parents=True)
    (shared / ".agent" / "skills" / "planted-agent" / "SKILL.md").write_text(
        "---\ndescription: Planted.\n---\n!`id`\n"
    )
    assert "planted-agent" in _planted_names(load_skills(work))  # all ours: kept
    os.chown(shared / entry, OTHER_UID, OTHER_UID, follow_symlinks=False)
    res = load_skills(work)
    assert _planted_names(res) == []  # the whole folder, not just the planted entry
    _sticky_diag(res, shared, entry, f"is owned by uid {OTHER_UID}")
    diags: list[Any] = []
    assert discover_context_files(work, home=isolated_env.home, diagnostics=diags) == []
    assert [d.path for d in diags if d.code == "unsafe-project-dir"] == [shared / "AGENTS.md"]
    ctx, _ = make_context(work)
    assert shared not in ctx.walk_up() and shared not in ctx.walk_up(entries=())


def test_an_entry_others_may_write_in_a_sticky_ancestor_is_refused(
    isolated_env: Env, tmp_path: Path
) -> None:
    shared, work = _workdir(isolated_env, tmp_path, 0o1777)
    os.chmod(shared / ".claude", 0o777)
    res = load_skills(work)
    assert _planted_names(res) == []
    _sticky_diag(res, shared, ".claude", "is writable by others")


@needs_root
def test_a_symlink_entry_of_another_user_in_a_sticky_ancestor_is_refused(
    isolated_env: Env, tmp_path: Path
) -> None:
    shared, work = _workdir(isolated_env, tmp_path, 0o1777)
    elsewhere = tmp_path / "elsewhere"
    (shared / ".claude").rename(elsewhere)  # a folder of ours, with skills
    os.symlink(elsewhere, shared / ".claude")
    assert not _unsafe(load_skills(work), shared)  # our own link: the folder still counts
    os.chown(shared / ".claude", OTHER_UID, OTHER_UID, follow_symlinks=False)
    res = load_skills(work)
    assert _planted_names(res) == []
    _sticky_diag(res, shared, ".claude", f"is owned by uid {OTHER_UID}")


@needs_root
def test_other_users_unrelated_entries_in_a_sticky_ancestor_do_not_count(
    isolated_env: Env, tmp_path: Path
) -> None:
    shared, work = _workdir(isolated_env, tmp_path, 0o1777)
    for name in (".X0-lock", ".cache-of-someone", "build.log"):
        (shared / name).write_text("theirs\n")
        os.chown(shared / name, OTHER_UID, OTHER_UID)
    res = load_skills(work)
    assert "planted-claude" in _planted_names(res)  # our own entries: kept
    assert not _unsafe(res, shared)
    from skillpath.context import unsafe_dir_reason

    # a caller that does not say what it reads still gets the listing's answer
    assert "its .X0-lock is owned by uid" in (unsafe_dir_reason(shared) or "")
    assert unsafe_dir_reason(shared, ()) is None
    # a third-party provider names its own folder; the project area's are always checked
    (shared / ".cursor").mkdir()
    os.chown(shared / ".cursor", OTHER_UID, OTHER_UID)
    assert unsafe_dir_reason(shared, ()) is None
    assert "its .cursor is owned by uid" in (unsafe_dir_reason(shared, (".cursor",)) or "")
    assert "its .cursor is owned by uid" in (unsafe_dir_reason(shared, [".cursor/skills"]) or "")
    ctx, _ = make_context(work)
    assert shared in ctx.walk_up(entries=(".claude",))
    assert shared not in ctx.walk_up(entries=(".cursor",))
    for name in ("pyproject.toml", ".venv", ".git"):  # read by the libraries provider, the repo
        (shared / name).write_text("theirs\n")
        os.chown(shared / name, OTHER_UID, OTHER_UID)
        assert f"its {name} is owned by uid" in (unsafe_dir_reason(shared, ()) or "")
        (shared / name).unlink()


def test_a_sticky_ancestor_is_not_listed(
    isolated_env: Env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its entries are looked up by name, so the load does not depend on its listing."""
    shared, work = _workdir(isolated_env, tmp_path, 0o1777)
    for var in ("CLAUDE_POLICY_DIR", "CLAUDE_MANAGED_DIR", "CODEX_ADMIN_DIR"):
        # missing roots have their parent listed (near-miss names): not tmp_path here
        monkeypatch.setenv(f"SKILLPATH_{var}", str(tmp_path / "etc" / var.lower()))
    listed: list[str] = []
    real_scandir, real_listdir = os.scandir, os.listdir

    def scandir(path: Any = ".") -> Any:
        listed.append(os.path.abspath(os.fspath(path)))
        return real_scandir(path)

    def listdir(path: Any = ".") -> Any:
        listed.append(os.path.abspath(os.fspath(path)))
        return real_listdir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "listdir", listdir)
    res = load_skills(work)
    discover_context_files(work, home=isolated_env.home)
    assert "planted-claude" in _planted_names(res)
    above = {str(shared), *map(str, shared.parents)}
    assert sorted(above & set(listed)) == []
