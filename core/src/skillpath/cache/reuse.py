"""In-process reuse: a second load in the same process rebuilds only what changed.

The discovery index (:mod:`skillpath.index`) spares a load the reading of
unchanged ``SKILL.md`` files, but each load still reads the index files and
builds every skill object again. A host that loads more than once (an agent
framework adapter each turn, :meth:`skillpath.SkillSession.refresh`, a server)
keeps, in this process, what the last load of each skills root built:

* **per skills root**, what :func:`skillpath.scan.scan_skills_dir` returned
  and, for every skill folder, the index key of its ``SKILL.md`` (the same
  key the index compares: ``lstat`` and, through a symlink, ``stat``,
  ``readlink`` and ``realpath``) with the skill and diagnostics built from
  it. A scan of the root then ``stat``\\ s the root (its identity and
  ``mtime_ns``: entries added, removed, renamed) and every ``SKILL.md`` and,
  when all of them are unchanged, returns the same result object without
  listing the root or reading any file; when some changed, only those are
  read again and every other skill object is reused. A root whose result
  depends on anything else — a folder without ``SKILL.md`` (the nested-skill
  survey looks below it), a dot folder, an entry that could not be
  inspected, a file that could not be read — is scanned again on every load
  (its unchanged skills are still reused);
* **per plugin host**, the merged catalog: when every provider gave the same
  results (the same skill objects, equal diagnostics and roots), the settings
  the filters read are equal and the only ``filter_skill`` implementation is
  the core's own (which depends on nothing but the skill and the
  ``[skills]`` settings), the merge (filters, de-duplication, sorting) is not
  done again. A plugin's filter may depend on anything, so with one
  registered every load merges again.

The providers themselves run on every load, the config files are read on
every load and the context is built anew, so a change of the environment,
the working directory, the settings or the installed plugins is seen as it
is without the memo. The racy rule of the index applies: an entry whose
``mtime`` or ``ctime`` falls within the racy window
(``SKILLPATH_INDEX_RACY_MS``) of the load that recorded it is read again.

The memo is used only while the discovery index is (it is the index's
in-memory layer): ``SKILLPATH_NO_INDEX=1``, ``[index] enabled = false`` and
:func:`skillpath.index.disabled` turn it off, and ``SKILLPATH_NO_REUSE=1``
turns off only this layer. It keeps at most :data:`MAX_ROOTS` roots and
:data:`MAX_ENTRIES` skill folders (the least recently used go first);
:func:`clear` forgets everything.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import operator
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from stat import S_ISDIR
from typing import Any

from skillpath import _env
from skillpath.cache import notify as _notify

__all__ = [
    "MAX_ENTRIES",
    "MAX_ROOTS",
    "RootMemo",
    "any_changed",
    "clear",
    "enabled",
    "kept_while_watched",
    "stats",
    "watched",
]

#: At most this many skills roots, and this many skill folders in all, are kept.
MAX_ROOTS = 512
MAX_ENTRIES = 200_000

#: Counters (what the tests look at): roots returned whole, roots scanned again,
#: skill folders whose objects were reused, merges reused.
stats: dict[str, int] = {
    "roots_reused": 0,
    "roots_rescanned": 0,
    "entries_reused": 0,
    "merges_reused": 0,
    "merges_patched": 0,
    "roots_patched": 0,
    "roots_armed": 0,
    "values_reused": 0,
}

_LOCK = threading.RLock()
_MISSING: Any = object()
_SCANS: OrderedDict[tuple[Any, ...], RootMemo] = OrderedDict()
_MERGES: OrderedDict[tuple[Any, ...], tuple[Any, ...]] = OrderedDict()
_MAX_MERGES = 16
_entries_total = 0


def _after_fork_in_child() -> None:
    """A forked child starts empty: the inotify instance is shared with the parent
    (whose events a read here would take away), so the child forgets it unread."""
    global _entries_total, _LOCK
    _LOCK = threading.RLock()  # another thread of the parent may have held it
    _SCANS.clear()
    _MERGES.clear()
    _ROUTES.clear()
    _WD.clear()
    _DIRTY.clear()
    _BY_STAT.clear()
    _UNWATCHED.clear()
    _DIR_ONLY.clear()
    _WATCHED_VALUES.clear()
    _entries_total = 0
    _notify.forget_after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def enabled(env: Mapping[str, str]) -> bool:
    """Whether loads with environment ``env`` may use the memo (``SKILLPATH_NO_REUSE``)."""
    return not _env.flag(env, "SKILLPATH_NO_REUSE")


#: What the trust step of the last load with the reuse on kept of its judgement
#: (:func:`skillpath.trust.apply_trust` with ``keep``): one slot, let go by
#: :func:`clear` with the kept scans and merges, so nothing it holds outlives them.
TRUST_KEPT: list[Any] = [None]


def clear() -> None:
    """Forget every kept root and merge, and the trust step's kept judgement (and stop
    watching)."""
    global _entries_total
    with _LOCK:
        TRUST_KEPT[0] = None
        for key in list(_ROUTES):
            _unroute(key)
        _SCANS.clear()
        _MERGES.clear()
        _DIRTY.clear()
        _BY_STAT.clear()
        _UNWATCHED.clear()
        _DIR_ONLY.clear()
        _WATCHED_VALUES.clear()
        _entries_total = 0


class RootMemo:
    """What the last scan of one skills root built, and the keys that vouch for it.

    ``source`` and ``area`` are what the scan was made with; ``root_key`` the
    root's ``(st_dev, st_ino, st_mtime_ns, st_ctime_ns)`` before it was listed
    (``None``: not vouched for); ``entries`` maps a folder name to ``(index
    key, linked folder or None, SKILL.md path text, record, (skill,
    diagnostics), recent)``; ``result`` is the whole scan result, set only when
    nothing but those keys decided it (the last item of an entry: whether its
    file was recent when read, so that its key alone does not vouch for it);
    ``listing`` the root's entries as
    listed. ``stat_ok``: the keys alone vouch for ``result`` (no entry was
    recent); ``armed``: the root, its folders and files are watched
    (:func:`arm`), so while no event came the result stands without a ``stat``
    of every file (entries through a symlink, ``links``, are still checked).
    """

    __slots__ = (
        "area",
        "armed",
        "entries",
        "link_groups",
        "links",
        "listing",
        "result",
        "root_key",
        "source",
        "stat_ok",
    )

    def __init__(
        self,
        source: Any,
        area: str | None,
        root_key: tuple[Any, ...] | None,
        entries: dict[str, tuple[Any, ...]],
        result: Any,
        listing: tuple[tuple[str, str], ...] = (),
        *,
        stat_ok: bool = True,
        armed: bool = False,
    ) -> None:
        self.source = source
        self.area = area
        self.root_key = root_key
        self.entries = entries
        self.result = result
        self.listing = listing
        self.stat_ok = stat_ok
        self.armed = armed
        #: names of entries checked by ``stat`` even while armed (through a symlink)
        self.links: tuple[str, ...] = ()
        #: those of ``links`` vouched for by the folder that holds their targets:
        #: ``(that folder's path as the links reach it, its real path, its (st_dev,
        #: st_ino), names)``, taken after the watches were in place (see
        #: :func:`skillpath.cache.memo.link_groups`)
        self.link_groups: tuple[tuple[str, str, tuple[int, int], frozenset[str]], ...] = ()


def get(key: tuple[Any, ...]) -> RootMemo | None:
    """The memo of the root scanned as ``key`` (marked as used most recently)."""
    with _LOCK:
        memo = _SCANS.get(key)
        if memo is not None:
            _SCANS.move_to_end(key)
        return memo


def put(
    key: tuple[Any, ...],
    memo: RootMemo | None,
    *,
    handled: set[str | None] | None = None,
    routes: Routes | None = None,
    add_routes: bool = False,
    base: Any = _MISSING,
) -> None:
    """Keep ``memo`` for the root scanned as ``key`` (``None``: forget it).

    ``handled``: the changes (from :func:`changed`) that ``memo`` accounts
    for; ``routes``: the watches of an armed ``memo`` (from :func:`arm`),
    replacing the old ones or, with ``add_routes``, added to them. ``base``:
    the memo ``memo`` was made from; when another load replaced it meanwhile,
    ``memo`` is not kept (the other stays).
    """
    global _entries_total
    with _LOCK:
        if base is not _MISSING and _SCANS.get(key) is not base:
            if routes is not None:
                release(routes)
            return
        old = _SCANS.pop(key, None)
        if old is not None:
            _entries_total -= len(old.entries)
        if handled:
            pending = _DIRTY.get(key)
            if pending is not None:
                pending -= handled
        if memo is None or not memo.armed:
            _unroute(key)
        elif routes is not None:
            if not add_routes:
                _unroute(key, keep=routes)  # the same inode gives the same descriptor
            _route(key, routes)
        if memo is None:
            return
        _SCANS[key] = memo
        _entries_total += len(memo.entries)
        while _SCANS and (len(_SCANS) > MAX_ROOTS or _entries_total > MAX_ENTRIES):
            k, dropped = _SCANS.popitem(last=False)
            _entries_total -= len(dropped.entries)
            _unroute(k)


# -- watching ---------------------------------------------------------------------

_WATCH: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "skillpath_reuse_watch", default=False
)
#: Watches: ``(descriptor, folder name or None for the root)`` pairs.
Routes = list[tuple[int, str | None]] | set[tuple[int, str | None]]
#: watch descriptor -> the (root key, folder name or None) pairs it stands for
_WD: dict[int, tuple[tuple[tuple[Any, ...], str | None], ...]] = {}
#: root key -> its watches: (descriptor, folder name or None for the root); one
#: descriptor may stand for two names (hard links: the same file in two folders)
_ROUTES: dict[tuple[Any, ...], set[tuple[int, str | None]]] = {}
#: root key -> names of folders with an event since (``None``: the root itself)
_DIRTY: dict[tuple[Any, ...], set[str | None]] = {}


@contextlib.contextmanager
def watching(env: Mapping[str, str]) -> Iterator[None]:
    """Loads inside the block watch the roots they keep (a long-lived session's loads).

    ``SKILLPATH_NO_WATCH=1`` (in ``env``) leaves every root to its ``stat`` checks.
    """
    token = _WATCH.set(not _env.flag(env, "SKILLPATH_NO_WATCH"))
    try:
        yield
    finally:
        _WATCH.reset(token)


def watch_requested() -> bool:
    """Whether the load in progress watches the roots it keeps (see :func:`watching`)."""
    return _WATCH.get()


def _route(key: tuple[Any, ...], routes: Routes) -> None:
    mine = _ROUTES.setdefault(key, set())
    for pair in routes:
        if pair in mine:
            continue
        mine.add(pair)
        wd, name = pair
        _WD[wd] = (*_WD.get(wd, ()), (key, name))


def _unroute(key: tuple[Any, ...], keep: Routes | None = None) -> None:
    """Forget the watches of root ``key``; remove those nothing else (and not ``keep``)
    needs."""
    mine = _ROUTES.pop(key, None)
    if keep is None:
        _DIRTY.pop(key, None)
    if not mine:
        return
    kept = {wd for wd, _name in keep} if keep is not None else set()
    n = _notify.notifier()
    for wd, name in mine:
        users = tuple(u for u in _WD.get(wd, ()) if u != (key, name))
        if users:
            _WD[wd] = users
            continue
        _WD.pop(wd, None)
        if n is not None and wd not in kept:
            n.remove(wd)


def _drain() -> None:
    """Read the queued events into :data:`_DIRTY` (called with the lock held)."""
    n = _notify.notifier()
    if n is None or not _ROUTES:
        return
    events = n.read()
    if events is None:  # events were lost: every watched root is looked at again
        for key in _ROUTES:
            _DIRTY.setdefault(key, set()).add(None)
        return
    for wd, mask in events:
        users = _WD.get(wd)
        if not users:
            continue
        for key, name in users:
            if key in _DIR_ONLY and not mask & _DIR_EVENTS:
                continue  # a write to a file in a folder watched for its entries
            _DIRTY.setdefault(key, set()).add(name)
        if mask & _notify.IN_IGNORED:  # the watched file or folder is gone
            for key, name in users:
                _ROUTES.get(key, set()).discard((wd, name))
            del _WD[wd]


def changed(key: tuple[Any, ...], memo: RootMemo) -> set[str | None]:
    """What changed in armed root ``key`` since ``memo`` was kept: folder names, ``None``
    for the root itself (or events lost, or ``memo`` is not the kept one any more).
    The set stays until :func:`put` is told it was handled."""
    with _LOCK:
        _drain()
        if key not in _ROUTES or _SCANS.get(key) is not memo:
            return {None}
        return set(_DIRTY.get(key, ()))


def watched(root: str) -> tuple[list[tuple[tuple[Any, ...], RootMemo]], set[str]] | None:
    """The kept memos of skills root ``root`` (its path text) and the names of their
    entries reached through a symlink, when every one is watched (:func:`arm`);
    ``None`` when none is kept or one is not watched (its files need a ``stat``)."""
    with _LOCK:
        found = [(k, m) for k, m in _SCANS.items() if k[0] == root]
        if not found or not all(m.armed and k in _ROUTES for k, m in found):
            return None
        links: set[str] = set()
        for _k, m in found:
            links.update(m.links)
        return found, links


def any_changed(kept: Sequence[tuple[tuple[Any, ...], RootMemo]]) -> bool:
    """Whether anything changed in the watched roots of ``kept`` (from :func:`watched`)
    since: an event came for one, events were lost, or another load replaced or
    dropped one of the memos. Reads the queued events; no ``stat``."""
    with _LOCK:
        _drain()
        for key, memo in kept:
            if key not in _ROUTES or _SCANS.get(key) is not memo or _DIRTY.get(key):
                return True
    return False


def arm(root: str, names: Sequence[str], *, with_root: bool = True) -> Routes | None:
    """Watch root ``root`` (when ``with_root``), and the folder and ``SKILL.md`` of each
    of ``names``; ``None`` when a watch is refused (nothing is kept watched then).

    Only on a local file system. The caller checks afterwards that what it
    keeps still holds (a change before the watch was in place gave no event).
    """
    n = _notify.notifier()
    if n is None or not _notify.local(root):
        return None
    prefix = root if root.endswith(os.sep) else root + os.sep
    routes: list[tuple[int, str | None]] = []
    # one inode has one watch, whoever asks: each request adds to its events
    # (another layer's watch on the same folder is never narrowed)
    add = _notify.IN_MASK_ADD
    try:
        if with_root:
            routes.append((n.add(root, _notify.DIR_MASK | _notify.IN_ONLYDIR | add), None))
        # through a symlink, what it leads to is watched (the link itself is checked
        # by the caller on every load)
        folder_mask = _notify.FOLDER_MASK | _notify.IN_ONLYDIR | add
        file_mask = _notify.FILE_MASK | add
        for name in names:
            folder = prefix + name
            routes.append((n.add(folder, folder_mask), name))
            routes.append((n.add(folder + os.sep + "SKILL.md", file_mask), name))
    except OSError:
        release(routes)
        return None
    return routes


def release(routes: Routes) -> None:
    """Remove the watches of ``routes`` (from :func:`arm`) that nothing kept uses."""
    n = _notify.notifier()
    if n is None:
        return
    with _LOCK:
        for wd in {wd for wd, _name in routes}:
            if wd not in _WD:
                n.remove(wd)


def count(name: str, n: int = 1) -> None:
    """Add ``n`` to counter ``name`` of :data:`stats`."""
    stats[name] += n


# -- values kept by stat ------------------------------------------------------------

#: key -> (value, the paths it depended on, their stamps, watched): see
#: :func:`kept_by_stat` (watched: the folders among the paths are watched, and the
#: paths and stamps are those of everything else)
_BY_STAT: OrderedDict[Hashable, tuple[Any, tuple[str, ...], tuple[Any, ...], bool]] = OrderedDict()
#: At most this many values are kept by :func:`kept_by_stat` (the least recently used go first).
MAX_BY_STAT = 64
#: The watch keys of :func:`kept_by_stat`: only an event on a folder's entries (or
#: the folder itself) counts for them, not a write to a file in it.
_DIR_ONLY: set[Hashable] = set()
#: Keys of values kept by a load that did not watch whose paths a watching load found
#: nothing to watch in (see :func:`_watch_kept`): not tried again while kept.
_UNWATCHED: set[Hashable] = set()
_DIR_EVENTS = _notify.DIR_MASK | _notify.IN_IGNORED | _notify.IN_UNMOUNT | _notify.IN_Q_OVERFLOW


def _stamps(paths: Iterable[str]) -> tuple[Any, ...]:
    """One ``stat`` per path (links followed): identity, times, size and mode, ``None``
    for a path that cannot be reached."""
    out: list[Any] = []
    stat = os.stat
    for path in paths:
        try:
            st = stat(path)
        except (OSError, ValueError):
            out.append(None)
            continue
        out.append((st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_mode))
    return tuple(out)


def _by_stat_key(key: Hashable) -> tuple[str, Hashable]:
    return ("by-stat", key)


def _forget_by_stat(key: Hashable) -> None:
    """Drop the value kept for ``key`` and its watches (called with the lock held)."""
    _BY_STAT.pop(key, None)
    _UNWATCHED.discard(key)
    rkey = _by_stat_key(key)
    _DIR_ONLY.discard(rkey)
    _unroute(rkey)


def _kept_stands(key: Hashable, kept: tuple[Any, tuple[str, ...], tuple[Any, ...], bool]) -> bool:
    """Whether the value kept for ``key`` still stands: no event from its watched
    folders, and the same stamps for everything else."""
    if kept[3]:
        rkey = _by_stat_key(key)
        with _LOCK:
            _drain()
            if rkey not in _ROUTES or _DIRTY.get(rkey):
                return False
    return _stamps(kept[1]) == kept[2]


def _watch_plain_folders(paths: tuple[str, ...]) -> tuple[tuple[str, ...], Routes] | None:
    """In a watching load, watch the plain folders among ``paths`` (on a local file
    system) for their entries; the paths left to a ``stat`` on every check (files,
    links, folders elsewhere, and the folder holding each watched folder whose own
    folder is not watched: a change above shows there). ``None``: nothing watched.
    Called with the lock held."""
    n = _notify.notifier()
    if n is None or not watch_requested():
        return None
    folders: list[str] = []
    rest: list[str] = []
    devices: dict[int, bool] = {}
    for path in paths:
        try:
            st = os.lstat(path)
        except (OSError, ValueError):
            rest.append(path)
            continue
        if not S_ISDIR(st.st_mode) or not os.path.isabs(path):
            rest.append(path)
            continue
        local = devices.get(st.st_dev)
        if local is None:
            local = devices[st.st_dev] = _notify.local(path)
        (folders if local else rest).append(os.path.normpath(path))
    if len(folders) < 2:  # one stat is as cheap as its watch
        return None
    watched = set(folders)
    for folder in folders:
        parent = os.path.dirname(folder)
        if parent not in watched and parent != folder:
            watched.add(parent)  # once
            rest.append(parent)
    mask = _notify.DIR_MASK | _notify.IN_ONLYDIR | _notify.IN_DONT_FOLLOW | _notify.IN_MASK_ADD
    routes: list[tuple[int, str | None]] = []
    try:
        for folder in folders:
            routes.append((n.add(folder, mask), None))
    except OSError:
        release(routes)
        return None
    return tuple(dict.fromkeys(rest)), routes


def _watch_kept(
    key: Hashable, kept: tuple[Any, tuple[str, ...], tuple[Any, ...], bool], racy_before: int
) -> None:
    """In a watching load, watch the plain folders of a value a load that did not watch
    kept (it still stands): from here on only the rest is ``stat``\\ ed. The watches are
    in place before the paths are checked again, so a change in between shows in the
    stamps (the value then stays as it was kept, to its ``stat`` checks). Called with
    the lock held."""
    if key in _UNWATCHED:
        return  # tried once: nothing of it can be watched (or a watch was refused)
    watched = _watch_plain_folders(kept[1])
    if watched is None:
        _UNWATCHED.add(key)
        return
    rest, routes = watched
    rest_stamps = _stamps(rest)
    if _stamps(kept[1]) != kept[2] or _racy(rest_stamps, racy_before):
        release(routes)
        return
    _keep_watched(key, kept[0], rest, rest_stamps, routes)


def _racy(stamps: tuple[Any, ...], racy_before: int) -> bool:
    """Whether one of ``stamps`` (:func:`_stamps`) changed at or after ``racy_before``."""
    return any(s is not None and max(s[2], s[3]) >= racy_before for s in stamps)


def _keep_watched(
    key: Hashable, value: Any, rest: tuple[str, ...], rest_stamps: tuple[Any, ...], routes: Routes
) -> None:
    """Keep ``value`` for ``key``, vouched for by ``routes`` (its watched folders, for
    their entries alone) and the stamps of ``rest`` (called with the lock held)."""
    rkey = _by_stat_key(key)
    _route(rkey, routes)
    _DIR_ONLY.add(rkey)
    _BY_STAT[key] = (value, rest, rest_stamps, True)


def kept_by_stat(
    key: Hashable,
    compute: Callable[[], tuple[Any, Iterable[str]]],
    racy_before: int,
) -> Any:
    """The value ``compute()`` gave for ``key`` in this process, while every path it said
    the value depends on has the same ``stat`` (device, inode, ``mtime_ns``,
    ``ctime_ns``, size and mode; a folder's ``mtime`` changes when an entry is added,
    removed or renamed in it); else ``compute()`` again.

    ``compute`` returns ``(value, paths)``. A value is kept only when none of its
    paths changed at or after ``racy_before`` (ns; the index's racy rule: a change
    within the same timestamp tick as the check would not show), so a later check
    that finds the same stamps vouches for it.

    In a watching load (:func:`watching`) the plain folders among the paths are
    watched instead (their entries added, removed or renamed, themselves moved,
    deleted or their mode changed), so a later check ``stat``\\ s only the rest (and
    the folder holding the watched ones); the watches are in place before the
    stamps are taken, and the racy rule covers a change between ``compute()`` and
    the watch.
    """
    with _LOCK:
        kept = _BY_STAT.get(key)
    if kept is not None and _kept_stands(key, kept):
        with _LOCK:
            if _BY_STAT.get(key) is kept:
                _BY_STAT.move_to_end(key)
                if not kept[3] and watch_requested():
                    _watch_kept(key, kept, racy_before)
        count("values_reused")
        return kept[0]
    value, depends = compute()
    paths = tuple(depends)
    with _LOCK:
        _forget_by_stat(key)
        # the lock is held from the watches to their routes: no event is read away
        watched = _watch_plain_folders(paths)
        stamps = _stamps(paths)
        if _racy(stamps, racy_before):
            if watched is not None:
                release(watched[1])
            return value
        if watched is None:
            _BY_STAT[key] = (value, paths, stamps, False)
        else:
            rest, routes = watched
            _keep_watched(key, value, rest, _stamps(rest), routes)
        _BY_STAT.move_to_end(key)
        while len(_BY_STAT) > MAX_BY_STAT:
            _forget_by_stat(next(iter(_BY_STAT)))
    return value


# -- the merge ---------------------------------------------------------------------


def _same_skills(old: Sequence[Any], new: Sequence[Any]) -> bool:
    if len(old) != len(new):
        return False
    if all(map(operator.is_, old, new)):  # the usual case, checked in C
        return True
    for a, b in zip(old, new, strict=True):
        if a is b:
            continue
        # a provider that builds its skills anew (bundled, packs): the old object
        # stands for the new one when the records, the files and the bodies are equal
        if a != b or a.file_id != b.file_id:
            return False
        if a.body_loader is None and b.body_loader is None:
            # a SKILL.md read again (its file changed): its body may have changed
            # with the record equal, and the old object may hold the old body
            return False
        if a.body != b.body:
            return False
    return True


def _same_passes(old: Sequence[Any], new: Sequence[Any]) -> bool:
    if len(old) != len(new):
        return False
    for a, b in zip(old, new, strict=True):
        if a is b:
            continue
        if (a.provider, a.priority, a.late) != (b.provider, b.priority, b.late):
            return False
        if not _same_skills(a.skills, b.skills):
            return False
        if a.diagnostics != b.diagnostics or a.roots != b.roots:
            return False
    return True


def merge_key(
    ctx: Any, host: Any, builtin_filter: Any, argument_only: Any = None
) -> tuple[Any, ...] | None:
    """The key a merge is kept under, or ``None`` when it may not be reused.

    Only when the host's ``filter_skill`` implementations are ``builtin_filter``
    (the core's, which reads the skill and ``[skills]``) and, besides it, plain
    implementations for which ``argument_only(impl)`` is true (a plugin's that
    declared its verdict depends on the skill and the context alone). With such
    a plugin filter the whole context must be equal too (see :func:`merge_state`).
    """
    impls = host.pm.hook.filter_skill.get_hookimpls()
    builtin = others = False
    for impl in impls:
        if impl.hookwrapper or getattr(impl, "wrapper", False):
            return None
        if impl.function is builtin_filter:
            builtin = True
        elif argument_only is not None and argument_only(impl):
            others = True
        else:
            return None
    if not builtin or (others and ctx.skills):
        return None
    return (id(host), str(ctx.cwd), str(ctx.home), others)


def merge_state(key: tuple[Any, ...], ctx: Any, host: Any) -> tuple[Any, ...]:
    """What a kept merge under ``key`` must have been made with to be reused: the
    filter implementations and the ``[skills]`` settings (all the core's filter
    reads), and with plugin filters the whole context they are given (its
    directories, environment, settings, session id and extras)."""
    impls = tuple(impl.function for impl in host.pm.hook.filter_skill.get_hookimpls())
    skills = dict(ctx.settings.skills)
    if not key[3]:
        return (impls, skills)
    return (
        impls,
        skills,
        ctx.repo_root,
        dict(ctx.env),
        ctx.settings,
        ctx.session_id,
        dict(ctx.extras),
    )


def merged(key: tuple[Any, ...], host: Any, ctx: Any, passes: Any, drop: Any) -> Any:
    """The merge kept under ``key`` when ``passes`` and the settings are the same.

    When they differ only by a few skills rebuilt under the same name, path,
    file and conditional status, none of them skipped or in a clash of names
    (one of the two copies of a file found twice, ``duplicate-file``, may be:
    with its source unchanged the clash is decided and worded the same), and
    each still passing the filter, the kept merge is patched: those skills take
    the place of their old versions (the order cannot change) and the
    diagnostics of the results are taken again. ``drop`` is the loader's rule
    for nested-skill notes about files loaded elsewhere.
    """
    with _LOCK:
        kept = _MERGES.get(key)
        if kept is not None:
            _MERGES.move_to_end(key)
    if kept is None:
        return None
    k_host, k_state, k_passes, result, extra = kept
    state = merge_state(key, ctx, host)
    if k_host is not host or k_state != state:
        return None
    if _same_passes(k_passes, passes):
        stats["merges_reused"] += 1
        return result
    patched = _patch(k_passes, passes, result, extra, host, ctx, drop)
    if patched is None:
        return None
    stats["merges_patched"] += 1
    keep_merged(key, host, state, passes, patched[0], drop, extra=(*extra[:3], *patched[1:]))
    return patched[0]


#: A merge is patched for at most this many rebuilt skills (else merged again).
MAX_PATCH = 64


def _patch(
    k_passes: Sequence[Any],
    passes: Sequence[Any],
    result: Any,
    extra: tuple[Any, ...],
    host: Any,
    ctx: Any,
    drop: Any,
) -> tuple[Any, set[int], dict[int, tuple[int, int]]] | None:
    """The patched merge, the ids of its skills in a ``duplicate-file`` clash and
    where each of its kept skills stands (see :func:`merged`)."""
    paths, merger_diags, involved, twins, winners = extra
    if len(k_passes) != len(passes):
        return None
    replace: dict[int, Any] = {}
    for a, b in zip(k_passes, passes, strict=True):
        if a is b:
            continue
        if (a.provider, a.priority, a.late) != (b.provider, b.priority, b.late):
            return None
        if len(a.skills) != len(b.skills) or a.roots != b.roots:
            return None
        old_skills, new_skills = a.skills, b.skills
        for i in itertools.compress(
            range(len(old_skills)), map(operator.is_not, old_skills, new_skills)
        ):
            x, y = old_skills[i], new_skills[i]
            if (
                x.name != y.name
                or x.path != y.path
                or x.file_id != y.file_id
                or x.conditional != y.conditional
                or id(x) in involved
                or len(replace) >= MAX_PATCH
            ):
                return None
            if id(x) in twins:
                if x.source != y.source:
                    return None  # the clash's note names the winner's source
            elif id(x) not in winners:
                return None
            replace[id(x)] = y
    diags: list[Any] = []
    for y in replace.values():
        if host.filter(y, ctx, diags) is not None or diags:
            return None
    pass_diags: list[Any] = []
    for r in passes:
        pass_diags.extend(r.diagnostics)
    pass_diags = drop(pass_diags, paths)
    skills = list(result.skills)
    conditional = list(result.conditional)
    placed = dict(winners)
    shadowed = result.shadowed
    if twins and not twins.isdisjoint(replace):
        # the losers and winners of a file found twice: their records name the new ones
        shadowed = tuple(
            type(x)(replace.get(id(x.skill), x.skill), replace.get(id(x.by), x.by), x.reason)
            if id(x.skill) in replace or id(x.by) in replace
            else x
            for x in shadowed
        )
        twins = (twins - replace.keys()) | {id(y) for i, y in replace.items() if i in twins}
    for old_id, y in replace.items():
        found = placed.pop(old_id, None)
        if found is None:
            continue  # the loser of a file found twice
        which, at = found
        (conditional if which else skills)[at] = y
        placed[id(y)] = (which, at)
    patched = type(result)(
        skills=tuple(skills),
        conditional=tuple(conditional),
        shadowed=shadowed,
        skipped=result.skipped,
        diagnostics=(*pass_diags, *merger_diags),
        roots=result.roots,
    )
    return patched, twins, placed


def keep_merged(
    key: tuple[Any, ...],
    host: Any,
    state: tuple[Any, ...],
    passes: Any,
    result: Any,
    drop: Any,
    extra: tuple[Any, ...] | None = None,
) -> None:
    """Keep ``result``, the merge of ``passes`` made in ``state`` (:func:`merge_state`)."""
    if extra is None:
        paths = {s.path for r in passes for s in r.skills if s.path is not None}
        pass_diags: list[Any] = []
        for r in passes:
            pass_diags.extend(r.diagnostics)
        merger_diags = result.diagnostics[len(drop(pass_diags, paths)) :]
        involved = {id(x.skill) for x in result.skipped}
        twins: set[int] = set()  # the two copies of a file found twice
        for x in result.shadowed:
            into = twins if x.reason == "duplicate-file" else involved
            into.add(id(x.skill))
            into.add(id(x.by))
        twins -= involved
        extra = (paths, merger_diags, involved, twins, None)
    if extra[4] is None:
        # where each kept skill stands: (conditional?, position), by id
        winners = {id(s): (0, i) for i, s in enumerate(result.skills)}
        winners.update({id(s): (1, i) for i, s in enumerate(result.conditional)})
        extra = (*extra[:4], winners)
    with _LOCK:
        _MERGES[key] = (host, state, list(passes), result, extra)
        _MERGES.move_to_end(key)
        while len(_MERGES) > _MAX_MERGES:
            _MERGES.popitem(last=False)


# -- values kept while watched ----------------------------------------------------

#: key -> (stamp, value): see :func:`kept_while_watched`
_WATCHED_VALUES: dict[Hashable, tuple[Hashable, Any]] = {}


def _watch_folders(folders: Iterable[str], mask: int) -> list[tuple[int, str | None]] | None:
    """Watch each of ``folders`` for ``mask`` (``None``: a watch refused, none kept)."""
    n = _notify.notifier()
    if n is None:
        return None
    routes: list[tuple[int, str | None]] = []
    try:
        for folder in folders:
            # added to a watch already on the folder (never narrowing it)
            routes.append((n.add(folder, mask | _notify.IN_ONLYDIR | _notify.IN_MASK_ADD), None))
    except OSError:
        release(routes)
        return None
    return routes


def kept_while_watched(
    key: Hashable,
    stamp: Hashable,
    folders: Callable[[], Sequence[str] | None],
    compute: Callable[[], Any],
    more: Callable[[Any], Sequence[str] | None],
) -> Any:
    """The value ``compute()`` gave for ``key`` in this process, while ``stamp`` is the
    same and no event came from the folders it was read from; else ``compute()`` again.

    Outside a watching load (:func:`watching`) this is ``compute()``. Otherwise
    ``folders()`` (their entries: added, removed, renamed) are watched first,
    then ``compute()`` runs, then the folders ``more(value)`` names (what is written
    in them too) are watched and ``compute()`` runs again: the value is kept only
    when both runs agree, so a change made before a watch was in place shows. The
    lock is held throughout, so no event is read away before its watch is routed.
    ``folders()`` or ``more()`` answering ``None`` (a folder on a file system that
    gives no events, or nothing to watch): not kept.
    """
    rkey = ("watched-value", key)
    with _LOCK:
        _drain()
        kept = _WATCHED_VALUES.get(rkey)
        if kept is not None:
            if kept[0] == stamp and rkey in _ROUTES and not _DIRTY.get(rkey):
                count("values_reused")
                return kept[1]
            del _WATCHED_VALUES[rkey]
            _unroute(rkey)
        if not watch_requested() or _notify.notifier() is None:
            return compute()
        first = folders()
        if first is None or len(_notify.local_paths(first)) != len(set(first)):
            return compute()
        routes = _watch_folders(first, _notify.DIR_MASK)
        if routes is None:
            return compute()
        value = compute()
        inner = more(value)
        if inner is None or len(_notify.local_paths(inner)) != len(set(inner)):
            release(routes)
            return value
        inner_routes = _watch_folders(inner, _notify.FOLDER_MASK)
        if inner_routes is None:
            release(routes)
            return value
        again = compute()
        if again != value:
            release(routes + inner_routes)
            return again
        _DIRTY.pop(rkey, None)
        _route(rkey, routes + inner_routes)
        _WATCHED_VALUES[rkey] = (stamp, value)
        return value
