"""Which folders skillpath itself wrote: a record in the user's own state.

A lock file (``skills-lock.json``) lives in the repository, so anyone who can
commit to it can claim anything there. Before skillpath replaces or deletes a
folder it wrote (``export``, ``export --prune``, and every other command that
removes what it installed), it asks this module, whose records live in the
user's own state folder, ``<skillpath home>/state/owned`` (``~/.skillpath``
unless ``SKILLPATH_HOME`` says otherwise), out of every repository's reach:

* :func:`record` — after writing a folder: its place, its content hash and how
  it was written (a copy, or a link and where the link points);
* :func:`owned` — before touching a folder: the record, or ``None`` when
  skillpath cannot prove it wrote that folder (then the folder is left alone
  and reported);
* :func:`forget` — after removing it.

One record per folder, a small JSON file named after the SHA-256 of the
folder's place (its parent's real path, symlinks resolved, then its own name:
a link skillpath wrote is recorded as the link, not its target). Each is
written to a temporary file with mode ``0600`` and renamed into place. A
record is believed only when it is a regular file owned by the user, not
writable by others, in a state folder that is also the user's, and when it
names the same place; anything else reads as "not owned".
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

import attrs

from skillpath.context import SkillContext
from skillpath.files import write_atomic

__all__ = ["Ownership", "forget", "owned", "place", "record", "state_dir"]

_VERSION = 1
_MAX_RECORD_BYTES = 64 * 1024


@attrs.frozen
class Ownership:
    """What skillpath recorded when it wrote the folder at ``path``.

    ``mode`` is ``copy`` (a folder of files) or ``link`` (a symbolic link, to
    ``link_to``); ``hash`` is the folder's content hash as written
    (:func:`skillpath.export.folder_hash`); ``by`` says which command wrote it
    (``export`` …) and ``detail`` holds what that command keeps with it.
    """

    path: Path
    hash: str
    mode: str = "copy"
    link_to: Path | None = None
    by: str = "export"
    detail: dict[str, Any] = attrs.field(factory=dict)


def state_dir(ctx: SkillContext) -> Path:
    """The folder holding the records: ``<skillpath home>/state/owned``."""
    return ctx.skillpath_home / "state" / "owned"


def place(path: Path | str) -> Path:
    """The place a record is kept for: the real path of ``path``'s parent (symlinks
    resolved) joined with its own name (a final symbolic link is not followed)."""
    text = os.path.abspath(os.fspath(path))
    return Path(os.path.realpath(os.path.dirname(text)), os.path.basename(text))


def _record_file(ctx: SkillContext, where: Path) -> Path:
    key = hashlib.sha256(os.fsencode(where)).hexdigest()[:40]
    return state_dir(ctx) / f"{key}.json"


def _private(st: os.stat_result) -> bool:
    if not hasattr(os, "geteuid"):
        return True
    return st.st_uid == os.geteuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def record(
    ctx: SkillContext,
    path: Path | str,
    digest: str,
    *,
    mode: str = "copy",
    link_to: Path | str | None = None,
    by: str = "export",
    detail: dict[str, Any] | None = None,
) -> Ownership:
    """Record that skillpath wrote the folder (or link) at ``path`` with content hash
    ``digest``; replaces an earlier record of the same place.

    :raises OSError: when the state folder cannot be written, or is not the user's
        or is writable by others (``PermissionError``).
    """
    if mode not in ("copy", "link"):
        raise ValueError(f"mode must be 'copy' or 'link', not {mode!r}")
    where = place(path)
    folder = state_dir(ctx)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not _private(os.stat(folder)):  # a record there would prove nothing
        raise PermissionError(
            errno.EPERM, "the state folder is not yours or is writable by others", str(folder)
        )
    body = {
        "version": _VERSION,
        "path": os.fspath(where),
        "hash": digest,
        "mode": mode,
        "link_to": os.fspath(link_to) if link_to is not None else None,
        "by": by,
        "detail": detail or {},
    }
    data = (json.dumps(body, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()
    write_atomic(_record_file(ctx, where), data, mode=0o600, parents=False)
    return Ownership(
        where, digest, mode, Path(link_to) if link_to is not None else None, by, dict(detail or {})
    )


def owned(ctx: SkillContext, path: Path | str) -> Ownership | None:
    """The record of the folder at ``path`` when skillpath wrote it, else ``None``.

    ``None`` too when the record cannot be believed: not a regular file, not the
    user's, writable by others, in a state folder that is not the user's, or
    naming another place. Nothing is raised: an unreadable record is no proof.
    """
    from skillpath.safety import JSONLimitError, read_json_bounded

    where = place(path)
    folder = state_dir(ctx)
    file = _record_file(ctx, where)
    try:
        if not _private(os.stat(folder)) or not _private(os.lstat(file)):
            return None
        data = read_json_bounded(file, limit=_MAX_RECORD_BYTES, max_depth=8, follow=False)
    except (OSError, ValueError, JSONLimitError):
        return None
    if not isinstance(data, dict) or data.get("path") != os.fspath(where):
        return None
    digest, mode, link_to = data.get("hash"), data.get("mode"), data.get("link_to")
    if not isinstance(digest, str) or mode not in ("copy", "link"):
        return None
    if mode == "link" and not isinstance(link_to, str):
        return None
    detail = data.get("detail")
    return Ownership(
        where,
        digest,
        mode,
        Path(link_to) if isinstance(link_to, str) else None,
        str(data.get("by") or "export"),
        dict(detail) if isinstance(detail, dict) else {},
    )


def forget(ctx: SkillContext, path: Path | str) -> None:
    """Drop the record of ``path`` (after skillpath removed that folder); a missing
    record is fine."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(_record_file(ctx, place(path)))
