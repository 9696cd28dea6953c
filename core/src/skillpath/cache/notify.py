"""A minimal, synchronous inotify handle (Linux), for the in-process reuse.

:mod:`skillpath.cache.reuse` watches the skills roots a :class:`skillpath.SkillSession`
loaded, each skill folder in them and each ``SKILL.md``, and reads the pending
events at the start of every load (a non-blocking ``read``): the kernel queues
an event before the call that changed the file returns, so every change made
before the load began is seen, with no thread and no timing window.

Only local file systems are watched (a change made on another machine to a
network file system gives no event); anything else, a kernel without inotify,
or a refused watch (the ``max_user_watches`` limit) leaves the caller with its
``stat`` checks.
"""

from __future__ import annotations

import contextlib
import errno
import os
import struct
import sys
import threading
from collections.abc import Iterable
from typing import Any

__all__ = ["LOCAL_FILESYSTEMS", "Notifier", "filesystem_type", "local_paths", "notifier"]

IN_MODIFY = 0x00000002
IN_ATTRIB = 0x00000004
IN_CLOSE_WRITE = 0x00000008
IN_MOVED_FROM = 0x00000040
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_DELETE = 0x00000200
IN_DELETE_SELF = 0x00000400
IN_MOVE_SELF = 0x00000800
IN_UNMOUNT = 0x00002000
IN_Q_OVERFLOW = 0x00004000
IN_IGNORED = 0x00008000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_MASK_ADD = 0x20000000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC

#: A directory's entries: added, removed, renamed, itself moved or deleted.
DIR_MASK = (
    IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ATTRIB
)
#: A skill folder: its entries and what is written to them.
FOLDER_MASK = DIR_MASK | IN_MODIFY | IN_CLOSE_WRITE
#: A ``SKILL.md`` itself (also written through another hard link).
FILE_MASK = IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF

#: File systems whose every change gives an event here (not network ones).
LOCAL_FILESYSTEMS = frozenset(
    {
        "ext2",
        "ext3",
        "ext4",
        "xfs",
        "btrfs",
        "tmpfs",
        "f2fs",
        "jfs",
        "reiserfs",
        "bcachefs",
        "zfs",
        "overlay",
    }
)

_HEADER = struct.Struct("iIII")


class Notifier:
    """One inotify instance: add and remove watches, read what happened."""

    def __init__(self) -> None:
        import ctypes  # here: a command-line run never watches (about 2 ms to import)

        libc = ctypes.CDLL(None, use_errno=True)
        self._add = libc.inotify_add_watch
        self._add.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32)
        self._add.restype = ctypes.c_int
        self._rm = libc.inotify_rm_watch
        self._rm.argtypes = (ctypes.c_int, ctypes.c_int)
        self._rm.restype = ctypes.c_int
        fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code))
        self.fd = fd
        self._errno = ctypes.get_errno

    def add(self, path: str, mask: int) -> int:
        """Watch ``path`` for ``mask``; the watch descriptor (the same for the same inode).

        :raises OSError: when the watch is refused (missing path, the watch limit).
        """
        wd = self._add(self.fd, os.fsencode(path), mask)
        if wd < 0:
            code = self._errno()
            raise OSError(code, os.strerror(code), path)
        return int(wd)

    def remove(self, wd: int) -> None:
        """Stop watch ``wd`` (already gone: nothing happens)."""
        self._rm(self.fd, wd)

    def read(self) -> list[tuple[int, int]] | None:
        """The ``(wd, mask)`` of every event queued so far; ``None`` when events were lost."""
        out: list[tuple[int, int]] = []
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return out
            except OSError as exc:
                if exc.errno == errno.EINTR:
                    continue
                return None
            pos = 0
            while pos + _HEADER.size <= len(data):
                wd, mask, _cookie, length = _HEADER.unpack_from(data, pos)
                pos += _HEADER.size + length
                if mask & IN_Q_OVERFLOW:
                    return None
                out.append((wd, mask))

    def close(self) -> None:
        """Close the instance (every watch goes with it)."""
        with contextlib.suppress(OSError):
            os.close(self.fd)


_NOTIFIER: list[Notifier | None] = []
_MAKING = threading.Lock()


def notifier() -> Notifier | None:
    """The process's notifier (made on first use), or ``None`` where there is none."""
    if _NOTIFIER:
        return _NOTIFIER[0]
    with _MAKING:
        if _NOTIFIER:
            return _NOTIFIER[0]
        made: Notifier | None = None
        if sys.platform.startswith("linux"):
            try:
                made = Notifier()
            except (OSError, AttributeError):
                made = None
        _NOTIFIER.append(made)
        return made


def forget_after_fork() -> None:
    """In a forked child: close this process's copy of the parent's instance, unread
    (the child makes its own on first use)."""
    if _NOTIFIER and _NOTIFIER[0] is not None:
        _NOTIFIER[0].close()
    _NOTIFIER.clear()


def _unescape(field: str) -> str:
    # mountinfo escapes space, tab, newline and backslash as octal
    out = []
    i = 0
    while i < len(field):
        if field[i] == "\\" and i + 4 <= len(field) and field[i + 1 : i + 4].isdigit():
            out.append(chr(int(field[i + 1 : i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def _mounts() -> list[tuple[str, str]] | None:
    """``(mount point, file system type)`` of every mount (``/proc/self/mountinfo``)."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    out = []
    for line in lines:
        left, sep, right = line.partition(" - ")
        parts = left.split()
        fields = right.split()
        if not sep or len(parts) < 5 or not fields:
            continue
        out.append((_unescape(parts[4]), fields[0]))
    return out


def _type_in(mounts: list[tuple[str, str]], path: str) -> str | None:
    real = os.path.realpath(path)
    best: tuple[int, str] | None = None
    for point, kind in mounts:
        inside = real == point or real.startswith(point.rstrip("/") + "/") or point == "/"
        if inside and (best is None or len(point) >= best[0]):
            best = (len(point), kind)
    return None if best is None else best[1]


def filesystem_type(path: str) -> str | None:
    """The type of the file system holding ``path`` (``/proc/self/mountinfo``), if known."""
    mounts = _mounts()
    return None if mounts is None else _type_in(mounts, path)


def local_paths(paths: Iterable[str]) -> set[str]:
    """Those of ``paths`` on a local file system (:data:`LOCAL_FILESYSTEMS`; the mount
    table read once, each path's symlinks resolved)."""
    mounts = _mounts()
    if mounts is None:
        return set()
    return {p for p in paths if _type_in(mounts, p) in LOCAL_FILESYSTEMS}


def local(path: str) -> bool:
    """Whether every change below ``path`` gives an event (a local file system)."""
    kind: Any = filesystem_type(path)
    return kind in LOCAL_FILESYSTEMS
