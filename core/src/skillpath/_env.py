"""Switches read from the environment.

Imported by the launcher of an unchanged ``list``, so it imports nothing.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["flag"]

_TRUE = frozenset({"1", "true", "yes", "on"})


def flag(env: Mapping[str, str], name: str) -> bool:
    """Whether variable ``name`` of ``env`` is set to ``1``, ``true``, ``yes`` or ``on``
    (any case, surrounding blanks ignored)."""
    return env.get(name, "").strip().lower() in _TRUE
