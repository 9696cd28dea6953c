"""The one containment check.

Every file access made on behalf of a skill — ``skill://`` reads, pack
extraction, tools that open skill files — goes through :func:`check_relative`
(pure path rules) and, when the file system is involved, :func:`resolve_inside`
(real path stays under the real base directory, symlinks followed).
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path, PurePosixPath

from skillpath.errors import ResolveError

__all__ = ["ContainmentError", "check_relative", "is_inside", "resolve_inside"]

#: Longest relative path accepted (characters).
MAX_RELATIVE = 4096


class ContainmentError(ResolveError):
    """A path would leave (or could not be proven to stay inside) its base directory."""


def check_relative(rel: str) -> PurePosixPath:
    """Validate a relative member path and return it normalised (``/``-separated).

    Refused: empty paths, absolute paths (``/x``, ``C:\\x``, ``\\\\server``),
    any ``..`` segment, backslashes, NUL and other control characters, lone
    surrogates (a URL decoded as UTF-8 never holds one), and over-long paths.
    ``.`` segments and repeated slashes are dropped.
    """
    if len(rel) > MAX_RELATIVE:
        raise ContainmentError(f"path is too long ({len(rel)} characters)")
    if "\\" in rel:
        raise ContainmentError(f"backslashes are not allowed in skill paths: {rel!r}")
    for ch in rel:
        if ch == "\x00" or unicodedata.category(ch) == "Cc":
            raise ContainmentError(f"control character U+{ord(ch):04X} in path {rel!r}")
        if unicodedata.category(ch) == "Cs":  # would crash the file system call
            raise ContainmentError(f"invalid character U+{ord(ch):04X} in path {rel!r}")
    if rel.startswith("/") or (len(rel) > 1 and rel[1] == ":"):
        raise ContainmentError(f"absolute paths are not allowed: {rel!r}")
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        raise ContainmentError(f"path traversal ('..') is not allowed: {rel!r}")
    if not parts:
        raise ContainmentError("empty path")
    return PurePosixPath(*parts)


def is_inside(path: Path | str, base: Path | str) -> bool:
    """``path`` is ``base`` or below it, comparing real (symlink-resolved) paths."""
    real = os.path.realpath(path)
    real_base = os.path.realpath(base)
    return real == real_base or real.startswith(real_base.rstrip(os.sep) + os.sep)


def resolve_inside(base: Path | str, rel: str) -> Path:
    """The real path of ``base/rel``, refusing anything that escapes ``base``.

    The relative part must pass :func:`check_relative`; then the joined path is
    resolved with symlinks followed and must stay under the real ``base``.
    The file need not exist (the caller reports "File not found").
    """
    clean = check_relative(rel)
    real_base = os.path.realpath(base)
    candidate = os.path.realpath(os.path.join(real_base, *clean.parts))
    if candidate != real_base and not candidate.startswith(real_base.rstrip(os.sep) + os.sep):
        raise ContainmentError(f"{rel!r} resolves outside the skill directory")
    return Path(candidate)
