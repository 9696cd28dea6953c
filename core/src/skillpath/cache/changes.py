"""The one change detector: how skillpath tells that files changed (public).

Every layer that asks "is this still what I saw?" asks it here, in one way:

* :func:`fingerprint` — one ``stat`` per path (``mtime_ns``, size, inode,
  ``ctime_ns``; ``None`` for a missing one), nothing read: what
  :class:`skillpath.agent.AgentSkills` compares before each model turn and
  what a watcher compares for its settings files and polled folders
  (:func:`folder_fingerprint`);
* :class:`FileStamps` and :func:`stat_stamp` — what the file of each loaded
  skill object was when it was loaded, with a hash of the bytes inside the
  racy window (:func:`racy_window_ns`, the discovery index's rule), so that a
  body-only edit is a change (:class:`skillpath.SkillSession`,
  :func:`skillpath.watch.diff_results`);
* :func:`watched_folders`, :func:`split_encodable`, :func:`encodable` and
  :func:`root_appeared` — what a watcher watches natively and what it polls;
* :func:`watching`, :func:`watch_enabled`, :func:`watched_root` and
  :func:`any_changed` — the roots
  the in-process memo (:mod:`skillpath.cache.reuse`) watches with inotify,
  so a check of them costs no ``stat``; :func:`local_paths` — which paths are
  on a local file system (a change made elsewhere on a network file system
  gives no event);
* :func:`kept_while_unchanged` — a value a provider computed from files and
  folders (a walk below a skills root), kept in this process while one ``stat``
  of each of them finds them as they were (a session's refresh walks again only
  when something there changed);
* :func:`mark_changed` and :func:`outside_changes` — a change no file shows
  (an MCP server's ``list_changed``);
* :func:`expires` — a listing that holds only until a deadline is not replayed
  after it (:mod:`skillpath.cache.replay`).

``watch``, ``agent``, ``session`` and providers (the MCP provider) use these
names and nothing else of :mod:`skillpath.cache`.
"""

from __future__ import annotations

import hashlib
import itertools
import operator
import os
import threading
import time
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from skillpath import _env
from skillpath.cache.files import racy_window_ns
from skillpath.cache.index import current as _current_index
from skillpath.cache.index import index_enabled
from skillpath.cache.notify import local_paths
from skillpath.cache.replay import expires
from skillpath.cache.reuse import any_changed, watching
from skillpath.cache.reuse import enabled as _reuse_enabled
from skillpath.cache.reuse import kept_by_stat as _kept_by_stat
from skillpath.cache.reuse import watched as watched_root

if TYPE_CHECKING:
    from skillpath.model import LoadResult, Skill

__all__ = [
    "FileStamps",
    "any_changed",
    "encodable",
    "expires",
    "fingerprint",
    "folder_fingerprint",
    "kept_while_unchanged",
    "local_paths",
    "mark_changed",
    "outside_changes",
    "racy_window_ns",
    "root_appeared",
    "split_encodable",
    "stat_stamp",
    "watch_enabled",
    "watched_folders",
    "watched_root",
    "watching",
]


#: Bumped by :func:`mark_changed`; every running :func:`skillpath.watch_skills` compares it.
_OUTSIDE = [0]
_OUTSIDE_LOCK = threading.Lock()


def mark_changed() -> None:
    """Tell every running :func:`skillpath.watch_skills` that skills changed where no file shows it.

    A provider calls this when its source changed without a file changing (the
    MCP provider does when a server sends ``list_changed``); each watcher loads
    again within ``poll_ms`` and yields what changed. Safe from any thread.
    """
    with _OUTSIDE_LOCK:
        _OUTSIDE[0] += 1


def outside_changes() -> int:
    """How many times :func:`mark_changed` was called in this process (a watcher
    keeps the count it saw and loads again when it differs)."""
    return _OUTSIDE[0]


def watch_enabled(settings: Any, env: Mapping[str, str]) -> bool:
    """Whether loads with ``settings`` and ``env`` keep their roots in memory and
    watch them (:func:`watching`): the discovery index and the in-process memo
    on, ``SKILLPATH_NO_WATCH`` unset."""
    return (
        _reuse_enabled(env)
        and not _env.flag(env, "SKILLPATH_NO_WATCH")
        and index_enabled(settings, env)
    )


