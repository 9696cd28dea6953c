"""What ``resolve_url`` returns."""

from __future__ import annotations

from pathlib import Path

import attrs

__all__ = ["Resource"]


@attrs.frozen
class Resource:
    """The content behind a URL.

    ``content`` is text; ``mime_type`` is ``text/markdown``, ``application/json``
    or ``text/plain`` for files and directory listings; ``path`` is the real file
    read (``None`` for remote resources); ``skill`` is the owning skill's name.
    """

    url: str
    content: str
    mime_type: str = "text/plain"
    path: Path | None = None
    skill: str | None = None
    is_directory: bool = False
