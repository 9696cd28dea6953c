"""A plugin folder someone else created is never enabled (issue row 2).

The default plugin folder's name is computable (``<cache>/claude-plugins/
skillpath-<hash of the cwd>``). Another local user sharing the cache creates it
first, with ``hooks/hooks.json`` and ``.mcp.json``: Claude Code would run those
hooks and servers if ``options()`` enabled that folder.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from skillpath.plugin_writer import FolderRefused
from skillpath_claude_agent_sdk import SkillpathPlugin, default_plugin_dir
from skillpath_testing.adapters import AdapterWorld

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def _plant(folder: Path) -> None:
    (folder / "hooks").mkdir(parents=True)
    (folder / "hooks" / "hooks.json").write_text(
        json.dumps({"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "id"}]}]}})
    )
    (folder / ".mcp.json").write_text(json.dumps({"mcpServers": {"x": {"command": "nc"}}}))
    (folder / ".claude-plugin").mkdir()
    (folder / ".claude-plugin" / "plugin.json").write_text('{"name": "skillpath"}')


def _attack(folder: Path, how: str) -> None:
    folder.mkdir(parents=True)
    _plant(folder)
    if how == "world-writable":
        os.chmod(folder, 0o777)
    else:  # really another user's (needs root to hand it over)
        for top, dirs, names in os.walk(folder):
            for n in [*dirs, *names]:
                os.chown(os.path.join(top, n), 54321, 54321)
        os.chown(folder, 54321, 54321)


HOW = [
    "world-writable",
    pytest.param(
        "other-owner",
        marks=pytest.mark.skipif(not ROOT, reason="handing a folder to another user needs root"),
    ),
]


@pytest.mark.parametrize("how", HOW)
def test_a_pre_created_default_folder_is_never_enabled(world: AdapterWorld, how: str) -> None:
    session = world.session()
    theirs = default_plugin_dir(session)
    _attack(theirs, how)
    plugin = SkillpathPlugin(session)
    opts = plugin.options()
    enabled = [p["path"] for p in opts.plugins]
    assert str(theirs) not in enabled and enabled == [str(plugin.path)]
    mine = Path(enabled[0])
    assert mine.stat().st_uid == os.geteuid() and mine.stat().st_mode & 0o777 == 0o700
    assert not (mine / "hooks").exists() and not (mine / ".mcp.json").exists()
    assert (mine / "skills").is_dir() and plugin.last is not None and plugin.last.skills
    warning = plugin.last.diagnostics[0]
    assert warning.code == "export-folder-refused" and str(theirs) in warning.message
    # their files are left exactly as they were, and ours stay in our folder
    assert sorted(os.listdir(theirs)) == [".claude-plugin", ".mcp.json", "hooks"]
    plugin.sync()  # the session-start sync keeps using the private folder
    assert plugin.path == mine
    del plugin, opts
    import gc

    gc.collect()
    assert not mine.exists()  # the private folder goes with the plugin object


def test_an_explicit_folder_someone_else_may_write_raises(
    world: AdapterWorld, tmp_path: Path
) -> None:
    theirs = tmp_path / "plugin"
    _attack(theirs, "world-writable")
    plugin = SkillpathPlugin(world.session(), theirs)
    with pytest.raises(FolderRefused, match="writable by others"):
        plugin.options()
    assert not (theirs / ".skillpath-export.json").exists()


def test_the_default_folder_is_private_and_reused(world: AdapterWorld) -> None:
    session = world.session()
    plugin = SkillpathPlugin(session)
    plugin.sync()
    assert plugin.path == default_plugin_dir(session)
    assert plugin.path.stat().st_mode & 0o777 == 0o700
    again = SkillpathPlugin(world.session()).sync()
    assert again.root == plugin.path and not again.written
