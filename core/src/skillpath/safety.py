"""The one containment check, and the one way to read a file someone else controls.

Every file access made on behalf of a skill — ``skill://`` reads, pack
extraction, tools that open skill files — goes through :func:`check_relative`
(pure path rules) and, when the file system is involved, :func:`resolve_inside`
(real path stays under the real base directory, symlinks followed).

Every file read from a path that a repository, the user's home or a cache
controls (configs, Claude settings and plugin registries, ``AGENTS.md``,
``SKILL.md`` bodies, MCP configs, skill resources) is read with
:func:`read_bounded`: opened without blocking, checked to be a regular file
after opening, and read up to a size bound. A FIFO, a device (``/dev/zero``,
``/dev/stdin``), a socket or a directory is an :class:`OSError` the caller
turns into a diagnostic; it never blocks and never fills memory.
"""

from __future__ import annotations

import errno
import os
import stat
import unicodedata
from pathlib import Path, PurePosixPath

from skillpath.errors import ResolveError

__all__ = [
    "MAX_CONFIG_BYTES",
    "ContainmentError",
    "check_relative",
    "describe_oserror",
    "is_inside",
    "lexists",
    "open_regular",
    "outside_area",
    "project_area",
    "read_bounded",
    "read_fd_bounded",
    "resolve_inside",
]

#: Longest relative path accepted (characters).
MAX_RELATIVE = 4096
#: Largest config, settings, plugin registry or manifest file read (bytes):
#: ``.skillpath/config.toml``, Claude Code's ``settings.json`` files and
#: ``installed_plugins.json``, plugin manifests, ``.gitignore`` files.
MAX_CONFIG_BYTES = 4 * 1024 * 1024

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
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", os.fspath(path))
        if not stat.S_ISREG(st.st_mode):
            raise OSError(
                errno.EINVAL, f"not a regular file ({_kind(st.st_mode)})", os.fspath(path)
            )
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def lexists(path: str) -> bool:
    """``os.path.lexists(path)``: one ``faccessat`` without following a final
    symlink where the system has it (no exception object for the usual answer,
    "no such file"), else ``lstat``."""
    if _ACCESS_NOFOLLOW:
        return os.access(path, os.F_OK, follow_symlinks=False)
    return os.path.lexists(path)


_ACCESS_NOFOLLOW = os.access in os.supports_follow_symlinks


def read_fd_bounded(fd: int, limit: int, path: Path | str = "") -> bytes:
    """Read the open file ``fd`` to its end, refusing more than ``limit`` bytes.

    Reads at most ``limit + 1`` bytes whatever the file claims its size is, so
    a file that grows while it is read cannot exhaust memory.

    :raises OSError: ``errno.EFBIG`` when the file holds more than ``limit`` bytes.
    """
    chunks: list[bytes] = []
    total = 0
    while total <= limit:
        chunk = os.read(fd, min(1 << 20, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > limit:
        raise OSError(errno.EFBIG, f"file is larger than {limit} bytes", os.fspath(path))
    return b"".join(chunks)


def read_bounded(path: Path | str, limit: int, *, follow: bool = True) -> bytes:
    """The bytes of regular file ``path``, at most ``limit`` of them.

    The one reader for files a repository, the user's home or a cache
    controls: :func:`open_regular` (non-blocking, regular files only, checked
    after opening), then :func:`read_fd_bounded`. Never blocks on a FIFO or
    ``/dev/stdin`` and never reads ``/dev/zero`` into memory.

    :raises OSError: as :func:`open_regular`; ``errno.EFBIG`` for a file over
        ``limit`` bytes (by its size, or by what a read returned).
    """
    fd, st = open_regular(path, follow=follow)
    try:
        if st.st_size > limit:
            raise OSError(errno.EFBIG, f"file is larger than {limit} bytes", os.fspath(path))
        return read_fd_bounded(fd, limit, path)
    finally:
        os.close(fd)


def describe_oserror(exc: OSError) -> str:
    """A short reason for a failed read: ``permission denied``, ``not a regular file (a FIFO)`` …"""
    if isinstance(exc, IsADirectoryError):
        return "is a directory"
    if exc.errno == errno.ELOOP:
        return "symlink loop"
    if exc.errno == errno.ENOTDIR:
        return "not a directory"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return exc.strerror or str(exc)


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


# -- where a project's files may come from -------------------------------------


def project_area(path: Path | str, home: Path | str | None = None) -> str:
    """The real directory that the project files found at ``path`` must stay inside.

    ``path`` is where discovery found something (a skills root, a commands
    folder, a folder holding ``AGENTS.md`` or a config), as written — not
    resolved. The area is:

    * the repository holding ``path``: its nearest ancestor (``path`` itself
      excluded) with a ``.git`` entry, an ancestor that is itself a symlink
      never counting — unless that repository holds the user's home (a
      dotfiles repository is not a project);
    * else, outside any repository, the directory holding the hidden tool
      folder ``path`` is in (``/x`` for ``/x/.claude/commands``);
    * else ``path`` itself (a custom directory named by a project's config).

    The answer is a real path (symlinks resolved).
    """
    lexical = os.path.abspath(os.fspath(path))
    home_real = os.path.realpath(home if home is not None else os.path.expanduser("~"))
    cur = os.path.dirname(lexical)
    while True:
        if not os.path.islink(cur) and os.path.lexists(os.path.join(cur, ".git")):
            real = os.path.realpath(cur)
            if not _contains(real, home_real):
                return real
            break
        parent = os.path.dirname(cur)
        if parent == cur:
            break
        cur = parent
    cur = lexical
    while True:
        parent = os.path.dirname(cur)
        if parent == cur:
            break
        if os.path.basename(cur).startswith("."):
            return os.path.realpath(parent)
        cur = parent
    return os.path.realpath(lexical)


def _contains(base: str, path: str) -> bool:
    """Real path ``path`` is ``base`` or below it."""
    return path == base or path.startswith(base.rstrip(os.sep) + os.sep)


def outside_area(path: Path | str, area: str) -> str | None:
    """The real path of ``path`` when it lies outside ``area`` (a real path), else ``None``.

    Symlinks are followed; nothing is opened or read.
    """
    real = os.path.realpath(path)
    return None if _contains(area, real) else real
