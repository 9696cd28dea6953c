"""Talking to MCP servers with the official SDK, from synchronous code.

Connections live on a private event loop in a daemon thread: one connection
per server configuration, opened by the first listing and reused by later
invocations and reads, so a stdio server is started once per process. Each
connection is owned by one task that enters and leaves the SDK's context
managers (transport, ``ClientSession``); :func:`close_connections` closes them
all cleanly (stdio servers get EOF and are stopped), and runs at interpreter
exit.

What a server hands over is capped (``[mcp] max_items``, ``max_description``,
``max_content``; see :mod:`skillpath_mcp.config`): lists stop at the cap,
descriptions are cut, and each cut is one line of :attr:`Catalog.problems`;
a prompt or file over ``max_content`` is a :class:`ServerFailure`. Each whole
exchange (a listing with all its pages, an invocation, a read) is bounded by
the server's ``timeout``.

Every failure becomes a :class:`ServerFailure` with a one-line reason: the
command cannot be started, the server exits, does not answer within its
timeout, or sends bytes that are not JSON-RPC (noticed at the first such line,
not at the timeout). A connection closed under a request is reopened once.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import functools
import logging
import re
import tempfile
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from skillpath_mcp._catalog import (
    _LISTENERS,
    DEPTH_VAR,
    LIST_CHANGED,
    MAX_DEPTH,
    MAX_FRONTMATTER,
    Catalog,
    PromptArg,
    RemotePrompt,
    RemoteSkill,
    ServerFailure,
    _capped_skill,
    _cut,
    nesting_depth,
    on_list_changed,
)

if TYPE_CHECKING:
    from mcp import ClientSession

    from skillpath_mcp.config import ServerConfig

__all__ = [
    "DEPTH_VAR",
    "LIST_CHANGED",
    "MAX_DEPTH",
    "MAX_FRONTMATTER",
    "SKILLS_EXTENSION",
    "Catalog",
    "PromptArg",
    "RemotePrompt",
    "RemoteSkill",
    "ServerFailure",
    "close_connections",
    "fetch_catalogs",
    "get_prompt",
    "nesting_depth",
    "on_list_changed",
    "read_resource",
]

#: SEP-2640 extension identifier (``capabilities.extensions``).
SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
#: Upper bound on pages fetched from one paginated list call.
MAX_PAGES = 50
_STDERR_TAIL = 400
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}\Z")

T = TypeVar("T")

# The SDK logs transport trouble (unparsable lines …) through ``logging``; we
# report those as diagnostics, so keep Python's last-resort handler from also
# printing tracebacks on stderr. Applications that configure logging still
# receive the records.
logging.getLogger("mcp").addHandler(logging.NullHandler())


# -- connections ----------------------------------------------------------------


def _flatten(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        out: list[BaseException] = []
        for sub in exc.exceptions:
            out.extend(_flatten(sub))
        return out
    return [exc]


def _stderr_tail(errlog: Any) -> str:
    try:
        errlog.flush()
        errlog.seek(0)
        text = errlog.read()
    except (OSError, ValueError):
        return ""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    tail = lines[-1]
    return tail if len(tail) <= _STDERR_TAIL else tail[: _STDERR_TAIL - 1] + "…"


def _describe(exc: BaseException, config: ServerConfig) -> str:
    from mcp import MCPError

    if isinstance(exc, FileNotFoundError):
        return f"cannot start {config.command!r}: command not found"
    if isinstance(exc, PermissionError):
        return f"cannot start {config.command!r}: permission denied"
    if isinstance(exc, MCPError):
        if "closed" in str(exc).lower():
            return "the server closed the connection (it exited or crashed)"
        return f"the server answered with an error: {exc}"
    if isinstance(exc, TimeoutError):
        return f"no answer within {config.timeout:g}s (settings [mcp] timeout)"
    name = type(exc).__name__
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if "Connect" in name or isinstance(exc, ConnectionError):
        return f"cannot connect to {config.url}: {text or name}"
    return f"{name}: {text}" if text else name


def _child_env(config: ServerConfig, env: Mapping[str, str]) -> dict[str, str]:
    """The SDK's safe inherited variables, taken from the context's environment.

    ``SKILLPATH_MCP_DEPTH`` is one more than ours, so a server that is itself
    skillpath (``skillpath serve`` of a project that lists servers) can stop
    a chain that leads back to itself.
    """
    from mcp.client.stdio import DEFAULT_INHERITED_ENV_VARS

    out = {k: env[k] for k in DEFAULT_INHERITED_ENV_VARS if k in env}
    out.update(dict(config.env))
    out[DEPTH_VAR] = str(nesting_depth(env) + 1)
    return out


def _is_closed(exc: BaseException) -> bool:
    from mcp import MCPError

    return isinstance(exc, MCPError) and "closed" in str(exc).lower()


class _Connection:
    """One open client session to one server, owned by one task on the pool's loop.

    The task enters the transport and ``ClientSession`` context managers,
    initialises, then waits until asked to close, so the SDK's cancel scopes
    are entered and left by the same task. Requests run as other tasks on the
    same loop and race against :attr:`broken` (the server exited or sent bytes
    that are not JSON-RPC).
    """

    def __init__(self, config: ServerConfig, env: Mapping[str, str]) -> None:
        self.config = config
        self.env = env
        self.session: ClientSession | None = None
        self.failure: ServerFailure | None = None
        self.bad: list[Exception] = []
        self.ready = asyncio.Event()
        self.broken = asyncio.Event()
        self.closing = asyncio.Event()
        self.done = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            self.bad.append(message)
            self.broken.set()
            return
        if getattr(message, "method", None) in LIST_CHANGED:
            for listener in list(_LISTENERS):
                try:
                    listener(self.config, self.env)
                except Exception:  # noqa: BLE001, S112 - a listener must not break the connection
                    continue

    def _fail(self, reason: str) -> ServerFailure:
        if self.failure is None:
            self.failure = ServerFailure(self.config.name, reason)
        return self.failure

    async def _run(self) -> None:
        import anyio
        from mcp import ClientSession

        config = self.config
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
            try:
                async with contextlib.AsyncExitStack() as stack:
                    if config.transport == "http":
                        from mcp.client.streamable_http import streamable_http_client
                        from mcp.shared._httpx_utils import create_mcp_http_client

                        http = await stack.enter_async_context(
                            create_mcp_http_client(headers=dict(config.headers) or None)
                        )
                        read, write = await stack.enter_async_context(
                            streamable_http_client(str(config.url), http_client=http)
                        )
                    else:
                        from mcp.client.stdio import StdioServerParameters

                        from skillpath_mcp._stdio_client import bounded_stdio_client

                        params = StdioServerParameters(
                            command=str(config.command),
                            args=list(config.args),
                            env=_child_env(config, self.env),
                            cwd=config.cwd,
                            encoding_error_handler="replace",
                        )
                        read, write = await stack.enter_async_context(
                            bounded_stdio_client(
                                params, errlog=errlog, max_bytes=message_bytes(config)
                            )
                        )
                    session = await stack.enter_async_context(
                        ClientSession(read, write, message_handler=self._on_message)
                    )
                    async with anyio.create_task_group() as tg:

                        async def watch() -> None:
                            await self.broken.wait()
                            tg.cancel_scope.cancel()

                        tg.start_soon(watch)
                        with anyio.fail_after(config.timeout):
                            await session.initialize()
                        self.session = session
                        self.ready.set()
                        await self.closing.wait()
                        tg.cancel_scope.cancel()
            except Exception as exc:  # noqa: BLE001 - every SDK/transport failure becomes one reason
                if self.bad:
                    self._fail(_garbage(self.bad[0]))
                else:
                    errors = _flatten(exc)
                    reason = _describe(errors[0], config)
                    tail = _stderr_tail(errlog)
                    if tail and not isinstance(errors[0], TimeoutError):
                        reason += f"; stderr: {tail}"
                    self._fail(reason)
            finally:
                if self.bad:
                    self._fail(_garbage(self.bad[0]))
                elif self.session is None:
                    self._fail("the connection ended before the handshake")
                self.broken.set()
                self.ready.set()
                self.done.set()

    async def call(self, op: Callable[[ClientSession], Awaitable[T]]) -> T:
        """Run ``op`` on this connection within the server's timeout."""
        timeout = self.config.timeout
        try:
            await asyncio.wait_for(self.ready.wait(), timeout + 1)
        except TimeoutError:
            raise self._fail(f"no answer within {timeout:g}s (settings [mcp] timeout)") from None
        if self.session is None or self.broken.is_set():
            raise self.failure or self._fail("the connection is closed")
        work = asyncio.ensure_future(op(self.session))
        broken = asyncio.ensure_future(self.broken.wait())
        done, _pending = await asyncio.wait(
            {work, broken}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        broken.cancel()
        if work in done:
            return work.result()
        work.cancel()
        if self.broken.is_set():
            raise self.failure or self._fail(
                _garbage(self.bad[0]) if self.bad else "the server closed the connection"
            )
        self.closing.set()  # a server that stopped answering is not reused
        raise ServerFailure(
            self.config.name, f"no answer within {timeout:g}s (settings [mcp] timeout)"
        )

    async def close(self) -> None:
        self.closing.set()
        self.ready.set()
        if self.task is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self.done.wait()), _CLOSE_SECONDS)
            except TimeoutError:
                self.task.cancel()


