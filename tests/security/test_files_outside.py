"""A cloned repository must not pull files from elsewhere on the machine through symlinks.

The attack: ``.claude/commands/notes.md -> ~/.git-credentials`` (or a skill
folder, a skills root, a ``SKILL.md``, an ``AGENTS.md``, a config file linked
out of the repository). The one containment rule
(:func:`skillpath.safety.project_area`): a file that project discovery reads
must resolve inside the repository holding it. The target's text — its
frontmatter ``name`` included — never reaches the listing, ``read``, the
prompt or ``doctor``; ``doctor`` names the link and the reason. Links that stay
inside the repository (mirrors of a skills folder) keep working, and the
user's own folders may link anywhere.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from skillpath import SkillSession, load_skills
from skillpath.context_files import discover_context_files

from ..conftest import Env

SECRET = "SECRET-TOKEN-4242"
LEAK_NAME = "leaked-frontmatter-name"
LIMIT = 60


def _secret(env: Env, name: str = ".git-credentials") -> Path:
    """A private file in the user's home whose text (frontmatter included) must never leak."""
    path = env.home / name
    path.write_text(
        f"---\nname: {LEAK_NAME}\ndescription: {SECRET}\n---\nhttps://u:{SECRET}@example.com\n",
        encoding="utf-8",
    )
    return path


def _cli(env: Env, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "skillpath", *args, "--cwd", str(env.project)],
        capture_output=True,
        text=True,
        env=env.env,
        timeout=LIMIT,
        stdin=subprocess.DEVNULL,
    )


def _everything(env: Env) -> str:
    """Every output an agent or a user could see: list (all formats), doctor, context."""
    out = []
    for args in (("list",), ("list", "--json"), ("doctor",), ("doctor", "--json")):
        proc = _cli(env, *args)
        out.append(proc.stdout + proc.stderr)
    return "\n".join(out)


def _doctor(env: Env) -> dict[str, Any]:
    proc = _cli(env, "doctor", "--json")
    return json.loads(proc.stdout)


def _codes(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for d in data["diagnostics"]:
        out.setdefault(d["code"], []).append(d)
    return out


def test_command_file_linked_to_credentials_is_refused(isolated_env: Env) -> None:
    secret = _secret(isolated_env)
    commands = isolated_env.project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "notes.md").symlink_to(secret)
    (commands / "fine.md").write_text("---\ndescription: A fine command.\n---\nDo it.\n")
    seen = _everything(isolated_env)
    assert SECRET not in seen and LEAK_NAME not in seen
    names = load_skills(isolated_env.project).names
    assert "notes" not in names and "fine" in names
    session = SkillSession.open(isolated_env.project)
    assert session.get("notes") is None
    proc = _cli(isolated_env, "read", "skill://notes")
    assert proc.returncode != 0 and SECRET not in proc.stdout + proc.stderr
    outside = _codes(_doctor(isolated_env))["file-outside-project"]
    assert [Path(d["path"]).name for d in outside] == ["notes.md"]
    assert "outside the project" in outside[0]["message"]


def test_commands_folder_linked_out_of_the_repository_is_refused(isolated_env: Env) -> None:
    private = isolated_env.home / "private-notes"
    private.mkdir()
    (private / "diary.md").write_text(f"---\ndescription: {SECRET}\n---\n{SECRET}\n")
    (isolated_env.project / ".claude").mkdir()
    (isolated_env.project / ".claude" / "commands").symlink_to(private)
    assert SECRET not in _everything(isolated_env)
    assert "diary" not in load_skills(isolated_env.project).names


def test_skill_folder_and_skill_file_linked_out_are_refused_unread(isolated_env: Env) -> None:
    secret = _secret(isolated_env, "secret.md")
    outside_folder = isolated_env.home / "elsewhere" / "private-skill"
    outside_folder.mkdir(parents=True)
    (outside_folder / "SKILL.md").write_text(
        f"---\nname: {LEAK_NAME}\ndescription: {SECRET}\n---\n{SECRET}\n"
    )
    (outside_folder / "notes.txt").write_text(SECRET)
    root = isolated_env.project / ".claude" / "skills"
    root.mkdir(parents=True)
    (root / "borrowed").symlink_to(outside_folder, target_is_directory=True)
    (root / "linked-file").mkdir()
    (root / "linked-file" / "SKILL.md").symlink_to(secret)
    seen = _everything(isolated_env)
    assert SECRET not in seen and LEAK_NAME not in seen
    names = load_skills(isolated_env.project).names
    assert not {"borrowed", "linked-file", LEAK_NAME} & set(names)
    proc = _cli(isolated_env, "read", "skill://borrowed/notes.txt")
    assert proc.returncode != 0 and SECRET not in proc.stdout + proc.stderr
    codes = _codes(_doctor(isolated_env))
    paths = {Path(d["path"]).name for d in codes["file-outside-project"]}
    assert "borrowed" in paths
    assert any(Path(d["path"]).parent.name == "linked-file" for d in codes["skill-file-outside"])


