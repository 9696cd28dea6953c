"""The content findings of every loaded skill, at a cost a load can afford.

:mod:`skillpath.contentscan` holds the checks; this module runs them for each
skill a command loaded (``list --json``, ``doctor``, ``explain``, the MCP
server's ``_meta``, a session's diagnostics):

* **a skill's ``SKILL.md``** is checked on the text the scan read to parse it
  (:func:`file_rows`, called by :mod:`skillpath.scan`: the file is opened once);
  the rows are part of the record the discovery index keeps for the file under
  its ``stat``, so a run that reuses the record checks nothing, and a replayed
  ``list`` replays them with its output. A load without the index
  (:func:`load_store`) keeps them in the store below under the file's ``stat``.
  :attr:`skillpath.Skill.file_findings` carries them; ``findings_for(skill,
  resources=False)`` returns them;
* **the other text files of its folder** are checked where they are read
  (``doctor``, ``explain``, ``validate``, a session's invoke), kept per
  **content digest**: the SHA-256 of the ``SKILL.md`` and of the text files the
  checks read (each with its path in the folder and whether it runs), so the
  same content is checked once, wherever it lives; beside each digest, the
  ``stat`` of every file and folder it was made of (mode, size, nanosecond
  ``mtime`` and ``ctime``, inode, device, and every other file of the folders):
  while they are all unchanged, the digest is not computed again, and a run
  reads no file it read before. An entry that changed within the racy window of
  the run that recorded it (``SKILLPATH_INDEX_RACY_MS``, as for the discovery
  index) is read again next time.

A skill that is not on disk (an MCP prompt, a pack's skill not yet extracted)
has its name and description checked; its body is checked where it is read
(``skillpath validate``, ``show``).

The store is one file, ``findings.bin`` in the discovery index's folder
(``$SKILLPATH_CACHE_DIR/index``, else the user cache directory), read only when
it is this user's regular file in a folder no one else may write, and replaced
atomically. ``SKILLPATH_NO_FINDINGS_CACHE=1`` keeps it in memory only;
``SKILLPATH_NO_CONTENT_CHECKS=1`` turns the load-time checks off (for
measuring what they cost; ``validate`` still checks).

The interface other parts build on (trust tiers, quarantine, heavy scanners):
:func:`findings_for` (one skill), :func:`findings_for_all` (many, one store,
written once), :func:`content_digest` and :class:`FindingsStore` (the four
methods a store implements; :class:`MemoryStore` and :class:`FileStore` are
the two shipped).
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import marshal
import os
import stat
import struct
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from skillpath.contentscan import ContentFinding
    from skillpath.model import Skill

__all__ = [
    "FORMAT",
    "MAX_BYTES",
    "MAX_SKILLS",
    "FileRowsStore",
    "FileStore",
    "FindingsStore",
    "MemoryStore",
    "checks_enabled",
    "content_digest",
    "default_store",
    "file_rows",
    "findings_for",
    "findings_for_all",
    "kept_file_rows",
    "load_store",
    "text_findings",
    "worst",
]


def __getattr__(name: str) -> object:
    # ``Finding``: the record :mod:`skillpath.contentscan` makes. The checks (and
    # their compiled rules) are imported only when something is checked: a warm
    # run that finds nothing never imports them.
    if name == "Finding":
        from skillpath.contentscan import ContentFinding

        return ContentFinding
    raise AttributeError(name)


#: On-disk format version.
FORMAT = 1
#: Skills (stat records) and digests kept in the store file; the oldest go first.
MAX_SKILLS = 100_000
#: Largest store file read.
MAX_BYTES = 64 << 20
#: Other files of a skill's folders whose ``stat`` is recorded; a folder with more
#: is read again on every run.
_MAX_OTHER = 256
_MAGIC = b"SPFND" + bytes([FORMAT, *sys.version_info[:2]])
_RACY_NS = 2_000_000_000
_TRUE = {"1", "true", "yes", "on"}

#: ``(mode, size, mtime_ns, ctime_ns, inode, device)``; ``None`` when missing.
Sig = tuple[int, int, int, int, int, int] | None
#: One finding as stored: id, severity, reason, path in the folder (``""``: none), line, excerpt.
Row = tuple[str, str, str, str, int | None, str]
#: What a skill's digest was made of: ``(path, sig)`` of each file and folder.
Entries = tuple[tuple[str, Sig], ...]


class FindingsStore(Protocol):
    """Where findings are kept: per content digest, and the stats a digest was made of."""

    def findings(self, digest: str) -> tuple[Row, ...] | None:
        """The findings recorded for ``digest``, or ``None`` when it was never checked."""

    def put(self, digest: str, rows: tuple[Row, ...]) -> None:
        """Record the findings of ``digest``."""

    def recorded(self, key: str) -> tuple[Entries, str] | None:
        """The ``(entries, digest)`` last recorded for skill file ``key``, if any."""

    def remember(self, key: str, entries: Entries, digest: str) -> None:
        """Record that skill file ``key`` had ``digest`` while its entries were ``entries``."""


class MemoryStore:
    """A store that lives as long as the object (what tests and hosts may pass)."""

    def __init__(self) -> None:
        self._rows: dict[str, tuple[Row, ...]] = {}
        self._keys: dict[str, tuple[Entries, str]] = {}
        self._lock = threading.Lock()
        self.dirty = False

    def findings(self, digest: str) -> tuple[Row, ...] | None:
        return self._rows.get(digest)

    def put(self, digest: str, rows: tuple[Row, ...]) -> None:
        with self._lock:
            self._rows[digest] = rows
            self.dirty = True

    def recorded(self, key: str) -> tuple[Entries, str] | None:
        return self._keys.get(key)

    def remember(self, key: str, entries: Entries, digest: str) -> None:
        with self._lock:
            if self._keys.get(key) != (entries, digest):
                self._keys.pop(key, None)
                self._keys[key] = (entries, digest)
                self.dirty = True

    def flush(self) -> None:
        """Nothing to write."""


class FileStore(MemoryStore):
    """A store kept in one file (see the module docstring); read on creation, written
    by :meth:`flush` when something was added."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__()
        self.path = os.fspath(path)
        loaded = _load(self.path)
        if loaded is not None:
            self._keys, self._rows = loaded

    def flush(self) -> None:
        """Write the file when something was added (errors are ignored: it is a cache)."""
        with self._lock:
            if not self.dirty:
                return
            keys = dict(list(self._keys.items())[-MAX_SKILLS:])
            rows = self._rows
            if len(rows) > MAX_SKILLS:
                used = {d for _e, d in keys.values()}
                rows = {d: r for d, r in rows.items() if d in used}
                rows.update(list(self._rows.items())[-(MAX_SKILLS - len(rows)) :])
            try:
                _save(self.path, (_fingerprint(), keys, rows))
            except (OSError, ValueError):
                return
            self.dirty = False


