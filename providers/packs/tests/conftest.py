"""Fixtures: a private home and cache, and real pack distributions on a site directory."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator, Mapping
from pathlib import Path

import attrs
import pytest
from skillpath import reset_plugin_host
from skillpath.extract import reset_extraction_state
from skillpath_testing import isolate_environment


@attrs.frozen
class Link:
    """A symbolic link to create instead of a file."""

    target: str


@attrs.define
class World:
    """A private home, project and cache; ``site`` is a directory put on ``sys.path``."""

    home: Path
    project: Path
    cache: Path
    site: Path
    env: dict[str, str]

    def dist(
        self,
        name: str,
        version: str,
        entry_points: Mapping[str, str],
        files: Mapping[str, str | bytes | Link],
    ) -> Path:
        """Install a distribution by hand: files under ``site`` plus a ``.dist-info``."""
        for rel, content in files.items():
            path = self.site / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, Link):
                path.symlink_to(content.target)
            elif isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        info = self.site / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
        )
        lines = ["[skillpath.packs]"] + [f"{k} = {v}" for k, v in entry_points.items()]
        (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        return info


def skill_md(description: str, body: str = "Body.\n", **fields: str) -> str:
    """``SKILL.md`` text with a description and extra frontmatter fields."""
    extra = "".join(f"{k.replace('_', '-')}: {v}\n" for k, v in fields.items())
    return f"---\ndescription: {description}\n{extra}---\n{body}"


def unique(prefix: str) -> str:
    """A package name no earlier test imported."""
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    """Private HOME/XDG dirs, ``SKILLPATH_CACHE_DIR`` in tmp, ``site`` on ``sys.path``."""
    site = tmp_path / "site"
    cache = tmp_path / "cache"
    site.mkdir()
    home, project = isolate_environment(monkeypatch, tmp_path, cache_dir=cache)
    monkeypatch.syspath_prepend(str(site))
    reset_extraction_state()
    yield World(home, project, cache, site, dict(os.environ))
    reset_plugin_host()
    reset_extraction_state()
