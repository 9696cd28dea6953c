"""Replaying an unchanged ``skillpath list``: the whole-output layer of the discovery index.

A warm ``list`` with the discovery index (:mod:`skillpath.index`) still starts
the command line, loads every plugin, builds thousands of objects, merges,
filters and encodes them. When nothing it depends on has changed, all of that
gives the same bytes as last time. So a ``list`` run records what it depended
on, and the next run with the same inputs checks those and writes the recorded
output without importing the rest of skillpath.

What a run depends on, and how each is checked:

* **The invocation**: the arguments, the current directory, the whole
  environment (except ``_``, ``OLDPWD`` and ``SHLVL``, which the shell changes
  between commands; with ``HOME`` unset, the home directory of the user
  database), the interpreter (``sys.executable``, ``sys.version``,
  ``sys.flags``), ``sys.path``, the user and group ids, whether stdout and
  stderr are terminals, and whether they are one file (``2>&1``). These form
  the key; they must be equal.
* **Every file-system observation the run made** — by any code in the process,
  core, provider or third-party plugin: every file opened for reading and
  every directory listed (seen through the interpreter's audit events
  ``open``, ``os.listdir`` and ``os.scandir``), and every ``os.stat`` and
  ``os.lstat`` call (what ``pathlib``, ``os.path.exists``/``isdir``/
  ``realpath`` and the scanner use) and ``os.access`` call (recorded as the
  ``stat`` of its path), including the ones that found nothing.
  Each is recorded with its result: mode, inode, device, size and the
  nanosecond ``mtime``/``ctime``, or the error number. A replay repeats each
  ``stat``/``lstat`` and compares. A listed directory's ``mtime`` changes when
  an entry is added, removed or renamed; an edited file's ``mtime``/``ctime``
  change even when its size and mtime second do not; a path that did not exist
  is checked to still not exist (so creating a new skills root is seen).
* **The code**: the files of every module loaded in the recording run (the
  same stat comparison), so upgrading or editing the core, a provider or a
  plugin is seen; a new distribution on ``sys.path`` shows as a change of the
  listed ``site-packages`` directory.

A run is not recorded when it did anything a file comparison cannot vouch for:
starting a process (MCP stdio servers), opening a socket or resolving a host
(remote skills), forking, changing directory, reading something that is not a
regular file or directory, a relative ``stat`` through a directory descriptor,
or when a plugin calls :func:`skillpath.index.volatile` (for a result that
depends on the time of day, say). A result that holds only until a given time
(an MCP server's listing reused from its cache until its TTL ends) calls
:func:`expires`: the snapshot is not replayed from that time on. It is not
recorded either when an observed file or directory was modified within the index's racy window
(:data:`skillpath.index.RACY_WINDOW_NS`, ``SKILLPATH_INDEX_RACY_MS``) of the
run: a later change in the same timestamp tick could go unseen. Only runs that
exit with status 0 and use the discovery index are recorded; the index's
switches (``SKILLPATH_NO_INDEX``, ``--no-index``, ``[index] enabled = false``)
turn this layer off too, and ``SKILLPATH_NO_SNAPSHOT=1`` turns off only this
layer. Terminal output is never recorded (its layout depends on the terminal).

Snapshot files live in ``<cache>/snapshots`` (next to ``<cache>/index``), one
per key, at most :data:`MAX_SNAPSHOTS` of them and :data:`MAX_BYTES` in all (the
least recently used go first); they have a magic number, a length and a CRC-32
of what they record and a CRC-32 of the whole recorded output, and are written
atomically. A snapshot is replayed only when it and its folders belong to the
user and no one else may write them, and it is a regular file of at most
:data:`MAX_BYTES` (opened without blocking). When stdout and stderr are the
same file the run is captured as one stream, so a plugin's messages keep their
place among the output lines. Setting
``SKILLPATH_SNAPSHOT_LOG`` to a file name appends one line per decision
(replayed, recorded, or why not) to that file.

This module is imported before anything else of the command line, so it
imports only ``os``, ``sys``, ``marshal``, ``zlib``, :mod:`skillpath.cache.files` and
:mod:`skillpath._env`.
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib
from stat import S_ISDIR, S_ISREG

from skillpath import _env
from skillpath.cache import files as _cachefile
from skillpath.cache.files import cache_root

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any, BinaryIO

__all__ = [
    "MAX_BYTES",
    "MAX_SNAPSHOTS",
    "REBUILD_LIMIT",
    "Recorder",
    "allow",
    "cache_root",
    "expires",
    "listed",
    "rebuilt",
    "recorder_for",
    "replay",
    "volatile",
]

#: On-disk format version (part of the magic number).
FORMAT = 3
_MAGIC = _cachefile.magic(b"SWSNP", FORMAT)
#: How many snapshot files are kept (one per distinct invocation), and how many
#: bytes in all; the least recently used go first.
MAX_SNAPSHOTS = 64
MAX_BYTES = 256 << 20
#: A run that rebuilds more discovery-index entries than this is not recorded.
REBUILD_LIMIT = 256
#: Environment variables left out of the key: the shell changes them between commands.
_VOLATILE_ENV = frozenset({"_", "OLDPWD", "SHLVL"})
#: Audit events after which a run's output cannot be vouched for by file stats.
_VOLATILE_EVENTS = frozenset(
    {
        "subprocess.Popen",
        "os.system",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.fork",
        "os.forkpty",
        "pty.spawn",
        "socket.connect",
        "socket.bind",
        "socket.getaddrinfo",
        "socket.gethostbyname",
        "socket.sendto",
        "os.chdir",
        "os.fchdir",
    }
)
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND

_SEP = os.sep
_PYCACHE = os.sep + "__pycache__" + os.sep

_ACTIVE: Recorder | None = None
_HOOKED = False


# --------------------------------------------------------------------- where


def _eligible(argv: Sequence[str], env: Mapping[str, str]) -> str | None:
    """Why this invocation is not replayed or recorded (``None`` when it may be)."""
    if not argv or argv[0] != "list":
        return "not a list command"
    if any(a in ("--no-index", "-h", "--help") for a in argv[1:]):
        return "--no-index or --help"
    for var in ("SKILLPATH_NO_INDEX", "SKILLPATH_NO_SNAPSHOT"):
        if _env.flag(env, var):
            return f"{var} is set"
    try:
        if os.isatty(1):
            return "stdout is a terminal"
    except OSError:
        return "stdout is closed"
    return None


def _key(argv: Sequence[str], env: Mapping[str, str]) -> tuple[Any, ...]:
    environ = tuple(sorted((k, v) for k, v in env.items() if k not in _VOLATILE_ENV))
    try:
        err_tty = os.isatty(2)
    except OSError:
        err_tty = None
    getgroups = getattr(os, "getgroups", None)
    return (
        FORMAT,
        _home(env),
        same_output(),
        sys.executable,
        sys.version,
        tuple(sys.flags),
        tuple(sys.path),
        os.getcwd(),
        getattr(os, "getuid", lambda: None)(),
        getattr(os, "getgid", lambda: None)(),
        tuple(sorted(getgroups())) if getgroups else (),
        err_tty,
        tuple(argv),
        environ,
    )


def _home(env: Mapping[str, str]) -> str | None:
    """``$HOME``, or when it is unset the home directory the user database gives
    (what ``~`` means then; the environment alone does not show it)."""
    home = env.get("HOME")
    if home is not None:
        return home
    try:
        import pwd

        return pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError, AttributeError):
        return None


def same_output() -> bool:
    """Whether stdout and stderr are the same file (``2>&1``): the run's output is then
    one stream, captured and replayed as one so that its order is kept."""
    try:
        one, two = os.fstat(1), os.fstat(2)
    except OSError:
        return False
    return (one.st_dev, one.st_ino) == (two.st_dev, two.st_ino)


def _file_for(directory: str, key: tuple[Any, ...]) -> str:
    raw = repr(key).encode("utf-8", "surrogatepass")  # marshal's bytes vary with refcounts
    return os.path.join(directory, f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}.snap")


def _log(env: Mapping[str, str], line: str) -> None:
    target = env.get("SKILLPATH_SNAPSHOT_LOG")
    if not target:
        return
    try:
        with open(target, "a", encoding="utf-8") as f:
            f.write(line + "\n")
    except OSError:
        pass


def _sig(st: os.stat_result) -> tuple[int, int, int, int, int, int]:
    return (st.st_mode, st.st_ino, st.st_dev, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


# --------------------------------------------------------------------- replay


def replay(
    argv: Sequence[str],
    env: Mapping[str, str] | None = None,
    write: Callable[[int, memoryview], None] | None = None,
) -> int | None:
    """Write the recorded output of ``skillpath <argv>`` if nothing it depended on changed.

    Returns the exit status to end with, or ``None`` when there is no valid
    snapshot (the command must run). Never raises for a missing, damaged or
    foreign snapshot file. ``write(fd, data)`` writes the output (default:
    to file descriptors 1 and 2).
    """
    env = os.environ if env is None else env
    why = _eligible(argv, env)
    if why is not None:
        return None
    try:
        key = _key(argv, env)
    except OSError:
        return None  # no current directory
    path = _file_for(os.path.join(cache_root(env), "snapshots"), key)
    # only the user's own regular file, in the user's own folders, bounded
    data = _cachefile.read_cache(path, MAX_BYTES)
    if data is None:
        _log(env, f"miss: no snapshot of this user's {path}")
        return None
    loaded = _load(data, key)
    if loaded is None:
        _log(env, f"miss: damaged or foreign snapshot {path}")
        return None
    checks, (out, err), code, deadline = loaded
    if deadline is not None and _time_ns() >= deadline:
        _log(env, f"miss: expired snapshot {path}")
        return None
    try:
        changed = _changed(checks)
    except (TypeError, ValueError, IndexError):
        _log(env, f"miss: damaged or foreign snapshot {path}")
        return None
    if changed is not None:
        _log(env, f"miss: {changed}")
        return None
    _log(env, f"replayed {path}")
    try:
        os.utime(path)  # recently used: the last to be pruned
    except OSError:
        pass
    (write or _write_fd)(1, out)
    (write or _write_fd)(2, err)
    return code


def _load(data: bytes, key: tuple[Any, ...]) -> Any:
    """``(checks, (stdout, stderr), status, deadline)`` of a snapshot made for ``key``,
    or ``None``."""
    parts = _cachefile.unseal(_MAGIC, data)
    if parts is None:
        return None
    meta, tail = parts
    try:
        # our own file in the user's cache dir, length- and CRC-checked; marshal
        # builds only plain data, which is type-checked here
        fmt, stored_key, checks, out_len, crc, code, deadline = marshal.loads(meta)  # noqa: S302
        if fmt != FORMAT or stored_key != key or len(checks) != 4:
            return None
        if deadline is not None and deadline.__class__ is not int:
            return None
        if len(tail) != out_len[0] + out_len[1] or not isinstance(code, int):
            return None
        if zlib.crc32(tail) != crc:  # the whole recorded output, not just its length
            return None
    except (ValueError, TypeError, EOFError, IndexError):
        return None
    return checks, (tail[: out_len[0]], tail[out_len[0] :]), code, deadline


def _changed(checks: Any) -> str | None:
    """The first observation that no longer holds, or ``None``."""
    stat_paths, stat_sigs, lstat_paths, lstat_sigs = checks
    for paths, sigs, fn in ((stat_paths, stat_sigs, os.stat), (lstat_paths, lstat_sigs, os.lstat)):
        for p, expected in zip(paths, sigs, strict=True):
            try:
                st = fn(p)
            except OSError as exc:
                if exc.errno != expected:
                    return f"{p}: now {exc.strerror}"
                continue
            if expected.__class__ is int:
                return f"{p}: now exists"
            if len(expected) == 3:
                if (st.st_mode, st.st_ino, st.st_dev) != expected:
                    return f"{p}: replaced"
            elif _sig(st) != expected:
                return f"{p}: changed"
    return None


def _write_fd(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


# --------------------------------------------------------------------- record


def volatile(reason: str) -> None:
    """Mark the run in progress as not replayable (see :func:`skillpath.index.volatile`)."""
    rec = _ACTIVE
    if rec is not None:
        rec.volatile(reason)


def expires(deadline_ns: int) -> None:
    """Record that the output of the run in progress holds only until ``deadline_ns``
    (``time.time_ns()`` time): its snapshot is not replayed from then on.

    Several calls keep the earliest deadline.
    """
    rec = _ACTIVE
    if rec is not None:
        rec.expires(deadline_ns)


def listed(path: str) -> None:
    """Record that the run in progress depends on the entries of directory ``path``.

    Listing a directory is seen on its own; the discovery index calls this when
    it reuses the entries it recorded for a root because the root's ``stat``
    is unchanged (so the root is not listed again).
    """
    rec = _ACTIVE
    if rec is not None:
        rec.observe(path, "listing")


def rebuilt() -> None:
    """Count one discovery-index entry rebuilt by the run in progress.

    A run that rebuilds more than :data:`REBUILD_LIMIT` entries is not
    recorded and stops observing at once: the tree is new or changing, and
    the next run, served by the index, records at a fraction of the cost.
    """
    rec = _ACTIVE
    if rec is not None:
        rec.rebuilt += 1
        if rec.rebuilt > REBUILD_LIMIT:
            rec.abandon(f"more than {REBUILD_LIMIT} index entries were rebuilt")


def allow() -> None:
    """Let the run in progress be recorded: ``list`` calls this when the load used the index."""
    rec = _ACTIVE
    if rec is not None:
        rec.allowed = True


class Recorder:
    """Records what one run observes (see the module docstring) and saves a snapshot."""

    def __init__(self, argv: Sequence[str], env: Mapping[str, str]) -> None:
        self.env = env
        self.key = _key(argv, env)
        root = cache_root(env)
        self.directory = os.path.join(root, "snapshots")
        self._cache = os.path.abspath(root)
        self._skip = tuple(os.path.join(self._cache, d) + os.sep for d in ("index", "snapshots"))
        self.cwd = os.getcwd()
        self.window = _cachefile.racy_window_ns(env)
        self.start_ns = 0
        self.allowed = False
        self.rebuilt = 0
        self.deadline: int | None = None
        self.reasons: list[str] = []
        self.stat: dict[str, Any] = {}
        self.lstat: dict[str, Any] = {}

    # -- observing ---------------------------------------------------------
    def expires(self, deadline_ns: int) -> None:
        """The output holds only until ``deadline_ns`` (the earliest deadline counts)."""
        deadline = int(deadline_ns)
        if self.deadline is None or deadline < self.deadline:
            self.deadline = deadline

    def volatile(self, reason: str) -> None:
        """Do not record this run, because of ``reason``."""
        if reason not in self.reasons:
            self.reasons.append(reason)

    def _abs(self, path: Any) -> str | None:
        if path.__class__ is str:
            p = path
        elif isinstance(path, int) or path is None:
            return None
        else:
            try:
                p = os.fsdecode(os.fspath(path))
            except (TypeError, ValueError):
                self.volatile("an unrecognised path")
                return None
        if not p:
            return None
        if not p.startswith(_SEP) and not os.path.isabs(p):
            p = os.path.join(self.cwd, p)
        if (p.startswith(self._cache) and (p + _SEP).startswith(self._skip)) or (
            p.endswith(".pyc") and _PYCACHE in p
        ):
            # our own caches, and bytecode (a cache of the module source, whose
            # file is checked with every module's when the run ends)
            return None
        return p

    def note(self, path: Any, follow: bool, result: Any, dir_fd: Any = None) -> None:
        """Record the result of a ``stat`` (``follow``) or ``lstat`` of ``path``."""
        if dir_fd is not None and not (isinstance(path, (str, bytes)) and os.path.isabs(path)):
            self.volatile("a stat relative to a directory descriptor")
            return
        p = self._abs(path)
        if p is None:
            return
        table = self.stat if follow else self.lstat
        if p not in table:
            if result.__class__ is int:
                table[p] = result
            elif S_ISDIR(result.st_mode):
                # a directory's stat vouches for what it is; its entries are
                # vouched for by listing it (its mtime is left out, or every
                # file created in /tmp would invalidate a path resolved through it)
                table[p] = (result.st_mode, result.st_ino, result.st_dev)
            else:
                table[p] = _sig(result)
                self._racy(p, result)

    def observe(self, path: Any, kind: str) -> None:
        """Record the ``stat`` of a file about to be read or a directory about to be listed."""
        p = self._abs(path)
        if p is None:
            return
        known = self.stat.get(p)
        if known is not None and (known.__class__ is int or len(known) != 3):
            return
        seen = self.lstat.get(p)
        if seen is not None and seen.__class__ is not int and S_ISREG(seen[0]):
            return  # its lstat (a regular file, not a link) already vouches for it
        try:
            st = _REAL_STAT(p)
        except OSError as exc:
            self.stat[p] = exc.errno
            return
        if not (S_ISREG(st.st_mode) or S_ISDIR(st.st_mode)):
            self.volatile(f"{kind} of a special file {p}")
        self.stat[p] = _sig(st)
        self._racy(p, st)

    def _racy(self, p: str, st: os.stat_result) -> None:
        """Stop observing at once when ``p``, just observed, changed within the racy
        window: the run cannot be recorded (see :meth:`_why_not`), and observing the
        rest of it would only cost time (a project under a sticky ``/tmp``, whose
        listing any new temporary file changes, paid that on every run)."""
        racy_after = self.start_ns - self.window
        if st.st_mtime_ns >= racy_after or st.st_ctime_ns >= racy_after:
            self.abandon(f"{p} was modified too recently to vouch for later changes")

    def _audit(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "open":
            path, mode, flags = args
            if isinstance(mode, str):
                if any(c in mode for c in "wax+"):
                    return
            elif isinstance(flags, int) and flags & _WRITE_FLAGS:
                return
            self.observe(path, "open")
        elif event == "os.listdir" or event == "os.scandir":
            self.observe("." if args[0] is None else args[0], "listing")
        elif event in _VOLATILE_EVENTS:
            self.volatile(event)

    # -- running -----------------------------------------------------------
    def start(self) -> None:
        """Begin observing (one recorder per process at a time)."""
        global _ACTIVE, _HOOKED
        self.start_ns = _time_ns()
        _ACTIVE = self
        if not _HOOKED:
            sys.addaudithook(_audit_hook)
            _HOOKED = True
        os.stat = _stat  # type: ignore[assignment]
        os.lstat = _lstat  # type: ignore[assignment]
        os.access = _access  # type: ignore[assignment]

    def _detach(self) -> None:
        global _ACTIVE
        os.stat = _REAL_STAT
        os.lstat = _REAL_LSTAT
        os.access = _REAL_ACCESS
        if _ACTIVE is self:
            _ACTIVE = None

    def abandon(self, reason: str) -> None:
        """Stop observing at once: this run will not be recorded, because of ``reason``."""
        self.volatile(reason)
        self._detach()
        self.stat.clear()
        self.lstat.clear()

    def stop(self) -> None:
        """Stop observing; the code files of every loaded module are added now."""
        self._detach()
        if self.reasons:
            return
        for module in list(sys.modules.values()):
            file = getattr(module, "__file__", None)
            if isinstance(file, str):
                p = os.path.abspath(file)
                if p not in self.stat:
                    try:
                        self.stat[p] = _sig(_REAL_STAT(p))
                    except OSError as exc:
                        self.stat[p] = exc.errno

    def save(self, out: bytes | BinaryIO, err: bytes | BinaryIO, code: int) -> str | None:
        """Write the snapshot; return why not when the run may not be replayed.

        ``out`` and ``err`` are what the run wrote to stdout and stderr, as
        bytes or as files (copied a chunk at a time, from the start).
        """
        why = self._why_not(code)
        if why is not None:
            _log(self.env, f"not recorded: {why}")
            return why
        checks = (
            list(self.stat),
            list(self.stat.values()),
            list(self.lstat),
            list(self.lstat.values()),
        )
        sizes = (_size(out), _size(err))
        crc = _crc(err, _crc(out, 0))
        meta = marshal.dumps((FORMAT, self.key, checks, sizes, crc, code, self.deadline))
        del checks
        final = _file_for(self.directory, self.key)

        def fill(f: BinaryIO) -> None:
            f.write(_cachefile.seal(_MAGIC, meta))
            _copy(out, f)
            _copy(err, f)

        try:
            _cachefile.write_atomic(final, fill)
            self._prune()
        except OSError as exc:
            _log(self.env, f"not recorded: cannot write {final}: {exc.strerror}")
            return f"cannot write {final}"
        _log(self.env, f"recorded {final} ({len(self.stat) + len(self.lstat)} checks)")
        return None

    def _why_not(self, code: int) -> str | None:
        if code != 0:
            return f"exit status {code}"
        if self.reasons:
            return "; ".join(self.reasons)
        if not self.allowed:
            return "the load did not use the discovery index"
        if self.deadline is not None and self.deadline <= _time_ns():
            return "its output expired while it ran"
        racy_after = self.start_ns - self.window
        for table in (self.stat, self.lstat):
            for p, sig in table.items():
                if sig.__class__ is int or len(sig) == 3:
                    continue
                if sig[4] >= racy_after or sig[5] >= racy_after:
                    return f"{p} was modified too recently to vouch for later changes"
        return None

    def _prune(self) -> None:
        """Keep the most recently used snapshots: at most :data:`MAX_SNAPSHOTS` files
        and :data:`MAX_BYTES` in all (the newest is always kept)."""
        _cachefile.prune(
            self.directory, ".snap", max_files=MAX_SNAPSHOTS, max_bytes=MAX_BYTES, newest=1
        )


def _size(data: bytes | BinaryIO) -> int:
    if isinstance(data, bytes):
        return len(data)
    return data.seek(0, os.SEEK_END)


def _crc(data: bytes | BinaryIO, crc: int) -> int:
    if isinstance(data, bytes):
        return zlib.crc32(data, crc)
    data.seek(0)
    while chunk := data.read(_CHUNK):
        crc = zlib.crc32(chunk, crc)
    return crc


def _copy(data: bytes | BinaryIO, f: BinaryIO) -> None:
    if isinstance(data, bytes):
        f.write(data)
        return
    data.seek(0)
    while chunk := data.read(_CHUNK):
        f.write(chunk)


_CHUNK = 1 << 20
_REAL_STAT = os.stat
_REAL_LSTAT = os.lstat
_REAL_ACCESS = os.access


def _time_ns() -> int:
    import time

    return time.time_ns()


def _audit_hook(event: str, args: tuple[Any, ...]) -> None:
    rec = _ACTIVE
    if rec is None:
        return
    try:
        rec._audit(event, args)
    except Exception:  # noqa: BLE001 - an audit hook must never break what it watches
        rec.volatile(f"cannot observe {event}")


def _stat(path: Any, *, dir_fd: Any = None, follow_symlinks: bool = True) -> os.stat_result:
    try:
        st = _REAL_STAT(path, dir_fd=dir_fd, follow_symlinks=follow_symlinks)
    except OSError as exc:
        rec = _ACTIVE
        if rec is not None:
            rec.note(path, follow_symlinks, exc.errno, dir_fd)
        raise
    rec = _ACTIVE
    if rec is not None:
        rec.note(path, follow_symlinks, st, dir_fd)
    return st


def _lstat(path: Any, *, dir_fd: Any = None) -> os.stat_result:
    return _stat(path, dir_fd=dir_fd, follow_symlinks=False)


def _access(
    path: Any,
    mode: int,
    *,
    dir_fd: Any = None,
    effective_ids: bool = False,
    follow_symlinks: bool = True,
) -> bool:
    # an existence or permission test (provenance's look for .openskills.json) is an
    # observation too: recorded as the stat of the same path, which a replay repeats
    # (a created file, or a changed mode, moves it)
    answer = _REAL_ACCESS(
        path, mode, dir_fd=dir_fd, effective_ids=effective_ids, follow_symlinks=follow_symlinks
    )
    rec = _ACTIVE
    if rec is not None:
        try:
            st = _REAL_STAT(path, dir_fd=dir_fd, follow_symlinks=follow_symlinks)
        except OSError as exc:
            rec.note(path, follow_symlinks, exc.errno, dir_fd)
        else:
            rec.note(path, follow_symlinks, st, dir_fd)
    return answer


def recorder_for(argv: Sequence[str], env: Mapping[str, str] | None = None) -> Recorder | None:
    """A recorder for ``skillpath <argv>``, or ``None`` when it is never replayed."""
    env = os.environ if env is None else env
    if _eligible(argv, env) is not None:
        return None
    try:
        return Recorder(argv, env)
    except OSError:
        return None