# -- the file ------------------------------------------------------------------------


def _fingerprint() -> str:
    """A hash of the code that decides what a finding is (a change discards the file)."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        h = hashlib.sha256()
        here = os.path.dirname(os.path.abspath(__file__))
        for name in ("contentscan.py", "textguard.py", "findings.py"):
            try:
                with open(os.path.join(here, name), "rb") as f:
                    h.update(f.read())
            except OSError:
                h.update(b"?")
        _FINGERPRINT = h.hexdigest()
    return _FINGERPRINT


_FINGERPRINT: str | None = None


def _owned(st: os.stat_result) -> bool:
    if not hasattr(os, "geteuid"):
        return True
    return st.st_uid == os.geteuid() and not st.st_mode & 0o022


def _load(path: str) -> tuple[dict[str, tuple[Entries, str]], dict[str, tuple[Row, ...]]] | None:
    value = _load_value(path)
    if not isinstance(value, tuple) or len(value) != 2:
        return None
    keys, rows = value
    if not isinstance(keys, dict) or not isinstance(rows, dict):
        return None
    return keys, rows


def _load_value(path: str) -> object:
    """What :func:`_save` wrote at ``path`` (without its fingerprint), or ``None``: a
    file that is missing, not this user's, damaged or made by other code."""
    try:
        if not _owned(os.stat(os.path.dirname(path))):
            return None
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or not _owned(st) or st.st_size > MAX_BYTES:
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        data = b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)
    head = len(_MAGIC) + 4
    if data[: len(_MAGIC)] != _MAGIC or len(data) < head:
        return None
    body = data[head:]
    if zlib.crc32(body).to_bytes(4, "little") != data[len(_MAGIC) : head]:
        return None
    try:
        value = marshal.loads(body)  # noqa: S302 - this user's own file
    except (EOFError, ValueError, TypeError):
        return None
    if not isinstance(value, tuple) or len(value) < 1 or value[0] != _fingerprint():
        return None
    return value[1:]


