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
