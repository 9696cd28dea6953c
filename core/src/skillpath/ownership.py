"""Folders and locks skillpath writes: its own, or refused.

A generated folder (the Claude Code plugin the plugin writer keeps, the
folders adapters hand to an agent) is read by an agent that runs what it finds
there: plugin hooks, MCP servers. Its name is often computable, so in a shared
cache another local user can create it first. :func:`claim_folder` therefore
never adopts a folder it did not create: it creates the folder fresh (mode
``0700``, exclusively) or accepts an existing one only when it is a real
folder (not a symbolic link) owned by the user (or root) that no one else may
write; every folder above it must belong to the user or root and be writable
by no one else unless sticky (as ``/tmp`` is), so nobody can swap the folder
for another after the check. Anything else raises :class:`FolderRefused`.

:func:`exclusive` serialises writers on one folder (or one lock file) across
threads and processes with :mod:`filelock`. Its wait is bounded
(``SKILLPATH_LOCK_WAIT`` seconds, default :data:`DEFAULT_LOCK_WAIT`), and a
lock file that belongs to another user, or sits in a folder that does, is
refused at once: such a lock is someone else's, and waiting on it would let
them stall skillpath for good. Both end with :class:`LockBusy`, one line
naming the lock and the reason.

Where there are no user ids (Windows) the ownership checks pass.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path

from skillpath.errors import SkillpathError

__all__ = [
    "DEFAULT_LOCK_WAIT",
    "FolderRefused",
    "LockBusy",
    "ancestors_problem",
    "claim_folder",
    "exclusive",
    "folder_problem",
    "lock_wait",
]

#: Seconds to wait for a lock the user's own processes hold (``SKILLPATH_LOCK_WAIT``).
DEFAULT_LOCK_WAIT = 30.0


class FolderRefused(SkillpathError):
    """A folder skillpath would write is not provably its own (the message says why)."""


class LockBusy(SkillpathError):
    """A lock could not be taken: held too long, or another user's."""


def _owners() -> set[int] | None:
    """The uids whose files count as the user's (``None``: no uids here)."""
    if not hasattr(os, "geteuid"):
        return None
    from skillpath.safety import _trusted_owners

    return _trusted_owners()


def _others_may_write(st: os.stat_result) -> str | None:
    from skillpath.safety import _writable_by_others

    return _writable_by_others(st)


def folder_problem(path: str | os.PathLike[str]) -> str | None:
    """Why existing folder ``path`` is not the user's own to write, or ``None``.

    It must be a real folder (``lstat``: a symbolic link is refused), owned by
    the user (or root, or the ``SUDO_UID`` of a ``sudo`` run), and writable by
    no one else (group-writable only for the user's private group).
    """
    try:
        st = os.lstat(path)
    except OSError as exc:
        return f"cannot be inspected ({exc.strerror or exc})"
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a folder"
    owners = _owners()
    if owners is None:
        return None
    if st.st_uid not in owners:
        return f"is owned by uid {st.st_uid}, not by you"
    return _others_may_write(st)


def ancestors_problem(path: str | os.PathLike[str]) -> str | None:
    """Why the folders above ``path`` (its real location) would let another user
    replace what is written there, or ``None``.

    Each existing folder from the root down to ``path``'s parent must belong to
    the user or root and be writable by no one else, unless it is sticky.
    """
    owners = _owners()
    if owners is None:
        return None
    parent = Path(os.path.realpath(os.path.dirname(os.path.abspath(path))))
    for folder in [*reversed(parent.parents), parent]:
        try:
            st = os.stat(folder)
        except OSError:
            continue  # not there yet: it will be created by the user
        if st.st_uid not in owners:
            return f"{folder} is owned by uid {st.st_uid}, not by you"
        writable = _others_may_write(st)
        if writable is not None and not st.st_mode & stat.S_ISVTX:
            return f"{folder} is {writable} (and not sticky)"
    return None


