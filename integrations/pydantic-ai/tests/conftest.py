"""Fixtures: the shared adapter test world (.claude/skills + the acme-skills pack)."""

from __future__ import annotations

from pathlib import Path

import pytest
from skillpath_testing.adapters import AdapterWorld, adapter_world


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AdapterWorld:
    return adapter_world(monkeypatch, tmp_path)
