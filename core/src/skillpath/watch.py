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

import itertools
import operator
import os
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

import attrs

from skillpath.cache.changes import FileStamps, mark_changed, outside_changes, stat_stamp
from skillpath.cache.changes import fingerprint as _file_state
from skillpath.cache.changes import folder_fingerprint as _folder_state
from skillpath.cache.changes import root_appeared as _appeared
from skillpath.cache.changes import split_encodable as _split_encodable
from skillpath.cache.changes import watched_folders as _watch_paths
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
            st = stat_stamp(os.stat(skill.path))
        except OSError:
            st = None
    return (skill, skill.conditional, st)


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
        # lands during the load still shows as a difference afterwards; the
        # providers' own inputs (known once they ran) are stat'ed right after
        files = (_file_state(config_files), outside_changes())
        ctx, sdiags = make_context(cwd, home=home_path, env=env, settings=settings)
        result = load_skills(ctx=ctx, host=host)
        if sdiags:
            result = attrs.evolve(result, diagnostics=tuple(sdiags) + result.diagnostics)
        return result, (*files, _file_state(result.inputs))

    def expired() -> bool:
        return stop.is_set() or (deadline is not None and time.monotonic() >= deadline)

    def stale(result: LoadResult, files: tuple[Any, ...]) -> bool:
        now = (_file_state(config_files), outside_changes(), _file_state(result.inputs))
        return _appeared(result) or now != files

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