class _Pool:
    """Open connections, one per server configuration, on a private event loop.

    The loop runs in a daemon thread started on first use; connections stay
    open for the life of the process (so invocations and reads do not start
    the server again) and are closed cleanly by :func:`close_connections`,
    which also runs at interpreter exit.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._conns: dict[tuple[str, ...], _Connection] = {}
        self._atexit = False

    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                ready = threading.Event()

                def run() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    loop.run_forever()

                thread = threading.Thread(target=run, name="skillpath-mcp", daemon=True)
                thread.start()
                ready.wait()
                self._loop, self._thread = loop, thread
                if not self._atexit:
                    atexit.register(close_connections)
                    self._atexit = True
            return self._loop

    def stop(self) -> None:
        """Stop the connection loop and its thread (a later call starts them again)."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()

    def submit(self, coro: Awaitable[T], limit: float) -> T:
        loop = self.loop()
        if threading.current_thread() is self._thread:
            raise RuntimeError("skillpath-mcp: blocking call from the connection loop")
        future = asyncio.run_coroutine_threadsafe(_as_coro(coro), loop)
        try:
            return future.result(limit)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise

    @staticmethod
    def _key(config: ServerConfig, env: Mapping[str, str]) -> tuple[str, ...]:
        if config.transport == "http":
            return (config.key,)
        child = _child_env(config, env)
        return (config.key, *(f"{k}={v}" for k, v in sorted(child.items())))

    async def connection(self, config: ServerConfig, env: Mapping[str, str]) -> _Connection:
        key = self._key(config, env)
        conn = self._conns.get(key)
        if conn is None or conn.done.is_set():
            conn = _Connection(config, env)
            self._conns[key] = conn
            conn.start()
        return conn

    async def call(
        self,
        config: ServerConfig,
        env: Mapping[str, str],
        op: Callable[[ClientSession], Awaitable[T]],
    ) -> T:
        """Run ``op`` on the server's connection; reconnect once if it was closed under us."""
        for attempt in (1, 2):
            conn = await self.connection(config, env)
            try:
                return await conn.call(op)
            except ServerFailure:
                if conn.done.is_set() or conn.closing.is_set():
                    self._conns.pop(self._key(config, env), None)
                raise
            except Exception as exc:
                if attempt == 1 and _is_closed(exc):
                    await conn.close()
                    self._conns.pop(self._key(config, env), None)
                    continue
                raise
        raise ServerFailure(config.name, "the server closed the connection")  # pragma: no cover

    async def close_all(self) -> None:
        conns = list(self._conns.values())
        self._conns.clear()
        await asyncio.gather(*(c.close() for c in conns), return_exceptions=True)


