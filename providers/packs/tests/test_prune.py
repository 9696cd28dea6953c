"""The extraction cache keeps only what is installed (``prune_trees``) and empties on demand."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from click.testing import CliRunner
from skillpath import load_skills
from skillpath.cache import clean_cache
from skillpath.cli import main
from skillpath.extract import MANIFEST, ensure_extracted, prune_trees
from skillpath_packs import find_pack

from .conftest import World, skill_md, unique

DAY = 24 * 3600


def install(world: World, pkg: str, version: str, text: str) -> Path:
    return world.dist(
        "prune-pack",
        version,
        {"prune": pkg},
        {f"{pkg}/__init__.py": "", f"{pkg}/pruned/SKILL.md": skill_md(text)},
    )


def extracted(world: World, version: str) -> Path:
    pack = find_pack("prune-pack", world.env)
    assert pack is not None and pack.version == version
    return ensure_extracted(pack.tree)


def age(tree: Path, seconds: float) -> None:
    """Make ``tree`` look unused for ``seconds`` (its manifest's mtime is its last use)."""
    then = time.time() - seconds
    os.utime(tree / MANIFEST, (then, then))
    stamp = tree.parent / ".pruned"
    if stamp.exists():
        os.utime(stamp, (then, then))


def test_an_upgraded_pack_leaves_no_old_tree_behind(world: World) -> None:
    pkg = unique("prunepack")
    info = install(world, pkg, "1.0", "First version.")
    old = extracted(world, "1.0")
    shutil.rmtree(info)
    shutil.rmtree(world.site / pkg)
    install(world, pkg, "2.0", "Second version.")
    new = extracted(world, "2.0")
    assert old != new and old.is_dir()
    age(old, 2 * DAY)
    res = load_skills(world.project, home=world.home, env=world.env)
    assert res.get("pruned").description == "Second version."
    assert not old.exists()
    assert new.is_dir()
    assert not [p for p in (world.cache / "packs").iterdir() if p.name.startswith(".stale")]


def test_an_uninstalled_pack_is_pruned_too(world: World) -> None:
    pkg = unique("prunepack")
    info = install(world, pkg, "1.0", "Gone soon.")
    tree = extracted(world, "1.0")
    shutil.rmtree(info)
    age(tree, 2 * DAY)
    load_skills(world.project, home=world.home, env=world.env)
    assert not tree.exists()


def test_a_recently_used_tree_survives(world: World) -> None:
    """Another environment sharing the cache may still use a tree it verified lately."""
    pkg = unique("prunepack")
    info = install(world, pkg, "1.0", "Used elsewhere.")
    tree = extracted(world, "1.0")
    shutil.rmtree(info)
    load_skills(world.project, home=world.home, env=world.env)
    assert tree.is_dir()


def test_pruning_runs_at_most_once_an_hour(world: World) -> None:
    base = world.cache / "packs"
    stale = base / "gone-1.0-0123456789abcdef"
    stale.mkdir(parents=True)
    (stale / MANIFEST).write_text("{}")
    now = time.time()
    os.utime(stale / MANIFEST, (now - 2 * DAY, now - 2 * DAY))
    assert prune_trees("packs", [], env=world.env, now=now) == [stale]
    again = base / "gone-2.0-0123456789abcdef"
    again.mkdir()
    (again / MANIFEST).write_text("{}")
    os.utime(again / MANIFEST, (now - 2 * DAY, now - 2 * DAY))
    assert prune_trees("packs", [], env=world.env, now=now + 60) == []
    assert prune_trees("packs", [], env=world.env, now=now + 3601) == [again]


def test_pruning_never_follows_a_symlink(world: World, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious.txt").write_text("keep me")
    base = world.cache / "packs"
    base.mkdir(parents=True)
    (base / "evil-1.0-0123456789abcdef").symlink_to(victim)
    prune_trees("packs", [], env=world.env, older_than=0)
    assert (victim / "precious.txt").read_text() == "keep me"


def test_cache_clean_removes_only_skillpaths_parts(world: World) -> None:
    pack = find_pack("acme-skills", world.env)
    assert pack is not None
    ensure_extracted(pack.tree)
    load_skills(world.project, home=world.home, env=world.env)  # writes the index
    mine = world.cache / "notes.txt"
    mine.write_text("not skillpath's")
    removed = {p.name for p in clean_cache(world.env)}
    assert {"packs", "index"} <= removed
    assert sorted(p.name for p in world.cache.iterdir()) == ["notes.txt"]
    # rebuilt on demand
    assert ensure_extracted(pack.tree).is_dir()


def test_cache_clean_unlinks_a_symlinked_part_without_following_it(
    world: World, tmp_path: Path
) -> None:
    victim = tmp_path / "elsewhere"
    victim.mkdir()
    (victim / "precious.txt").write_text("keep me")
    world.cache.mkdir(parents=True, exist_ok=True)
    (world.cache / "snapshots").symlink_to(victim)
    clean_cache(world.env, ["snapshots"])
    assert not (world.cache / "snapshots").exists()
    assert (victim / "precious.txt").read_text() == "keep me"


def test_cache_command_shows_and_cleans(world: World) -> None:
    pack = find_pack("acme-skills", world.env)
    assert pack is not None
    ensure_extracted(pack.tree)
    runner = CliRunner()
    shown = runner.invoke(main, ["cache"], catch_exceptions=False)
    assert shown.exit_code == 0 and "packs" in shown.stdout
    listed = runner.invoke(main, ["cache", "--json"], catch_exceptions=False)
    parts = {p["name"]: p for p in json.loads(listed.stdout)["parts"]}
    assert parts["packs"]["path"] == str(world.cache / "packs")
    assert parts["packs"]["exists"] and parts["packs"]["files"] > 0
    done = runner.invoke(main, ["cache", "clean", "--part", "packs"], catch_exceptions=False)
    assert done.exit_code == 0 and "removed packs" in done.stdout
    assert not (world.cache / "packs").exists()
    again = runner.invoke(main, ["cache", "clean", "--json"], catch_exceptions=False)
    assert again.exit_code == 0 and '"removed"' in again.stdout
