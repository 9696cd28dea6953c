"""The persistent discovery index: re-listing an unchanged tree reads no ``SKILL.md``.

:func:`skillpath.load_skills` opens a :class:`DiscoveryIndex` and makes it
current for the duration of the load; :func:`skillpath.scan.scan_skills_dir`
(which every provider reaches through ``Discovery.scan``) consults it, so every
provider benefits without changes. Outside a load nothing is cached.

What is stored, one file per skills root, in the user cache directory
(``$SKILLPATH_CACHE_DIR/index``, else ``platformdirs.user_cache_dir("skillpath")``
+ ``/index``, which honours ``XDG_CACHE_HOME``):

* the root directory's identity and ``mtime_ns`` (``st_dev``, ``st_ino``,
  ``st_mtime_ns``, ``st_ctime_ns``) and the entries it listed; while they match,
  the root is not listed again;
* for every skill folder, the ``lstat`` of its ``SKILL.md`` (size, ``mtime_ns``,
  inode, device, ``ctime_ns``), plus for symlinks the ``stat`` through the link,
  ``readlink`` and ``realpath`` (of ``SKILL.md`` and of a symlinked skill folder);
* what the scanner derived from the file for each way it was scanned
  (provider, level, origin, description required): the frontmatter values, the
  name, the description (the body's first paragraph when it is the fallback) and
  the diagnostics.

A re-list compares those keys (directory and file stats only) and rebuilds
exactly the entries whose key changed: added, removed, edited (even keeping the
size and the mtime second: nanosecond mtime, ctime and inode differ), renamed,
symlink retargeted. Timestamps have a granularity, so an entry whose ``mtime``
or ``ctime`` falls within :data:`RACY_WINDOW_NS` of the start of the scan that
recorded it is "racy" and is read again next time (git's racy-clean rule);
``SKILLPATH_INDEX_RACY_MS`` sets another window (``0`` trusts every entry at
once, which tests use).

The files are ``marshal`` data behind a magic number, a length and a CRC-32;
anything that does not check out (truncated, corrupt, another format version,
another Python, another version of the code that derives the records) is
ignored and rewritten. "The code" is identified by content: a hash of the
bytes of the modules that derive records and of the ``yaml`` package, plus the
PyYAML and libyaml versions (:func:`code_fingerprint`). Writes go to a
temporary file that replaces the old one atomically (``os.replace``), so
concurrent writers never mix their data and a process killed mid-write leaves
the previous file intact. Only the user's own files in the user's own folders
that no one else may write are read or written, and only regular files of at
most :data:`MAX_FILE_BYTES` (see :mod:`skillpath.cache.files`).

An outcome that depends on who reads a file rather than on the file (a
``SKILL.md`` that cannot be read: permission denied, an I/O error) is never
stored: it is tried again on every load.

Turn it off with ``[index] enabled = false``, ``SKILLPATH_NO_INDEX=1``,
``skillpath list --no-index`` or :func:`disabled`.
"""

from __future__ import annotations

import contextlib
import contextvars
import marshal
import os
import sys
import time
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from skillpath import _env
from skillpath.cache import files as _cachefile
from skillpath.cache import replay as _replay
from skillpath.cache import reuse as _reuse

__all__ = [
    "MAX_BYTES",
    "MAX_FILES",
    "MAX_FILE_BYTES",
    "RACY_WINDOW_NS",
    "DiscoveryIndex",
    "IndexStats",
    "activate",
    "code_fingerprint",
    "current",
    "disabled",
    "index_dir",
    "index_enabled",
    "open_index",
    "volatile",
]

