"""The one format, writer and pruner of skillpath's cache files (index, entry points, snapshots).

A public module: a provider that keeps a cache of its own (the MCP provider
keeps the listings of MCP servers) uses :func:`cache_root`, :func:`magic`,
:func:`seal`, :func:`unseal`, :func:`read_cache`, :func:`write_atomic` and
:func:`prune`, and gets the same trust rule as the core's caches.

Only files of this user, in folders of this user that no one else may write,
are read (:func:`read_cache`) or written (:func:`write_atomic`): a shared
``XDG_CACHE_HOME`` cannot feed one user's cache to another.

A file is a magic number (a name, a format version and the Python version),
the length of the sealed part (8 bytes), its CRC-32 (4 bytes), the sealed part
(``marshal`` data) and, for some files, an unsealed tail whose length the
sealed part states. Anything that does not check out is treated as absent.
Files are written to a temporary name and renamed into place, so concurrent
writers never mix their data and a process killed mid-write leaves the
previous file intact.

Imported by the launcher of an unchanged ``list``, so it imports only ``os``,
``stat``, ``sys`` and ``zlib``.
"""

from __future__ import annotations

import os
import sys
import zlib
from stat import S_ISDIR, S_ISREG

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping
    from typing import BinaryIO

__all__ = [
    "RACY_WINDOW_NS",
    "Refused",
    "cache_root",
    "magic",
    "owned",
    "prune",
    "racy_window_ns",
    "read_cache",
    "read_file",
    "seal",
    "trusted_dir",
    "unseal",
    "write_atomic",
]

#: Files changed this close to the run that looked at them are not vouched for:
#: a later change within the same timestamp tick could go unseen (git's racy-clean rule).
RACY_WINDOW_NS = 2_000_000_000
_SIZE = 8
_CRC = 4


class Refused(OSError):
    """A file that is not read: not a regular file, too large, or not the user's own."""


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_READ_FLAGS |= getattr(os, "O_NOCTTY", 0)
#: A cache file is never a symbolic link: one planted in a folder would point at
#: any file of the user's, such as one in a cloned repository.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def owned(st: os.stat_result) -> bool:
    """Whether ``st`` belongs to this process's user and no one else may write it.

    Always true where there are no user ids (Windows).
    """
    getuid = getattr(os, "getuid", None)
    if getuid is None:
        return True
    return st.st_uid == getuid() and not st.st_mode & 0o022


def read_file(
    path: str | os.PathLike[str], limit: int, *, private: bool = False, follow: bool = True
) -> bytes:
    """The bytes of regular file ``path``, at most ``limit`` of them.

    The file is opened without blocking (a FIFO or a device does not hang the
    read) and checked through its open descriptor: it must be a regular file
    of at most ``limit`` bytes and, with ``private``, pass :func:`owned`;
    without ``follow`` a symbolic link is refused (``ELOOP``).
    Raises :class:`Refused` (with the reason as ``strerror``) when it does
    not, :class:`OSError` when it cannot be opened or read.
    """
    fd = os.open(path, _READ_FLAGS if follow else _READ_FLAGS | _NOFOLLOW)
    try:
        st = os.fstat(fd)
        if not S_ISREG(st.st_mode):
            raise Refused(0, "not a regular file", os.fspath(path))
        if private and not owned(st):
            raise Refused(0, "owned by another user or writable by others", os.fspath(path))
        if st.st_size > limit:
            raise Refused(0, f"larger than {limit} bytes", os.fspath(path))
        chunks = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        if left <= 0:  # it grew while being read
            raise Refused(0, f"larger than {limit} bytes", os.fspath(path))
        return b"".join(chunks)
    finally:
        os.close(fd)


def trusted_dir(directory: str) -> bool:
    """Whether cache folder ``directory`` (``index``, ``snapshots``) may hold files
    that are believed.

    It must be a real directory, not a symbolic link, that belongs to this user
    and that no one else may write; the cache root above it must belong to this
    user. (Others may be allowed to write the root, as a ``umask`` of 002
    leaves it: whatever they put in place of the folder is theirs or a link,
    and is refused.)
    """
    try:
        st = os.lstat(directory)
        root = os.stat(os.path.dirname(directory.rstrip(os.sep)) or os.sep)
    except OSError:
        return False
    if not S_ISDIR(st.st_mode) or not owned(st):
        return False
    getuid = getattr(os, "getuid", None)
    return getuid is None or (S_ISDIR(root.st_mode) and root.st_uid == getuid())


def read_cache(path: str, limit: int) -> bytes | None:
    """The bytes of cache file ``path``, or ``None`` when it may not be believed.

    Only a regular file (not a symbolic link) of at most ``limit`` bytes that
    belongs to this user, is writable by no one else and lies in a
    :func:`trusted_dir` is read (opened without blocking: a FIFO or a device
    is never waited on).
    """
    if not trusted_dir(os.path.dirname(path)):
        return None
    try:
        return read_file(path, limit, private=True, follow=False)
    except OSError:
        return None


