"""The scan memo: the one object a scan of a skills root asks for what it may skip.

:func:`skillpath.scan.scan_skills_dir` reads a root in a plain loop: list the
root, and for each folder read its ``SKILL.md`` and build a skill. Everything
that spares that work sits behind a :class:`ScanMemo`, opened for each scan
with :func:`open_scan_memo`:

* the persistent discovery index (:mod:`skillpath.cache.index`): the root's
  listing and each ``SKILL.md``'s record, kept across processes under the
  ``stat`` of the files (:meth:`ScanMemo.cached_listing`,
  :meth:`ScanMemo.lookup`, :meth:`ScanMemo.store`);
* the in-process reuse (:mod:`skillpath.cache.reuse`): the whole result of
  an unchanged root and the very skill objects of unchanged files
  (:meth:`ScanMemo.kept_result`, :meth:`ScanMemo.unchanged_entry`), kept by
  :meth:`ScanMemo.finish` for the next scan, and watched with inotify for a
  long-lived session;
* the replay recorder (:mod:`skillpath.cache.replay`), told when entries are
  used as if the root were listed again.

The scanner gives the memo a :class:`RootReader` for the one case where the
memo must read (a watched root with events in some folders: only those are
read again). Outside :func:`skillpath.load_skills` (no index current) every
method is a no-op and the scan reads everything. What a scan returns is the
same with or without the memo.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import attrs

from skillpath.cache import index as _index
from skillpath.cache import notify as _notify
from skillpath.cache import replay as _replay
from skillpath.cache import reuse as _reuse

__all__ = [
    "RootReader",
    "ScanMemo",
    "file_key",
    "link_groups",
    "links_standing",
    "open_scan_memo",
    "realpath_cached",
]

_SEP_SKILL_FILE = os.sep + "SKILL.md"

#: A kept entry: ``(key, linked folder or None, SKILL.md path text, record,
#: (skill, diagnostics), recent)`` (see :class:`skillpath.cache.reuse.RootMemo`).
#: The index record is ``None`` in what a scan keeps (the index file holds it; an
#: entry the index lost is read again): 10,000 records kept for the life of the
#: process, beside the skills built from them, were megabytes of peak memory.
Entry = tuple[Any, ...]


class RootReader(Protocol):
    """What the scanner of one root gives its memo, to read one folder again."""

    def link_ok(self, folder: str, area: str | None) -> bool:
        """Whether symlinked skill folder ``folder`` still leads to a folder inside ``area``."""

    def reread(
        self, name: str, folder: str, skill_path: str, file_id: Any
    ) -> tuple[Any, Any, tuple[Any, ...]] | None:
        """``(record, skill, diagnostics)`` of folder ``name`` read again, or ``None``
        when it is not a plain skill folder whose record may be kept."""

    def flat_file(self, name: str, diags: list[Any]) -> None:
        """Add the diagnostic of ``*.md`` file ``name`` directly in the root."""

    def result(self, skills: list[Any], diags: list[Any]) -> Any:
        """The scan result of the root with ``skills`` and ``diags``."""


class ScanMemo:
    """What one scan of one root may reuse, and what it leaves for the next.

    Made by :func:`open_scan_memo`; the scanner calls, in order,
    :meth:`kept_result`, :meth:`begin`, :meth:`cached_listing` /
    :meth:`store_listing` (or :meth:`root_missing`), for each folder
    :meth:`file_key`, :meth:`unchanged_entry`, :meth:`lookup`/:meth:`store`
    and :meth:`keep` (or :meth:`partial`), then :meth:`finish`.
    """

    __slots__ = (
        "_build",
        "_handled",
        "_idx",
        "_listing_key",
        "_memo",
        "_memo_key",
        "_new",
        "_old",
        "_reused",
        "_root",
        "_root_key",
        "_state",
        "_whole",
        "area",
        "source",
    )

    def __init__(
        self,
        root: str,
        source: Any,
        area: str | None,
        build: tuple[Any, ...],
        priority: int,
    ) -> None:
        self._root = root
        self.source = source
        self.area = area
        self._build = build
        self._idx = idx = _index.current()
        self._memo_key: tuple[Any, ...] | None = None
        self._memo: _reuse.RootMemo | None = None
        self._root_key: tuple[Any, ...] | None = None
        if idx is not None and idx.reuse:
            self._memo_key = (root, *build, priority)
            memo = _reuse.get(self._memo_key)
            if memo is not None and (memo.area != area or memo.source != source):
                memo = None
            self._memo = memo
            self._root_key = _root_key(root)
        self._handled: set[str | None] | None = None
        self._state: _index.RootState | None = None
        self._listing_key: tuple[Any, ...] | None = None
        self._old = self._memo.entries if self._memo is not None else None
        self._new: dict[str, Entry] | None = {} if self._memo_key is not None else None
        self._whole = self._memo_key is not None
        self._reused = 0

    # ------------------------------------------------------------ whole root

    def kept_result(self, reader: RootReader) -> Any:
        """The result kept by the last scan of this root in this process, when the
        root and every file it depended on are unchanged (or, for a watched root,
        that result with the folders that had events read again); else ``None``."""
        memo, key, idx = self._memo, self._memo_key, self._idx
        if (
            memo is None
            or key is None
            or idx is None
            or memo.result is None
            or self._root_key is None
            or self._root_key != memo.root_key
        ):
            return None
        if memo.armed:
            return self._kept_watched(reader, memo, key, idx)
        if memo.stat_ok:
            return self._kept_unwatched(memo, key, idx)
        return None

    def _kept_watched(
        self,
        reader: RootReader,
        memo: _reuse.RootMemo,
        key: tuple[Any, ...],
        idx: _index.DiscoveryIndex,
    ) -> Any:
        # watched: only what had an event is looked at again, and every link
        # (what a link leads to can change with no event here)
        changed = _reuse.changed(key, memo)
        if None not in changed:
            entries_kept = memo.entries
            parents = idx.realpaths
            standing = links_standing(memo.link_groups, parents, idx.held)
            changed.update(
                n
                for n in memo.links
                if n not in standing and not _link_unchanged(entries_kept[n], memo.area, parents)
            )
        if not changed:
            _reuse.count("roots_reused")
            _replay.listed(self._root)  # the entries are used as if listed again
            return memo.result
        if None not in changed:
            return _patch_root(reader, self._root, memo, key, changed, idx)
        return None

    def _kept_unwatched(
        self, memo: _reuse.RootMemo, key: tuple[Any, ...], idx: _index.DiscoveryIndex
    ) -> Any:
        # kept by a load that did not watch: a session's load watches it from now
        root = self._root
        routes = _watch(root, memo.entries) if _reuse.watch_requested() else None
        # taken with the watches in place and before the check: a change after it
        # shows in the check or in the groups on the next load
        groups = link_groups(memo.entries) if routes is not None else ()
        if _unchanged(memo.entries, memo.area, idx.realpaths) and (
            routes is None or _root_key(root) == memo.root_key
        ):
            if routes is not None:
                _reuse.put(key, _armed(memo, groups), routes=routes, base=memo)
            _reuse.count("roots_reused")
            _replay.listed(root)  # the entries are used as if listed again
            return memo.result
        if routes is not None:
            _reuse.release(routes)
        return None

    def begin(self) -> None:
        """The root is listed and scanned: take the events handled so far, and the
        index's record of the root."""
        memo, key = self._memo, self._memo_key
        self._handled = (
            _reuse.changed(key, memo)
            if key is not None and memo is not None and memo.armed
            else None
        )
        idx = self._idx
        self._state = idx.root(os.path.abspath(self._root)) if idx is not None else None

    def root_missing(self, *, forget: bool) -> None:
        """The root could not be listed (missing: ``forget`` its index record too)."""
        if self._memo_key is not None:
            _reuse.put(self._memo_key, None, base=self._memo)
        if forget and self._idx is not None:
            self._idx.forget(os.path.abspath(self._root))

    def cached_listing(self) -> tuple[tuple[str, str], ...] | bool | None:
        """The root's entries as the index listed them while the root is unchanged;
        ``False`` when the root is missing, ``None`` when it must be listed."""
        state, idx = self._state, self._idx
        if state is None or idx is None:
            return None
        try:
            st = os.stat(self._root)
        except FileNotFoundError:
            return False
        except OSError:
            return None
        self._listing_key = key = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
        cached = state.cached_listing(key)
        if cached is not None:
            idx.stats.listings_reused += 1
            _replay.listed(self._root)  # the entries are used as if listed again
        return cached

    def store_listing(self, listing: tuple[tuple[str, str], ...]) -> None:
        """Keep the root's entries as just listed (see :meth:`cached_listing`)."""
        key, state, idx = self._listing_key, self._state, self._idx
        if key is not None and state is not None and idx is not None:
            state.store_listing(key, idx.is_racy(key[2], key[3]), listing)

    # ------------------------------------------------------------ each folder

    def partial(self) -> None:
        """The result depends on something besides the kept keys: scan the root again
        next time (its unchanged skills are still reused)."""
        self._whole = False

    def file_key(self, skill_path: str, linked: str | None) -> tuple[Any, ...] | None:
        """The index key of ``SKILL.md`` ``skill_path`` (``None``: no index, or no ``stat``)."""
        return None if self._state is None else file_key(skill_path, linked)

    def unchanged_entry(
        self, name: str, key: tuple[Any, ...] | None, linked: str | None
    ) -> Entry | None:
        """The entry kept for folder ``name`` by the last scan in this process when
        its file still has ``key`` (then kept again: the same objects)."""
        old, state = self._old, self._state
        if old is None or key is None or state is None:
            return None
        kept = old.get(name)
        if kept is None or kept[0] != key or kept[1] != linked or kept[5]:
            return None
        if state.lookup(name, key, self._build) is None:
            if kept[3] is None:
                return None
            state.store(name, key, False, self._build, kept[3])
        self._new[name] = kept  # type: ignore[index]
        self._reused += 1
        return kept

    def lookup(self, name: str, key: tuple[Any, ...]) -> Any:
        """The index record of folder ``name`` under ``key`` (``None``: not indexed)."""
        assert self._state is not None
        return self._state.lookup(name, key, self._build)

    def is_racy(self, key: tuple[Any, ...]) -> bool:
        """Whether the file of ``key`` changed too recently for its key to vouch for it."""
        idx = self._idx
        assert idx is not None
        return idx.is_racy(key[1], key[4]) or (
            key[5] is not None and idx.is_racy(key[5][1], key[5][4])
        )

    def hit(self) -> None:
        """A record of the index was used (counted)."""
        assert self._idx is not None
        self._idx.stats.hits += 1

    def miss(self) -> None:
        """A ``SKILL.md`` had to be read (counted)."""
        assert self._idx is not None
        self._idx.stats.misses += 1

    def store(self, name: str, key: tuple[Any, ...], racy: bool, record: Any) -> None:
        """Keep ``record`` in the index for folder ``name`` under ``key``."""
        assert self._state is not None
        self._state.store(name, key, racy, self._build, record)

    def refused(self, name: str, outside: str, folder: str, diagnostic: Any) -> None:
        """Folder link ``name`` was refused for leading ``outside`` the project."""
        if self._new is not None:  # decided by where the link leads, nothing else
            self._new[name] = (
                ("outside", outside),
                folder,
                None,
                None,
                (None, (diagnostic,)),
                False,
            )

    def keep(
        self,
        name: str,
        key: tuple[Any, ...] | None,
        linked: str | None,
        skill_path: str,
        record: Any,
        built: tuple[Any, tuple[Any, ...]],
        racy: bool,
    ) -> None:
        """Keep what folder ``name`` gave (``built``: the skill and its diagnostics;
        ``record`` is left to the index, see :data:`Entry`)."""
        if self._new is not None and not racy:
            self._new[name] = (key, linked, skill_path, None, built, False)
        else:
            self._whole = False

    def finish(self, result: Any, listing: tuple[tuple[str, str], ...]) -> None:
        """Keep ``result`` and what each folder gave for the next scan in this process."""
        key, new, idx = self._memo_key, self._new, self._idx
        if idx is not None and self._state is not None:
            idx.release(self._state.root)
        if key is None or new is None:
            return
        _reuse.count("roots_rescanned")
        _reuse.count("entries_reused", self._reused)
        root_key = self._root_key
        if root_key is not None and idx is not None and idx.is_racy(root_key[2], root_key[3]):
            root_key = None
        keep = result if self._whole and root_key is not None else None
        root_memo = _reuse.RootMemo(self.source, self.area, root_key, new, keep, listing)
        routes = None
        if keep is not None and _reuse.watch_requested():
            routes = _watch(self._root, new)
            # a change made before the watches were in place gave no event (the
            # groups are taken before the check: a later change shows in them)
            if routes is not None:
                groups = link_groups(new)
                if _root_key(self._root) == root_key and _unchanged(new):
                    root_memo = _armed(root_memo, groups)
                else:
                    _reuse.release(routes)
                    routes = None
        _reuse.put(key, root_memo, handled=self._handled, routes=routes, base=self._memo)


