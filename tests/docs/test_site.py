"""The documentation site's shape: what a reader meets before reading a page."""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]


def _titles(nav: list[Any]) -> list[str]:
    """The titles of ``nav``'s entries (pages and groups), at that level."""
    return [title for entry in nav if isinstance(entry, dict) for title in entry]


def _groups(nav: list[Any]) -> list[list[Any]]:
    """``nav`` and every group under it."""
    out = [nav]
    for entry in nav:
        if isinstance(entry, dict):
            for value in entry.values():
                if isinstance(value, list):
                    out += _groups(value)
    return out


def test_no_two_entries_of_one_nav_level_share_a_title() -> None:
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    for level in _groups(config["nav"]):
        twice = [title for title, n in Counter(_titles(level)).items() if n > 1]
        assert twice == [], f"the nav has two entries named {twice}"


def test_the_pack_tutorial_names_a_pack_of_its_own() -> None:
    """The tutorial's pack and the repository's example packs never share a name (one
    build folder, one environment: pip would install the example)."""
    page = (REPO / "docs" / "tutorials" / "skill-pack.md").read_text(encoding="utf-8")
    (made,) = re.findall(r"^skillpath new-pack (\S+)", page, re.MULTILINE)
    examples = {
        tomllib.loads(p.read_text(encoding="utf-8"))["project"]["name"]
        for p in (REPO / "plugins").glob("*/pyproject.toml")
    }
    assert "acme-skills" in examples and made not in examples