def _save(path: str, value: tuple[Any, ...]) -> None:
    """Write ``value`` (a tuple whose first item is :func:`_fingerprint`) at ``path``."""
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    if not _owned(os.stat(folder)):
        raise OSError(f"{folder} may be written by others")
    body = marshal.dumps(value)
    tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(_MAGIC + zlib.crc32(body).to_bytes(4, "little") + body)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# -- switches and the default store -----------------------------------------------------

_stores: dict[str, FileStore] = {}
_stores_lock = threading.Lock()


def checks_enabled(env: Mapping[str, str] | None = None) -> bool:
    """Whether load-time checks run (``SKILLPATH_NO_CONTENT_CHECKS`` turns them off)."""
    env = os.environ if env is None else env
    return env.get("SKILLPATH_NO_CONTENT_CHECKS", "").strip().lower() not in _TRUE


def default_store(
    env: Mapping[str, str] | None = None, home: str | os.PathLike[str] | None = None
) -> MemoryStore:
    """The process's store for ``env``/``home``: a :class:`FileStore` in the discovery
    index's folder (one object per file in a process), or a :class:`MemoryStore` with
    ``SKILLPATH_NO_FINDINGS_CACHE=1``."""
    from skillpath.index import index_dir

    env = os.environ if env is None else env
    if env.get("SKILLPATH_NO_FINDINGS_CACHE", "").strip().lower() in _TRUE:
        return MemoryStore()
    path = os.fspath(index_dir(env, None if home is None else Path(home)) / "findings.bin")
    with _stores_lock:
        store = _stores.get(path)
        if store is None:
            store = _stores[path] = FileStore(path)
        return store


def _racy_ns(env: Mapping[str, str]) -> int:
    raw = env.get("SKILLPATH_INDEX_RACY_MS", "").strip()
    try:
        return max(0, int(float(raw) * 1_000_000)) if raw else _RACY_NS
    except ValueError:
        return _RACY_NS


# -- one skill -----------------------------------------------------------------------


def _sig(path: str) -> Sig:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def _unchanged(entries: Entries) -> bool:
    stat_ = os.stat
    for path, sig in entries:
        try:
            st = stat_(path)
        except OSError:
            if sig is not None:
                return False
            continue
        if sig != (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev):
            return False
    return True


def _racy(entries: Entries, start_ns: int, window: int) -> bool:
    limit = start_ns - window
    return any(sig is None or sig[2] >= limit or sig[3] >= limit for _p, sig in entries)


def _read(
    skill: Skill,
) -> tuple[Entries, str, list[tuple[Path, str, bool]], list[ContentFinding]] | None:
    """What the checks read of an on-disk skill: its entries, its content digest,
    ``(path, text, script)`` of each file and the findings of its refused file names
    (:func:`skillpath.contentscan.name_findings`); ``None`` when its ``SKILL.md``
    cannot be read."""
    from skillpath import contentscan
    from skillpath.textguard import name_refusal

    assert skill.path is not None and skill.base_dir is not None
    entries: list[tuple[str, Sig]] = [(os.fspath(skill.path), _sig(os.fspath(skill.path)))]
    text = contentscan.read_text(skill.path)
    if text is None:
        return None
    h = hashlib.sha256()
    h.update(b"SKILL.md\0-\0" + text.encode("utf-8", "surrogatepass") + b"\0")
    texts = [(skill.path, text, False)]
    folders, files, others = contentscan.skill_text_files(skill.base_dir)
    for folder in folders:
        entries.append((os.fspath(folder), _sig(os.fspath(folder))))
    for path in files:
        data = contentscan.read_text(path)
        if data is None:
            continue
        script = contentscan.is_script(path)
        entries.append((os.fspath(path), _sig(os.fspath(path))))
        rel = os.path.relpath(path, skill.base_dir)
        h.update(f"{rel}\0{'x' if script else '-'}\0".encode("utf-8", "surrogatepass"))
        h.update(data.encode("utf-8", "surrogatepass") + b"\0")
        texts.append((path, data, script))
    if len(others) > _MAX_OTHER:
        entries.append(("", (0, 0, 0, 0, 0, 0)))  # never equal to a stat: always read again
    else:
        entries.extend((os.fspath(p), _sig(os.fspath(p))) for p in others)
    named = contentscan.name_findings(skill.base_dir, others)
    for path in others:  # the refused names are part of what the rows are made of
        if name_refusal(path.name) is not None:
            rel = os.path.relpath(path, skill.base_dir)
            h.update(f"\1refused\0{rel}\0".encode("utf-8", "surrogatepass"))
    return tuple(entries), h.hexdigest(), texts, named