def open_scan_memo(
    root: str, source: Any, area: str | None, build: tuple[Any, ...], priority: int
) -> ScanMemo:
    """The memo of one scan of root ``root`` (its path text) made with ``source`` in
    project ``area``; ``build`` and ``priority`` say how its records are derived."""
    return ScanMemo(root, source, area, build, priority)


# ------------------------------------------------------------------ helpers


def _watch(root: str, entries: Mapping[str, Entry]) -> _reuse.Routes | None:
    """Watch root ``root`` and its kept skill folders (see :func:`skillpath.cache.reuse.arm`)."""
    return _reuse.arm(root, [n for n, e in entries.items() if e[2] is not None])


def _armed(
    memo: _reuse.RootMemo,
    groups: tuple[tuple[str, str, tuple[int, int], frozenset[str]], ...] = (),
) -> _reuse.RootMemo:
    """A copy of ``memo`` marked as watched (its links still checked on every load, but
    those of ``groups``, from :func:`link_groups`, by the folder that holds their
    targets)."""
    armed = _reuse.RootMemo(
        memo.source,
        memo.area,
        memo.root_key,
        memo.entries,
        memo.result,
        memo.listing,
        stat_ok=memo.stat_ok,
        armed=True,
    )
    armed.links = tuple(n for n, e in memo.entries.items() if _linked(e))
    armed.link_groups = groups
    _reuse.count("roots_armed")
    return armed


