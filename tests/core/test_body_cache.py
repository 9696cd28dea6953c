"""A skill's body is loaded on first use, once, whoever asks first."""

from __future__ import annotations

import threading

import attrs
from skillpath.model import Skill, SkillSource


def _skill(loader: object) -> Skill:
    return Skill(
        name="demo",
        description="A demo.",
        path=None,
        base_dir=None,
        source=SkillSource("test", "user", None),
        body_cache=loader,
    )


def test_the_body_loads_once_for_concurrent_readers_and_evolved_copies() -> None:
    calls: list[int] = []
    entered = threading.Event()
    go = threading.Event()

    def loader() -> str:
        calls.append(1)
        entered.set()
        assert go.wait(10)
        return "the body"

    skill = _skill(loader)
    copy = attrs.evolve(skill, description="Another.")
    got: list[str] = []
    first = threading.Thread(target=lambda: got.append(skill.body))
    first.start()
    assert entered.wait(10)  # the first reader is inside the loader, holding the lock
    others = [
        threading.Thread(target=lambda s=s: got.append(s.body)) for s in (skill, copy, skill, copy)
    ]
    for t in others:
        t.start()
    go.set()
    for t in (first, *others):
        t.join(10)
    assert got == ["the body"] * 5
    assert calls == [1]
    assert copy.body == skill.body == "the body" and calls == [1]


def test_a_body_never_asked_for_is_never_loaded() -> None:
    calls: list[int] = []
    skill = _skill(lambda: calls.append(1) or "x")
    assert skill.name == "demo" and skill.description == "A demo."
    assert calls == []
