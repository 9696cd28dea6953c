"""Every speed layer of skillpath, and its cache folders: the one seam.

Nothing here changes what a load finds; each layer only spares work when the
files it depends on are unchanged, and each can be turned off (the bytes out
are then the same). The domain modules (``scan``, ``loader``, ``session``,
``watch``, ``agent``, the providers) reach this package through two small
interfaces and import nothing else from it:

:mod:`skillpath.cache.memo`
    what a load and a scan are given: the scan memo (:class:`~skillpath.cache.memo.ScanMemo`,
    the persistent index and the in-process reuse behind one object the
    scanner asks "do you have this root / this ``SKILL.md``?" and tells "here
    is what I built"), and the load-wide switches (:func:`~skillpath.cache.memo.load_layers`).
:mod:`skillpath.cache.changes`
    the one change detector: file fingerprints (:func:`~skillpath.cache.changes.fingerprint`),
    watched roots (:func:`~skillpath.cache.changes.changed_roots`), the racy window,
    local-file-system checks and the deadline of a replayed listing; ``watch``,
    ``agent``, ``session`` and the MCP provider share it.

Behind them, one module per layer:

:mod:`skillpath.cache.index`
    the persistent discovery index (one file per skills root);
:mod:`skillpath.cache.reuse`
    the in-process memo of the last scan of each root and the last merge;
:mod:`skillpath.cache.notify`
    the inotify handle the memo and the watchers use on local file systems;
:mod:`skillpath.cache.replay` and :mod:`skillpath.cache.launch`
    the recording and replay of an unchanged ``skillpath list`` and the
    console script that tries it first;
:mod:`skillpath.cache.entrypoints`
    the cross-process cache of the ``skillpath*`` entry points;
:mod:`skillpath.cache.files`
    the one file format, trust rule, atomic writer and pruner of all of them;
:mod:`skillpath.cache.folders`
    what the cache directory holds and emptying it (``skillpath cache``).

``skillpath.index.volatile`` and ``skillpath.index.disabled`` (the names
plugins and hosts call) are the same objects as those of
:mod:`skillpath.cache.index`.

The launcher of an unchanged ``list`` imports this package, so importing it
imports nothing: the names of :mod:`skillpath.cache.folders` are loaded on
first use.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from skillpath.cache.folders import (
        CACHE_PARTS,
        CachePart,
        cache_part_names,
        cache_parts,
        clean_cache,
    )

_EXPORTS = {
    "CACHE_PARTS": "skillpath.cache.folders",
    "CachePart": "skillpath.cache.folders",
    "cache_part_names": "skillpath.cache.folders",
    "cache_parts": "skillpath.cache.folders",
    "clean_cache": "skillpath.cache.folders",
}


def __getattr__(name: str) -> Any:
    """Import a name of :mod:`skillpath.cache.folders` on first access."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'skillpath.cache' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = ["CACHE_PARTS", "CachePart", "cache_part_names", "cache_parts", "clean_cache"]