def link_groups(
    entries: Mapping[str, Entry],
) -> tuple[tuple[str, str, tuple[int, int], frozenset[str]], ...]:
    """The folder links of ``entries`` that the watches vouch for, grouped by the folder
    that holds their targets: ``(that folder as the links reach it, its real path, its
    (st_dev, st_ino), names)``.

    A watched root gives an event when a link in it is replaced, and the watch of a
    linked folder (the folder it leads to) one when that folder is moved or deleted, or
    its ``SKILL.md`` written. What no watch sees is a change above the target: a folder
    on the way renamed, replaced or made a symlink. While the folder holding the target
    has the same real path and is the same folder, and the target's last component was
    a plain folder when its key was taken, the link leads where it led: one
    ``realpath`` and one ``stat`` per group (:func:`links_standing`) instead of a
    ``stat`` and a ``readlink`` per link. A ``SKILL.md`` that is itself a link, a target
    on a file system that gives no events, or anything unusual is left out (checked in
    full on every load). Call it after the watches are in place, before the entries are
    checked against the disk.
    """
    by_group: dict[tuple[str, str], set[str]] = {}
    for name, entry in entries.items():
        key, linked, skill_path = entry[0], entry[1], entry[2]
        if linked is None or skill_path is None or key is None or key[5] is not None:
            continue
        folder = key[6]
        if not folder:
            continue
        text, real = folder
        base = os.path.basename(text)
        if not base or base in (".", "..") or text.endswith(os.sep):
            continue
        real_parent, real_base = os.path.split(real)
        if real_base != base or not real_parent:
            continue
        group = os.path.dirname(os.path.join(os.path.dirname(linked), text))
        by_group.setdefault((group, real_parent), set()).add(name)
    if not by_group:
        return ()
    local = _notify.local_paths({real for _g, real in by_group})
    out = []
    for (group, real_parent), names in by_group.items():
        if real_parent not in local:
            continue
        ident = _held(group, real_parent)
        if ident is not None:
            out.append((group, real_parent, ident, frozenset(names)))
    return tuple(out)


