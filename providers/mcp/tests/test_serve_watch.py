"""``skillpath serve`` notices every change kind by watching, and reads nothing while idle.

Every wait is on a ``list_changed`` notification (with a generous timeout), never a
sleep: after each notification the listing is checked, and a change that arrived
in two bursts is waited for through the next notification.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp import types as mt

LIMIT = 30.0  # seconds a change may take to be notified (generous: loaded machines)


def _write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` in one step (a dot-named temporary file, renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.tmp"
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _skill_text(description: str, body: str = "Body.\n") -> str:
    return f"---\ndescription: {description}\n---\n{body}"


def _project(root: Path) -> Path:
    (root / ".git").mkdir(parents=True, exist_ok=True)
    skills = root / ".skillpath" / "skills"
    _write(skills / "hello" / "SKILL.md", _skill_text("Say hello."))
    _write(skills / "hello" / "refs" / "guide.md", "# Guide\n")
    _write(skills / "hello" / "data.json", '{"a": 1}\n')
    (skills / "hello" / "refs" / "deep").mkdir()  # empty: a file appears in it later
    _write(skills / "manual" / "SKILL.md", _skill_text("Manual steps."))
    _write(
        skills / "quiet" / "SKILL.md",
        "---\ndescription: Background.\nuser-invocable: false\n---\nQuiet.\n",
    )
    return root


def test_every_change_kind_is_notified_with_default_options(world: Any) -> None:
    """The server started with default options (no ``--poll``) sends ``list_changed``
    for each kind of change it serves, and then lists the new state."""
    project = _project(world.project)
    skills = project / ".skillpath" / "skills"
    notes: asyncio.Queue[Any] = asyncio.Queue()

    async def on_message(message: Any) -> None:
        if isinstance(
            message, mt.PromptListChangedNotification | mt.ResourceListChangedNotification
        ):
            notes.put_nowait(message)

    async def scenario() -> list[str]:
        done: list[str] = []
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "skillpath", "serve", "--cwd", str(project)],
            env=world.env,
        )
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write, message_handler=on_message) as s,
        ):
            await s.initialize()

            async def prompts() -> dict[str, Any]:
                return {p.name: p for p in (await s.list_prompts()).prompts}

            async def uris() -> set[str]:
                return {str(r.uri) for r in (await s.list_resources()).resources}

            async def digests() -> dict[str, str]:
                listed = await s.call_tool("list_skills", {})
                data = listed.structured_content or {}
                return {r["uri"]: r["digest"] for e in data["skills"] for r in e["resources"]}

            async def step(
                name: str, change: Callable[[], None], check: Callable[[], Awaitable[bool]]
            ) -> None:
                while not notes.empty():
                    notes.get_nowait()
                change()
                while True:
                    try:
                        await asyncio.wait_for(notes.get(), LIMIT)
                    except TimeoutError:
                        raise AssertionError(f"{name}: no list_changed within {LIMIT} s") from None
                    if await check():
                        done.append(name)
                        return

            async def has_fresh() -> bool:
                return "fresh" in await prompts()

            await step(
                "skill added",
                lambda: _write(skills / "fresh" / "SKILL.md", _skill_text("Fresh.")),
                has_fresh,
            )

            async def hello_edited() -> bool:
                return (await prompts())["hello"].description == "Say hello, edited."

            await step(
                "SKILL.md edited",
                lambda: _write(skills / "hello" / "SKILL.md", _skill_text("Say hello, edited.")),
                hello_edited,
            )
            before = (await digests())["skill://hello/refs/guide.md"]

            async def guide_edited() -> bool:
                return (await digests())["skill://hello/refs/guide.md"] != before

            await step(
                "a file of a skill edited",
                lambda: _write(skills / "hello" / "refs" / "guide.md", "# Guide, edited\n"),
                guide_edited,
            )

            async def deep_added() -> bool:
                return "skill://hello/refs/deep/notes.md" in await uris()

            await step(
                "a file added in a nested folder",
                lambda: _write(skills / "hello" / "refs" / "deep" / "notes.md", "notes\n"),
                deep_added,
            )

            async def data_gone() -> bool:
                return "skill://hello/data.json" not in await uris()

            await step(
                "a file of a skill removed",
                lambda: (skills / "hello" / "data.json").unlink(),
                data_gone,
            )

            async def manual_gone() -> bool:
                return "manual" not in await prompts()

            await step("skill removed", lambda: shutil.rmtree(skills / "manual"), manual_gone)

            async def quiet_ignored() -> bool:
                return "skill://quiet/SKILL.md" not in await uris()

            await step(
                "settings changed",
                lambda: _write(
                    world.home / ".skillpath" / "config.toml", '[skills]\nignored = ["quiet"]\n'
                ),
                quiet_ignored,
            )

            async def claude_root() -> bool:
                return "claudy" in await prompts()

            assert not (project / ".claude").exists()
            await step(
                "a skills root that did not exist",
                lambda: _write(
                    project / ".claude" / "skills" / "claudy" / "SKILL.md", _skill_text("Claude.")
                ),
                claude_root,
            )

            async def user_skill() -> bool:
                return "mine" in await prompts()

            await step(
                "a user skill added",
                lambda: _write(
                    world.home / ".skillpath" / "skills" / "mine" / "SKILL.md", _skill_text("Mine.")
                ),
                user_skill,
            )
            target = project / "elsewhere" / "linked"
            _write(target / "SKILL.md", _skill_text("Linked."))

            async def linked() -> bool:
                return "linked" in await prompts()

            await step(
                "a symlinked skill folder added",
                lambda: os.symlink(target, skills / "linked"),
                linked,
            )

            async def linked_edited() -> bool:
                return (await prompts())["linked"].description == "Linked, edited."

            await step(
                "a symlinked skill edited at its target",
                lambda: _write(target / "SKILL.md", _skill_text("Linked, edited.")),
                linked_edited,
            )
        return done

    done = asyncio.run(asyncio.wait_for(scenario(), 20 * LIMIT))
    assert len(done) == 11, done


# -- in process: the watcher itself ------------------------------------------------


def _run_watching(
    project: Path,
    world: Any,
    body: Callable[[Any, Any], Awaitable[None]],
    *,
    poll: float,
) -> Any:
    """Run ``SkillServer.watch`` with ``notify_changed`` replaced by a stream the
    test reads; ``body(app, received)`` drives it; the watcher is stopped after."""
    from skillpath_mcp.server import SkillServer

    app = SkillServer(project, home=world.home, poll=poll)
    send, received = anyio.create_memory_object_stream[str](100)

    async def notify_changed() -> None:
        await send.send("changed")

    app.notify_changed = notify_changed  # type: ignore[method-assign]

    async def main() -> None:
        with anyio.fail_after(10 * LIMIT):
            async with anyio.create_task_group() as tg:
                tg.start_soon(app.watch)
                try:
                    await body(app, received)
                finally:
                    app.stop_watching()

    anyio.run(main)
    return app


async def _next(received: Any) -> str:
    with anyio.fail_after(LIMIT):
        return str(await received.receive())


def test_an_idle_server_reads_nothing_again(world: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: every ``poll`` seconds the whole catalog was read again (a new session
    object each time), whether anything changed or not."""
    from skillpath_mcp.server import SkillServer

    project = _project(world.project)
    seen = {"ticks": 0}
    enough: list[anyio.Event] = []
    stale = SkillServer._stale

    def counting(self: Any, polled: list[str], state: tuple[Any, ...]) -> bool:
        seen["ticks"] += 1
        if seen["ticks"] >= 40 and enough:
            enough[0].set()
        return stale(self, polled, state)

    monkeypatch.setattr(SkillServer, "_stale", counting)

    async def body(app: Any, received: Any) -> None:
        event = anyio.Event()
        enough.append(event)
        with anyio.fail_after(10 * LIMIT):
            await event.wait()  # 40 ticks of the watcher with nothing changed
        reads = app.reloads
        # once, when the watches were in place (a change made before gave no event)
        assert reads == 1, reads
        # and a change is still noticed at once
        _write(project / ".skillpath" / "skills" / "late" / "SKILL.md", _skill_text("Late."))
        assert await _next(received) == "changed"
        assert app.session.get("late") is not None

    _run_watching(project, world, body, poll=0.02)