#: On-disk format version (part of the magic number).
FORMAT = 1
_MAGIC = _cachefile.magic(b"SWIDX", FORMAT)
#: The index directory keeps at most this many root files and bytes (see DiscoveryIndex.flush).
MAX_FILES = 4096
MAX_BYTES = 512 << 20
#: An index file larger than this is not read (one root of 100,000 skills takes ~60 MB).
MAX_FILE_BYTES = 256 << 20
#: Entries modified this close to the scan that recorded them are re-read next time.
RACY_WINDOW_NS = _cachefile.RACY_WINDOW_NS
#: The modules whose code decides what a record holds; a change to any of them
#: invalidates every index file.
_CODE_MODULES = (
    "skillpath.scan",
    "skillpath.frontmatter",
    "skillpath._yamlfast",
    "skillpath.model",
    "skillpath.textguard",
    "skillpath.safety",
    "skillpath.cache.index",
    "skillpath.cache.memo",
    "skillpath.contentscan",
    "skillpath.findings",
)

_CURRENT: contextvars.ContextVar[DiscoveryIndex | None] = contextvars.ContextVar(
    "skillpath_index", default=None
)
_DISABLED: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "skillpath_index_disabled", default=False
)


def index_dir(env: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """Where index files live: ``$SKILLPATH_CACHE_DIR/index``, else the user cache dir.

    The user cache dir is ``platformdirs.user_cache_dir("skillpath")``. On
    Linux and other XDG systems it is computed here from ``env`` and ``home``
    with the same rule (``$XDG_CACHE_HOME/skillpath``, else
    ``~/.cache/skillpath``), so a host or a test that passes its own
    environment and home gets its own cache, and start-up does not pay for
    importing platformdirs.
    """
    return Path(_replay.cache_root(env, None if home is None else os.fspath(home))) / "index"


def index_enabled(settings: Any = None, env: Mapping[str, str] | None = None) -> bool:
    """Whether a load should use the index: the ``[index] enabled`` setting,
    ``SKILLPATH_NO_INDEX`` and :func:`disabled` all allow it."""
    if _DISABLED.get():
        return False
    env = os.environ if env is None else env
    if _env.flag(env, "SKILLPATH_NO_INDEX"):
        return False
    return settings is None or bool(settings.get("index", "enabled", True))


@contextlib.contextmanager
def disabled() -> Iterator[None]:
    """Loads started inside this block do not use the index (``list --no-index``)."""
    token = _DISABLED.set(True)
    try:
        yield
    finally:
        _DISABLED.reset(token)


def volatile(reason: str) -> None:
    """Declare that the load in progress depends on something besides files and settings.

    A plugin calls this during ``discover_skills`` or ``filter_skill`` when
    what it contributes depends on anything a replay does not check; the
    ``skillpath list`` run is then not recorded for replay (see
    :mod:`skillpath.cache.replay`). That is:

    * the time or date, a random choice, a count of runs, state kept in memory
      across loads;
    * a file or directory looked at in a way the run does not observe: through
      a descriptor opened before the run, a path relative to a directory
      descriptor (``dir_fd``), metadata read only through
      ``os.DirEntry.stat()`` or ``os.fstat``, or I/O done by a native
      extension's own code rather than Python's ``open``, ``os.listdir``,
      ``os.scandir``, ``os.stat`` or ``os.lstat``.

    Not needed for what is checked or already stops recording: the arguments,
    the current directory, the environment, the user and group ids, files
    opened and directories listed through Python, paths ``stat``'ed by name,
    the plugin's own code, starting a process, opening a socket and resolving
    a host name. Outside a recorded run this does nothing.
    """
    _replay.volatile(reason)


def current() -> DiscoveryIndex | None:
    """The index of the load in progress (in this thread or task), if any."""
    return _CURRENT.get()


@contextlib.contextmanager
def activate(index: DiscoveryIndex | None) -> Iterator[DiscoveryIndex | None]:
    """Make ``index`` current for scans started inside the block."""
    token = _CURRENT.set(index)
    try:
        yield index
    finally:
        _CURRENT.reset(token)


def open_index(ctx: Any) -> DiscoveryIndex | None:
    """The index for a load with context ``ctx``, or ``None`` when it is turned off."""
    if not index_enabled(ctx.settings, ctx.env):
        return None
    window = _cachefile.racy_window_ns(ctx.env)
    return DiscoveryIndex(
        index_dir(ctx.env, ctx.home), racy_window_ns=window, reuse=_reuse.enabled(ctx.env)
    )


class IndexStats:
    """Counters for one :class:`DiscoveryIndex` (what the tests and ``doctor`` look at)."""

    __slots__ = ("files_read", "files_written", "hits", "listings_reused", "misses")

    def __init__(self) -> None:
        self.hits = 0
        self.misses = 0
        self.listings_reused = 0
        self.files_read = 0
        self.files_written = 0

    def as_dict(self) -> dict[str, int]:
        """The counters as a mapping."""
        return {k: getattr(self, k) for k in self.__slots__}


class FileEntry:
    """What the index holds for one skill folder of a root."""

    __slots__ = ("key", "racy", "records")

    def __init__(self, key: tuple[Any, ...], racy: bool, records: dict[Any, Any]) -> None:
        self.key = key
        self.racy = racy
        self.records = records


class RootState:
    """The cached listing and file entries of one skills root, plus what this load saw."""

    __slots__ = (
        "dirty",
        "files",
        "listing",
        "listing_key",
        "listing_racy",
        "released",
        "root",
        "seen",
    )

    def __init__(self, root: str) -> None:
        self.root = root
        self.listing_key: tuple[Any, ...] | None = None
        self.listing_racy = True
        self.listing: tuple[tuple[str, str], ...] = ()
        self.files: dict[str, Any] = {}
        self.seen: dict[str, FileEntry] = {}
        self.dirty = False
        #: the entries were dropped once the root was scanned (see
        #: :meth:`DiscoveryIndex.release`); another scan of it reads the file again
        self.released = False

    # -- used by the scanner ---------------------------------------------------
    def cached_listing(self, key: tuple[Any, ...]) -> tuple[tuple[str, str], ...] | None:
        """The entries recorded for the root when its identity is still ``key``."""
        if self.listing_key == key and not self.listing_racy:
            return self.listing
        return None

    def store_listing(
        self, key: tuple[Any, ...], racy: bool, listing: tuple[tuple[str, str], ...]
    ) -> None:
        """Record what listing the root (whose identity is ``key``) gave."""
        if key != self.listing_key or listing != self.listing or racy != self.listing_racy:
            self.dirty = True
        self.listing_key = key
        self.listing_racy = racy
        self.listing = listing

    def lookup(self, name: str, key: tuple[Any, ...], build: tuple[Any, ...]) -> Any:
        """The record for folder ``name`` scanned as ``build``, if its file key is unchanged."""
        entry = self._entry(name)
        if entry is None or entry.racy or entry.key != key:
            return None
        record = entry.records.get(build)
        if record is not None:
            self.seen[name] = entry
        return record

    def store(
        self, name: str, key: tuple[Any, ...], racy: bool, build: tuple[Any, ...], record: Any
    ) -> None:
        """Record what folder ``name`` (file key ``key``) gave when scanned as ``build``."""
        _replay.rebuilt()
        entry = self.seen.get(name)  # already re-checked in this load
        if entry is None or entry.key != key:
            old = self._entry(name)
            # records of other scans stay only when the file provably did not change
            kept = dict(old.records) if old and old.key == key and not old.racy else {}
            entry = FileEntry(key, racy, kept)
        entry.racy = entry.racy or racy
        entry.records[build] = record
        self.seen[name] = entry
        self.dirty = True

    def _entry(self, name: str) -> FileEntry | None:
        """The entry for ``name``; entries read from disk are plain tuples until used."""
        entry = self.files.get(name)
        if entry is None or isinstance(entry, FileEntry):
            return entry
        try:
            key, racy, records = entry
        except (TypeError, ValueError):
            return None
        if not isinstance(key, tuple) or not isinstance(records, dict):
            return None
        made = FileEntry(key, bool(racy), records)
        self.files[name] = made
        return made

    def payload(self, fingerprint: tuple[Any, ...]) -> bytes:
        """The file content for this root (only folders seen in this load are kept)."""
        files = {
            name: (e.key, e.racy, {b: _record_out(r) for b, r in e.records.items()})
            for name, e in sorted(self.seen.items())
        }
        body = marshal.dumps(
            (
                FORMAT,
                fingerprint,
                self.root,
                self.listing_key,
                self.listing_racy,
                self.listing,
                files,
            )
        )
        return _cachefile.seal(_MAGIC, body)


def _record_out(record: Any) -> Any:
    try:
        values, name, description, diags, rows = record
    except (TypeError, ValueError):
        return record  # not one of ours: kept as it is (a load reads the file instead)
    return (values, name, description, tuple(_diag_out(d) for d in diags), rows)


def _diag_out(d: Any) -> tuple[Any, ...]:
    if isinstance(d, tuple):
        return d
    path = None if d.path is None else os.fspath(d.path)
    return (d.level, d.code, d.message, path, d.line, d.provider)


_FP_MAGIC = _cachefile.magic(b"SWCFP", 1)
_FP_MEMO: dict[Any, Any] = {}


def _code_files() -> list[str]:
    """The files whose bytes decide what a record holds: ours and the ``yaml`` package's."""
    files = []
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for name in _CODE_MODULES:
        file = getattr(sys.modules.get(name), "__file__", None)
        if file is None and name.startswith("skillpath."):
            # not imported yet (the content checks are imported only to check text): the
            # same file either way, so the fingerprint does not depend on what ran
            file = os.path.join(package, *name.split(".")[1:]) + ".py"
        files.append(os.path.abspath(file) if file else f"<no file: {name}>")
    folder = _yaml_folder()
    if folder is not None:
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            names = []
        files += [os.path.join(folder, n) for n in names if n.endswith((".py", ".so", ".pyd"))]
    return files


def _yaml_folder() -> str | None:
    """The ``yaml`` package's folder, found without importing it."""
    module = sys.modules.get("yaml")
    file = getattr(module, "__file__", None)
    if file is None:
        import importlib.util

        try:
            spec = importlib.util.find_spec("yaml")
        except (ImportError, ValueError):
            return None
        file = None if spec is None else spec.origin
    return os.path.dirname(os.path.abspath(file)) if file else None


def _yaml_info() -> tuple[Any, ...]:
    """PyYAML's version, whether its libyaml loader is used, and libyaml's version and files."""
    try:
        import yaml
    except ImportError:
        return ("no yaml",)
    libyaml = bool(getattr(yaml, "__with_libyaml__", False)) and hasattr(yaml, "CSafeLoader")
    version = None
    linked: list[str] = []
    if libyaml:
        try:
            version = yaml._yaml.get_version_string()  # type: ignore[attr-defined]
        except AttributeError:
            version = None
        # a libyaml linked as a shared library is upgraded apart from PyYAML
        with (
            contextlib.suppress(OSError),
            open("/proc/self/maps", encoding="utf-8", errors="replace") as maps,
        ):
            linked = sorted(
                {line.split()[-1] for line in maps if "libyaml" in line and "/" in line}
            )
    return (getattr(yaml, "__version__", None), libyaml, version, tuple(linked))


def _stat_key(path: str) -> tuple[Any, ...]:
    try:
        st = os.stat(path)
    except OSError:
        return (path, None)
    return (path, st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev, st.st_ctime_ns)


def code_fingerprint(directory: str, racy_before: int) -> tuple[Any, ...]:
    """A hash of the code that derives records, and the YAML library's versions.

    Computing it reads every file in :func:`_code_files` and imports ``yaml``,
    so the result is kept in ``directory`` (the user's own index folder, see
    :func:`skillpath.cache.files.read_cache`) under the ``stat`` of every file it
    covers — size, ``mtime_ns``, inode, device and ``ctime_ns``, which a
    reinstall changes even when it keeps sizes and mtimes — and is computed
    again when any of them differs. It is not kept while a file changed within
    the racy window (before ``racy_before``, nanoseconds): a later change in
    the same timestamp tick could go unseen.
    """
    files = _code_files()
    keys = tuple(_stat_key(f) for f in files)
    memo = _FP_MEMO.get(keys)
    if memo is not None:
        return memo
    raw = os.fsencode(repr(files))
    path = os.path.join(directory, f"code-{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}.fp")
    data = _cachefile.read_cache(path, 1 << 20)
    found = None
    if data is not None:
        parts = _cachefile.unseal(_FP_MAGIC, data)
        if parts is not None and not len(parts[1]):
            try:
                stored_keys, linked_keys, found = marshal.loads(parts[0])  # noqa: S302 - ours
                if stored_keys != keys or any(_stat_key(k[0]) != k for k in linked_keys):
                    found = None
            except (ValueError, TypeError, EOFError, IndexError):
                found = None
    if found is None:
        import hashlib

        digest = hashlib.blake2b(digest_size=16)
        for f in files:
            digest.update(os.fsencode(f) + b"\0")
            try:
                with open(f, "rb") as fh:
                    digest.update(fh.read())
            except OSError:
                digest.update(b"\0missing\0")
        info = _yaml_info()
        linked_keys = tuple(_stat_key(f) for f in info[-1]) if len(info) > 1 else ()
        found = (digest.hexdigest(), info, linked_keys)
        racy = any(
            k[1] is not None and (k[2] >= racy_before or k[5] >= racy_before)
            for k in (*keys, *linked_keys)
        )
        if not racy:
            body = marshal.dumps((keys, linked_keys, found))
            with contextlib.suppress(OSError, ValueError):
                blob = _cachefile.seal(_FP_MAGIC, body)
                _cachefile.write_atomic(path, lambda f: f.write(blob))
    _FP_MEMO.clear()
    _FP_MEMO[keys] = found
    return found


def _file_name(root: str) -> str:
    raw = os.fsencode(root)
    return f"{zlib.crc32(raw):08x}{zlib.adler32(raw):08x}.idx"


class DiscoveryIndex:
    """One load's handle on the persistent index in ``directory``.

    Root files are read on first use and written back by :meth:`flush` when
    anything changed. Every failure to read or write is swallowed: the index is
    a cache and discovery never depends on it.
    """

    def __init__(
        self,
        directory: Path | str,
        *,
        racy_window_ns: int = RACY_WINDOW_NS,
        now_ns: int | None = None,
        reuse: bool = False,
    ) -> None:
        self.directory = Path(directory)
        #: whether scans keep and reuse what they built in this process (skillpath.cache.reuse)
        self.reuse = reuse
        #: the real paths of folders, found once in this load (links checked by the reuse)
        self.realpaths: dict[str, str] = {}
        #: the identity of the folders holding link targets, found once in this load
        #: (:func:`skillpath.cache.memo.links_standing`)
        self.held: dict[tuple[str, str], tuple[int, int] | None] = {}
        self.now_ns = time.time_ns() if now_ns is None else now_ns
        self.racy_before = self.now_ns - racy_window_ns
        self.stats = IndexStats()
        self._roots: dict[str, RootState] = {}
        self._fingerprint: tuple[Any, ...] | None = None
        #: the entry points' fingerprint, taken once in this load
        #: (:mod:`skillpath.cache.entrypoints`)
        self.entry_points_fingerprint: tuple[Any, ...] | None = None

    def is_racy(self, mtime_ns: int, ctime_ns: int) -> bool:
        """Whether timestamps this recent cannot prove a later change would show."""
        return mtime_ns >= self.racy_before or ctime_ns >= self.racy_before

    @property
    def fingerprint(self) -> tuple[Any, ...]:
        """Identifies the code that derives records; part of every file.

        The format, the Python and ``marshal`` versions, a hash of the bytes of
        every module in :data:`_CODE_MODULES` and of the ``yaml`` package
        (its modules and its C extension), the PyYAML version, whether the
        libyaml loader is used and the libyaml version (see :func:`code_fingerprint`).
        """
        if self._fingerprint is None:
            parts: list[Any] = [FORMAT, marshal.version, sys.version_info[:3]]
            parts.append(code_fingerprint(os.fspath(self.directory), self.racy_before))
            self._fingerprint = tuple(parts)
        return self._fingerprint

    def path_for(self, root: str) -> Path:
        """The index file of skills root ``root``."""
        return self.directory / _file_name(root)

    def root(self, root: str) -> RootState:
        """The state of skills root ``root`` (read from disk on first use)."""
        state = self._roots.get(root)
        if state is None or state.released:
            state = self._read(root)
            self._roots[root] = state
        return state

    def release(self, root: str) -> None:
        """Drop the entries read for ``root`` once it is scanned, when nothing of it
        is left to write (it stays the file on disk): the records the load did not
        build skills from are freed before the next root's are read, which keeps the
        peak memory of a large load down. A later scan of ``root`` in this load reads
        the file again."""
        state = self._roots.get(root)
        if state is None or state.dirty or len(state.seen) != len(state.files):
            return
        state.files = {}
        state.seen = {}
        state.released = True

    def _read(self, root: str) -> RootState:
        state = RootState(root)
        # only the user's own regular file, in the user's own folder, bounded
        data = _cachefile.read_cache(os.fspath(self.path_for(root)), MAX_FILE_BYTES)
        if data is None:
            return state
        self.stats.files_read += 1
        try:
            parts = _cachefile.unseal(_MAGIC, data)
            if parts is None or len(parts[1]):
                return state
            body = parts[0]
            # our own file in the user's cache dir, length- and CRC-checked; marshal
            # only builds plain data here (the result is type-checked below)
            loaded = marshal.loads(body)  # noqa: S302
            fmt, fingerprint, stored_root, lkey, lracy, listing, files = loaded
            if fmt != FORMAT or fingerprint != self.fingerprint or stored_root != root:
                return state
            if not isinstance(listing, tuple) or not isinstance(files, dict):
                return state
        except (ValueError, TypeError, EOFError, KeyError):
            return state
        state.listing_key = lkey
        state.listing_racy = bool(lracy)
        state.listing = listing
        state.files = files  # entries stay tuples until looked up (see RootState._entry)
        return state

    def forget(self, root: str) -> None:
        """Drop what is known about ``root`` (it does not exist any more)."""
        state = self._roots.get(root)
        if state is not None and (state.files or state.listing_key is not None):
            state.files = {}
            state.seen = {}
            state.listing_key = None
            state.dirty = False
            with contextlib.suppress(OSError):
                os.unlink(self.path_for(root))

    def flush(self) -> None:
        """Write every root that changed, atomically; errors are ignored.

        After writing, the files of roots not seen for longest are removed while
        the directory holds more than :data:`MAX_FILES` files or :data:`MAX_BYTES`
        bytes (roots of deleted projects would otherwise stay for ever).
        """
        written = False
        for state in self._roots.values():
            if not state.dirty and len(state.seen) == len(state.files):
                continue
            if state.listing_key is None:
                continue
            try:
                self._write(state)
            except (OSError, ValueError, TypeError):
                continue  # a cache that cannot be written is only a slower next load
            state.dirty = False
            written = True
        if written:
            self._prune()

    def _prune(self) -> None:
        _cachefile.prune(
            os.fspath(self.directory),
            ".idx",
            max_files=MAX_FILES,
            max_bytes=MAX_BYTES,
            keep={self.path_for(root).name for root in self._roots},
        )

    def _write(self, state: RootState) -> None:
        data = state.payload(self.fingerprint)
        _cachefile.write_atomic(os.fspath(self.path_for(state.root)), lambda f: f.write(data))
        self.stats.files_written += 1