def _check(texts: Sequence[tuple[Path | None, str, bool]]) -> list[ContentFinding]:
    from skillpath import contentscan

    out: list[ContentFinding] = []
    for path, text, script in texts:
        for f in contentscan.scan_text(text, script=script):
            out.append(f if path is None else _with_path(f, path))
    return contentscan.sort_findings(out)


def _with_path(f: ContentFinding, path: Path) -> ContentFinding:
    from skillpath.contentscan import ContentFinding

    return ContentFinding(f.id, f.severity, f.reason, path, f.line, f.excerpt)


def _rows(found: Iterable[ContentFinding], base: Path | None) -> tuple[Row, ...]:
    out = []
    for f in found:
        rel = "" if f.path is None or base is None else os.path.relpath(f.path, base)
        out.append((f.id, f.severity, f.reason, rel, f.line, f.excerpt))
    return tuple(out)


def _rebase(rows: tuple[Row, ...], skill: Skill) -> tuple[ContentFinding, ...]:
    if not rows:
        return ()
    from skillpath.contentscan import ContentFinding

    base = skill.base_dir
    out = []
    for fid, severity, reason, rel, line, excerpt in rows:
        if not rel or base is None:
            path = None
        elif rel == "SKILL.md" and skill.path is not None:
            path = skill.path
        else:
            path = base / rel
        out.append(ContentFinding(fid, severity, reason, path, line, excerpt))
    return tuple(out)


def _head(
    skill: Skill, store: FindingsStore | None, kept: FileRowsStore | None = None
) -> tuple[ContentFinding, ...]:
    """Name and description of a skill whose ``SKILL.md`` is not read here (kept in
    ``store`` per digest, else in ``kept``; neither: checked now, nothing kept)."""
    # the description as written: ``skill.description`` has its invisible characters
    # removed at load (what a model is given), the finding is about the written one
    written = skill.frontmatter.raw.get("description")
    text = f"{skill.name}\n{written if isinstance(written, str) else skill.description or ''}"
    raw = hashlib.sha256(text.encode("utf-8", "surrogatepass"))
    digest = "head:" + raw.hexdigest()
    key = b"head:" + raw.digest()
    rows = None
    if store is not None:
        rows = store.findings(digest)
    elif kept is not None:
        rows = kept.get(key)
    if rows is None:
        from skillpath import contentscan
        from skillpath.contentscan import ContentFinding

        found = [
            ContentFinding(f.id, f.severity, f.reason, None, None, f.excerpt)
            for f in contentscan.scan_text(text)
        ]
        rows = _rows(contentscan.sort_findings(found), None)
        if store is not None:
            store.put(digest, rows)
        elif kept is not None:
            kept.put(key, rows)
    return _rebase(rows, skill)


def _digest_and_rows(
    skill: Skill, store: FindingsStore, window: int
) -> tuple[str, tuple[Row, ...]] | None:
    assert skill.path is not None
    key = os.fspath(skill.path)
    rec = store.recorded(key)
    if rec is not None and _unchanged(rec[0]):
        rows = store.findings(rec[1])
        if rows is not None:
            return rec[1], rows
    start = time.time_ns()
    read = _read(skill)
    if read is None:
        return None
    entries, digest, texts, named = read
    rows = store.findings(digest)
    if rows is None:
        from skillpath.contentscan import sort_findings

        rows = _rows(sort_findings([*_check(texts), *named]), skill.base_dir)
        store.put(digest, rows)
    if not _racy(entries, start, window):
        store.remember(key, entries, digest)
    return digest, rows


