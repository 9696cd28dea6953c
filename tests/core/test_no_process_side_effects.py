"""``load_skills`` is a library call: it leaves the process's garbage collector alone."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest
from skillpath import PluginHost, depends_on, hookimpl, load_skills

from tests.conftest import Env


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_load_skills_never_switches_the_collector_off(
    isolated_env: Env, collector_on: None
) -> None:
    seen: list[bool] = []

    class Watcher:
        @hookimpl
        @depends_on("files")
        def discover_skills(self, ctx: Any) -> None:
            seen.append(gc.isenabled())  # what another thread of the host would see

        @hookimpl
        @depends_on("files")
        def filter_skill(self, skill: Any) -> None:
            seen.append(gc.isenabled())

    skills = isolated_env.project / ".claude" / "skills" / "one"
    skills.mkdir(parents=True)
    (skills / "SKILL.md").write_text("---\nname: one\ndescription: One.\n---\nbody\n")
    host = PluginHost.create(env=isolated_env.env)
    assert host.add(Watcher(), "watcher")
    for _ in range(2):  # the first load and the one reusing it
        result = load_skills(isolated_env.project, env=isolated_env.env, host=host)
        assert "one" in result.names
    assert seen and all(seen), seen
    assert gc.isenabled()
