"""AGENTS.md context files: a cloned repository cannot pull a file from elsewhere
on the machine into the model's context, and special files never hang."""

from __future__ import annotations

import os

from skillpath.context_files import discover_context_files
from skillpath.model import Diagnostic

from ..conftest import Env

KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n"


def _discover_from(env: Env, cwd: os.PathLike[str]) -> tuple[dict[str, str], list[Diagnostic]]:
    diags: list[Diagnostic] = []
    found = discover_context_files(cwd, home=env.home, diagnostics=diags)
    return {str(f.path): f.content for f in found}, diags


def _discover(env: Env) -> tuple[dict[str, str], list[Diagnostic]]:
    return _discover_from(env, env.project)


def test_a_repository_symlink_to_a_file_outside_is_skipped(isolated_env: Env) -> None:
    secret = isolated_env.home / ".ssh" / "id_ed25519"
    secret.parent.mkdir()
    secret.write_text(KEY)
    sub = isolated_env.project / "pkg"
    sub.mkdir()
    os.symlink(secret, sub / "AGENTS.md")
    elsewhere = isolated_env.project.parent / "elsewhere.md"
    elsewhere.write_text("not from this repository\n")
    os.symlink(elsewhere, isolated_env.project / "AGENTS.md")
    found, diags = _discover_from(isolated_env, sub)
    assert found == {}
    assert "BEGIN" not in repr(found) + repr(diags) and "not from this" not in repr(found)
    outside = [d for d in diags if d.code == "context-file-outside"]
    assert {d.path for d in outside} == {sub / "AGENTS.md", isolated_env.project / "AGENTS.md"}
    assert all(d.level == "warning" for d in outside)


def test_symlinks_inside_the_repository_still_work(isolated_env: Env) -> None:
    (isolated_env.project / "CLAUDE.md").write_text("project rules\n")
    os.symlink("CLAUDE.md", isolated_env.project / "AGENTS.md")
    found, diags = _discover(isolated_env)
    assert found == {str(isolated_env.project / "AGENTS.md"): "project rules\n"}
    assert diags == []


def test_fifo_and_directory_named_agents_md_do_not_hang(isolated_env: Env) -> None:
    os.mkfifo(isolated_env.project / "AGENTS.md")
    sub = isolated_env.project / "sub"
    (sub / "AGENTS.md").mkdir(parents=True)
    found, diags = _discover_from(isolated_env, sub)
    assert found == {}
    assert {d.code for d in diags} == {"unreadable-context-file"}
    assert len(diags) == 2