def _text_rows(data: bytes) -> tuple[Row, ...]:
    """The rows of the content checks over a ``SKILL.md`` whose first bytes are
    ``data`` (as :func:`skillpath.contentscan.read_text` reads a file: bounded, a
    binary file has none)."""
    from skillpath import contentscan

    data = data[: contentscan.MAX_FILE_BYTES]
    if b"\0" in data[:4096]:
        return ()
    found = contentscan.scan_text(data.decode("utf-8", "replace"))
    if not found:
        return ()
    return tuple(
        (f.id, f.severity, f.reason, "SKILL.md", f.line, f.excerpt)
        for f in contentscan.sort_findings(found)
    )


def _stat_rows(
    store: FindingsStore, path: str, sig: Sig, read: Callable[[], bytes | None], window: int
) -> tuple[Row, ...] | None:
    """The rows of ``SKILL.md`` ``path`` (``stat`` ``sig``) kept in ``store`` while its
    ``stat`` is unchanged, else of the text ``read`` gives (``None``: unreadable).

    Kept apart from the folder digests of :func:`findings_for` (a key of its own,
    ``file:<path>``); a file without findings points at one shared empty entry."""
    key = "file:" + path
    entries: Entries = (("", sig),)
    rec = store.recorded(key)
    if rec is not None and rec[0] == entries:
        rows = store.findings(rec[1])
        if rows is not None:
            return rows
    start = time.time_ns()
    data = read()
    if data is None:
        return None
    rows = _text_rows(data)
    digest = "rows:" + path if rows else "rows:"
    if store.findings(digest) != rows:
        store.put(digest, rows)
    if not _racy(entries, start, window):
        store.remember(key, entries, digest)
    return rows


#: ``(mode, size, mtime_ns, ctime_ns, inode, device)`` of a ``SKILL.md``, packed: the key
#: of its rows in :class:`FileRowsStore` (the rows depend on its content only).
_SIG = struct.Struct("<IqqqQQ")
_pack = _SIG.pack


class FileRowsStore:
    """The findings rows of the ``SKILL.md`` files a load without the discovery index
    read, by ``stat`` (:data:`_SIG`), in one small file (``files.bin`` beside
    ``findings.bin``; ``path=None``: in memory): the set of files that have none and
    the rows of those that have some, read with one ``marshal.loads``."""

    def __init__(self, path: str | os.PathLike[str] | None) -> None:
        self.path = None if path is None else os.fspath(path)
        self.clean: set[bytes] = set()
        self.rows: dict[bytes, tuple[Row, ...]] = {}
        self.dirty = False
        self._lock = threading.Lock()
        loaded = None if self.path is None else _load_value(self.path)
        if isinstance(loaded, tuple) and len(loaded) == 2:
            clean, rows = loaded
            if isinstance(clean, (set, frozenset)) and isinstance(rows, dict):
                # marshal made the set: no copy of its ten thousand keys
                self.clean, self.rows = clean if type(clean) is set else set(clean), rows

    def get(self, key: bytes) -> tuple[Row, ...] | None:
        """The rows kept for ``key`` (``()``: none), or ``None`` when it was never seen."""
        if key in self.clean:
            return ()
        return self.rows.get(key)

    def put(self, key: bytes, rows: tuple[Row, ...]) -> None:
        """Keep the rows of ``key``."""
        with self._lock:
            if rows:
                self.rows[key] = rows
            else:
                self.clean.add(key)
            self.dirty = True

    def flush(self) -> None:
        """Write the file when something was added (errors are ignored: it is a cache);
        past :data:`MAX_SKILLS` files, it starts again."""
        with self._lock:
            if not self.dirty or self.path is None:
                return
            if len(self.clean) + len(self.rows) > MAX_SKILLS:
                self.clean, self.rows = set(), {}
            try:
                _save(self.path, (_fingerprint(), self.clean, self.rows))
            except (OSError, ValueError):
                return
            self.dirty = False


_row_stores: dict[str, FileRowsStore] = {}


def _file_rows_store(env: Mapping[str, str], home: str | os.PathLike[str] | None) -> FileRowsStore:
    from skillpath.index import index_dir

    if env.get("SKILLPATH_NO_FINDINGS_CACHE", "").strip().lower() in _TRUE:
        return FileRowsStore(None)
    path = os.fspath(index_dir(env, None if home is None else Path(home)) / "files.bin")
    with _stores_lock:
        store = _row_stores.get(path)
        if store is None:
            store = _row_stores[path] = FileRowsStore(path)
        return store


