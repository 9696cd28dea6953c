"""Listing a skills root for the scan: its candidate entries, and the folder links
resolved (:mod:`skillpath.scan`)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from skillpath.cache.memo import ScanMemo
from skillpath.model import Diagnostic, SkillSource
from skillpath.survey import _SURVEY_SKIP
from skillpath.survey import describe_scan_error as _describe_oserror


def _list_root(
    root: str, src: SkillSource, diags: list[Diagnostic], memo: ScanMemo
) -> tuple[tuple[str, str], ...] | None:
    """The candidate entries of ``root`` as ``(name, kind)``, sorted; ``None`` when
    the root is missing (silent) or unreadable (a diagnostic).

    ``kind`` is ``d`` (a directory), ``l`` (a symlink, resolved on every scan),
    ``x`` (an entry that could not be inspected, retried on every scan) or ``f``
    (a ``*.md`` file: not a skill, reported as ``not-a-skill``).
    """
    cached = memo.cached_listing()
    if cached is False:
        return None
    if cached is not None:
        return cached  # type: ignore[return-value]
    try:
        with os.scandir(root) as it:
            found = sorted(it, key=lambda e: e.name)
    except FileNotFoundError:
        return None
    except OSError as exc:
        diags.append(
            Diagnostic(
                "error",
                "unreadable-root",
                f"cannot scan skills root: {_describe_oserror(exc)}",
                Path(root),
                None,
                src.provider,
            )
        )
        return None
    entries: list[tuple[str, str]] = []
    for entry in found:
        name = entry.name
        if name.startswith("."):
            if name not in _SURVEY_SKIP:
                try:
                    if entry.is_dir():
                        entries.append((name, "h"))
                except OSError:
                    pass
            continue
        if entry.is_symlink():
            entries.append((name, "l"))
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            entries.append((name, "x"))
            continue
        if is_dir:
            entries.append((name, "d"))
        elif name[-3:].lower() == ".md":
            entries.append((name, "f"))
    listing = tuple(entries)
    memo.store_listing(listing)
    return listing


def _link_is_dir(path: str, kind: str, provider: str, diags: list[Diagnostic]) -> bool:
    """Resolve a symlinked (``l``) or uninspectable (``x``) entry; report broken ones."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if kind == "l":
            diags.append(
                Diagnostic(
                    "warning",
                    "broken-symlink",
                    f"skill entry skipped: dangling symlink -> {os.readlink(path)}",
                    Path(path),
                    None,
                    provider,
                )
            )
        return False
    except OSError as exc:
        link = kind == "l"
        diags.append(
            Diagnostic(
                "warning" if link else "error",
                "broken-symlink" if link else "unreadable-entry",
                f"cannot inspect: {_describe_oserror(exc)}",
                Path(path),
                None,
                provider,
            )
        )
        return False
    return stat.S_ISDIR(st.st_mode)
