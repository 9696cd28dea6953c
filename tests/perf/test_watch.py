"""watch_skills: real files in a temp project, real inotify (watchfiles), bounded waits."""

from __future__ import annotations

import queue
import shutil
import threading
import time
from typing import Any

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


class Watcher:
    """Runs watch_skills in a thread and hands its batches over a queue."""

    def __init__(self, isolated_env: Any, **kw: Any) -> None:
        self.env = isolated_env
        self.stop = threading.Event()
        self.batches: queue.Queue[Any] = queue.Queue()
        kw.setdefault("debounce_ms", 150)
        kw.setdefault("poll_ms", 100)
        kw.setdefault("timeout", 60)
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

    def next(self, timeout: float = 10.0) -> SkillChanges:
        item = self.batches.get(timeout=timeout)
        if isinstance(item, BaseException):
            raise item
        assert item is not None, "watcher ended"
        return item

    def events_until(self, predicate: Any, timeout: float = 10.0) -> list[Any]:
        """Collect events until ``predicate(events)`` holds (bounded)."""
        events: list[Any] = []
        deadline = time.monotonic() + timeout
        while not predicate(events):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out; events so far: {events}")
            events.extend(self.next(left))
        return events

    def ready(self) -> None:
        """Wait until the watcher sees changes (poke a probe skill until it is reported)."""
        self.next()  # the initial catalog
        deadline = time.monotonic() + 15
        probe = 0
        while time.monotonic() < deadline:
            probe += 1
            self.env.skill(ROOT, "probe", f"Probe {probe}.")
            try:
                batch = self.batches.get(timeout=1.0)
            except queue.Empty:
                continue
            if isinstance(batch, BaseException):
                raise batch
            if any(e.name == "probe" for e in batch):
                shutil.rmtree(self.env.project / ROOT / "probe")
                self.events_until(lambda ev: any(isinstance(e, SkillRemoved) for e in ev))
                return
        raise AssertionError("watcher never became ready")

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=10)
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
    start = time.monotonic()
    batches = list(
        watch_skills(isolated_env.project, env=isolated_env.env, timeout=0.5, poll_ms=100)
    )
    assert batches == [] and time.monotonic() - start < 5
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
    time.sleep(0.5)  # the watcher picks up the new folder (a root change) first
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
