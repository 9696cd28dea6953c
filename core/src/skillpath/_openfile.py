"""Opening a file someone else controls: without blocking, regular files only.

The primitive under :mod:`skillpath.safety`'s readers (which re-exports
:func:`open_regular`, its public home) and under the lazy body of a
:class:`~skillpath.model.Skill` (:mod:`skillpath._skillfile`). It imports
nothing of skillpath, so the records can use it without reaching a reader.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["open_regular"]

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def open_regular(path: Path | str, *, follow: bool = True) -> tuple[int, os.stat_result]:
    """Open ``path`` read-only without blocking and return ``(fd, fstat)``.

    The file is opened with ``O_NONBLOCK | O_CLOEXEC`` (and ``O_NOFOLLOW``
    when ``follow`` is false), then checked with ``fstat`` — on the open file,
    so a swap after a check cannot slip a FIFO in — to be a regular file.
    The caller closes ``fd``.

    :raises OSError: ``FileNotFoundError``; ``IsADirectoryError``;
        ``errno.EINVAL`` "not a regular file (a FIFO …)" for FIFOs, devices
        and sockets; ``errno.ELOOP`` for a symlink when ``follow`` is false;
        any other error of ``open``.
    """
    flags = os.O_RDONLY | _NONBLOCK | _CLOEXEC | (0 if follow else _NOFOLLOW)
    fd = os.open(os.fspath(path), flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            if stat.S_ISDIR(st.st_mode):
                raise IsADirectoryError(errno.EISDIR, "is a directory", os.fspath(path))
            raise OSError(
                errno.EINVAL, f"not a regular file ({_kind(st.st_mode)})", os.fspath(path)
            )
    except BaseException:
        os.close(fd)
        raise
    return fd, st