def _held(
    group: str, real_parent: str, parents: dict[str, str] | None = None
) -> tuple[int, int] | None:
    """The device and inode of ``real_parent`` while ``group`` still resolves to it
    (``None`` when it does not, or either cannot be read); with ``parents`` (one load's
    cache, :func:`realpath_cached`) the folder holding ``group`` is resolved once a load."""
    try:
        real = os.path.realpath(group) if parents is None else realpath_cached(group, parents)
        if real != real_parent:
            return None
        st = os.stat(real_parent)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def links_standing(
    groups: tuple[tuple[str, str, tuple[int, int], frozenset[str]], ...],
    parents: dict[str, str] | None = None,
    held: dict[tuple[str, str], tuple[int, int] | None] | None = None,
) -> frozenset[str]:
    """The names of :func:`link_groups` ``groups`` whose target folder is still held by
    the same folder at the same real path (their links need no ``stat`` of their own).

    ``parents`` and ``held``: one load's caches (the index's ``realpaths`` and
    ``held``): the roots of a load often link into the same folders, whose answer is
    then taken once a load."""
    if not groups:
        return frozenset()
    out: set[str] = set()
    for group, real_parent, ident, names in groups:
        if held is None:
            now = _held(group, real_parent, parents)
        else:
            pair = (group, real_parent)
            now = held[pair] if pair in held else held.setdefault(pair, _held(*pair, parents))
        if now == ident:
            out.update(names)
    return frozenset(out)


