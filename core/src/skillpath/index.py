"""The names plugins and hosts call about the discovery index (public).

The index itself, and every other speed layer, lives in :mod:`skillpath.cache`
(:mod:`skillpath.cache.index`); the names below are the same objects as
those of :mod:`skillpath.cache.index`, kept at this path so
``skillpath.index.volatile(reason)`` and ``with skillpath.index.disabled():``
keep working.
"""

from __future__ import annotations

from skillpath.cache.index import disabled, index_dir, index_enabled, volatile

__all__ = ["disabled", "index_dir", "index_enabled", "volatile"]
