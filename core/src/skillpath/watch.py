"""Watching skills for long-running agents: typed change events, debounced.

:func:`watch_skills` loads the catalog, watches every skills root that was
scanned (with `watchfiles`_), and after each debounced burst of file changes
loads again — cheaply, through the discovery index, so only changed files are
read — and yields what changed as one :class:`SkillChanges` batch of
:class:`SkillAdded`, :class:`SkillChanged` and :class:`SkillRemoved` events
together with the new :class:`~skillpath.model.LoadResult`.

Each root and each folder in it is watched on its own (not recursively). Roots
that did not exist yet and the settings files are checked on every
``poll_ms`` tick (a ``stat`` each), so a project that gains a ``.claude/skills``
folder or a changed ``config.toml`` is picked up without watching the whole
tree. A folder whose name is not UTF-8 (which the native watcher cannot take)
is ``stat``'ed on every tick too. When the native watcher is refused (the
inotify watch limit, no inotify instance left), every folder is polled
instead, and each batch's diagnostics say so (``watch-polling``). A folder
that goes away between being listed and being watched only makes the watcher
list again.

.. _watchfiles: https://watchfiles.helpmanual.io/

Example::

    for changes in watch_skills(cwd, debounce_ms=300):
        for event in changes:
            print(type(event).__name__, event.name)
        catalog = changes.result
"""

from __future__ import annotations

import hashlib
import itertools
import operator
import os
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

import attrs

from skillpath.context import make_context
from skillpath.loader import load_skills
from skillpath.model import Diagnostic, LoadResult, Skill
from skillpath.plugins import PluginHost
from skillpath.settings import settings_paths

__all__ = [
    "FileStamps",
    "SkillAdded",
    "SkillChanged",
    "SkillChanges",
    "SkillEvent",
    "SkillRemoved",
    "diff_results",
    "mark_changed",
    "watch_skills",
]

#: Bumped by :func:`mark_changed`; every running :func:`watch_skills` compares it.
_OUTSIDE = [0]
_OUTSIDE_LOCK = threading.Lock()


def mark_changed() -> None:
    """Tell every running :func:`watch_skills` that skills changed where no file shows it.

    A provider calls this when its source changed without a file changing (the
    MCP provider does when a server sends ``list_changed``); each watcher loads
    again within ``poll_ms`` and yields what changed. Safe from any thread.
    """
    with _OUTSIDE_LOCK:
        _OUTSIDE[0] += 1


@attrs.frozen
class SkillAdded:
    """A skill that is in the catalog now and was not before."""

    skill: Skill

    @property
    def name(self) -> str:
        """The skill's name."""
        return self.skill.name


@attrs.frozen
class SkillChanged:
    """A skill whose file, frontmatter, source or status changed (``before`` → ``skill``)."""

    skill: Skill
    before: Skill

    @property
    def name(self) -> str:
        """The skill's name."""
        return self.skill.name


@attrs.frozen
class SkillRemoved:
    """A skill that left the catalog (deleted, renamed, filtered out or shadowed)."""

    skill: Skill

    @property
    def name(self) -> str:
        """The skill's name."""
        return self.skill.name


SkillEvent = SkillAdded | SkillChanged | SkillRemoved


@attrs.frozen
class SkillChanges:
    """One debounced batch: the events (sorted by name, removals first) and the new catalog."""

    events: tuple[SkillEvent, ...]
    result: LoadResult

    def __iter__(self) -> Iterator[SkillEvent]:
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)


class _Stop(Protocol):
    def is_set(self) -> bool: ...


def _signature(skill: Skill, stamps: Mapping[int, Any] | None = None) -> tuple[Any, ...]:
    """What makes two versions of a skill the same: the record and its file's identity
    (from ``stamps``, by ``id`` of the skill, when it is there; else a ``stat`` now)."""
    st: Any = None
    if stamps is not None and id(skill) in stamps:
        st = stamps[id(skill)]
    elif skill.path is not None:
        try:
            st = _stat_stamp(os.stat(skill.path))
        except OSError:
            st = None
    return (skill, skill.conditional, st)


def _stat_stamp(st: os.stat_result) -> int:
    """A file's ``(size, mtime_ns, inode, device, ctime_ns)``, as one number (a hash:
    10,000 of them kept by a session take a few hundred KB, not a few MB)."""
    return hash((st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev, st.st_ctime_ns))


def _catalog(result: LoadResult) -> dict[str, tuple[Skill, tuple[Any, ...]]]:
    return {s.name: (s, _signature(s)) for s in (*result.skills, *result.conditional)}