async def _as_coro(awaitable: Awaitable[T]) -> T:
    return await awaitable


_POOL = _Pool()
_CLOSE_SECONDS = 8.0


#: How many times :func:`close_connections` ran: a listing that fails across a close
#: failed because this process closed it, which says nothing about the server.
CLOSES = [0]


def close_connections() -> None:
    """Close every open server connection (stopping stdio servers); safe to call twice."""
    CLOSES[0] += 1
    pool = _POOL
    if pool._loop is None or not pool._conns:
        return
    try:
        pool.submit(pool.close_all(), _CLOSE_SECONDS + 2)
    except Exception:  # noqa: BLE001, S110 - shutting down: nothing left to report to
        pass


def shutdown_connections() -> None:
    """Close every server connection, then stop the thread that served them.

    For programs (and test suites) that want no thread left behind; the next
    call to a server starts a new one.
    """
    close_connections()
    _POOL.stop()


def _run(
    config: ServerConfig, env: Mapping[str, str], op: Callable[[ClientSession], Awaitable[T]]
) -> T:
    """Run ``op`` against ``config``'s server from synchronous code."""
    return _POOL.submit(_POOL.call(config, env, op), 2 * config.timeout + _CLOSE_SECONDS)


def message_bytes(config: ServerConfig) -> int:
    """Bytes of one message a stdio server may send: ``4 × max_content``, at least 8 MiB."""
    return max(4 * config.max_content, 8 * 1024 * 1024)


