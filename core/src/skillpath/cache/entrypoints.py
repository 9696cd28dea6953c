"""Entry points of the ``skillpath*`` groups, cached across processes.

Enumerating entry points with ``importlib_metadata`` means importing it, reading
every distribution's ``entry_points.txt`` and parsing ``METADATA`` with the
``email`` package for names and versions — tens of milliseconds on every start
of the ``skillpath`` command. The result only changes when distributions are
installed, upgraded or removed, so it is kept in the user cache directory,
keyed by a fingerprint of ``sys.path``: for every ``*.dist-info``/``*.egg-info``
folder in each entry, its name and the stat of its ``entry_points.txt`` (a zip
entry by its own stat). Any difference (or a damaged, foreign or missing cache
file) enumerates again with ``importlib_metadata``. The file lives next to the
discovery index (:func:`skillpath.index.index_dir`) and is believed only when
it and its folders belong to the user and no one else may write them (it names
the code that gets imported, with or without ``--no-index``);
``SKILLPATH_NO_ENTRY_POINT_CACHE=1`` turns the persistent part off (the
discovery index has its own switch). Within one :func:`skillpath.load_skills`
the fingerprint is taken once, for every provider that asks (a session's
refresh otherwise paid it for each); a command line that creates its plugin host
and loads once takes it once for both (:func:`one_fingerprint`).

The objects returned have what callers use of ``importlib_metadata.EntryPoint``:
``name``, ``value``, ``group``, ``module``, ``attr``, ``load()`` and ``dist``
(with ``name``, ``version`` and ``metadata["Name"]``/``metadata["Version"]``).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import importlib
import marshal
import os
import re
import stat
import sys
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from skillpath import _env
from skillpath.cache import files as _cachefile

__all__ = ["CachedEntryPoint", "entry_points", "one_fingerprint"]

FORMAT = 2
_MAGIC = _cachefile.magic(b"SWEPC", FORMAT)
_PREFIX = "skillpath"
_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")

_MEMO: dict[Any, dict[str, list[tuple[str, str, str | None, str | None]]]] = {}
#: The fingerprint kept inside :func:`one_fingerprint` (a one-item list once taken).
_PINNED: contextvars.ContextVar[list[tuple[Any, ...]] | None] = contextvars.ContextVar(
    "skillpath_entry_points_fingerprint", default=None
)


class _Dist:
    """The distribution an entry point comes from (name and version only)."""

    __slots__ = ("metadata", "name", "version")

    def __init__(self, name: str | None, version: str | None) -> None:
        self.name = name
        self.version = version
        self.metadata: Mapping[str, str | None] = {"Name": name, "Version": version}


class CachedEntryPoint:
    """An entry point as recorded in the cache (see the module docstring)."""

    __slots__ = ("dist", "group", "name", "value")

    def __init__(self, group: str, name: str, value: str, dist: _Dist | None) -> None:
        self.group = group
        self.name = name
        self.value = value
        self.dist = dist

    @property
    def module(self) -> str:
        """The module part of ``value``."""
        m = _VALUE.match(self.value)
        return m.group("module") if m else self.value

    @property
    def attr(self) -> str | None:
        """The attribute part of ``value`` (``None`` when it names a module)."""
        m = _VALUE.match(self.value)
        return m.group("attr") if m else None

    def load(self) -> Any:
        """Import the module and return the object ``value`` names."""
        m = _VALUE.match(self.value)
        if m is None:
            raise ValueError(f"malformed entry point value {self.value!r}")
        module = importlib.import_module(m.group("module"))
        attrs = filter(None, (m.group("attr") or "").split("."))
        return functools.reduce(getattr, attrs, module)

    def __repr__(self) -> str:
        return f"CachedEntryPoint(name={self.name!r}, value={self.value!r}, group={self.group!r})"


def _fingerprint() -> tuple[Any, ...]:
    out: list[Any] = []
    for entry in sys.path:
        where = entry or "."
        try:
            st = os.stat(where)
        except OSError:
            out.append((entry, None))
            continue
        if not stat.S_ISDIR(st.st_mode):  # a zip file
            out.append((entry, st.st_mtime_ns, st.st_size))
            continue
        infos: list[tuple[object, ...]] = []
        try:
            with os.scandir(where) as it:
                for e in it:
                    if e.name.endswith((".dist-info", ".egg-info")):
                        try:
                            s = os.stat(os.path.join(e.path, "entry_points.txt"))
                            infos.append((e.name, s.st_mtime_ns, s.st_size, s.st_ino))
                        except OSError:
                            infos.append((e.name, None))
        except OSError:
            pass
        # the folder's own mtime is left out: writing a .pyc next to a module
        # changes it, installing a distribution changes the metadata folders
        out.append((entry, tuple(sorted(infos))))
    return tuple(out)


@contextlib.contextmanager
def one_fingerprint() -> Iterator[None]:
    """Inside the block, :func:`_fingerprint` is taken at most once (by the first
    :func:`entry_points` call) and kept for every later one.

    For a caller that creates a plugin host and runs one load in it, as a command
    line does: the plugin host's entry points and the providers' (``skillpath.packs``,
    the check for missing providers) then come from one look at ``sys.path``, with
    the discovery index on or off. A distribution installed while the block runs is
    seen by the next block.
    """
    token = _PINNED.set([])
    try:
        yield
    finally:
        _PINNED.reset(token)


def _load_fingerprint() -> tuple[Any, ...]:
    """:func:`_fingerprint`, taken once per load: the load in progress (its discovery
    index) keeps it for every provider that asks in the same load, and so does an
    enclosing :func:`one_fingerprint`."""
    pinned = _PINNED.get()
    if pinned is not None:
        if not pinned:
            pinned.append(_fingerprint())
        return pinned[0]
    index_module = sys.modules.get("skillpath.cache.index")  # not loaded: no load runs
    idx = index_module.current() if index_module is not None else None
    if idx is None:
        return _fingerprint()
    found: tuple[Any, ...] | None = idx.entry_points_fingerprint
    if found is None:
        found = idx.entry_points_fingerprint = (
            _watched_fingerprint() if idx.reuse else _fingerprint()
        )
    return found


def _path_folders() -> list[str] | None:
    """The folders whose entries :func:`_fingerprint` lists: each folder of ``sys.path``,
    and for an entry that does not exist the folder that would hold it; ``None`` when an
    entry is a file (a zip file, written in place) or nothing holds a missing one."""
    out: list[str] = []
    for entry in sys.path:
        where = os.path.abspath(entry or ".")
        if os.path.isdir(where):
            out.append(where)
        elif os.path.lexists(where):
            return None
        else:
            parent = os.path.dirname(where)
            if not os.path.isdir(parent):
                return None
            out.append(parent)
    return list(dict.fromkeys(out))


def _metadata_folders(fingerprint: tuple[Any, ...]) -> list[str]:
    """The metadata folders :func:`_fingerprint` read an ``entry_points.txt`` in (or
    looked for one)."""
    out: list[str] = []
    for item in fingerprint:
        if len(item) != 2 or not isinstance(item[1], tuple):
            continue
        where = os.path.abspath(item[0] or ".")
        for info in item[1]:
            path = os.path.join(where, info[0])
            if os.path.isdir(path):
                out.append(path)
    return out


def _watched_fingerprint() -> tuple[Any, ...]:
    """:func:`_fingerprint`, kept in this process while ``sys.path`` and the working
    folder are the same and no event came from the folders of ``sys.path`` (a
    distribution installed or removed) or their metadata folders (an
    ``entry_points.txt`` written): a session's refresh then lists nothing. Outside a
    watching load (a command line) it is taken as before.
    """
    from skillpath.cache import reuse as _reuse

    return _reuse.kept_while_watched(  # type: ignore[no-any-return]
        "entry-points",
        (tuple(sys.path), os.getcwd()),
        _path_folders,
        _fingerprint,
        _metadata_folders,
    )


def _header(text: str | None, key: str) -> str | None:
    if not text:
        return None
    prefix = key.lower() + ":"
    for line in text.splitlines():
        if not line.strip():
            break
        if line.lower().startswith(prefix):
            return line[len(prefix) :].strip()
    return None


def _name_version(dist: Any) -> tuple[str | None, str | None]:
    if dist is None:
        return None, None
    try:
        text = dist.read_text("METADATA") or dist.read_text("PKG-INFO")
        name, version = _header(text, "Name"), _header(text, "Version")
        if name is not None and version is not None:
            return name, version
        return dist.metadata["Name"], dist.version
    except Exception:  # noqa: BLE001 - a broken distribution still lists its entry points
        return None, None


def _enumerate() -> dict[str, list[tuple[str, str, str | None, str | None]]]:
    import importlib_metadata

    groups: dict[str, list[tuple[str, str, str | None, str | None]]] = {}
    for ep in importlib_metadata.entry_points():
        if not ep.group.startswith(_PREFIX):
            continue
        name, version = _name_version(getattr(ep, "dist", None))
        groups.setdefault(ep.group, []).append((ep.name, ep.value, name, version))
    return groups


def _cache_file(env: Mapping[str, str]) -> Path:
    from skillpath.cache.index import index_dir

    key = os.fsencode(repr((sys.executable, sys.path)))
    name = f"entry-points-{zlib.crc32(key):08x}{zlib.adler32(key):08x}.bin"
    return index_dir(env) / name


#: An entry-point cache file larger than this is not read.
MAX_FILE_BYTES = 16 << 20


def _read(path: Path, fingerprint: tuple[Any, ...]) -> Any:
    # only the user's own regular file, in the user's own folder, bounded: a
    # forged cache would name the code to import
    data = _cachefile.read_cache(os.fspath(path), MAX_FILE_BYTES)
    if data is None:
        return None
    parts = _cachefile.unseal(_MAGIC, data)
    if parts is None or len(parts[1]):
        return None
    body = parts[0]
    try:
        # our own file, CRC-checked; marshal builds plain data only
        fmt, stored, groups = marshal.loads(body)  # noqa: S302
    except (ValueError, TypeError, EOFError):
        return None
    if fmt != FORMAT or stored != fingerprint or not isinstance(groups, dict):
        return None
    return groups


def _write(path: Path, fingerprint: tuple[Any, ...], groups: Any) -> None:
    body = marshal.dumps((FORMAT, fingerprint, groups))
    data = _cachefile.seal(_MAGIC, body)
    with contextlib.suppress(OSError):
        _cachefile.write_atomic(os.fspath(path), lambda f: f.write(data))


def entry_points(group: str, env: Mapping[str, str] | None = None) -> list[CachedEntryPoint]:
    """The entry points of ``group`` (a ``skillpath*`` group), in discovery order."""
    if not group.startswith(_PREFIX):
        raise ValueError(f"only {_PREFIX}* groups are cached, not {group!r}")
    env = os.environ if env is None else env
    fingerprint = _load_fingerprint()
    groups = _MEMO.get(fingerprint)
    if groups is None:
        persistent = not _env.flag(env, "SKILLPATH_NO_ENTRY_POINT_CACHE")
        path = _cache_file(env) if persistent else None
        groups = _read(path, fingerprint) if path is not None else None
        if groups is None:
            groups = _enumerate()
            if path is not None:
                _write(path, fingerprint, groups)
        _MEMO.clear()
        _MEMO[fingerprint] = groups
    dists: dict[tuple[Any, Any], _Dist] = {}
    out = []
    for name, value, dist_name, version in groups.get(group, ()):
        dist = None
        if dist_name is not None or version is not None:
            dist = dists.get((dist_name, version))
            if dist is None:
                dist = dists[(dist_name, version)] = _Dist(dist_name, version)
        out.append(CachedEntryPoint(group, name, value, dist))
    return out