def _linked(entry: Entry) -> bool:
    """Whether a kept entry goes through a symlink (its folder or its ``SKILL.md``): where
    a link leads can change with no event in the watched folders, so it is checked by
    ``stat`` on every load even while its root is watched."""
    return entry[1] is not None or entry[2] is None or entry[0][5] is not None


def _patch_root(
    reader: RootReader,
    root: str,
    memo: _reuse.RootMemo,
    memo_key: tuple[Any, ...],
    changed: set[str | None],
    idx: _index.DiscoveryIndex,
) -> Any:
    """The scan result of watched root ``root`` after events in the folders ``changed``.

    Those folders are watched again (a replaced ``SKILL.md`` is a new file)
    before each ``SKILL.md`` is read again; every other skill stays as kept.
    ``None`` when a folder is not a plain skill folder any more (the caller
    scans the whole root).
    """
    names = [n for n in changed if n is not None]
    if any(n not in memo.entries or memo.entries[n][2] is None for n in names):
        return None  # not a kept skill folder, or a link refused for leading outside
    routes = _reuse.arm(root, names, with_root=False)
    if routes is None:
        return None
    prefix = root if root.endswith(os.sep) else root + os.sep
    entries = dict(memo.entries)
    stat_ok = memo.stat_ok
    for name in names:
        folder = prefix + name
        skill_path = folder + _SEP_SKILL_FILE
        linked = memo.entries[name][1]
        # as the scan does: a link that leads nowhere or out of the project
        # makes a diagnostic of its own: the whole root is scanned again
        if linked is not None and not reader.link_ok(folder, memo.area):
            return None
        key = file_key(skill_path, linked)
        if key is None:
            return None
        read = reader.reread(name, folder, skill_path, key[-1])
        if read is None:
            return None
        record, skill, sdiags = read
        racy = idx.is_racy(key[1], key[4]) or (
            key[5] is not None and idx.is_racy(key[5][1], key[5][4])
        )
        # a recent file is kept while watched; its key alone does not vouch for it
        stat_ok = stat_ok and not racy
        entries[name] = (key, linked, skill_path, record, (skill, sdiags), racy)
    result = _replaced(memo, entries, names)
    if result is None:  # skills came or went, or diagnostics changed: put together again
        skills: list[Any] = []
        diags: list[Any] = []
        for name, kind in memo.listing:
            if kind == "f":
                reader.flat_file(name, diags)
                continue
            skill, sdiags_t = entries[name][4]
            diags.extend(sdiags_t)
            if skill is not None:
                skills.append(skill)
        result = reader.result(skills, diags)
    kept = _reuse.RootMemo(
        memo.source,
        memo.area,
        memo.root_key,
        entries,
        result,
        memo.listing,
        stat_ok=stat_ok,
        armed=True,
    )
    kept.links = memo.links
    # a folder read again is checked in full from now on
    read_again = set(names)
    kept.link_groups = tuple(
        (g, real, ident, members - read_again)
        for g, real, ident, members in memo.link_groups
        if members - read_again
    )
    _reuse.put(memo_key, kept, handled=set(names), routes=routes, add_routes=True, base=memo)
    _reuse.count("roots_patched")
    _replay.listed(root)
    return result


