"""Which renders and reads ``serve`` may run on its event loop (no thread hop).

Only what cannot block: inline shell off (``serve --http`` turns it off), only the core's
own ``transform_prompt``/``resolve_url`` implementations (and the MCP provider's, which
abstain for local skills), and a skill whose file is already on local disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest
from skillpath import hookimpl, reset_plugin_host
from skillpath_mcp.server import SkillServer

OFF = {"shell": {"enabled": False}}


def _project(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with one skill; only the native and MCP providers load (the example
    plugins the test suite provides implement ``transform_prompt``/``resolve_url``)."""
    monkeypatch.setenv("SKILLPATH_PLUGINS", "native,mcp")
    reset_plugin_host()
    (root / ".git").mkdir(parents=True, exist_ok=True)
    folder = root / ".skillpath" / "skills" / "hello"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\ndescription: Say hello.\n---\nHello $ARGUMENTS.\n")
    return root


def test_a_local_skill_with_the_shell_off_renders_on_the_loop(
    world: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillpath.cache.notify import LOCAL_FILESYSTEMS, filesystem_type

    app = SkillServer(_project(world.project, monkeypatch), settings=OFF)
    on_local_disk = filesystem_type(str(world.project)) in LOCAL_FILESYSTEMS
    assert app._inline(app.session, app.session.get("hello")) is on_local_disk


def test_a_skill_on_a_network_file_system_is_read_in_a_thread(
    world: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mount that can stall (NFS, FUSE) must never hold up the event loop."""
    import skillpath.cache.notify

    project = _project(world.project, monkeypatch)
    monkeypatch.setattr(skillpath.cache.notify, "_type_in", lambda mounts, path: "nfs4")
    app = SkillServer(project, settings=OFF)
    assert not app._inline(app.session, app.session.get("hello"))
    monkeypatch.setattr(skillpath.cache.notify, "_type_in", lambda mounts, path: "ext4")
    app.reload()
    assert app._inline(app.session, app.session.get("hello"))


def test_the_shell_on_keeps_renders_in_threads(world: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    app = SkillServer(_project(world.project, monkeypatch))
    assert not app._inline(app.session, app.session.get("hello"))


class _SlowTransform:
    @hookimpl
    def transform_prompt(self, text: str, invocation: Any, ctx: Any) -> str | None:
        return None  # a plugin's hook may do anything (a network call, a lock)


def test_a_plugin_transform_keeps_renders_in_threads(
    world: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = SkillServer(_project(world.project, monkeypatch), settings=OFF)
    app.session.host.pm.register(_SlowTransform(), name="slow-transform")
    app._loop_safe_for = None  # the host changed under the server (tests only)
    assert not app._inline(app.session, app.session.get("hello"))


def test_a_skill_without_its_file_on_disk_is_read_in_a_thread(
    world: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = SkillServer(_project(world.project, monkeypatch), settings=OFF)
    skill = app.session.get("hello")
    assert skill is not None
    missing = attrs.evolve(skill, path=world.project / "not-unpacked" / "SKILL.md")
    remote = attrs.evolve(skill, source=attrs.evolve(skill.source, loaded_from="mcp"))
    assert not app._inline(app.session, missing)
    assert not app._inline(app.session, remote)
    assert not app._inline(app.session, None)