def _open_rows_store(
    env: Mapping[str, str], home: str | os.PathLike[str] | None
) -> FileRowsStore | None:
    """The :class:`FileRowsStore` of ``env``/``home`` if this process already read it
    (a load without the index did), else ``None`` (none is opened)."""
    from skillpath.index import index_dir

    path = os.fspath(index_dir(env, None if home is None else Path(home)) / "files.bin")
    return _row_stores.get(path)


def text_findings(
    text: str,
    *,
    env: Mapping[str, str] | None = None,
    home: str | os.PathLike[str] | None = None,
) -> tuple[ContentFinding, ...]:
    """:func:`skillpath.contentscan.scan_text` of ``text`` (no path; its own lines),
    kept by digest in the :class:`FileRowsStore` of ``env``/``home`` when this process
    already read it (a load without the index did; none is opened): what a load
    checks of a skill that is not on disk costs nothing the next time."""
    env = os.environ if env is None else env
    kept = _open_rows_store(env, home)
    key = b"text:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
    rows = None if kept is None else kept.get(key)
    if rows is None:
        from skillpath import contentscan

        rows = tuple(
            (f.id, f.severity, f.reason, "", f.line, f.excerpt) for f in contentscan.scan_text(text)
        )
        if kept is not None:
            kept.put(key, rows)
    if not rows:
        return ()
    from skillpath.contentscan import ContentFinding

    return tuple(ContentFinding(i, sev, why, None, line, ex) for i, sev, why, _r, line, ex in rows)


def file_rows(data: bytes, path: str, st: os.stat_result) -> tuple[Row, ...]:
    """The findings rows of ``SKILL.md`` ``path`` that the scan read (``data``, the
    file's first bytes; ``st``, the ``fstat`` of the descriptor it read them from),
    for its record (:data:`skillpath.scan.Record`).

    During a load with the discovery index, the record is what is kept (a warm
    run rebuilds no record, so checks nothing); in a load without it
    (:func:`load_store`), the rows are kept in a :class:`FileRowsStore` under the
    file's ``stat``, so a cold run checks only what changed."""
    kept = _LOAD_STORE.get()
    if kept is None:
        return _text_rows(data)
    store, limit = kept
    try:
        key = _SIG.pack(
            st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev
        )
    except struct.error:
        return _text_rows(data)
    rows = store.get(key)
    if rows is None:
        rows = _text_rows(data)
        # a file changed within the racy window may change again under the same stat
        if st.st_mtime_ns < limit and st.st_ctime_ns < limit:
            store.put(key, rows)
    return rows