def _garbage(exc: Exception) -> str:
    from skillpath_mcp._stdio_client import MessageTooLarge

    if isinstance(exc, MessageTooLarge):
        return f"sent {exc}"
    text = str(exc).strip().splitlines()
    detail = next((line.strip() for line in text if "input_value" in line), text[0] if text else "")
    return f"sent data that is not JSON-RPC ({detail[:200]})"


# -- listing ------------------------------------------------------------------


async def _paged(
    fetch: Callable[[Any], Awaitable[Any]], attr: str, limit: int
) -> tuple[list[Any], str | None]:
    """Up to ``limit`` items of a paginated list: ``(items, what was cut or None)``.

    No page is fetched once ``limit`` items are in hand.
    """
    from mcp import types

    items: list[Any] = []
    seen = 0
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await fetch(params)
        got = getattr(page, attr)
        seen += len(got)
        items.extend(got[: max(0, limit - len(items))])
        cursor = page.next_cursor
        if not cursor or seen > limit:
            break
    if seen <= limit and not (cursor and len(items) >= limit):
        return items, None
    more = "more than " if cursor else ""
    return items, f"{more}{seen} {attr}; the first {limit} kept ([mcp] max_items)"


@functools.cache
def _skills_list_model() -> Any:
    from mcp import types

    class SkillsListRequest(
        types.Request[types.PaginatedRequestParams | None, Literal["skills/list"]]
    ):
        method: Literal["skills/list"] = "skills/list"
        params: types.PaginatedRequestParams | None = None

    return SkillsListRequest


def _skills_list_request(cursor: str | None) -> Any:
    """A ``skills/list`` request (SEP-2640): not part of the SDK's method tables."""
    from mcp import types

    params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
    return _skills_list_model()(params=params)


def _skill_path(uri: str) -> str | None:
    """``acme/refunds`` for ``skill://acme/refunds/SKILL.md`` (``None`` for other URIs)."""
    if not uri.startswith("skill://") or not uri.endswith("/SKILL.md"):
        return None
    path = uri[len("skill://") : -len("/SKILL.md")]
    segments = path.split("/")
    if not path or any(s in ("", ".", "..") for s in segments):
        return None
    return path


def _parse_skill_entry(entry: Any) -> tuple[RemoteSkill | None, str | None]:
    """Check one ``skills/list`` entry; ``(skill, None)`` or ``(None, why)``."""
    if not isinstance(entry, Mapping):
        return None, f"skills/list entry is not an object: {entry!r:.80}"
    uri = entry.get("uri")
    if not isinstance(uri, str):
        return None, f"skills/list entry without a string 'uri': {entry!r:.80}"
    path = _skill_path(uri) if uri.startswith("skill://") else uri.rsplit("/", 1)[0]
    if not path or not uri.endswith("/SKILL.md"):
        return None, f"skills/list entry {uri!r}: the uri must name a SKILL.md"
    fm = entry.get("frontmatter")
    if not isinstance(fm, Mapping):
        return None, f"skills/list entry {uri!r}: 'frontmatter' must be an object"
    resources: dict[str, str] | None = None
    raw = entry.get("resources")
    if raw is not None:
        if not isinstance(raw, Sequence) or isinstance(raw, str):
            return None, f"skills/list entry {uri!r}: 'resources' must be a list"
        resources = {}
        for item in raw:
            if (
                not isinstance(item, Mapping)
                or not isinstance(item.get("uri"), str)
                or not isinstance(item.get("digest"), str)
                or not _DIGEST.match(item["digest"])
            ):
                return None, f"skills/list entry {uri!r}: bad resources item {item!r:.80}"
            resources[item["uri"]] = item["digest"]
    return RemoteSkill(uri, path, dict(fm), resources, "skills/list"), None


