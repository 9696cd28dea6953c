"""Shared fixtures: every test runs with a private HOME and project in tmp dirs."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest
from skillpath import reset_plugin_host
from skillpath_testing import isolate_environment


def skill_md(
    description: str | None = "A test skill.", body: str = "Body.\n", **fields: object
) -> str:
    """A ``SKILL.md`` text with ``description`` and extra frontmatter ``fields``
    (``snake_case`` keys are written ``kebab-case``)."""
    lines = ["---"]
    if description is not None:
        lines.append(f"description: {description}")
    lines += [f"{k.replace('_', '-')}: {v}" for k, v in fields.items()]
    return "\n".join([*lines, "---", body])


@attrs.define
class Env:
    """A private home and project directory, with the matching environment."""

    home: Path
    project: Path
    env: dict[str, str]

    def skill(
        self,
        root: Path | str,
        name: str,
        description: str | None = "A test skill.",
        body: str = "Body.\n",
        **fields: object,
    ) -> Path:
        """Write ``<root>/<name>/SKILL.md`` (root relative to the project) and return its path."""
        root = Path(root)
        if not root.is_absolute():
            root = self.project / root
        folder = root / name
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "SKILL.md"
        path.write_text(skill_md(description, body, **fields), encoding="utf-8")
        return path


@pytest.fixture
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Env]:
    """HOME, XDG dirs and every skillpath/agent variable point into ``tmp_path``.

    The project is ``tmp_path/project`` (a git repository root, outside HOME).
    """
    home, project = isolate_environment(monkeypatch, tmp_path)
    yield Env(home=home, project=project, env=dict(os.environ))
    reset_plugin_host()


class SkillTree:
    """A home and a project (a git repository) in ``tmp_path``, the environment that
    points a load or a command at them (``env``), and a writer of skills."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp = tmp_path
        self.home = tmp_path / "home"
        self.project = self.home / "work" / "proj"
        (self.project / ".git").mkdir(parents=True)
        self.env = {
            "HOME": str(self.home),
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_DATA_HOME": str(self.home / ".local" / "share"),
            "SKILLPATH_INDEX_RACY_MS": "0",
        }

    def skill(self, root: str, name: str, description: str = "A test skill.") -> Path:
        """Write ``<root>/<name>/SKILL.md``; ``root`` is in the project, or the home
        when it starts with ``~/``."""
        base = self.home / root[2:] if root.startswith("~/") else self.project / root
        folder = base / name
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "SKILL.md"
        path.write_text(skill_md(description), encoding="utf-8")
        return path

    def fill_mixed(self) -> None:
        """Six skills each in the project's ``.claude`` and ``.agents`` and the user's
        ``.claude``, one with broken YAML, and a symlinked duplicate."""
        for i in range(6):
            self.skill(".claude/skills", f"claude-{i}")
            self.skill(".agents/skills", f"agents-{i}")
            self.skill("~/.claude/skills", f"user-{i}")
        bad = self.project / ".claude" / "skills" / "broken"
        bad.mkdir()
        (bad / "SKILL.md").write_text("---\nname: [unclosed\n---\nbody\n")
        os.symlink(self.project / ".claude/skills/claude-0", self.project / ".agents/skills/linked")