def fingerprint(paths: Iterable[str | os.PathLike[str]]) -> tuple[Any, ...]:
    """A cheap fingerprint of ``paths``: one ``stat`` each (:func:`skillpath.agent.watch_paths`).

    It changes when a root appears, disappears or gains or loses an entry (a
    new skill folder), when a ``SKILL.md`` is edited, replaced, created in a
    folder that had none, or removed (``ctime_ns`` too: an edit that puts the
    old ``mtime`` back). Nothing is read.
    """
    out: list[Any] = []
    stat = os.stat
    for path in paths:
        try:
            st = stat(path)
        except OSError:
            out.append(None)
            continue
        out.append((st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns))
    return tuple(out)


_T = TypeVar("_T")


def kept_while_unchanged(key: Hashable, compute: Callable[[], tuple[_T, Iterable[str]]]) -> _T:
    """The value of ``compute()``, kept in this process while the paths it depends on
    are unchanged.

    ``compute`` returns ``(value, paths)``: ``paths`` are every file and folder the
    value was computed from (for a walk, each folder it listed and each entry that
    is a symlink: a folder's ``mtime`` changes when an entry is added, removed or
    renamed in it, and a ``stat`` follows a link to what it leads to now). The next
    call with the same ``key`` (which must name everything else the value depends
    on: the root, the options) ``stat``\\ s those paths and returns the same value
    when each has the same device, inode, times, size and mode; else it computes
    again. A value whose paths changed within the racy window of the load
    (``SKILLPATH_INDEX_RACY_MS``) is not kept. The value is shared: never change it.

    In a watching load (a :class:`skillpath.SkillSession`'s, on a local file system)
    the plain folders among the paths are watched for their entries instead, and
    only the other paths are ``stat``\\ ed on the next call.

    Only inside a load with the in-process reuse on (:func:`skillpath.load_skills`
    with the discovery index, ``SKILLPATH_NO_REUSE`` unset); anywhere else
    ``compute()`` runs every time. What a load finds is the same either way.
    """
    idx = _current_index()
    if idx is None or not idx.reuse:
        return compute()[0]
    value: _T = _kept_by_stat(key, compute, idx.racy_before)
    return value


def stat_stamp(st: os.stat_result) -> int:
    """A file's ``(size, mtime_ns, inode, device, ctime_ns)``, as one number (a hash:
    10,000 of them kept by a session take a few hundred KB, not a few MB)."""
    return hash((st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev, st.st_ctime_ns))


class FileStamps:
    """What the file of each loaded skill was when that skill object was loaded.

    A ``SKILL.md`` whose body alone was edited gives a skill object whose record
    equals the old one: only the file tells the edit. :meth:`update` is called
    after each load with its result and ``stat``\\ s only the files of skill
    objects it has not seen (a load that reuses what the last one built, see
    :mod:`skillpath.cache.reuse`, gives the same objects back for unchanged files:
    nothing to ``stat``); the stamps of the skills that left are dropped. A
    stamp is the file's ``(size, mtime_ns, inode, device, ctime_ns)`` (hashed) and, when
    those times fall within the racy window (``SKILLPATH_INDEX_RACY_MS``, as
    for the discovery index) of the moment they were taken, a hash of the
    file's bytes, so that a same-size rewrite within the same timestamp tick is
    seen too (the stamp is then a pair: the ``stat`` and the hash). Not thread-safe:
    its owner holds a lock.
    """

    __slots__ = ("_by_path", "_window")

    def __init__(self, env: Mapping[str, str]) -> None:
        self._window = racy_window_ns(env)
        #: path text -> (the skill object stamped, its stamp)
        self._by_path: dict[str, tuple[Skill, Any]] = {}

    def update(self, before: LoadResult | None, after: LoadResult) -> dict[int, Any]:
        """Stamp the skill objects of ``after`` not stamped yet (``before``: the result
        given to the last update, ``None`` the first time).

        :returns: the stamps of the skills of ``before`` (as they were taken) and
            of ``after``, by ``id`` of the skill, for :func:`skillpath.watch.diff_results` (when
            both hold as many skills: only those of the skills that are not the
            very same object at the same place, the only ones it compares).
        """
        old = self._by_path
        out: dict[int, Any] = {}
        a = (*before.skills, *before.conditional) if before is not None else ()
        b = (*after.skills, *after.conditional)
        if before is not None and len(a) == len(b):
            # the usual case: most objects are the very same ones (found in C), and
            # diff_results looks only at the others: only their stamps are given
            moved = list(itertools.compress(range(len(b)), map(operator.is_not, a, b)))
            was: dict[str, tuple[Skill, Any]] = {}
            for i in moved:
                gone = a[i].path
                if gone is not None:
                    kept = old.get(os.fspath(gone))
                    if kept is not None and kept[0] is a[i]:
                        out[id(a[i])] = kept[1]
                        was[os.fspath(gone)] = kept
                        del old[os.fspath(gone)]
            for i in moved:
                self._add(b[i], was, old, out)
            return out
        out.update((id(s), st) for s, st in old.values())
        fresh: dict[str, tuple[Skill, Any]] = {}
        for s in b:
            if s.path is None:
                continue
            kept = old.get(os.fspath(s.path))
            if kept is not None and kept[0] is s:
                fresh[os.fspath(s.path)] = kept
            else:
                self._add(s, old, fresh, out)
        self._by_path = fresh
        return out

    def _add(
        self,
        skill: Skill,
        old: Mapping[str, tuple[Skill, Any]],
        fresh: dict[str, tuple[Skill, Any]],
        out: dict[int, Any],
    ) -> None:
        if skill.path is None:
            return
        path = os.fspath(skill.path)
        kept = old.get(path)
        # the last stamp of this path holds a hash: the new one must too to compare
        stamp = self._stamp(path, kept is not None and type(kept[1]) is tuple)
        fresh[path] = (skill, stamp)
        out[id(skill)] = stamp

    def _stamp(self, path: str, digest: bool) -> Any:
        try:
            st = os.stat(path)
        except OSError:
            return None
        key = stat_stamp(st)
        if not digest and self._window > 0:
            digest = max(st.st_mtime_ns, st.st_ctime_ns) >= time.time_ns() - self._window
        if not digest:
            return key
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            return (key, None)
        return (key, hashlib.blake2b(data, digest_size=16).digest())