def claim_folder(path: str | os.PathLike[str], what: str = "folder") -> bool:
    """Make ``path`` a folder the user owns alone; ``True`` when it was created now.

    Missing parents are created; ``path`` itself is created with mode ``0700``
    by an exclusive ``mkdir``. An existing ``path`` is accepted only when
    :func:`folder_problem` and :func:`ancestors_problem` find nothing (whether
    its contents are skillpath's is for the caller to check).

    :raises FolderRefused: naming ``path`` (as ``what``) and the reason.
    """
    target = Path(os.path.abspath(path))
    refuse = f"{what} {target}"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FolderRefused(f"{refuse}: cannot create its parent ({exc.strerror or exc})") from exc
    problem = ancestors_problem(target)
    if problem is not None:
        raise FolderRefused(f"{refuse}: {problem}; others could replace what is written there")
    try:
        os.mkdir(target, 0o700)
        return True
    except FileExistsError:
        pass
    except OSError as exc:
        raise FolderRefused(f"{refuse}: cannot be created ({exc.strerror or exc})") from exc
    problem = folder_problem(target)
    if problem is not None:
        raise FolderRefused(
            f"{refuse}: {problem}; refusing to use a folder skillpath did not create "
            "(someone else may have put files there for the agent to run)"
        )
    return False


def lock_wait(env: Mapping[str, str] | None = None) -> float:
    """Seconds to wait for a busy lock: ``SKILLPATH_LOCK_WAIT`` (a number ``>= 0``),
    else :data:`DEFAULT_LOCK_WAIT`."""
    raw = (os.environ if env is None else env).get("SKILLPATH_LOCK_WAIT", "").strip()
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_LOCK_WAIT
    return value if value >= 0 and value == value and value != float("inf") else DEFAULT_LOCK_WAIT


def _foreign(path: str) -> str | None:
    """Why lock file ``path`` (or its folder) is another user's, or ``None``."""
    owners = _owners()
    if owners is None:
        return None
    for where in (os.path.dirname(path), path):
        try:
            st = os.lstat(where)
        except FileNotFoundError:
            continue
        except OSError as exc:
            return f"{where} cannot be inspected ({exc.strerror or exc})"
        if stat.S_ISLNK(st.st_mode):
            return f"{where} is a symbolic link"
        if st.st_uid not in owners:
            return f"{where} is owned by uid {st.st_uid}, another user"
        if where != path and not st.st_mode & stat.S_ISVTX and _others_may_write(st):
            return f"{where} is writable by others"
    return None


@contextlib.contextmanager
def exclusive(
    path: str | os.PathLike[str], *, wait: float, what: str, hint: str = ""
) -> Iterator[None]:
    """Hold the inter-process lock ``path`` (a file, mode ``0600``) for the block.

    Waits at most ``wait`` seconds for another holder; a lock file (or lock
    folder) owned by another user is refused without waiting.

    :raises LockBusy: one line: ``what``, the lock's path and why (``hint``
        appended, e.g. what to do about it).
    """
    import filelock

    where = os.fspath(path)
    tail = f"; {hint}" if hint else ""
    foreign = _foreign(where)
    if foreign is not None:
        raise LockBusy(
            f"{what}: the lock {where} is not yours ({foreign}); not waiting on it{tail}"
        )
    lock = filelock.FileLock(where, timeout=wait, mode=0o600)
    try:
        lock.acquire(timeout=wait, poll_interval=0.05)
    except filelock.Timeout:
        raise LockBusy(
            f"{what}: the lock {where} is held by another process; gave up after {wait:g} s "
            f"(SKILLPATH_LOCK_WAIT){tail}"
        ) from None
    except OSError as exc:
        raise LockBusy(
            f"{what}: cannot take the lock {where} ({exc.strerror or exc}){tail}"
        ) from exc
    try:
        foreign = _foreign(where)  # swapped between the check and the open
        if foreign is not None:
            raise LockBusy(f"{what}: the lock {where} is not yours ({foreign}){tail}")
        yield
    finally:
        lock.release()
