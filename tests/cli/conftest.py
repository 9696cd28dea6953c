"""Fixtures for the command-line tests: real projects in tmp dirs, run in-process."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import attrs
import pytest
from click.testing import CliRunner, Result
from skillpath.cli import main

from ..conftest import Env, skill_md


@attrs.define
class Cli:
    """Runs ``skillpath`` in-process with the isolated environment."""

    env: Env

    def run(self, *args: str | os.PathLike[str], cwd: Path | None = None) -> Result:
        """``skillpath <command> --cwd <project> <args>``; the exit code is in the result."""
        command, *rest = (str(a) for a in args)
        argv = [command, "--cwd", str(cwd if cwd is not None else self.env.project), *rest]
        return CliRunner().invoke(main, argv, catch_exceptions=False)

    def json(self, *args: str | os.PathLike[str], cwd: Path | None = None) -> Any:
        """Run with ``--json`` and parse stdout."""
        command, *rest = args
        res = self.run(command, "--json", *rest, cwd=cwd)
        return json.loads(res.stdout)


@pytest.fixture
def cli(isolated_env: Env) -> Cli:
    """A CLI runner bound to the isolated home and project."""
    return Cli(isolated_env)


def write(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` (parents created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def doctor_project(isolated_env: Env) -> Env:
    """One project where ``doctor`` meets every status and every skip reason.

    ``.skillpath/skills`` (native, project) holds: alpha (loaded), hidden-tool
    (hidden), gated (conditional), no-desc (missing-description), turned-off
    (disabled), scratch-notes (ignored), extra (not-included), zz-alpha-link (a
    symlink to alpha: duplicate-file) and bad-name (invalid-name). The user's
    ``~/.skillpath/skills/user-only`` is skipped because enable_native_user is
    off (source-disabled), and ``more-skills/alpha`` (a custom directory named
    by the project's config, so level ``project``) is shadowed by the native alpha.
    """
    env = isolated_env
    p = env.project
    write(
        p / ".skillpath" / "config.toml",
        """[skills]
enable_native_user = false
disabled_extensions = ["skill:turned-off"]
ignored = ["scratch-*"]
include = ["alpha", "hidden-tool", "gated", "turned-off", "scratch-notes", "user-only", "zz-*"]
custom_directories = ["more-skills"]
""",
    )
    root = p / ".skillpath" / "skills"
    write(root / "alpha" / "SKILL.md", skill_md("Alpha skill."))
    write(root / "alpha" / "references" / "notes.md", "notes\n")
    write(root / "hidden-tool" / "SKILL.md", skill_md("Hidden one.", hide="true"))
    write(root / "gated" / "SKILL.md", skill_md("Only for src.", paths='"src/**"'))
    write(root / "no-desc" / "SKILL.md", skill_md(None, name="no-desc"))
    write(root / "turned-off" / "SKILL.md", skill_md("Turned off."))
    write(root / "scratch-notes" / "SKILL.md", skill_md("Scratch."))
    write(root / "extra" / "SKILL.md", skill_md("Not included."))
    write(root / "bad-name" / "SKILL.md", skill_md("Bad name.", name='"a/b"'))
    (root / "zz-alpha-link").symlink_to(root / "alpha", target_is_directory=True)
    write(env.home / ".skillpath" / "skills" / "user-only" / "SKILL.md", skill_md("User."))
    write(p / "more-skills" / "alpha" / "SKILL.md", skill_md("Custom alpha."))
    return env


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Output goes to an 80-column terminal (the tables fit it; piped output is never cut),
    without colour (``NO_COLOR``), so that lines are measured as they show."""
    monkeypatch.setattr("skillpath.cli._common.is_terminal", lambda err=False: True)
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("NO_COLOR", "1")
