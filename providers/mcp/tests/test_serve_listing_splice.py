"""``serve --http`` sends a cached listing's kept JSON text instead of encoding it again.

The bytes are the SDK's own (compared with the SDK's path for every listing,
protocol version and kind of request id), the fast path is really taken (so an
SDK change that bypasses it is caught), and a changed catalog is never answered
with the previous catalog's text.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from skillpath import reset_plugin_host
from skillpath_mcp._wire import EncodedListings, encode_result, splicing_transport
from skillpath_mcp.server import SkillServer

from .test_serve_listing_cache import mcp_post

LIMIT = 60.0  # seconds (generous: loaded machines)
OFF = {"shell": {"enabled": False}}
LISTINGS = (
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "skills/list",
)
# request ids of every kind the SDK takes: a number, and strings it must escape
IDS: tuple[int | str, ...] = (7, 2**53 + 1, "plain", 'q"uo\\te é \u2028 \x01 😀')


def _write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` in one step (a dot-named temporary file, renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.tmp"
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _project(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SKILLPATH_PLUGINS", "native,mcp")
    reset_plugin_host()
    (root / ".git").mkdir(parents=True, exist_ok=True)
    skills = root / ".skillpath" / "skills"
    for name in ("alpha", "beta"):
        _write(
            skills / name / "SKILL.md",
            f"---\ndescription: The {name} skill — «ünïcode».\nargument-hint: <topic>\n---\n"
            "Do $ARGUMENTS.\n",
        )
        _write(skills / name / "refs" / "guide.md", "# Guide\n")
    return root


class _Client:
    """One MCP session over the in-process ASGI app."""

    def __init__(self, http: httpx.AsyncClient, version: str) -> None:
        self.http = http
        self.version = version
        self.sid: str | None = None

    async def post(self, method: str, key: int | str | None, params: Any = None) -> httpx.Response:
        body, headers = mcp_post(method, key, params, self.sid, self.version)
        with anyio.fail_after(LIMIT):
            resp = await self.http.post("/mcp", content=body, headers=headers)
        assert resp.status_code in (200, 202), (method, resp.status_code, resp.content)
        return resp

    async def start(self) -> None:
        init = await self.post(
            "initialize",
            0,
            {
                "protocolVersion": self.version,
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        )
        assert init.json()["result"]["protocolVersion"] == self.version
        self.sid = init.headers["mcp-session-id"]
        await self.post("notifications/initialized", None)


@contextlib.asynccontextmanager
async def _served(app: SkillServer) -> AsyncIterator[httpx.AsyncClient]:
    """``app``'s HTTP application in this process (its lifespan running), and a client."""
    asgi = app.http_app()
    transport = httpx.ASGITransport(app=asgi)
    async with (
        asgi.router.lifespan_context(asgi),
        httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as http,
    ):
        yield http


def _run(scenario: Any) -> None:
    """``anyio.run(scenario)``, then wait for its worker threads to end (they are told
    to stop when it returns): tests that fork later need a single thread."""
    anyio.run(scenario)
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and thread.name == "AnyIO worker thread":
            thread.join(LIMIT)


async def _both_ways(
    app: SkillServer, client: _Client, method: str, key: int | str, monkeypatch: pytest.MonkeyPatch
) -> tuple[httpx.Response, httpx.Response]:
    """The same request answered through the kept text, then through the SDK's encoding."""
    listings = app.encoded_listings
    before = listings.spliced
    fast = await client.post(method, key)
    assert listings.spliced == before + 1, f"{method}: the kept text was not used"
    with monkeypatch.context() as m:
        m.setattr(listings, "answer", lambda message: None)
        slow = await client.post(method, key)
    assert listings.spliced == before + 1
    return fast, slow


