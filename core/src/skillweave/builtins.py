"""The core's own plugins, registered before any entry point.

Each is a plugin with a ``skillweave.``-prefixed name, so it can be blocked
(``SKILLWEAVE_DISABLE_PLUGINS=skillweave.filters``) and replaced like any other.
"""

from __future__ import annotations

from collections.abc import Iterator


def plugins() -> Iterator[tuple[str, object]]:
    """``(name, plugin)`` for every built-in plugin, in registration order."""
    from skillweave import bundled, extract, filters

    yield "skillweave.filters", filters
    yield "skillweave.bundled", bundled
    yield "skillweave.extract", extract

    from skillweave import transforms, urls

    yield from transforms.STEPS
    yield "skillweave.urls", urls
