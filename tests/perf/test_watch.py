"""watch_skills: real files in a temp project, real inotify (watchfiles).

No test waits for a length of time: each waits for the batch it expects. A
first batch is the initial catalog; the watcher loads again once its watches
are in place, so a change made after that batch is never missed. The only
time limit is :data:`HANG`, far beyond any load, which turns a hang into a
failure instead of a stuck run.
"""

from __future__ import annotations

import errno
import os
import queue
import shutil
import threading
from pathlib import Path
from typing import Any, ClassVar

import pytest
from skillpath.watch import (
    SkillAdded,
    SkillChanged,
    SkillChanges,
    SkillRemoved,
    diff_results,
    watch_skills,
)

ROOT = ".claude/skills"
#: A wait this long means the watcher hangs (never reached by a working one, even under load).
HANG = 300.0


class Watcher:
    """Runs watch_skills in a thread and hands its batches over a queue."""

    def __init__(self, isolated_env: Any, **kw: Any) -> None:
        self.env = isolated_env
        self.stop = threading.Event()
        self.batches: queue.Queue[Any] = queue.Queue()
        kw.setdefault("debounce_ms", 150)
        kw.setdefault("poll_ms", 100)
        kw.setdefault("timeout", HANG)
        self.thread = threading.Thread(target=self._run, kwargs=kw, daemon=True)
        self.thread.start()

    def _run(self, **kw: Any) -> None:
        try:
            for batch in watch_skills(
                self.env.project, env=self.env.env, stop_event=self.stop, initial=True, **kw
            ):
                self.batches.put(batch)
        except BaseException as exc:  # surfaced to the test
            self.batches.put(exc)
        finally:
            self.batches.put(None)

    def next(self) -> SkillChanges:
        item = self.batches.get(timeout=HANG)
        if isinstance(item, BaseException):
            raise item
        assert item is not None, "watcher ended"
        return item

    def events_until(self, predicate: Any) -> list[Any]:
        """Collect events until ``predicate(events)`` holds."""
        events: list[Any] = []
        while not predicate(events):
            events.extend(self.next())
        return events

    def batch_until(self, predicate: Any) -> SkillChanges:
        """The first batch whose catalog satisfies ``predicate(result)``."""
        while True:
            batch = self.next()
            if predicate(batch.result):
                return batch

    def ready(self) -> None:
        """Take the initial catalog: from here on every change is reported."""
        self.next()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=HANG)
        assert not self.thread.is_alive()


@pytest.fixture
def watcher(isolated_env: Any) -> Any:
    isolated_env.skill(ROOT, "alpha", "Alpha.")
    w = Watcher(isolated_env)
    w.ready()
    yield w
    w.close()


def _named(events: list[Any], kind: type, name: str) -> list[Any]:
    return [e for e in events if isinstance(e, kind) and e.name == name]


def test_added_changed_removed(watcher: Watcher, isolated_env: Any) -> None:
    isolated_env.skill(ROOT, "beta", "Beta.")
    events = watcher.events_until(lambda ev: _named(ev, SkillAdded, "beta"))
    assert _named(events, SkillAdded, "beta")[0].skill.description == "Beta."

    isolated_env.skill(ROOT, "beta", "Beta, edited.")
    events = watcher.events_until(lambda ev: _named(ev, SkillChanged, "beta"))
    change = _named(events, SkillChanged, "beta")[0]
    assert (change.before.description, change.skill.description) == ("Beta.", "Beta, edited.")

    # a body-only edit changes the skill too (its file changed)
    isolated_env.skill(ROOT, "beta", "Beta, edited.", body="A new body.\n")
    watcher.events_until(lambda ev: _named(ev, SkillChanged, "beta"))

    shutil.rmtree(isolated_env.project / ROOT / "beta")
    events = watcher.events_until(lambda ev: _named(ev, SkillRemoved, "beta"))
    assert _named(events, SkillRemoved, "beta")[0].skill.description == "Beta, edited."
    assert not _named(events, SkillRemoved, "alpha")


def test_a_burst_is_one_debounced_batch(watcher: Watcher, isolated_env: Any) -> None:
    for i in range(6):
        isolated_env.skill(ROOT, f"burst-{i}", f"Burst {i}.")
    batch = watcher.next()
    added = sorted(e.name for e in batch if isinstance(e, SkillAdded))
    # everything written inside one debounce window arrives together (a slow
    # machine may split the burst, never lose part of it)
    while len(added) < 6:
        added += [e.name for e in watcher.next() if isinstance(e, SkillAdded)]
    assert sorted(added) == [f"burst-{i}" for i in range(6)]
    assert batch.result.get("burst-0") is not None


