"""Declaring what a plugin's hooks depend on (skillpath.depends_on)."""

from __future__ import annotations

import types
from typing import Any

import pytest
import skillpath
from skillpath import PluginHost, depends_on, hookimpl
from skillpath.plugins import Undeclared


def _host(*plugins: tuple[str, object]) -> PluginHost:
    host = PluginHost.create(env={}, autoload=False)
    for name, plugin in plugins:
        assert host.add(plugin, name)
    return host


def test_it_is_public_and_checks_what_it_is_given() -> None:
    assert "depends_on" in skillpath.__all__
    assert skillpath.depends_on is depends_on
    for bad in ((), ("file",), ("files", "weather")):
        with pytest.raises(ValueError, match="expected one or more of arguments, files, clock"):
            depends_on(*bad)


def test_the_built_in_plugins_all_declare_files_for_what_list_calls() -> None:
    assert _host().replay_blockers() == []


def test_each_way_of_declaring_is_read() -> None:
    class Declared:
        @hookimpl
        @depends_on("files")
        def discover_skills(self, ctx: Any) -> None:
            return None

    @depends_on("files")
    class WholeClass:
        @hookimpl
        def filter_skill(self, skill: Any) -> None:
            return None

    module = types.ModuleType("declared_module")
    module.DEPENDS_ON = ("files",)  # type: ignore[attr-defined]
    module.discover_skills = hookimpl(lambda ctx: None)  # type: ignore[attr-defined]

    host = _host(("declared", Declared()), ("whole", WholeClass()), ("module", module))
    assert host.replay_blockers() == []


def test_undeclared_and_non_file_dependencies_are_named() -> None:
    class Quiet:
        @hookimpl
        def discover_skills(self, ctx: Any) -> None:
            return None

        @hookimpl
        def transform_prompt(self, text: str) -> None:
            return None

    class Clock:
        @hookimpl
        @depends_on("files", "clock")
        def discover_skills(self, ctx: Any) -> None:
            return None

    class RemotePrompt:  # list never calls transform_prompt: declared, it is no blocker
        @hookimpl
        @depends_on("network")
        def transform_prompt(self, text: str) -> None:
            return None

    class Invalid:
        DEPENDS_ON = ("files", "tides")

        @hookimpl
        def filter_skill(self, skill: Any) -> None:
            return None

    host = _host(("quiet", Quiet()), ("clock", Clock()), ("remote", RemotePrompt()),
                 ("invalid", Invalid()))  # fmt: skip
    blockers = host.replay_blockers()
    assert blockers == [
        Undeclared("clock", ("discover_skills",), ("clock",)),
        Undeclared("invalid", ("filter_skill",)),
        Undeclared("quiet", ("discover_skills", "transform_prompt")),
    ]
    assert blockers[0].message() == (
        "plugin 'clock': discover_skills depends on clock; `skillpath list` is not replayed"
    )
    assert "plugin 'quiet' has not declared what its discover_skills, transform_prompt" in (
        blockers[2].message()
    )