async def _list_catalog(config: ServerConfig, session: ClientSession) -> Catalog:
    from mcp import MCPError
    from mcp.types import METHOD_NOT_FOUND
    from pydantic import ValidationError

    caps = session.server_capabilities
    info = session.server_info
    problems: list[str] = []
    prompts: list[RemotePrompt] = []
    skills: list[RemoteSkill] = []
    limit = config.max_description
    cut_descriptions = 0
    partial = False
    if caps is None or caps.prompts is not None:
        try:
            found, cut = await _paged(
                lambda c: session.list_prompts(params=c), "prompts", config.max_items
            )
            if cut:
                problems.append(cut)
            for p in found:
                title, cut_title = _cut(p.title, limit)
                description, cut_description = _cut(p.description, limit)
                args: list[PromptArg] = []
                cut_arg = False
                for a in (p.arguments or ())[: config.max_items]:
                    text, was_cut = _cut(a.description, limit)
                    cut_arg = cut_arg or was_cut
                    args.append(PromptArg(a.name, text, bool(a.required)))
                cut_descriptions += cut_title or cut_description or cut_arg
                prompts.append(RemotePrompt(p.name, title, description, tuple(args)))
        except (MCPError, ValidationError) as exc:
            partial = True
            problems.append(f"prompts/list failed: {_one_line(exc)}")
    declared = {
        **((caps.experimental or {}) if caps else {}),
        **((caps.extensions or {}) if caps else {}),
    }
    has_resources = caps is not None and caps.resources is not None
    listed = False
    if SKILLS_EXTENSION in declared or has_resources:
        # The extension is declared in ``capabilities.extensions`` (2026-07-28) or
        # ``experimental`` (handshake era, where ``extensions`` is not carried);
        # a server with resources is asked too, and METHOD_NOT_FOUND means no.
        try:
            found, why = await _skills_list(session, config)
            problems.extend(why)
            listed = True
            cut_files = 0
            for remote in found:
                capped, cut_kinds = _capped_skill(remote, config)
                if capped is None:
                    problems.append(
                        f"skills/list entry {remote.uri!r:.200}: frontmatter over "
                        f"{MAX_FRONTMATTER} characters; not used"
                    )
                    continue
                cut_descriptions += "description" in cut_kinds
                cut_files += "files" in cut_kinds
                skills.append(capped)
            if cut_files:
                problems.append(
                    f"files of {cut_files} skills cut to the first {config.max_items} "
                    "([mcp] max_items)"
                )
        except MCPError as exc:
            if exc.error.code != METHOD_NOT_FOUND or SKILLS_EXTENSION in declared:
                partial = True
                problems.append(f"skills/list failed: {_one_line(exc)}")
        except ValidationError as exc:
            partial = True
            problems.append(f"skills/list failed: {_one_line(exc)}")
    if not listed and has_resources:
        try:
            # every file of every skill is one resource: room for max_items skills' worth
            resources, cut = await _paged(
                lambda c: session.list_resources(params=c), "resources", 10 * config.max_items
            )
            if cut:
                problems.append(cut)
            uris = sorted(str(r.uri) for r in resources)
            for r in resources:
                path = _skill_path(str(r.uri))
                if path is None:
                    continue
                if len(skills) >= config.max_items:
                    problems.append(
                        f"more than {config.max_items} skills; the first {config.max_items} "
                        "kept ([mcp] max_items)"
                    )
                    break
                fm: dict[str, Any] = {"name": r.name or path.rsplit("/", 1)[-1]}
                if r.description:
                    fm["description"] = r.description
                base = str(r.uri)[: -len("SKILL.md")]
                files = tuple(u for u in uris if u.startswith(base))
                kept, cut_kinds = _capped_skill(
                    RemoteSkill(str(r.uri), path, fm, None, "resources/list", files), config
                )
                if kept is None:
                    continue
                cut_descriptions += "description" in cut_kinds
                skills.append(kept)
        except (MCPError, ValidationError) as exc:
            partial = True
            problems.append(f"resources/list failed: {_one_line(exc)}")
    if cut_descriptions:
        problems.append(
            f"descriptions of {cut_descriptions} prompts and skills cut to {limit} characters "
            "([mcp] max_description)"
        )
    return Catalog(
        server=config.name,
        server_name=info.name if info is not None else None,
        server_version=info.version if info is not None else None,
        prompts=tuple(prompts),
        skills=tuple(skills),
        problems=tuple(problems),
        partial=partial or any(p.startswith(_NO_SKILLS) for p in problems),
    )