def diff_results(
    before: LoadResult, after: LoadResult, *, stamps: Mapping[int, Any] | None = None
) -> tuple[SkillEvent, ...]:
    """The events that turn catalog ``before`` into ``after`` (active and conditional skills).

    A skill is "changed" when anything that defines it differs: its record
    (description, frontmatter, path, source, priority), whether it is
    conditional, or its file (size, ``mtime_ns``, inode, ``ctime_ns``).

    The file is compared through ``stamps``: what each skill's file was when
    that skill was loaded, by ``id`` of the skill object (see
    :class:`FileStamps`), so that an edit of the Markdown body alone, which
    leaves the record equal, is a change too. A skill missing from ``stamps``
    (or every skill, without ``stamps``) has its file ``stat``'ed now: the
    same path then gives the same state on both sides, and only the record
    (or a path that moved) tells a change.
    """
    a = (*before.skills, *before.conditional)
    b = (*after.skills, *after.conditional)
    if len(a) == len(b) and len(before.skills) == len(after.skills):
        # the same names in the same places (a skill rebuilt in place): only the
        # skills that are not the very same objects are compared (found in C)
        moved = list(itertools.compress(range(len(a)), map(operator.is_not, a, b)))
        if all(a[i].name == b[i].name for i in moved):
            changed = [i for i in moved if _signature(a[i], stamps) != _signature(b[i], stamps)]
            changed.sort(key=lambda i: b[i].name)
            return tuple(SkillChanged(b[i], a[i]) for i in changed)
    old = {s.name: s for s in a}
    new = {s.name: s for s in b}
    # the same object on both sides has the same signature: only the others are stat'ed
    same = {n for n, s in new.items() if old.get(n) is s}
    if len(same) == len(old) == len(new):
        return ()
    return _diff(
        {n: (s, _signature(s, stamps)) for n, s in old.items() if n not in same},
        {n: (s, _signature(s, stamps)) for n, s in new.items() if n not in same},
    )


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
        from skillpath.cache.files import racy_window_ns

        self._window = racy_window_ns(env)
        #: path text -> (the skill object stamped, its stamp)
        self._by_path: dict[str, tuple[Skill, Any]] = {}

    def update(self, before: LoadResult | None, after: LoadResult) -> dict[int, Any]:
        """Stamp the skill objects of ``after`` not stamped yet (``before``: the result
        given to the last update, ``None`` the first time).

        :returns: the stamps of the skills of ``before`` (as they were taken) and
            of ``after``, by ``id`` of the skill, for :func:`diff_results` (when
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
        key = _stat_stamp(st)
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


def _diff(
    old: Mapping[str, tuple[Skill, tuple[Any, ...]]],
    new: Mapping[str, tuple[Skill, tuple[Any, ...]]],
) -> tuple[SkillEvent, ...]:
    events: list[SkillEvent] = []
    for name in sorted(old.keys() - new.keys()):
        events.append(SkillRemoved(old[name][0]))
    for name in sorted(new.keys()):
        skill, sig = new[name]
        if name not in old:
            events.append(SkillAdded(skill))
        elif old[name][1] != sig:
            events.append(SkillChanged(skill, old[name][0]))
    return tuple(events)


def _file_state(paths: list[Path]) -> tuple[Any, ...]:
    """Stats of the settings files (``None`` for a missing one)."""
    from skillpath.agent import disk_state

    return disk_state(map(os.fspath, paths))


def _encodable(path: str) -> bool:
    """Whether ``path`` can be handed to the native watcher (which takes UTF-8 names)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _folder_state(paths: list[str]) -> tuple[Any, ...]:
    """Stats of folders watched by polling and of the ``SKILL.md`` in each."""
    from skillpath.agent import disk_state

    return disk_state(p for path in paths for p in (path, os.path.join(path, "SKILL.md")))


def _appeared(result: LoadResult) -> bool:
    """Whether a root that the load found missing exists now."""
    return any(not r.exists and os.path.isdir(r.path) for r in result.roots)


def _never() -> bool:
    return False


def _watch_paths(result: LoadResult, stopped: Any = _never) -> list[str]:
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


def _split_encodable(paths: list[str], stopped: Any = _never) -> tuple[list[str], list[str]]:
    """``paths`` split into those the native watcher can take and the others (in
    order; one pass, so linear in the number of folders). Ends early, with what
    it has, once ``stopped()`` answers true."""
    watched: list[str] = []
    polled: list[str] = []
    for p in paths:
        if stopped():
            break
        (watched if _encodable(p) else polled).append(p)
    return watched, polled


