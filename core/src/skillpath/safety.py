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

Every JSON file read from such a path (lock files, installers' records,
plugin registries, manifests) goes through :func:`read_json_bounded`: the
same reader, a nesting-depth bound checked before parsing (a 100,000-level
document is a clear :class:`JSONLimitError`, never a ``RecursionError``), and,
with ``area``, a refusal of a file whose real path (symlinks followed) lies
outside that directory.

Every folder skillpath writes into on the user's behalf (``export``, ``new``)
is checked first with :func:`destination_problem`: no symbolic link out of
the project (or the user's agent folder) on the way, and every existing
folder on the way owned by the user and not writable by others.
"""

from __future__ import annotations

import errno
import os
import stat
import unicodedata
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from skillpath._openfile import open_regular
from skillpath.errors import ResolveError

__all__ = [
    "MAX_CONFIG_BYTES",
    "MAX_JSON_DEPTH",
    "ContainmentError",
    "JSONLimitError",
    "check_relative",
    "describe_oserror",
    "destination_problem",
    "is_inside",
    "iter_file_chunks",
    "json_depth",
    "lexists",
    "loads_bounded",
    "open_regular",
    "outside_area",
    "project_area",
    "read_bounded",
    "read_fd_bounded",
    "read_json_bounded",
    "resolve_inside",
]

#: Longest relative path accepted (characters).
MAX_RELATIVE = 4096
#: Largest config, settings, plugin registry or manifest file read (bytes):
#: ``.skillpath/config.toml``, Claude Code's ``settings.json`` files and
#: ``installed_plugins.json``, plugin manifests, ``.gitignore`` files.
MAX_CONFIG_BYTES = 4 * 1024 * 1024
#: Deepest nesting of arrays and objects accepted in a JSON file someone else
#: controls (lock files, registries, manifests). Real ones nest four or five deep.
MAX_JSON_DEPTH = 64


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
    return real_inside(os.path.realpath(path), os.path.realpath(base))


def real_inside(real: str, real_base: str) -> bool:
    """:func:`is_inside` for paths already resolved (``os.path.realpath``): ``real`` is
    ``real_base`` or below it."""
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


# -- JSON from files someone else controls ----------------------------------------


class JSONLimitError(ValueError):
    """A JSON document that is not read: nested too deep, too large, not UTF-8, or
    a file outside the directory it must stay in. The message says which."""


_JSON_STRING = rb'"(?:[^"\\]|\\.)*"'  # compiled on first use (not on the cold path)
_BRACKETS = bytes(range(256)).translate(None, b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


def json_depth(data: bytes) -> int:
    """The deepest nesting of arrays and objects in the JSON text ``data``.

    Counted on the text, without parsing (strings are skipped, so a ``[`` in a
    string does not count); linear in the size of ``data``, no recursion.
    """
    if not any(b in data for b in (b"[", b"{")):
        return 0
    import re
    from itertools import accumulate

    brackets = re.sub(_JSON_STRING, b"", data, flags=re.DOTALL).translate(None, _BRACKETS)
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def loads_bounded(data: bytes, *, max_depth: int = MAX_JSON_DEPTH, what: str = "JSON") -> Any:
    """Parse ``data`` (UTF-8, an optional BOM) as JSON nested at most ``max_depth`` deep.

    :raises JSONLimitError: nested deeper than ``max_depth``, or not UTF-8.
    :raises json.JSONDecodeError: not valid JSON (a :class:`ValueError` too).
    """
    depth = json_depth(data)
    if depth > max_depth:
        raise JSONLimitError(f"{what} is nested {depth} levels deep (the limit is {max_depth})")
    import json

    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise JSONLimitError(f"{what} is not UTF-8: {exc.reason}") from None
    try:
        return json.loads(text)
    except RecursionError:  # a depth the count above missed cannot crash the caller
        raise JSONLimitError(f"{what} is nested too deep") from None


def read_json_bounded(
    path: Path | str,
    *,
    limit: int = MAX_CONFIG_BYTES,
    max_depth: int = MAX_JSON_DEPTH,
    area: Path | str | None = None,
    follow: bool = True,
) -> Any:
    """The parsed JSON of regular file ``path``, read with every bound.

    The reader for lock files, installers' records, registries and manifests:
    :func:`read_bounded` (regular files only, never blocks on a FIFO, at most
    ``limit`` bytes), then :func:`loads_bounded` (at most ``max_depth`` deep).
    With ``area``, a file whose real path lies outside that directory (a
    ``skills-lock.json`` symlinked out of the repository) is refused before it
    is opened. With ``follow`` false, a symbolic link is refused.

    :raises FileNotFoundError: the file is missing.
    :raises OSError: as :func:`read_bounded` (a FIFO, a device, too large …).
    :raises JSONLimitError: outside ``area``, too deep, not UTF-8.
    :raises json.JSONDecodeError: not valid JSON.
    """
    if area is not None:
        outside = outside_area(path, os.path.realpath(area))
        if outside is not None:
            if not os.path.lexists(path):
                raise FileNotFoundError(errno.ENOENT, "no such file", os.fspath(path))
            raise JSONLimitError(
                f"is a link to {outside}, outside {os.path.realpath(area)}; not read"
            )
    return loads_bounded(read_bounded(path, limit, follow=follow), max_depth=max_depth)


def iter_file_chunks(path: Path | str, *, chunk: int = 1 << 20) -> Iterator[bytes]:
    """The bytes of regular file ``path`` in chunks of at most ``chunk`` bytes.

    Opened as :func:`open_regular` does, without following a final symbolic
    link: for hashing a file of any size in constant memory (a 3 GiB sparse
    file is never held whole). :raises OSError: as :func:`open_regular`.
    """
    fd, _st = open_regular(path, follow=False)
    try:
        while True:
            block = os.read(fd, chunk)
            if not block:
                return
            yield block
    finally:
        os.close(fd)


# -- where skillpath may write -------------------------------------------------------


def _trusted_owners() -> set[int]:
    """The uids whose directories count as the user's: the user, root and, for a
    ``sudo`` run, the user who ran ``sudo`` (``SUDO_UID``, as git does)."""
    euid = os.geteuid()
    owners = {euid, 0}
    if euid == 0:
        sudo = os.environ.get("SUDO_UID", "")
        if sudo.isdigit():
            owners.add(int(sudo))
    return owners


def _private_group(gid: int) -> bool:
    """``gid`` is the user's own private group (named after the user, no other member)."""
    try:
        import grp
        import pwd

        user = pwd.getpwuid(os.geteuid())
        group = grp.getgrgid(gid)
    except (ImportError, KeyError, OSError):
        return False
    return (
        gid == user.pw_gid and group.gr_name == user.pw_name and set(group.gr_mem) <= {user.pw_name}
    )


def _writable_by_others(st: os.stat_result) -> str | None:
    mode = st.st_mode
    if mode & stat.S_IWOTH:
        return f"writable by others (mode {oct(stat.S_IMODE(mode))})"
    if mode & stat.S_IWGRP and not _private_group(st.st_gid):
        return f"writable by group {st.st_gid} (mode {oct(stat.S_IMODE(mode))})"
    return None


def destination_problem(target: Path | str, base: Path | str) -> str | None:
    """Why skillpath must not write ``target`` (below ``base``), or ``None`` when it may.

    ``base`` is the project root (or, in the user scope, the user's agent
    folder such as ``~/.claude``). Checked for ``base`` and every existing
    folder from it down to ``target`` (what does not exist yet is created by
    skillpath itself):

    * below ``base``, a symbolic link whose real path leaves the real ``base``
      (a repository's ``.claude -> ~/.claude``) is refused; ``base`` itself
      may be a link (a user's dotfiles);
    * each existing folder must be owned by the user (or root, or the user of
      a ``sudo`` run) and not writable by other users;
    * a path on the way that is not a folder is refused.

    ``target`` must be ``base`` or lexically below it. The answer is a reason
    for people ("…/.claude is a symbolic link to /home/u/.claude, outside
    /repo"), without the path of ``target`` itself.
    """
    base_text = os.path.abspath(os.fspath(base))
    target_text = os.path.abspath(os.fspath(target))
    if target_text != base_text and not target_text.startswith(base_text.rstrip(os.sep) + os.sep):
        return f"{target_text} is not inside {base_text}"
    real_base = os.path.realpath(base_text)
    rest = os.path.relpath(target_text, base_text)
    steps = [base_text]
    if rest != os.curdir:
        for part in rest.split(os.sep):
            steps.append(os.path.join(steps[-1], part))
    owners = _trusted_owners() if hasattr(os, "geteuid") else None
    for i, step in enumerate(steps):
        try:
            lst = os.lstat(step)
        except FileNotFoundError:
            return None  # skillpath creates the rest
        except OSError as exc:
            return f"{step}: {describe_oserror(exc)}"
        if stat.S_ISLNK(lst.st_mode) and i > 0:
            real = os.path.realpath(step)
            if not _contains(real_base, real):
                return f"{step} is a symbolic link to {real}, outside {real_base}"
        try:
            st = os.stat(step)
        except OSError as exc:
            return f"{step}: {describe_oserror(exc)} (a dangling link?)"
        if not stat.S_ISDIR(st.st_mode):
            if i == len(steps) - 1:
                return None  # the target itself: the caller decides about a file in the way
            return f"{step} is not a folder"
        if owners is None:
            continue
        if st.st_uid not in owners:
            return f"{step} is owned by uid {st.st_uid}, not by you"
        writable = _writable_by_others(st)
        if writable is not None:
            return f"{step} is {writable}"
    return None