def _root_key(root: str) -> tuple[Any, ...] | None:
    """The identity and ``mtime_ns``/``ctime_ns`` of root ``root`` (``None``: no ``stat``)."""
    try:
        st = os.stat(root)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)


def _unchanged(
    entries: Mapping[str, Entry],
    area: str | None = None,
    parents: dict[str, str] | None = None,
) -> bool:
    """Whether every kept entry still stands (see :func:`_entry_unchanged`); an entry
    through a folder symlink is checked as :func:`_link_unchanged` does, with the
    load's cache of real parent folders ``parents`` (``os.path.realpath`` of each link
    would ``lstat`` every component of its path, for each link)."""
    for entry in entries.values():
        if entry[1] is None:
            if not _entry_unchanged(entry):
                return False
        elif not _link_unchanged(entry, area, parents):
            return False
    return True


def _replaced(memo: _reuse.RootMemo, entries: Mapping[str, Entry], names: list[str]) -> Any:
    """``memo``'s result with the skills of ``names`` taken from ``entries``, in their
    places, when each was and still is a skill without diagnostics (else ``None``)."""
    old = memo.result
    if old is None:
        return None
    swap: dict[int, Any] = {}
    for name in names:
        before, before_diags = memo.entries[name][4]
        after, after_diags = entries[name][4]
        if before is None or after is None or before_diags or after_diags:
            return None
        swap[id(before)] = after
    # the old skills' places found by identity in C, not with a pass over every skill
    skills = list(old.skills)
    ids = list(map(id, skills))
    for before_id, after in swap.items():
        try:
            skills[ids.index(before_id)] = after
        except ValueError:
            continue  # not in the result: nothing to swap
    return attrs.evolve(old, skills=tuple(skills))


def realpath_cached(path: str, parents: dict[str, str], depth: int = 0) -> str:
    """:func:`os.path.realpath` of ``path``, the real path of each parent folder taken
    once from ``parents`` (one load's cache: links in a root share their targets' folders).

    Only the last component is resolved here (a symlink is followed from the real
    folder that holds it); everything else is :func:`os.path.realpath`'s.
    """
    parent, base = os.path.split(path)
    if not parent or base in ("", ".", "..") or depth > 40:
        return os.path.realpath(path)
    real_parent = parents.get(parent)
    if real_parent is None:
        real_parent = parents[parent] = os.path.realpath(parent)
    candidate = os.path.join(real_parent, base)
    try:
        if not stat.S_ISLNK(os.lstat(candidate).st_mode):
            return candidate
        target = os.readlink(candidate)
    except FileNotFoundError:
        return candidate  # as realpath: a missing last component is kept as is
    except OSError:
        return os.path.realpath(path)
    return realpath_cached(os.path.join(real_parent, target), parents, depth + 1)