async def _skills_list(
    session: ClientSession, config: ServerConfig
) -> tuple[list[RemoteSkill], list[str]]:
    """``skills/list`` pages up to ``max_items`` entries: the valid ones and what was wrong."""
    from pydantic import TypeAdapter

    skills: list[RemoteSkill] = []
    problems: list[str] = []
    cursor: str | None = None
    adapter = TypeAdapter(dict[str, Any])
    limit = config.max_items
    seen = 0
    bad = 0
    for _ in range(MAX_PAGES):
        # the SDK's stubs want a model class; a TypeAdapter is what it accepts for a dict
        page = await session.send_request(_skills_list_request(cursor), adapter)  # type: ignore[type-var]
        entries = page.get("skills")
        if not isinstance(entries, list):
            problems.append(_NO_SKILLS)
            break
        seen += len(entries)
        for entry in entries[: max(0, limit - len(skills) - bad)]:
            skill, why = _parse_skill_entry(entry)
            if skill is not None:
                skills.append(skill)
            else:
                bad += 1
                if bad <= 20:  # a few examples; the count says the rest
                    problems.append(str(why))
        cursor = page.get("nextCursor")
        if not isinstance(cursor, str) or not cursor or seen > limit:
            break
    if bad > 20:
        problems.append(f"{bad} skills/list entries not used in all")
    if seen > limit or (cursor and seen >= limit):
        more = "more than " if cursor else ""
        problems.append(f"{more}{seen} skills; the first {limit} kept ([mcp] max_items)")
    return skills, problems


_NO_SKILLS = "skills/list result has no 'skills' list"


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    return first[:300]


#: Seconds of waiting for servers before the progress line appears (a quick listing
#: shows nothing).
PROGRESS_AFTER = 0.3


class _Progress:
    """One line on a terminal naming the servers still awaited, rewritten as each
    answers and erased at the end (nothing is left on the screen)."""

    def __init__(self, stream: Any, configs: Sequence[ServerConfig]) -> None:
        self.stream = stream
        self.pending = {c.name: c.timeout for c in configs}
        self.shown = False
        self.lock = threading.Lock()

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self.stream = None

    def show(self) -> None:
        with self.lock:
            if self.stream is None or not self.pending:
                return
            names = ", ".join(repr(n) for n in sorted(self.pending))
            most = max(self.pending.values())
            noun = "server" if len(self.pending) == 1 else "servers"
            line = f"skillpath: waiting for MCP {noun} {names} (at most {most:g}s)…"
            self._write("\r\x1b[K" + line[:200])
            self.shown = True

    def done(self, name: str) -> None:
        with self.lock:
            self.pending.pop(name, None)
            shown = self.shown
        if shown:
            if self.pending:
                self.show()
            else:
                self.clear()

    def clear(self) -> None:
        with self.lock:
            if self.shown and self.stream is not None:
                self._write("\r\x1b[K")
            self.shown = False


