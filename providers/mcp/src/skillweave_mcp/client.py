"""Talking to MCP servers with the official SDK, from synchronous code.

Each exchange opens a connection, does its work and closes it again inside one
``asyncio.run`` (or, when the caller already runs an event loop, inside a
worker thread with a loop of its own), all under the server's timeout. The
SDK's context managers own the subprocess or HTTP session, so nothing outlives
an exchange: no leaked processes, no background loop. What is worth keeping —
the listing — is cached by the provider, keyed by the server's configuration.

Every failure becomes a :class:`ServerFailure` with a one-line reason: the
command cannot be started, the server exits, does not answer in time, or sends
bytes that are not JSON-RPC (noticed at the first such line, not at the
timeout).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import logging
import os
import re
import tempfile
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import attrs
from skillweave.errors import SkillweaveError

if TYPE_CHECKING:
    from mcp import ClientSession

    from skillweave_mcp.config import ServerConfig

__all__ = [
    "SKILLS_EXTENSION",
    "Catalog",
    "PromptArg",
    "RemotePrompt",
    "RemoteSkill",
    "ServerFailure",
    "fetch_catalogs",
    "get_prompt",
    "read_resource",
    "run_sync",
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


class ServerFailure(SkillweaveError):
    """An MCP server could not be used; ``reason`` says why in one line."""

    def __init__(self, server: str, reason: str) -> None:
        super().__init__(f"MCP server {server!r}: {reason}")
        self.server = server
        self.reason = reason


@attrs.frozen
class PromptArg:
    """One declared argument of an MCP prompt."""

    name: str
    description: str | None = None
    required: bool = False


@attrs.frozen
class RemotePrompt:
    """One entry of ``prompts/list``."""

    name: str
    title: str | None = None
    description: str | None = None
    arguments: tuple[PromptArg, ...] = ()


@attrs.frozen
class RemoteSkill:
    """One skill served by an MCP server (SEP-2640).

    ``uri`` is the ``SKILL.md`` resource, ``skill_path`` the part between
    ``skill://`` and ``/SKILL.md``; ``frontmatter`` is the JSON frontmatter (from
    ``skills/list``) or what the resource metadata told (``name`` and
    ``description``, when found through ``resources/list``); ``resources`` maps
    each file URI to its ``sha256:`` digest (``None`` when the server did not
    publish digests). ``via`` is ``skills/list`` or ``resources/list``.
    """

    uri: str
    skill_path: str
    frontmatter: Mapping[str, Any]
    resources: Mapping[str, str] | None
    via: str


@attrs.frozen
class Catalog:
    """What one server offers: prompts, skills, and problems met while listing."""

    server: str
    server_name: str | None = None
    server_version: str | None = None
    prompts: tuple[RemotePrompt, ...] = ()
    skills: tuple[RemoteSkill, ...] = ()
    problems: tuple[str, ...] = ()


# -- running async code from sync code ----------------------------------------


def run_sync(factory: Callable[[], Awaitable[T]]) -> T:
    """Run ``factory()`` to completion from synchronous code.

    Uses ``asyncio.run``; when the calling thread already runs an event loop
    (an async host calling a synchronous skillweave API), the coroutine runs
    in a short-lived worker thread with its own loop instead.
    """

    async def main() -> T:
        return await factory()

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(main())
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="skillweave-mcp") as pool:
        return pool.submit(asyncio.run, main()).result()


# -- one exchange -------------------------------------------------------------


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
    name = type(exc).__name__
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if "Connect" in name or isinstance(exc, ConnectionError):
        return f"cannot connect to {config.url}: {text or name}"
    return f"{name}: {text}" if text else name


def _child_env(config: ServerConfig, env: Mapping[str, str]) -> dict[str, str]:
    """The SDK's safe inherited variables, taken from the context's environment."""
    from mcp.client.stdio import DEFAULT_INHERITED_ENV_VARS

    out = {k: env[k] for k in DEFAULT_INHERITED_ENV_VARS if k in env}
    out.update(dict(config.env))
    return out


async def _exchange(
    config: ServerConfig,
    env: Mapping[str, str],
    op: Callable[[ClientSession], Awaitable[T]],
) -> T:
    """Connect, initialise, run ``op`` and disconnect, within ``config.timeout``."""
    import anyio
    from mcp import ClientSession

    bad: list[Exception] = []
    bad_seen = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):
            bad.append(message)
            bad_seen.set()

    result: list[T] = []

    async def talk(read: Any, write: Any) -> None:
        async with (
            ClientSession(read, write, message_handler=on_message) as session,
            anyio.create_task_group() as tg,
        ):

            async def watch() -> None:
                await bad_seen.wait()
                tg.cancel_scope.cancel()

            tg.start_soon(watch)
            await session.initialize()
            result.append(await op(session))
            tg.cancel_scope.cancel()

    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        try:
            with anyio.fail_after(config.timeout):
                if config.transport == "http":
                    from mcp.client.streamable_http import streamable_http_client
                    from mcp.shared._httpx_utils import create_mcp_http_client

                    headers = dict(config.headers) or None
                    async with (
                        create_mcp_http_client(headers=headers) as http,
                        streamable_http_client(str(config.url), http_client=http) as streams,
                    ):
                        await talk(streams[0], streams[1])
                else:
                    from mcp.client.stdio import StdioServerParameters, stdio_client

                    params = StdioServerParameters(
                        command=str(config.command),
                        args=list(config.args),
                        env=_child_env(config, env),
                        cwd=config.cwd,
                        encoding_error_handler="replace",
                    )
                    async with stdio_client(params, errlog=errlog) as (read, write):
                        await talk(read, write)
        except TimeoutError:
            raise ServerFailure(
                config.name, f"no answer within {config.timeout:g}s (settings [mcp] timeout)"
            ) from None
        except ServerFailure:
            raise
        except Exception as exc:  # noqa: BLE001 - every SDK/transport failure becomes one reason
            if bad:
                raise ServerFailure(config.name, _garbage(bad[0])) from None
            errors = _flatten(exc)
            for err in errors:
                if isinstance(err, ServerFailure):
                    raise err from None
            reason = _describe(errors[0], config)
            tail = _stderr_tail(errlog)
            if tail:
                reason += f"; stderr: {tail}"
            raise ServerFailure(config.name, reason) from None
        if bad:
            raise ServerFailure(config.name, _garbage(bad[0]))
        if not result:
            raise ServerFailure(config.name, "the exchange ended without a result")
        return result[0]


def _garbage(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    detail = next((line.strip() for line in text if "input_value" in line), text[0] if text else "")
    return f"sent data that is not JSON-RPC ({detail[:200]})"


# -- listing ------------------------------------------------------------------


async def _paged(fetch: Callable[[Any], Awaitable[Any]], attr: str) -> list[Any]:
    from mcp import types

    items: list[Any] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await fetch(params)
        items.extend(getattr(page, attr))
        cursor = page.next_cursor
        if not cursor:
            break
    return items


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
    from pydantic import TypeAdapter, ValidationError

    caps = session.server_capabilities
    info = session.server_info
    problems: list[str] = []
    prompts: list[RemotePrompt] = []
    skills: list[RemoteSkill] = []
    if caps is None or caps.prompts is not None:
        try:
            for p in await _paged(lambda c: session.list_prompts(params=c), "prompts"):
                prompts.append(
                    RemotePrompt(
                        name=p.name,
                        title=p.title,
                        description=p.description,
                        arguments=tuple(
                            PromptArg(a.name, a.description, bool(a.required))
                            for a in (p.arguments or ())
                        ),
                    )
                )
        except (MCPError, ValidationError) as exc:
            problems.append(f"prompts/list failed: {_one_line(exc)}")
    extensions = (caps.extensions or {}) if caps is not None else {}
    if SKILLS_EXTENSION in extensions:
        try:
            cursor: str | None = None
            adapter = TypeAdapter(dict[str, Any])
            for _ in range(MAX_PAGES):
                page = await session.send_request(_skills_list_request(cursor), adapter)
                entries = page.get("skills")
                if not isinstance(entries, list):
                    problems.append("skills/list result has no 'skills' list")
                    break
                for entry in entries:
                    skill, why = _parse_skill_entry(entry)
                    if skill is not None:
                        skills.append(skill)
                    else:
                        problems.append(str(why))
                cursor = page.get("nextCursor")
                if not isinstance(cursor, str) or not cursor:
                    break
        except (MCPError, ValidationError) as exc:
            problems.append(f"skills/list failed: {_one_line(exc)}")
    elif caps is not None and caps.resources is not None:
        try:
            for r in await _paged(lambda c: session.list_resources(params=c), "resources"):
                path = _skill_path(str(r.uri))
                if path is None:
                    continue
                fm: dict[str, Any] = {"name": r.name or path.rsplit("/", 1)[-1]}
                if r.description:
                    fm["description"] = r.description
                skills.append(RemoteSkill(str(r.uri), path, fm, None, "resources/list"))
        except (MCPError, ValidationError) as exc:
            problems.append(f"resources/list failed: {_one_line(exc)}")
    return Catalog(
        server=config.name,
        server_name=info.name if info is not None else None,
        server_version=info.version if info is not None else None,
        prompts=tuple(prompts),
        skills=tuple(skills),
        problems=tuple(problems),
    )


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    return first[:300]


def fetch_catalogs(
    configs: Sequence[ServerConfig], env: Mapping[str, str]
) -> list[Catalog | ServerFailure]:
    """List every server concurrently; one result (or failure) per config, in order."""

    async def one(config: ServerConfig) -> Catalog | ServerFailure:
        try:
            return await _exchange(config, env, lambda s: _list_catalog(config, s))
        except ServerFailure as exc:
            return exc

    async def all_of() -> list[Catalog | ServerFailure]:
        return list(await asyncio.gather(*(one(c) for c in configs)))

    if not configs:
        return []
    return run_sync(all_of)


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
        return _render_messages(result)

    return run_sync(lambda: _exchange(config, env, op))


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
        if text is not None:
            return text, mime
        return base64.b64decode(getattr(item, "blob", "") or ""), mime

    return run_sync(lambda: _exchange(config, env, op))


def environment(env: Mapping[str, str] | None) -> Mapping[str, str]:
    """The environment to start servers from (the context's, else the process's)."""
    return env if env is not None else os.environ