def test_skills_root_linked_out_of_the_repository_is_refused(isolated_env: Env) -> None:
    outside = isolated_env.home / "their-skills"
    isolated_env.skill(outside, "stolen", SECRET)
    (isolated_env.project / ".agents").mkdir()
    (isolated_env.project / ".agents" / "skills").symlink_to(outside, target_is_directory=True)
    assert SECRET not in _everything(isolated_env)
    assert "stolen" not in load_skills(isolated_env.project).names
    codes = _codes(_doctor(isolated_env))
    assert any(Path(d["path"]).name == "skills" for d in codes["file-outside-project"])


def test_project_config_files_linked_out_are_not_read(isolated_env: Env) -> None:
    evil = isolated_env.home / "evil.toml"
    evil.write_text('[skills]\ninclude = ["nothing-at-all"]\n')
    isolated_env.skill(".skillpath/skills", "kept", "Still listed.")
    (isolated_env.project / ".skillpath" / "config.toml").symlink_to(evil)
    settings = isolated_env.home / "claude-settings.json"
    settings.write_text(json.dumps({"enabledPlugins": {"x@y": False}, "note": SECRET}))
    (isolated_env.project / ".claude").mkdir()
    (isolated_env.project / ".claude" / "settings.json").symlink_to(settings)
    res = load_skills(isolated_env.project)
    assert "kept" in res.names  # the linked config's filter did not apply
    codes = {d.code for d in res.diagnostics}
    assert "settings-outside-project" in codes
    assert SECRET not in _everything(isolated_env)


def test_agents_md_linked_out_outside_a_repository_is_refused(isolated_env: Env) -> None:
    secret = _secret(isolated_env)
    plain = isolated_env.project.parent / "plain"  # no repository, outside home
    plain.mkdir()
    (plain / "AGENTS.md").symlink_to(secret)
    diags: list[Any] = []
    found = discover_context_files(plain, home=isolated_env.home, diagnostics=diags)
    assert all(SECRET not in f.content for f in found)
    assert any(d.code == "context-file-outside" for d in diags)


def test_links_inside_the_repository_still_work(isolated_env: Env) -> None:
    """Mirrors used by real skills repositories: one folder, several agents' roots."""
    real = isolated_env.skill("skills", "shared", "Shared skill.")
    (real.parent / "ref.md").write_text("reference\n")
    for root in (".claude/skills", ".agents/skills"):
        (isolated_env.project / root).mkdir(parents=True)
        (isolated_env.project / root / "shared").symlink_to(
            os.path.relpath(real.parent, isolated_env.project / root), target_is_directory=True
        )
    (isolated_env.project / ".github").symlink_to(".claude", target_is_directory=True)
    commands = isolated_env.project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (isolated_env.project / "docs").mkdir()
    (isolated_env.project / "docs" / "deploy.md").write_text("---\ndescription: Deploy.\n---\n")
    (commands / "deploy.md").symlink_to("../../docs/deploy.md")
    res = load_skills(isolated_env.project)
    assert {"shared", "deploy"} <= set(res.names)
    assert not [d for d in res.diagnostics if d.code.endswith("outside-project")]
    session = SkillSession.open(isolated_env.project)
    assert session.resolve("skill://shared/ref.md").content == "reference\n"


def test_the_users_own_folders_may_link_anywhere(isolated_env: Env) -> None:
    elsewhere = isolated_env.project.parent / "dotfiles" / "commands"
    elsewhere.mkdir(parents=True)
    (elsewhere / "mine.md").write_text("---\ndescription: Mine.\n---\n")
    commands = isolated_env.home / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "mine.md").symlink_to(elsewhere / "mine.md")
    assert "mine" in load_skills(isolated_env.project).names
