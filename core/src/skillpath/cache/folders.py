"""What skillpath keeps in its cache directory, and emptying it (``skillpath cache``).

The cache (``$SKILLPATH_CACHE_DIR``, else the user cache directory,
``~/.cache/skillpath`` on Linux) holds only what skillpath can rebuild:

``index``
    the discovery index and the entry-point cache (:mod:`skillpath.index`);
``snapshots``
    recorded ``skillpath list`` outputs (:mod:`skillpath.cache.replay`);
``packs``
    files extracted from installed skill packs (:mod:`skillpath.extract`);
``bundled``
    files extracted from bundled skills;

and each folder an installed plugin declares with the ``cache_folders`` hook (the
``skillpath-mcp`` provider keeps the listings of MCP servers in ``mcp``).

:func:`clean_cache` removes exactly these parts and nothing else, whatever the
cache directory is set to: a mistaken ``SKILLPATH_CACHE_DIR=~`` loses no file
of the user's. A part that is a symlink is unlinked, never followed.
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

import attrs

__all__ = ["CACHE_PARTS", "CachePart", "cache_part_names", "cache_parts", "clean_cache"]

#: The core's own parts of the cache, in the order they are shown (plugins' folders follow).
CACHE_PARTS = ("index", "snapshots", "packs", "bundled")


def cache_part_names(env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Every part of the cache: :data:`CACHE_PARTS`, then the folders the plugins
    loaded for ``env`` declare with the ``cache_folders`` hook, in name order."""
    from skillpath.plugins import get_plugin_host

    env = os.environ if env is None else env
    declared, _problems = get_plugin_host(env).cache_folders(taken=CACHE_PARTS)
    return CACHE_PARTS + tuple(sorted(declared))


@attrs.frozen
class CachePart:
    """One part of the cache: its name, directory, and size in files and bytes."""

    name: str
    path: Path
    exists: bool
    files: int = 0
    bytes: int = 0

    def to_json(self) -> dict[str, object]:
        """The JSON shape used by ``skillpath cache --json``."""
        return {
            "name": self.name,
            "path": str(self.path),
            "exists": self.exists,
            "files": self.files,
            "bytes": self.bytes,
        }


def _roots(env: Mapping[str, str]) -> list[Path]:
    """The cache directories in use (the extraction cache may resolve apart on some systems)."""
    from skillpath.cache import replay as _replay
    from skillpath.extract import cache_root

    out: list[Path] = []
    for root in (Path(_replay.cache_root(env)), cache_root(env)):
        if root not in out:
            out.append(root)
    return out


def _measure(path: Path) -> tuple[int, int]:
    files = size = 0
    for dirpath, _dirs, names in os.walk(path, followlinks=False):
        for name in names:
            try:
                st = os.lstat(os.path.join(dirpath, name))
            except OSError:
                continue
            files += 1
            size += st.st_size
    return files, size


def cache_parts(env: Mapping[str, str] | None = None, *, measure: bool = True) -> list[CachePart]:
    """Every part of the cache for ``env`` (default: the process environment)."""
    env = os.environ if env is None else env
    names = cache_part_names(env)
    out: list[CachePart] = []
    for root in _roots(env):
        for name in names:
            path = root / name
            try:
                st = os.lstat(path)
            except OSError:
                out.append(CachePart(name, path, False))
                continue
            if stat.S_ISDIR(st.st_mode) and measure:
                files, size = _measure(path)
            else:
                files, size = (1, st.st_size) if not stat.S_ISDIR(st.st_mode) else (0, 0)
            out.append(CachePart(name, path, True, files, size))
    return out


def _remove(path: Path) -> None:
    """Remove ``path`` (a symlink or file is unlinked; a directory is renamed aside
    first, so a concurrent reader never sees it half gone, then deleted)."""
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        os.unlink(path)
        return
    aside = path.with_name(f".removing-{path.name}-{secrets.token_hex(6)}")
    os.rename(path, aside)
    shutil.rmtree(aside, ignore_errors=True)


def clean_cache(
    env: Mapping[str, str] | None = None, parts: Iterable[str] | None = None
) -> list[CachePart]:
    """Empty the cache: remove each part in ``parts`` (default: all of them,
    :func:`cache_part_names`); return what was removed, measured before.

    Everything removed is rebuilt on demand (the next ``list`` re-reads every
    ``SKILL.md``; pack files are extracted again when a skill is used).
    Unknown part names raise ``ValueError``.
    """
    env = os.environ if env is None else env
    known = cache_part_names(env)
    wanted = tuple(known if parts is None else parts)
    unknown = sorted(set(wanted) - set(known))
    if unknown:
        raise ValueError(f"unknown cache part(s): {', '.join(unknown)}")
    removed: list[CachePart] = []
    for part in cache_parts(env):
        if part.name not in wanted or not part.exists:
            continue
        try:
            _remove(part.path)
        except FileNotFoundError:
            continue
        removed.append(part)
        # leftovers of an earlier clean that was interrupted
        for entry in os.scandir(part.path.parent):
            if entry.name.startswith(f".removing-{part.name}-"):
                shutil.rmtree(entry.path, ignore_errors=True)
    from skillpath.extract import reset_extraction_state

    reset_extraction_state()
    return removed