def kept_file_rows(st: os.stat_result) -> tuple[Row, ...] | None:
    """The rows :func:`file_rows` keeps for a ``SKILL.md`` of ``st`` in the store of
    the current load without the index, or ``None`` (no such load, or not kept):
    what lets the scan read only the head of a file whose findings are known."""
    # called for every SKILL.md such a load reads: one key and one set (or dict)
    # lookup, nothing else (no method call, no copy)
    kept = _LOAD_STORE.get()
    if kept is None:
        return None
    try:
        key = _pack(st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
    except struct.error:
        return None
    store = kept[0]
    return () if key in store.clean else store.rows.get(key)


_LOAD_STORE: contextvars.ContextVar[tuple[FileRowsStore, int] | None] = contextvars.ContextVar(
    "skillpath_findings_store", default=None
)


@contextlib.contextmanager
def load_store(env: Mapping[str, str], home: str | os.PathLike[str] | None) -> Iterator[None]:
    """Keep the findings of the files a load without the discovery index reads in the
    :class:`FileRowsStore` of ``env``/``home`` (by ``stat``), written when the block
    ends; outside such a block, :func:`file_rows` keeps nothing."""
    store = _file_rows_store(env, home)
    token = _LOAD_STORE.set((store, time.time_ns() - _racy_ns(env)))
    try:
        yield
    finally:
        _LOAD_STORE.reset(token)
        if store.dirty:
            store.flush()


def _file_only(
    skill: Skill, store: FindingsStore | None, window: int, kept: FileRowsStore | None = None
) -> tuple[ContentFinding, ...]:
    """The findings of ``skill``'s ``SKILL.md`` (or, off disk, of its name and
    description): what its scan found, else read now (a skill a plugin built; kept in
    ``store`` by ``stat``, or, with ``None``, not kept)."""
    if skill.file_findings is not None:
        return _rebase(skill.file_findings, skill)
    if skill.path is None or skill.base_dir is None:
        return _head(skill, store, kept)
    path = os.fspath(skill.path)
    from skillpath import contentscan

    def read() -> bytes | None:
        text = contentscan.read_text(Path(path))
        return None if text is None else text.encode("utf-8", "surrogatepass")

    if store is None:
        data = read()
        rows = None if data is None else _text_rows(data)
    else:
        rows = _stat_rows(store, path, _sig(path), read, window)
    return _head(skill, store, kept) if rows is None else _rebase(rows, skill)


def findings_for(
    skill: Skill,
    *,
    store: FindingsStore | None = None,
    env: Mapping[str, str] | None = None,
    home: str | os.PathLike[str] | None = None,
    resources: bool = True,
) -> tuple[ContentFinding, ...]:
    """The content findings of ``skill`` (worst first; empty when the checks are off),
    from ``store`` (default: :func:`default_store` of ``env``) or checked now and kept
    there. The same as :func:`skillpath.contentscan.scan_skill` for a skill on disk;
    for one off disk, its name and description only. Without ``resources``, its
    ``SKILL.md`` only: what the scan found in the text it read (no file is opened
    for a skill the scan built)."""
    env = os.environ if env is None else env
    if not checks_enabled(env):
        return ()
    if not resources:
        return _file_only(skill, store, _racy_ns(env))
    store = default_store(env, home) if store is None else store
    if skill.path is None or skill.base_dir is None:
        return _head(skill, store)
    got = _digest_and_rows(skill, store, _racy_ns(env))
    if got is None:
        return _head(skill, store)
    return _rebase(got[1], skill)


def findings_for_all(
    skills: Iterable[Skill],
    *,
    env: Mapping[str, str] | None = None,
    home: str | os.PathLike[str] | None = None,
    store: FindingsStore | None = None,
    resources: bool = True,
) -> list[tuple[ContentFinding, ...]]:
    """:func:`findings_for` of each of ``skills`` (in order), with one store that is
    written once at the end (what a command calls). Without ``resources`` (what
    ``list --json`` shows), a skill the scan built costs nothing: its findings
    came with it, and no store is opened when all of them did."""
    env = os.environ if env is None else env
    skills = list(skills)
    if not checks_enabled(env):
        return [() for _ in skills]
    window = _racy_ns(env)
    if not resources:
        # what the scan found came with each skill; the few a plugin built (a pack's,
        # an MCP server's) are checked now: no store is opened, so a replayed ``list``
        # depends on no file but the skills'. After a load without the index, they
        # are kept in the store that load read (already open)
        kept = None if store is not None else _open_rows_store(env, home)
        # nearly every skill came with none: no call, no object for it
        out_rows = [
            () if s.file_findings == () else _file_only(s, store, window, kept) for s in skills
        ]
        if kept is not None and kept.dirty:
            kept.flush()
        return out_rows
    own = default_store(env, home) if store is None else store
    out: list[tuple[ContentFinding, ...]] = []
    for skill in skills:
        got = None
        if skill.path is not None and skill.base_dir is not None:
            got = _digest_and_rows(skill, own, window)
        if got is None:
            out.append(_head(skill, own))
        elif got[1]:
            out.append(_rebase(got[1], skill))
        else:
            out.append(())
    flush = getattr(own, "flush", None)
    if flush is not None:
        flush()
    return out


def content_digest(
    skill: Skill,
    *,
    store: FindingsStore | None = None,
    env: Mapping[str, str] | None = None,
    home: str | os.PathLike[str] | None = None,
) -> str | None:
    """The content digest of an on-disk skill (``SKILL.md`` and the text files the checks
    read), from the recorded stats when nothing changed; ``None`` off disk or unreadable."""
    if skill.path is None or skill.base_dir is None:
        return None
    env = os.environ if env is None else env
    store = default_store(env, home) if store is None else store
    got = _digest_and_rows(skill, store, _racy_ns(env))
    return None if got is None else got[0]


def worst(findings: Iterable[ContentFinding]) -> str | None:
    """The worst severity among ``findings`` (``None`` when there are none)."""
    from skillpath.contentscan import SEVERITIES

    rank = {s: i for i, s in enumerate(SEVERITIES)}
    found = [f.severity for f in findings]
    return min(found, key=lambda s: rank.get(s, 9)) if found else None