def test_a_change_no_file_shows_is_noticed(world: Any) -> None:
    """A consumed MCP server's ``list_changed`` reaches the process as
    :func:`skillpath.watch.mark_changed` (no file changes): the server reads its
    catalog again at the next check."""
    from skillpath.watch import mark_changed
    from skillpath_mcp.server import SkillServer

    app = SkillServer(_project(world.project), poll=0.02)
    assert not app._stale([], ())
    mark_changed()
    assert app._stale([], ())
    app.reload()
    assert not app._stale([], ())


def test_the_watch_limit_falls_back_to_polling(
    world: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where the native watcher is refused, the server polls and says so once."""
    import watchfiles

    real = watchfiles.awatch
    calls: list[Any] = []

    def limited(*paths: Any, **kw: Any) -> Any:
        calls.append(kw.get("force_polling"))
        if not kw.get("force_polling"):
            raise OSError(28, "OS file watch limit reached")
        return real(*paths, **kw)

    monkeypatch.setattr(watchfiles, "awatch", limited)
    project = _project(world.project)

    async def body(app: Any, received: Any) -> None:
        _write(project / ".skillpath" / "skills" / "polled" / "SKILL.md", _skill_text("Polled."))
        assert await _next(received) == "changed"
        assert app.session.get("polled") is not None

    _run_watching(project, world, body, poll=0.05)
    assert calls[0] is None and True in calls
    err = capsys.readouterr().err
    assert err.count("cannot watch for changes natively") == 1, err
    assert "OS file watch limit reached" in err and "polling every 50 ms" in err


def test_poll_zero_turns_notifications_off(world: Any) -> None:
    from skillpath_mcp.server import SkillServer

    app = SkillServer(_project(world.project), home=world.home, poll=0)
    anyio.run(app.watch)  # returns at once
    assert app.reloads == 0


def test_clients_that_went_away_are_forgotten(world: Any) -> None:
    """Before: every connection that ever sent ``notifications/initialized`` stayed in
    the server's client table (with its session) for good, so a long-running
    ``serve --http`` grew with every session a client opened and ended."""
    from mcp.shared.memory import create_client_server_memory_streams
    from skillpath_mcp.server import SkillServer

    app = SkillServer(_project(world.project), home=world.home, poll=0)

    async def session(live: list[int]) -> None:
        async with (
            create_client_server_memory_streams() as (client, server),
            anyio.create_task_group() as tg,
        ):
            tg.start_soon(app.server.run, server[0], server[1], app.initialization_options())
            async with ClientSession(client[0], client[1]) as s:
                await s.initialize()
                await s.list_prompts()
                live.append(len(app._clients))
            await client[1].aclose()  # the client hangs up: the server's run ends

    async def scenario() -> list[int]:
        live: list[int] = []
        with anyio.fail_after(LIMIT):
            for _ in range(5):
                await session(live)
        return live

    live = anyio.run(scenario)
    assert live == [1, 1, 1, 1, 1]
    assert app._clients == {}


def test_an_edit_of_a_providers_declared_input_is_noticed(world: Any) -> None:
    """Claude Code's ``enabledPlugins`` decides which plugin skills load: an edit of its
    settings file alone (no skills folder changes) makes the server read again."""
    import json

    from skillpath_mcp.server import SkillServer

    plugin = world.home / "store" / "toolbox"
    _write(plugin / "skills" / "pskill" / "SKILL.md", _skill_text("A plugin skill."))
    claude = world.home / ".claude"
    registry = {
        "version": 2,
        "plugins": {"toolbox@m": [{"scope": "user", "installPath": str(plugin)}]},
    }
    _write(claude / "plugins" / "installed_plugins.json", json.dumps(registry))
    _write(claude / "settings.json", json.dumps({"enabledPlugins": {"toolbox@m": True}}))
    (world.home / ".skillpath").mkdir(exist_ok=True)
    (world.home / ".skillpath" / "config.toml").write_text('[trust]\napprove = ["*"]\n')

    app = SkillServer(_project(world.project), poll=0.02)
    assert app.session.get("toolbox:pskill") is not None
    assert not app._stale([], ())
    _write(claude / "settings.json", json.dumps({"enabledPlugins": {"toolbox@m": False}}))
    assert app._stale([], ())
    assert app.reload()
    assert app.session.get("toolbox:pskill") is None
    assert not app._stale([], ())