def test_a_root_that_appears_later_is_picked_up(isolated_env: Any) -> None:
    # no skills root exists at all in the project yet
    w = Watcher(isolated_env)
    try:
        w.next()  # the initial catalog
        isolated_env.skill(".agents/skills", "late", "Late.")
        events = w.events_until(lambda ev: _named(ev, SkillAdded, "late"))
        assert _named(events, SkillAdded, "late")
        # and once it exists it is watched like any other root
        isolated_env.skill(".agents/skills", "later", "Later.")
        w.events_until(lambda ev: _named(ev, SkillAdded, "later"))
    finally:
        w.close()


def test_settings_change_reloads(watcher: Watcher, isolated_env: Any) -> None:
    cfg = isolated_env.project / ".skillpath" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text('[skills]\nignored = ["alpha"]\n')
    events = watcher.events_until(lambda ev: _named(ev, SkillRemoved, "alpha"))
    assert events


def test_stop_event_and_timeout_end_the_generator(isolated_env: Any) -> None:
    isolated_env.skill(ROOT, "alpha", "Alpha.")
    batches = list(
        watch_skills(isolated_env.project, env=isolated_env.env, timeout=0.5, poll_ms=100)
    )
    assert batches == []
    stop = threading.Event()
    stop.set()
    assert list(watch_skills(isolated_env.project, env=isolated_env.env, stop_event=stop)) == []


def test_diff_results(isolated_env: Any) -> None:
    from skillpath import load_skills

    isolated_env.skill(ROOT, "one", "One.")
    isolated_env.skill(ROOT, "two", "Two.")
    before = load_skills(isolated_env.project, env=isolated_env.env)
    shutil.rmtree(isolated_env.project / ROOT / "one")
    isolated_env.skill(ROOT, "two", "Two, changed.")
    isolated_env.skill(ROOT, "three", "Three.")
    after = load_skills(isolated_env.project, env=isolated_env.env)
    kinds = [(type(e).__name__, e.name) for e in diff_results(before, after)]
    assert kinds == [("SkillRemoved", "one"), ("SkillAdded", "three"), ("SkillChanged", "two")]
    assert diff_results(after, after) == ()


def test_events_are_frozen_records(isolated_env: Any) -> None:
    import attrs
    from skillpath import load_skills

    isolated_env.skill(ROOT, "one", "One.")
    skill = load_skills(isolated_env.project, env=isolated_env.env).get("one")
    assert skill is not None
    event = SkillAdded(skill)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        event.skill = skill  # type: ignore[misc]
    assert event == SkillAdded(skill) and hash(event) == hash(SkillAdded(skill))


def test_skill_file_added_to_an_existing_folder(watcher: Watcher, isolated_env: Any) -> None:
    folder = isolated_env.project / ROOT / "gamma"
    folder.mkdir()
    # whether the file lands before or after the new folder is watched, it is seen
    isolated_env.skill(ROOT, "gamma", "Gamma.")
    events = watcher.events_until(lambda ev: _named(ev, SkillAdded, "gamma"))
    assert _named(events, SkillAdded, "gamma")


def test_edit_through_a_symlinked_folder(isolated_env: Any) -> None:
    store = isolated_env.project / "store"  # project skills may link within the repository
    isolated_env.skill(store, "linked", "Linked.")
    root = isolated_env.project / ROOT
    root.mkdir(parents=True)
    (root / "linked").symlink_to(store / "linked", target_is_directory=True)
    isolated_env.skill(ROOT, "alpha", "Alpha.")
    w = Watcher(isolated_env)
    try:
        w.ready()
        isolated_env.skill(store, "linked", "Linked, edited.")
        events = w.events_until(lambda ev: _named(ev, SkillChanged, "linked"))
        assert _named(events, SkillChanged, "linked")[0].skill.description == "Linked, edited."
    finally:
        w.close()


# --------------------------------------------------------------------------
# File-system trouble: the generator never raises, and never hangs past its stop


def _fresh(isolated_env: Any) -> list[tuple[Any, ...]]:
    from skillpath import load_skills

    return _shape(load_skills(isolated_env.project, env=isolated_env.env))