def test_kept_text_is_byte_for_byte_the_sdks_answer(
    world: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = SkillServer(_project(world.project, monkeypatch), settings=OFF, poll=0)

    async def scenario() -> None:
        async with _served(app) as http:
            for version in HANDSHAKE_PROTOCOL_VERSIONS:
                client = _Client(http, version)
                await client.start()
                for method in LISTINGS:
                    for key in IDS:
                        fast, slow = await _both_ways(app, client, method, key, monkeypatch)
                        assert fast.content == slow.content, (version, method, key)
                        assert fast.headers == slow.headers, (version, method, key)
                        assert fast.json()["id"] == key
                        assert fast.json()["result"], (version, method)
                prompts = (await client.post("prompts/list", 1)).json()["result"]["prompts"]
                assert {p["name"] for p in prompts} == {"alpha", "beta"}

    _run(scenario)


def test_other_answers_take_the_sdks_path(world: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Answers that are not a kept listing — params given, another method — are encoded
    by the SDK as before."""
    app = SkillServer(_project(world.project, monkeypatch), settings=OFF, poll=0)

    async def scenario() -> None:
        async with _served(app) as http:
            client = _Client(http, "2025-06-18")
            await client.start()
            for method in LISTINGS:
                await client.post(method, 1)  # kept now
            spliced = app.encoded_listings.spliced
            with_cursor = await client.post("resources/list", 2, {"cursor": "x"})
            read = await client.post("resources/read", 3, {"uri": "skill://alpha/SKILL.md"})
            prompt = await client.post("prompts/get", 4, {"name": "alpha"})
            bad = await client.post("prompts/list", 5, {"cursor": 5})
            assert app.encoded_listings.spliced == spliced
            assert with_cursor.json()["result"]["resources"]
            assert "Do" in read.json()["result"]["contents"][0]["text"]
            assert prompt.json()["result"]["messages"]
            assert bad.json()["error"]["code"] == -32602

    _run(scenario)


def test_a_changed_catalog_is_never_sent_the_old_text(
    world: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A skill changes; after its ``list_changed`` every listing shows the change
    (and is still the SDK's exact encoding)."""
    project = _project(world.project, monkeypatch)
    app = SkillServer(project, settings=OFF)
    notified: list[str] = []

    class Watcher:
        """A connected client, as far as ``notify_changed`` is concerned."""

        async def send_prompt_list_changed(self) -> None:
            notified.append("prompts")

        async def send_resource_list_changed(self) -> None:
            notified.append("resources")

    async def scenario() -> None:
        async with _served(app) as http:
            client = _Client(http, "2025-06-18")
            await client.start()
            old = {}
            for method in LISTINGS:
                old[method] = (await client.post(method, 1)).content
                fast, slow = await _both_ways(app, client, method, 1, monkeypatch)
                assert fast.content == slow.content == old[method]
            assert b"Renamed purpose" not in old["prompts/list"]
            app._clients[-1] = Watcher()
            skill = project / ".skillpath" / "skills" / "alpha" / "SKILL.md"
            _write(skill, "---\ndescription: Renamed purpose.\n---\nDo it.\n")
            # what the watcher does after a burst of file events (its events are
            # tested in test_serve_watch.py): read again, notify when changed
            await app._reload_and_notify()
            assert notified == ["prompts", "resources"]
            for method in ("prompts/list", "resources/list", "skills/list"):
                new = (await client.post(method, 1)).content
                assert new != old[method], method
                assert b"Renamed purpose" in new, method
                fast, slow = await _both_ways(app, client, method, 1, monkeypatch)
                assert fast.content == slow.content == new, method

    _run(scenario)


def test_a_result_is_recognised_by_identity_only() -> None:
    """Equal content is not enough: a copy, a result with a key added or a value
    replaced is encoded again (by the SDK)."""
    listings = EncodedListings()
    kept = {"prompts": [{"name": "a"}], "nextCursor": "c"}
    body = encode_result(kept)
    assert body == b'{"prompts":[{"name":"a"}],"nextCursor":"c"}'
    listings.keep(kept, body)
    assert listings.body(dict(kept)) == body  # the SDK's shallow copy
    assert listings.body({"prompts": [{"name": "a"}], "nextCursor": "c"}) is None
    assert listings.body({**kept, "_meta": {}}) is None
    assert listings.body({"prompts": kept["prompts"]}) is None
    assert listings.body({"prompts": kept["prompts"], "nextCursor": "d"}) is None
    assert listings.body({}) is None
    listings.clear()
    assert listings.body(dict(kept)) is None


def test_the_splice_gives_way_when_the_sdk_lacks_its_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp.server.streamable_http import StreamableHTTPServerTransport

    assert splicing_transport(EncodedListings()) is not None
    monkeypatch.delattr(StreamableHTTPServerTransport, "_create_json_response")
    assert splicing_transport(EncodedListings()) is None