def _link_unchanged(entry: Entry, area: str | None, parents: dict[str, str] | None = None) -> bool:
    """:func:`_entry_unchanged` for an entry through a symlink in a watched root.

    Outside a project (no ``area``) a folder link's real path decides nothing
    but the key: the ``lstat`` of the ``SKILL.md`` it leads to (a plain file)
    is enough, and costs one call instead of one per path component.
    """
    key, linked, skill_path, _record, _built, _racy = entry
    if area is None and skill_path is not None and linked is not None and key[5] is None:
        try:
            st = os.lstat(skill_path)
        except OSError:
            return False
        return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev, st.st_ctime_ns) == key[:5]
    if parents is not None and skill_path is not None:
        if linked is not None and key[5] is None:
            return _folder_link_key(skill_path, linked, parents) == key
        return file_key(skill_path, linked, lambda p: realpath_cached(p, parents)) == key
    if parents is not None and skill_path is None and linked is not None:
        # a link refused for leading out of the project: still leading to the same place
        return os.path.isdir(linked) and realpath_cached(linked, parents) == key[1]
    return _entry_unchanged(entry)


def _folder_link_key(path: str, linked_folder: str, parents: dict[str, str]) -> Any:
    """:func:`file_key` of ``SKILL.md`` ``path`` in symlinked folder ``linked_folder``,
    its real path found with ``parents`` (:func:`realpath_cached`), reading the link
    once: the target is resolved from the real folder that holds the link, as
    :func:`realpath_cached` would after reading the same link again. A ``SKILL.md``
    that is itself a link is left to :func:`file_key` (``None`` here: not equal)."""
    try:
        lst = os.lstat(path)
        if stat.S_ISLNK(lst.st_mode):
            return None
        target = os.readlink(linked_folder)
    except OSError:
        return None
    parent, base = os.path.split(linked_folder)
    if not parent or base in ("", ".", ".."):
        real = os.path.realpath(linked_folder)
    else:
        real_parent = parents.get(parent)
        if real_parent is None:
            real_parent = parents[parent] = os.path.realpath(parent)
        real = realpath_cached(os.path.join(real_parent, target), parents, 1)
    return _key(lst, None, (target, real), (lst.st_dev, lst.st_ino))


def _entry_unchanged(entry: Entry) -> bool:
    """Whether a kept ``SKILL.md`` still has the key it was kept with (or a folder link
    refused for leading out of the project still leads to the same place)."""
    key, linked, skill_path, _record, _built, _racy = entry
    if skill_path is None:
        return os.path.isdir(linked) and os.path.realpath(linked) == key[1]
    return file_key(skill_path, linked) == key


def file_key(
    path: str, linked_folder: str | None, realpath: Callable[[str], str] = os.path.realpath
) -> tuple[Any, ...] | None:
    """The index key of one ``SKILL.md`` plus its ``file_id`` (last item); ``None``
    when it cannot be stat'ed (the caller reads it the ordinary way). ``realpath``
    is :func:`os.path.realpath` or the same with a cache (:func:`realpath_cached`)."""
    try:
        lst = os.lstat(path)
        target = None
        file_id = (lst.st_dev, lst.st_ino)
        if stat.S_ISLNK(lst.st_mode):
            st = os.stat(path)
            target = (
                st.st_size,
                st.st_mtime_ns,
                st.st_ino,
                st.st_dev,
                st.st_ctime_ns,
                os.readlink(path),
                realpath(path),
            )
            file_id = (st.st_dev, st.st_ino)
        folder = None
        if linked_folder is not None:
            folder = (os.readlink(linked_folder), realpath(linked_folder))
    except OSError:
        return None
    return _key(lst, target, folder, file_id)


def _key(
    lst: os.stat_result, target: Any, folder: Any, file_id: tuple[int, int]
) -> tuple[Any, ...]:
    """The index key of a ``SKILL.md`` whose ``lstat`` is ``lst`` (:func:`file_key`)."""
    return (
        lst.st_size,
        lst.st_mtime_ns,
        lst.st_ino,
        lst.st_dev,
        lst.st_ctime_ns,
        target,
        folder,
        file_id,
    )
