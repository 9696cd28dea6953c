"""Rules specific to the __PROVIDER_ID__ provider (add yours here)."""

from __future__ import annotations

from pathlib import Path

from skillpath_testing import discover, make_layout, write_skill


def test_nearest_project_dir_first(tmp_path: Path) -> None:
    world = make_layout(tmp_path)
    sub = world.project / "sub"
    write_skill(sub / ".__PROVIDER_ID__" / "skills", "same", "nearest")
    write_skill(world.project / ".__PROVIDER_ID__" / "skills", "same", "repository root")
    result = discover("__PROVIDER_ID__", world, cwd=sub)
    assert [s.description for s in result.skills] == ["nearest", "repository root"]