def encodable(path: str) -> bool:
    """Whether ``path`` can be handed to the native watcher (which takes UTF-8 names)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def folder_fingerprint(paths: Iterable[str]) -> tuple[Any, ...]:
    """:func:`fingerprint` of folders watched by polling and of the ``SKILL.md`` in each."""
    return fingerprint(p for path in paths for p in (path, os.path.join(path, "SKILL.md")))


def root_appeared(result: LoadResult) -> bool:
    """Whether a root that the load found missing exists now."""
    return any(not r.exists and os.path.isdir(r.path) for r in result.roots)


def _never() -> bool:
    return False


def watched_folders(result: LoadResult, stopped: Callable[[], bool] = _never) -> list[str]:
    """The folders to watch, each on its own (not recursively).

    Every existing root (entries added, removed, renamed), every folder in it
    (a ``SKILL.md`` written, edited or removed; symlinked folders are followed)
    and, for a ``SKILL.md`` that is a symlink, the folder of its target. What
    lies deeper in a skill folder (scripts, references, ``node_modules``) does
    not change the catalog and costs no watch.

    ``stopped`` (a callable) is asked before each folder: once it answers true
    the listing ends early with what it has (the watcher is stopping).
    """
    paths: set[str] = set()
    for r in result.roots:
        if stopped():
            break
        root = os.fspath(r.path)
        if not r.exists or not os.path.isdir(root):
            continue
        paths.add(root)
        try:
            with os.scandir(root) as it:
                for entry in it:
                    if stopped():
                        break
                    if entry.name.startswith("."):
                        continue
                    try:
                        if entry.is_dir():
                            paths.add(entry.path)
                    except OSError:
                        continue
        except OSError:
            continue
    for skill in (*result.skills, *result.conditional):
        if stopped():
            break
        if skill.path is None or skill.source.loaded_from == "mcp":
            continue
        if os.path.islink(skill.path):
            target = os.path.dirname(os.path.realpath(skill.path))
            if os.path.isdir(target):
                paths.add(target)
    return sorted(paths)


def split_encodable(
    paths: list[str], stopped: Callable[[], bool] = _never
) -> tuple[list[str], list[str]]:
    """``paths`` split into those the native watcher can take and the others (in
    order; one pass, so linear in the number of folders). Ends early, with what
    it has, once ``stopped()`` answers true."""
    watched: list[str] = []
    polled: list[str] = []
    for p in paths:
        if stopped():
            break
        (watched if encodable(p) else polled).append(p)
    return watched, polled
