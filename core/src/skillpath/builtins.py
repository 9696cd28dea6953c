"""The core's own plugins, registered before any entry point.

Each is a plugin with a ``skillpath.``-prefixed name, so it can be blocked
(``SKILLPATH_DISABLE_PLUGINS=skillpath.filters``) and replaced like any other.
"""

from __future__ import annotations

from collections.abc import Iterator


def plugins() -> Iterator[tuple[str, object]]:
    """``(name, plugin)`` for every built-in plugin, in registration order."""
    from skillpath import bundled, extract, filters

    yield "skillpath.filters", filters
    yield "skillpath.bundled", bundled
    yield "skillpath.extract", extract

    from skillpath import transforms, urls

    yield from transforms.STEPS
    yield "skillpath.urls", urls