def _shape(result: Any) -> list[tuple[Any, ...]]:
    return [
        (s.name, s.description, s.path, s.conditional)
        for s in (*result.skills, *result.conditional)
    ]


def test_a_folder_that_vanishes_before_it_is_watched(
    isolated_env: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import skillpath.watch as sw

    isolated_env.skill(ROOT, "alpha", "Alpha.")
    isolated_env.skill(ROOT, "doomed", "Doomed.")
    real = sw._watch_paths
    calls = []

    def racing(result: Any, *rest: Any) -> list[str]:
        paths = real(result, *rest)
        calls.append(paths)
        doomed = isolated_env.project / ROOT / "doomed"
        if len(calls) == 1 and doomed.exists():
            shutil.rmtree(doomed)  # gone between the listing and the watch
        return paths

    monkeypatch.setattr(sw, "_watch_paths", racing)
    w = Watcher(isolated_env)
    try:
        w.ready()
        events = w.events_until(lambda ev: _named(ev, SkillRemoved, "doomed"))
        assert _named(events, SkillRemoved, "doomed")
        isolated_env.skill(ROOT, "beta", "Beta.")
        w.events_until(lambda ev: _named(ev, SkillAdded, "beta"))
    finally:
        w.close()


def test_a_folder_name_that_is_not_utf8(isolated_env: Any) -> None:
    root = isolated_env.project / ROOT
    isolated_env.skill(ROOT, "alpha", "Alpha.")
    odd = os.fsencode(root) + b"/odd-\xff"
    os.mkdir(odd)
    with open(odd + b"/SKILL.md", "wb") as f:
        f.write(b"---\nname: odd\ndescription: Odd.\n---\nBody.\n")
    w = Watcher(isolated_env)
    try:
        w.ready()
        isolated_env.skill(ROOT, "beta", "Beta.")
        w.events_until(lambda ev: _named(ev, SkillAdded, "beta"))
        # a folder that cannot be watched by name is still looked at on every tick
        with open(odd + b"/SKILL.md", "wb") as f:
            f.write(b"---\nname: odd\ndescription: Odd, edited.\n---\nBody.\n")
        events = w.events_until(lambda ev: _named(ev, SkillChanged, "odd"))
        assert _named(events, SkillChanged, "odd")[0].skill.description == "Odd, edited."
    finally:
        w.close()


def test_the_watch_limit_falls_back_to_polling(
    isolated_env: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import watchfiles

    real = watchfiles.watch
    refused = []

    def limited(*paths: Any, **kw: Any) -> Any:
        if not kw.get("force_polling"):
            refused.append(paths)
            raise OSError(errno.ENOSPC, "OS file watch limit reached")
        return real(*paths, **kw)

    monkeypatch.setattr(watchfiles, "watch", limited)
    isolated_env.skill(ROOT, "alpha", "Alpha.")
    w = Watcher(isolated_env)
    try:
        w.ready()
        isolated_env.skill(ROOT, "beta", "Beta.")
        batch = w.batch_until(lambda r: r.get("beta") is not None)
        assert refused
        codes = [d for d in batch.result.diagnostics if d.code == "watch-polling"]
        assert codes and "limit" in codes[0].message
    finally:
        w.close()


def test_a_fifo_config_neither_hangs_nor_raises(isolated_env: Any) -> None:
    isolated_env.skill(ROOT, "alpha", "Alpha.")
    cfg = isolated_env.project / ".skillpath" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(cfg)
    stop = threading.Event()
    out: list[Any] = []

    def run() -> None:
        try:
            for batch in watch_skills(
                isolated_env.project, env=isolated_env.env, stop_event=stop, initial=True
            ):
                out.append(batch)
                stop.set()
        except BaseException as exc:
            out.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout=HANG)
    if thread.is_alive():  # blocked opening the FIFO: give it an end of file to end the test
        fd = os.open(cfg, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        thread.join(timeout=HANG)
    assert len(out) == 1 and isinstance(out[0], SkillChanges), out
    assert out[0].result.get("alpha") is not None
    diags = [d for d in out[0].result.diagnostics if d.path is not None and Path(d.path) == cfg]
    assert diags and "not a regular file" in diags[0].message


CYCLES = 1000


def _churn(root: Path, cycles: int) -> None:
    """Create, edit, rename and delete skill folders ``cycles`` times, as fast as it can."""
    for i in range(cycles):
        k = i % 7
        made = root / f"tmp-{k}"
        made.mkdir(exist_ok=True)
        (made / "SKILL.md").write_text(f"---\ndescription: Churn {i}.\n---\nBody.\n")
        moved = root / f"moved-{k}"
        if moved.exists():
            shutil.rmtree(moved)
        os.rename(made, moved)
        if i % 3 == 0:
            shutil.rmtree(moved)
        if i % 5 == 0:
            (root / "alpha" / "SKILL.md").write_text(f"---\ndescription: Alpha {i}.\n---\n")


def test_churn_never_raises_and_ends_with_a_fresh_catalog(isolated_env: Any) -> None:
    isolated_env.skill(ROOT, "alpha", "Alpha.")
    root = isolated_env.project / ROOT
    w = Watcher(isolated_env, debounce_ms=50, poll_ms=50)
    try:
        w.ready()
        errors: list[BaseException] = []

        def churn() -> None:
            try:
                _churn(root, CYCLES)
            except BaseException as exc:
                errors.append(exc)

        worker = threading.Thread(target=churn)
        worker.start()
        worker.join()
        assert not errors
        # the churn is over: a last, known change tells when the watcher has caught up
        isolated_env.skill(ROOT, "zz-settled", "Settled.")
        batch = w.batch_until(lambda r: r.get("zz-settled") is not None)
        assert _shape(batch.result) == _fresh(isolated_env)
        assert any(n.startswith("moved-") for n, *_ in _shape(batch.result))
    finally:
        w.close()


class _CountedPath(str):
    """A folder path that counts how often it is compared for equality."""

    compared: ClassVar[list[int]] = [0]

    def __eq__(self, other: object) -> bool:
        _CountedPath.compared[0] += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_many_folders_are_split_without_membership_scans(
    isolated_env: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the folders the native watcher can take were found with a list
    membership test per folder, n²/2 comparisons (1.6 s of a stop at 20,000 folders,
    80 s at 80,000). Counted here, not timed: the split compares no path at all."""
    import watchfiles
    from skillpath import watch as watch_module

    isolated_env.skill(ROOT, "alpha", "Alpha.")
    n = 4000
    paths = [_CountedPath(f"/nowhere/{i:05d}") for i in range(n)]
    monkeypatch.setattr(watch_module, "_watch_paths", lambda *_a, **_k: paths)
    stop = threading.Event()
    given: list[tuple[str, ...]] = []

    def fake_watch(*watched: str, **_kw: Any) -> Any:
        given.append(watched)
        stop.set()
        return iter(())

    monkeypatch.setattr(watchfiles, "watch", fake_watch)
    _CountedPath.compared[0] = 0
    assert list(watch_skills(isolated_env.project, env=isolated_env.env, stop_event=stop)) == []
    assert given == [tuple(paths)]
    assert _CountedPath.compared[0] <= n  # the list-membership split made ~8,000,000


class _StopOnListing:
    """A stop event set from a callback: the moment the watcher starts listing folders."""

    def __init__(self) -> None:
        self.armed = False
        self.asked_while_armed = 0

    def is_set(self) -> bool:
        if self.armed:
            self.asked_while_armed += 1
        return self.armed


def test_stop_is_honoured_while_listing_twenty_thousand_folders(
    isolated_env: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: ``stop_event`` was not looked at while the folders of a root were
    listed and split; at 20,000 folders the listing ran to its end and the
    native watcher was set up for all of them before the stop was seen."""
    import watchfiles
    from skillpath import watch as watch_module

    root = isolated_env.project / ROOT
    root.mkdir(parents=True)
    for i in range(20_000):
        os.mkdir(root / f"f{i:05d}")
    stop = _StopOnListing()
    listed: list[int] = []
    real = watch_module._watch_paths

    def listing(*args: Any, **kw: Any) -> list[str]:
        stop.armed = True  # the stop arrives as the listing starts
        out = real(*args, **kw)
        listed.append(len(out))
        return out

    monkeypatch.setattr(watch_module, "_watch_paths", listing)
    watched: list[int] = []
    monkeypatch.setattr(watchfiles, "watch", lambda *p, **_k: watched.append(len(p)) or iter(()))
    assert list(watch_skills(isolated_env.project, env=isolated_env.env, stop_event=stop)) == []
    assert listed and listed[0] < 10  # the listing ended at the first folder it looked at
    assert stop.asked_while_armed >= 1
    assert watched == []  # no watcher was set up after the stop