def cache_root(env: Mapping[str, str] | None = None, home: str | None = None) -> str:
    """The user cache directory of skillpath (index, entry points, snapshots, the
    unpacked trees of skill packs, the caches of providers).

    ``$SKILLPATH_CACHE_DIR``, else what ``platformdirs.user_cache_dir("skillpath")``
    gives, computed from ``env`` (and ``home``, which overrides its ``HOME``) rather
    than from the process environment, so a host or test that loads with its own
    environment gets its own cache and never writes into the user's: on Linux and
    other XDG systems ``$XDG_CACHE_HOME/skillpath`` when that is an absolute path
    (a relative one is ignored, as the XDG specification asks), else
    ``$HOME/.cache/skillpath``. Where that rule does not decide (macOS, Windows,
    Android, no absolute ``HOME``), platformdirs does, from the process
    environment.
    """
    env = os.environ if env is None else env
    override = env.get("SKILLPATH_CACHE_DIR")
    if override:
        return os.path.expanduser(override)
    plain = _xdg_cache_dir(env, home)
    if plain is not None:
        return plain
    import platformdirs

    return str(platformdirs.user_cache_dir("skillpath", appauthor=False))


def _xdg_cache_dir(env: Mapping[str, str], home: str | None) -> str | None:
    """``platformdirs.user_cache_dir("skillpath", appauthor=False)`` on XDG systems,
    computed as platformdirs computes it but from ``env`` and without importing it
    (nor the ``tempfile`` and ``shutil`` it imports), except that a relative
    ``XDG_CACHE_HOME`` is ignored; ``None`` where it cannot decide."""
    if (
        sys.platform == "darwin"
        or os.name != "posix"
        or hasattr(sys, "getandroidapilevel")
        or "ANDROID_DATA" in env
        or "ANDROID_ROOT" in env
    ):
        return None
    xdg = env.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg) and xdg.strip() == xdg:
        return os.path.join(xdg, "skillpath")
    # a relative or blank XDG_CACHE_HOME is ignored, as the XDG base directory
    # specification asks (platformdirs would use a relative one: a cache in the
    # current directory, which may be a cloned repository)
    if home is None:
        home = env.get("HOME", "")
    if not os.path.isabs(home) or home.strip() != home:
        return None
    return os.path.join(home, ".cache", "skillpath")


def racy_window_ns(env: Mapping[str, str]) -> int:
    """The racy window: ``SKILLPATH_INDEX_RACY_MS`` (milliseconds; ``0`` trusts
    every change at once, which tests use), else :data:`RACY_WINDOW_NS`."""
    raw = env.get("SKILLPATH_INDEX_RACY_MS", "").strip()
    if raw:
        try:
            return max(0, int(float(raw) * 1_000_000))
        except ValueError:
            pass
    return RACY_WINDOW_NS


def magic(name: bytes, fmt: int) -> bytes:
    """The magic number of cache files called ``name`` (5 bytes) in format ``fmt``."""
    return name + bytes([fmt, sys.version_info[0], sys.version_info[1]])


def seal(magic_number: bytes, sealed: bytes) -> bytes:
    """The head of a file: magic number, length and CRC-32 of ``sealed``, then ``sealed``."""
    size = len(sealed).to_bytes(_SIZE, "little")
    return magic_number + size + zlib.crc32(sealed).to_bytes(_CRC, "little") + sealed


def unseal(magic_number: bytes, data: bytes) -> tuple[memoryview, memoryview] | None:
    """``(sealed, tail)`` of file content ``data``, or ``None`` when it does not check out."""
    start = len(magic_number) + _SIZE + _CRC
    if len(data) < start or data[: len(magic_number)] != magic_number:
        return None
    size = int.from_bytes(data[len(magic_number) : len(magic_number) + _SIZE], "little")
    crc = int.from_bytes(data[start - _CRC : start], "little")
    view = memoryview(data)
    sealed = view[start : start + size]
    if len(sealed) != size or zlib.crc32(sealed) != crc:
        return None
    return sealed, view[start + size :]


def write_atomic(path: str, fill: Callable[[BinaryIO], object]) -> None:
    """Create ``path`` (mode 0600, its folder 0700) with what ``fill`` writes, atomically.

    Raises :class:`OSError` when it cannot be written, or when its folder is
    not a :func:`trusted_dir` (nothing is written where another user could
    read or replace it); the temporary file is removed in every case.
    """
    folder = os.path.dirname(path)
    if folder:
        parent = os.path.dirname(folder.rstrip(os.sep))
        if parent:  # makedirs gives only the last folder its mode
            os.makedirs(parent, mode=0o700, exist_ok=True)
        os.makedirs(folder, mode=0o700, exist_ok=True)
        if not trusted_dir(folder):
            raise Refused(
                0, "the cache folder belongs to another user or others may write it", folder
            )
    name = os.path.basename(path)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(tmp, flags, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            fill(f)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def prune(
    directory: str,
    suffix: str,
    *,
    max_files: int,
    max_bytes: int,
    keep: Collection[str] = (),
    newest: int = 0,
) -> None:
    """Remove the files of ``directory`` ending in ``suffix`` that were modified longest
    ago while there are more than ``max_files`` of them or ``max_bytes`` in all.

    Files named in ``keep`` and the ``newest`` most recently modified ones always
    stay (and count towards the bounds). Errors are ignored: it is a cache.
    """
    try:
        with os.scandir(directory) as it:
            found = []
            for e in it:
                if e.name.endswith(suffix):
                    st = e.stat()
                    found.append((st.st_mtime_ns, st.st_size, e.name, e.path))
    except OSError:
        return
    found.sort(reverse=True)  # most recently modified first
    kept = [f for i, f in enumerate(found) if i < newest or f[2] in keep]
    count = len(kept)
    total = sum(f[1] for f in kept)
    for i, (_mtime, size, name, path) in enumerate(found):
        if i < newest or name in keep:
            continue
        count += 1
        total += size
        if count > max_files or total > max_bytes:
            try:
                os.unlink(path)
            except OSError:
                pass