def fetch_catalogs(
    configs: Sequence[ServerConfig], env: Mapping[str, str], *, progress: Any = None
) -> list[Catalog | ServerFailure]:
    """List every server concurrently; one result (or failure) per config, in order.

    Each server's wait is bounded by its own ``timeout``; the servers are
    listed together, so the whole wait is the longest one, not their sum.
    ``progress``, a terminal's text stream, gets one line naming the servers
    still awaited once the wait passes :data:`PROGRESS_AFTER` seconds (erased
    when they have all answered or failed). The connections stay open for
    later invocations and reads.
    """
    shown = _Progress(progress, configs) if progress is not None else None

    async def one(config: ServerConfig) -> Catalog | ServerFailure:
        try:
            return await _POOL.call(config, env, lambda s: _list_catalog(config, s))
        except ServerFailure as exc:
            return exc
        except Exception as exc:  # noqa: BLE001 - a bad result is this server's failure only
            return ServerFailure(config.name, _describe(_flatten(exc)[0], config))
        finally:
            if shown is not None:
                shown.done(config.name)

    async def all_of() -> list[Catalog | ServerFailure]:
        jobs = asyncio.gather(*(one(c) for c in configs))
        if shown is not None:
            done, _ = await asyncio.wait({jobs}, timeout=PROGRESS_AFTER)
            if not done:
                shown.show()
        return list(await jobs)

    if not configs:
        return []
    limit = 2 * max(c.timeout for c in configs) + _CLOSE_SECONDS
    try:
        return _POOL.submit(all_of(), limit)
    finally:
        if shown is not None:
            shown.clear()


# -- invocation and reads -----------------------------------------------------


def _render_messages(result: Any) -> str:
    """The text of a ``prompts/get`` result: text parts joined by blank lines."""
    parts: list[str] = []
    for message in result.messages:
        content = message.content
        kind = getattr(content, "type", None)
        if kind == "text":
            text = content.text
        elif kind == "resource":
            res = content.resource
            text = getattr(res, "text", None) or f"[resource {res.uri}]"
        elif kind == "resource_link":
            text = f"[resource {content.uri}]"
        else:
            mime = getattr(content, "mime_type", None)
            text = f"[{kind} {mime}]" if mime else f"[{kind}]"
        if message.role != "user":
            text = f"[{message.role}]\n{text}"
        parts.append(text)
    return "\n\n".join(parts)


def get_prompt(
    config: ServerConfig, env: Mapping[str, str], name: str, arguments: Mapping[str, str]
) -> str:
    """``prompts/get`` on ``config``'s server; the rendered text."""

    async def op(session: ClientSession) -> str:
        from mcp import MCPError

        try:
            result = await session.get_prompt(name, dict(arguments) or None)
        except MCPError as exc:
            raise ServerFailure(config.name, f"prompts/get {name!r} failed: {exc}") from None
        text = _render_messages(result)
        if len(text) > config.max_content:
            raise ServerFailure(
                config.name,
                f"prompts/get {name!r} returned {len(text)} characters; the limit is "
                f"{config.max_content} ([mcp] max_content)",
            )
        return text

    return _run(config, env, op)


def read_resource(
    config: ServerConfig, env: Mapping[str, str], uri: str
) -> tuple[bytes | str, str | None]:
    """``resources/read`` on ``config``'s server: ``(text or bytes, mime type)``."""

    async def op(session: ClientSession) -> tuple[bytes | str, str | None]:
        import base64

        from mcp import MCPError

        try:
            result = await session.read_resource(uri)
        except MCPError as exc:
            raise ServerFailure(config.name, f"resources/read {uri!r} failed: {exc}") from None
        if not result.contents:
            raise ServerFailure(config.name, f"resources/read {uri!r} returned no contents")
        item = result.contents[0]
        mime = getattr(item, "mime_type", None)
        text = getattr(item, "text", None)
        blob = getattr(item, "blob", "") or ""
        size = len(text) if text is not None else len(blob) // 4 * 3
        if size > config.max_content:
            raise ServerFailure(
                config.name,
                f"resources/read {uri!r:.200} returned {size} "
                f"{'characters' if text is not None else 'bytes'}; the limit is "
                f"{config.max_content} ([mcp] max_content)",
            )
        if text is not None:
            return text, mime
        return base64.b64decode(blob), mime

    return _run(config, env, op)