def watch_skills(
    cwd: str | os.PathLike[str] | None = None,
    *,
    home: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    settings: Mapping[str, Any] | None = None,
    host: PluginHost | None = None,
    debounce_ms: int = 200,
    poll_ms: int = 500,
    stop_event: _Stop | None = None,
    timeout: float | None = None,
    initial: bool = False,
) -> Iterator[SkillChanges]:
    """Yield a :class:`SkillChanges` batch whenever the skills visible from ``cwd`` change.

    :param cwd: the project directory (default: the process's).
    :param home: the home directory (default: ``Path.home()``).
    :param env: the environment (default: ``os.environ``).
    :param settings: setting overrides, as for :func:`skillpath.load_skills`.
    :param host: the plugin host (default: the process-wide one).
    :param debounce_ms: file events closer together than this form one batch.
    :param poll_ms: how often roots that do not exist yet and the settings files
        are checked (and :func:`mark_changed` calls noticed), and
        ``stop_event``/``timeout`` are looked at.
    :param stop_event: anything with ``is_set()`` (a :class:`threading.Event`);
        the generator returns soon after it is set.
    :param timeout: stop after this many seconds (for tests and scripts).
    :param initial: first yield the whole current catalog as :class:`SkillAdded` events.

    Batches with no events (a file touched without changing any skill) are not
    yielded. The generator never raises for file-system trouble: a load that
    fails is reported through its diagnostics like any other load; a folder
    that vanishes while watches are set up is listed again; a watch limit
    turns to polling (diagnostic ``watch-polling``); a settings file that is a
    FIFO or a device is refused without blocking (``settings-unreadable``), so
    ``stop_event`` and ``timeout`` are honoured.
    """
    import watchfiles

    deadline = None if timeout is None else time.monotonic() + timeout
    stop = stop_event if stop_event is not None else threading.Event()
    home_path = Path(home) if home is not None else None
    first, _ = make_context(cwd, home=home_path, env=env, settings=settings)
    config_files = [p for _o, p in settings_paths(first.skillpath_home, first.project_root)]

    def load() -> tuple[LoadResult, tuple[Any, ...]]:
        # the settings files are stat'ed before they are read, so a change that
        # lands during the load still shows as a difference afterwards
        files = (_file_state(config_files), _OUTSIDE[0])
        ctx, sdiags = make_context(cwd, home=home_path, env=env, settings=settings)
        result = load_skills(ctx=ctx, host=host)
        if sdiags:
            result = attrs.evolve(result, diagnostics=tuple(sdiags) + result.diagnostics)
        return result, files

    def expired() -> bool:
        return stop.is_set() or (deadline is not None and time.monotonic() >= deadline)

    def stale(result: LoadResult, files: tuple[Any, ...]) -> bool:
        return _appeared(result) or (_file_state(config_files), _OUTSIDE[0]) != files

    def wait(seconds: float) -> None:
        stop_wait = getattr(stop, "wait", None)
        if stop_wait is not None:
            stop_wait(seconds)
        else:
            time.sleep(seconds)

    polling: Diagnostic | None = None  # set once the native watcher is refused

    def report(result: LoadResult) -> LoadResult:
        if polling is None:
            return result
        return attrs.evolve(result, diagnostics=(*result.diagnostics, polling))

    result, files = load()
    catalog = _catalog(result)
    if initial:
        yield SkillChanges(_diff({}, catalog), result)
    while not expired():
        paths = _watch_paths(result, expired)
        # names the native watcher cannot take (not UTF-8) are stat'ed on every tick
        watched, polled = _split_encodable(paths, expired)
        if expired():
            return
        seen = _folder_state(polled)
        if not watched:
            # nothing on disk to watch yet: poll until a root or a settings file appears
            while not expired() and not stale(result, files) and _folder_state(polled) == seen:
                wait(poll_ms / 1000)
            if expired():
                return
            result, files, catalog, events = _reload(load, catalog)
            if events:
                yield SkillChanges(events, report(result))
            continue
        # the first tick of a new watcher loads again: a change made between the
        # last load and the moment the watches were in place gave no event
        settle = True
        try:
            for changes in watchfiles.watch(
                *watched,
                debounce=debounce_ms,
                step=min(50, debounce_ms),
                stop_event=stop,
                rust_timeout=poll_ms,
                yield_on_timeout=True,
                raise_interrupt=False,
                recursive=False,
                force_polling=True if polling is not None else None,  # None: the default
                poll_delay_ms=poll_ms,
                ignore_permission_denied=True,
            ):
                if expired():
                    return
                now = _folder_state(polled)
                if not changes and not settle and not stale(result, files) and now == seen:
                    continue
                settle = False
                seen = now
                result, files, catalog, events = _reload(load, catalog)
                if events:
                    yield SkillChanges(events, report(result))
                if _watch_paths(result, expired) != paths:
                    break  # roots or folders appeared or went away: watch the new set
            else:
                return  # the watcher stopped (stop_event)
        except (FileNotFoundError, NotADirectoryError):
            # a folder went away between listing and watching: list again (the
            # new watcher's first tick loads again, so nothing is missed)
            continue
        except (OSError, RuntimeError) as exc:
            # the watch limit, no inotify instance left, or anything else the
            # native watcher refuses: stat every folder on each tick instead
            if polling is not None:
                wait(poll_ms / 1000)  # polling failed too: list again on the next tick
                continue
            polling = Diagnostic(
                "warning",
                "watch-polling",
                f"cannot watch for changes natively ({exc}); polling every {poll_ms} ms instead",
            )


def _reload(
    load: Any, catalog: dict[str, tuple[Skill, tuple[Any, ...]]]
) -> tuple[LoadResult, tuple[Any, ...], dict[str, tuple[Skill, tuple[Any, ...]]], tuple[Any, ...]]:
    result, files = load()
    new_catalog = _catalog(result)
    return result, files, new_catalog, _diff(catalog, new_catalog)
