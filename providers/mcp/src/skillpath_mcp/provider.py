"""Skills from MCP servers: discovery, invocation and ``skill://`` reads.

Imported only when ``[mcp] servers`` is not empty (see ``skillpath_mcp``), so
hosts without MCP servers never load the SDK.

Every remote prompt or skill becomes a :class:`~skillpath.model.Skill`
through :func:`skillpath.scan.build_skill`, the builder local skills use, with
``SkillSource(provider="mcp", level="remote", loaded_from="mcp",
detail={"server": …, "kind": …, …})``. When a server offers a prompt and a
SEP-2640 skill of the same name (``skillpath serve`` does), they become one
skill: frontmatter and files from the skill entry, invocation through
``prompts/get`` so the server renders the arguments.

Listings are reused: within the process (one listing per server
configuration) and across runs through :mod:`skillpath_mcp._listcache`, until
the server's ``cache_ttl`` ends, its configuration or command changes, it sends
``list_changed``, or a refresh is asked for (``SKILLPATH_MCP_REFRESH=1``,
``--refresh``). ``source.detail["listed_at"]`` says when the listing was
fetched from the server (UTC) and ``source.detail["cached"]`` whether this
load took it from the cache. Content is never cached: a ``SKILL.md`` body, a
file or a prompt is asked from the server when used, checked against the
listing, and a mismatch with a cached listing drops the cache and lists the
server again before anything is refused.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import attrs
from skillpath import Diagnostic, Discovery, DiscoveryResult, Skill, SkillContext, SkillSource
from skillpath.errors import PromptError, ResolveError
from skillpath.frontmatter import parse_frontmatter, strip_frontmatter
from skillpath.safety import check_relative
from skillpath.scan import build_skill

from skillpath_mcp import _catalog, _listcache
from skillpath_mcp.config import ServerConfig, parse_servers, server_by_name

if TYPE_CHECKING:
    from types import ModuleType

    from skillpath.prompt import Invocation
    from skillpath.resources import Resource

__all__ = ["clear_cache", "discover", "resolve", "transform"]

PROVIDER_ID = "mcp"
PRIORITY = 20
#: Frontmatter keys dropped from MCP skills: nothing from a remote server runs locally.
_DROPPED_KEYS = ("hooks",)


@attrs.frozen
class _Listing:
    """Where a listing came from: when it was fetched (epoch seconds), and whether
    this load took it from the persistent cache."""

    fetched: float
    cached: bool = False

    def detail(self) -> dict[str, Any]:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.fetched))
        return {"listed_at": stamp, "cached": self.cached}


@attrs.frozen
class _Built:
    """One server's listing turned into skills (cached per configuration)."""

    skills: tuple[Skill, ...]
    diagnostics: tuple[Diagnostic, ...]
    fetched: float = 0.0
    #: the server could not be listed: held for its ``retry_after``, not its ``cache_ttl``
    failed: bool = False


_CACHE: dict[str, _Built] = {}
#: Bumped by ``list_changed``: a listing fetched across a bump is not kept.
_GENERATION: dict[str, int] = {}
_LOCK = threading.Lock()


def clear_cache() -> None:
    """Forget every listing held in this process and close every server connection.

    The next load reads the persistent cache or starts (or connects to) the
    servers again; :func:`forget` also drops a server's persistent cache.
    """
    with _LOCK:
        _CACHE.clear()
    _client().close_connections()


def forget(config: ServerConfig, env: Mapping[str, str]) -> None:
    """Drop every listing of ``config``'s server, in this process and on disk."""
    with _LOCK:
        _CACHE.pop(config.key, None)
        _GENERATION[config.key] = _GENERATION.get(config.key, 0) + 1
    _listcache.invalidate(config, env)
    from skillpath.watch import mark_changed

    mark_changed()  # running watchers load again


_catalog.on_list_changed(forget)


def _client() -> ModuleType:
    """:mod:`skillpath_mcp.client` (the SDK and ``asyncio``), imported when a server is used."""
    from skillpath_mcp import client

    return client


def _diag(level: str, code: str, message: str, config: ServerConfig | None = None) -> Diagnostic:
    path = config.origin if config is not None else None
    return Diagnostic(level, code, message, path, None, PROVIDER_ID)  # type: ignore[arg-type]


def _source(
    config: ServerConfig, catalog: _catalog.Catalog, listing: _Listing, **detail: Any
) -> SkillSource:
    info: dict[str, Any] = {
        "server": config.name,
        "transport": config.transport,
        "endpoint": config.describe(),
    }
    if catalog.server_name:
        info["server_info"] = {"name": catalog.server_name, "version": catalog.server_version}
    info.update(detail)
    info.update(listing.detail())
    return SkillSource(PROVIDER_ID, "remote", None, "mcp", info)


def _prompt_args(prompt: _catalog.RemotePrompt) -> list[dict[str, Any]]:
    return [
        {"name": a.name, "required": a.required, "description": a.description}
        for a in prompt.arguments
    ]


def _hint(prompt: _catalog.RemotePrompt) -> str:
    return " ".join(f"<{a.name}>" if a.required else f"[{a.name}]" for a in prompt.arguments)


def _prompt_body(config: ServerConfig, prompt: _catalog.RemotePrompt) -> str:
    """What ``skill.body`` shows for a prompt skill (the prompt itself needs its arguments)."""
    lines = [
        f"MCP prompt {prompt.name!r} from server {config.name!r}.",
        "",
        prompt.description or prompt.title or "",
    ]
    if prompt.arguments:
        lines += ["", f"Arguments: {_hint(prompt)}"]
        for a in prompt.arguments:
            if a.description:
                lines.append(f"- {a.name}: {a.description}")
    return "\n".join(lines).strip() + "\n"


def _digest(data: bytes | str) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def _fetch_verified(
    config: ServerConfig, env: Mapping[str, str], uri: str, resources: Mapping[str, str] | None
) -> tuple[bytes | str, str | None]:
    """Read ``uri`` from the server and check it against the published digest."""
    data, mime = _client().read_resource(config, env, uri)
    expected = resources.get(uri) if resources is not None else None
    if expected is not None and _digest(data) != expected:
        raise _catalog.ServerFailure(
            config.name,
            f"{uri} does not match the sha256 digest its skills/list entry published; not used",
        )
    return data, mime


def _skill_body_loader(
    config: ServerConfig, env: Mapping[str, str], remote: _catalog.RemoteSkill, listing: _Listing
) -> Any:
    """Load the ``SKILL.md`` body from the server, verified (raises :class:`PromptError`).

    The body is always read from the server. When it does not match a listing
    taken from the cache, the cache is dropped and the server listed again:
    the body is used if it matches the server's listing now.
    """

    def check(text: str, entry: _catalog.RemoteSkill) -> str | None:
        if entry.via != "skills/list":
            return None
        parsed = parse_frontmatter(text)
        # compared as listed, descriptions cut to [mcp] max_description the same way
        written, _cut = _catalog.cap_frontmatter(parsed.data, config.max_description)
        if json.dumps(written, sort_keys=True, default=str) != json.dumps(
            dict(entry.frontmatter), sort_keys=True, default=str
        ):
            return f"{entry.uri}: its frontmatter differs from its skills/list entry; not used"
        return None

    def fetch(entry: _catalog.RemoteSkill) -> str:
        data, _mime = _fetch_verified(config, env, entry.uri, entry.resources)
        text = data if isinstance(data, str) else data.decode("utf-8", errors="replace")
        problem = check(text, entry)
        if problem is not None:
            raise _catalog.ServerFailure(config.name, problem)
        return text

    def load() -> str:
        try:
            text = fetch(remote)
        except _catalog.ServerFailure as exc:
            if not listing.cached:
                raise PromptError(str(exc)) from None
            fresh = _relisted(config, env, remote.uri)
            if fresh is None:
                raise PromptError(
                    f"{exc} (its listing came from the cache, which is now dropped; "
                    "the server no longer lists it)"
                ) from None
            try:
                text = fetch(fresh)
            except _catalog.ServerFailure as again:
                raise PromptError(str(again)) from None
        return strip_frontmatter(text)

    return load


def _build_prompt_skill(
    config: ServerConfig,
    catalog: _catalog.Catalog,
    prompt: _catalog.RemotePrompt,
    listing: _Listing,
) -> tuple[Skill | None, list[Diagnostic]]:
    name = config.prefix + prompt.name
    data: dict[str, Any] = {
        "name": name,
        "description": prompt.description
        or prompt.title
        or f"MCP prompt {prompt.name!r} from server {config.name!r}.",
    }
    if prompt.arguments:
        data["arguments"] = [a.name for a in prompt.arguments]
        data["argument-hint"] = _hint(prompt)
    body = _prompt_body(config, prompt)
    source = _source(
        config, catalog, listing, kind="prompt", prompt=prompt.name, arguments=_prompt_args(prompt)
    )
    return build_skill(
        data,
        default_name=name,
        source=source,
        priority=PRIORITY,
        path=None,
        base_dir=None,
        require_description=False,
        body_loader=lambda: body,
    )


def _build_remote_skill(
    config: ServerConfig,
    env: Mapping[str, str],
    catalog: _catalog.Catalog,
    remote: _catalog.RemoteSkill,
    prompt: _catalog.RemotePrompt | None,
    name: str,
    listing: _Listing,
) -> tuple[Skill | None, list[Diagnostic]]:
    diags: list[Diagnostic] = []
    data = dict(remote.frontmatter)
    for key in _DROPPED_KEYS:
        if key in data:
            del data[key]
            diags.append(
                _diag(
                    "info",
                    "mcp-frontmatter-dropped",
                    f"skill {name!r} from MCP server {config.name!r}: {key!r} ignored "
                    "(nothing from a remote server runs locally)",
                    config,
                )
            )
    data["name"] = name
    detail: dict[str, Any] = {
        "kind": "skill",
        "uri": remote.uri,
        "skill_path": remote.skill_path,
        "via": remote.via,
        "resources": (
            [{"uri": u, "digest": d} for u, d in sorted(remote.resources.items())]
            if remote.resources is not None
            else None
        ),
    }
    if remote.files:
        detail["files"] = list(remote.files)
    if prompt is not None:
        detail["prompt"] = prompt.name
        detail["arguments"] = _prompt_args(prompt)
        if "arguments" not in data and prompt.arguments:
            data["arguments"] = [a.name for a in prompt.arguments]
        if "argument-hint" not in data and "argument_hint" not in data and prompt.arguments:
            data["argument-hint"] = _hint(prompt)
    if not data.get("description"):
        if remote.via == "skills/list":
            diags.append(
                _diag(
                    "warning",
                    "mcp-skill-no-description",
                    f"MCP server {config.name!r}: {remote.uri} has no description in its "
                    "skills/list frontmatter",
                    config,
                )
            )
        data["description"] = (prompt.description if prompt is not None else None) or (
            f"Skill {name!r} from MCP server {config.name!r}."
        )
    skill, bdiags = build_skill(
        data,
        default_name=name,
        source=_source(config, catalog, listing, **detail),
        priority=PRIORITY,
        path=None,
        base_dir=None,
        require_description=False,
        body_hint=str(remote.frontmatter.get("description") or ""),
        body_loader=_skill_body_loader(config, env, remote, listing),
    )
    return skill, diags + bdiags


def _build(
    config: ServerConfig, env: Mapping[str, str], catalog: _catalog.Catalog, listing: _Listing
) -> _Built:
    """Turn one server's catalog into skills, skills first, then the prompts left."""
    diags = [
        _diag("warning", "mcp-server-partial", f"MCP server {config.name!r}: {p}", config)
        for p in catalog.problems
    ]
    skills: list[Skill] = []
    prompts = {p.name: p for p in catalog.prompts}
    used_prompts: set[str] = set()
    names: set[str] = set()
    for remote in catalog.skills:
        last = remote.skill_path.rsplit("/", 1)[-1]
        fm_name = remote.frontmatter.get("name")
        base = fm_name if isinstance(fm_name, str) and fm_name else last
        if base != last:
            diags.append(
                _diag(
                    "warning",
                    "mcp-skill-name-mismatch",
                    f"MCP server {config.name!r}: {remote.uri} has frontmatter name {base!r}, "
                    f"but its path ends in {last!r}; using {base!r}",
                    config,
                )
            )
        name = config.prefix + base
        if name in names:
            alt = config.prefix + remote.skill_path.replace("/", "-")
            diags.append(
                _diag(
                    "info",
                    "mcp-skill-renamed",
                    f"MCP server {config.name!r}: two skills are named {name!r}; "
                    f"{remote.uri} is loaded as {alt!r}",
                    config,
                )
            )
            name = alt
        prompt = prompts.get(base)
        if prompt is not None and base not in used_prompts:
            used_prompts.add(base)
        else:
            prompt = None
        skill, sdiags = _build_remote_skill(config, env, catalog, remote, prompt, name, listing)
        diags.extend(_attribute(d, config) for d in sdiags)
        if skill is not None:
            names.add(skill.name)
            skills.append(skill)
    for prompt in catalog.prompts:
        if prompt.name in used_prompts:
            continue
        skill, sdiags = _build_prompt_skill(config, catalog, prompt, listing)
        diags.extend(_attribute(d, config) for d in sdiags)
        if skill is not None:
            names.add(skill.name)
            skills.append(skill)
    return _Built(tuple(skills), tuple(diags), listing.fetched)


def _attribute(d: Diagnostic, config: ServerConfig) -> Diagnostic:
    """Say which server a builder diagnostic is about."""
    if config.name in d.message:
        return d
    return attrs.evolve(
        d,
        message=f"MCP server {config.name!r}: {d.message}",
        path=d.path or config.origin,
        provider=PROVIDER_ID,
    )


def _current(built: _Built | None, config: ServerConfig, now: float) -> bool:
    """Whether a listing held in this process may still be used (within its TTL)."""
    if built is None:
        return False
    ttl = config.retry_after if built.failed else config.cache_ttl
    return ttl <= 0 or built.fetched - _listcache._SKEW <= now < built.fetched + ttl


def _failed(config: ServerConfig, failure: _catalog.ServerFailure, now: float) -> _Built:
    message = str(failure)
    if config.retry_after > 0:
        message += (
            f" (not tried again for {config.retry_after:g}s, [mcp] retry_after; "
            "--refresh tries it now)"
        )
    diag = _diag("error", "mcp-server-failed", f"{message}; its skills are not loaded", config)
    return _Built((), (diag,), now, failed=True)


def _remembered(config: ServerConfig, failure: _listcache.Failed) -> _Built:
    """A failure of an earlier run, still within ``retry_after``: shown, not retried."""
    until = time.strftime("%H:%M:%SZ", time.gmtime(failure.fetched + config.retry_after))
    diag = _diag(
        "error",
        "mcp-server-failed",
        f"MCP server {config.name!r}: {failure.reason} (failed at {failure.stamp}; not "
        f"tried again until {until}, [mcp] retry_after; --refresh tries it now); "
        "its skills are not loaded",
        config,
    )
    return _Built((), (diag,), failure.fetched, failed=True)


def _progress_stream(env: Mapping[str, str]) -> Any:
    """Where to show which servers are being waited for: stderr when it is a terminal,
    unless ``SKILLPATH_QUIET`` or ``SKILLPATH_MCP_PROGRESS=0`` says not to."""
    import sys

    if env.get("SKILLPATH_MCP_PROGRESS", "").strip() == "0":
        return None
    if env.get("SKILLPATH_QUIET", "").strip() not in ("", "0"):
        return None
    stream = sys.stderr
    try:
        return stream if stream is not None and stream.isatty() else None
    except (AttributeError, ValueError, OSError):
        return None


def discover(ctx: SkillContext) -> DiscoveryResult:
    """List every configured server and build its skills.

    A listing is reused from this process or from the persistent cache
    (:mod:`skillpath_mcp._listcache`) while it is current; otherwise the
    servers not current are listed concurrently and each complete listing is
    cached. Each server's wait is bounded by its ``timeout``, and the servers
    are waited for together; on a terminal, stderr shows which ones are still
    awaited. A server that fails is an ``mcp-server-failed`` error, and the
    failure is remembered for ``retry_after`` seconds: the loads in between
    show it without starting or waiting for the server again.
    ``SKILLPATH_MCP_REFRESH=1`` in the context's environment lists every
    server again.

    The result is ``late`` (merged after custom directories) with priority
    :data:`PRIORITY`, so any local skill of the same name wins and the clash
    is reported by the pipeline's ``name-conflict`` diagnostic.
    """
    d = Discovery(PROVIDER_ID, PRIORITY, late=True)
    configs, cdiags = parse_servers(ctx)
    d.diagnostics.extend(cdiags)
    depth = _catalog.nesting_depth(ctx.env)
    if depth >= _catalog.MAX_DEPTH and configs:
        d.diagnostic(
            "warning",
            "mcp-too-deep",
            f"this process is MCP server number {depth} of a chain "
            f"({_catalog.DEPTH_VAR}={depth}); its own [[mcp.servers]] are not started "
            f"(at most {_catalog.MAX_DEPTH} levels, so a project serving itself cannot loop)",
        )
        return d.result()
    refresh = _listcache.refresh_requested(ctx.env)
    now = _listcache.now()
    built_now: dict[str, _Built] = {}
    todo: list[ServerConfig] = []
    with _LOCK:
        for config in configs:
            held = _CACHE.get(config.key)
            if not refresh and _current(held, config, now):
                assert held is not None
                built_now[config.key] = held
                if config.cache_ttl > 0:
                    from skillpath.cache.changes import expires

                    expires(int((held.fetched + config.cache_ttl) * 1_000_000_000))
            else:
                todo.append(config)
    fetch: list[ServerConfig] = []
    for config in todo:
        hit = None if refresh else _listcache.load(config, ctx.env)
        if hit is None:
            failure = None if refresh else _listcache.load_failure(config, ctx.env)
            if failure is None:
                fetch.append(config)
                continue
            built = _remembered(config, failure)
            built_now[config.key] = built
            with _LOCK:
                _CACHE[config.key] = built
            continue
        built = _build(config, ctx.env, hit.catalog, _Listing(hit.fetched, cached=True))
        built_now[config.key] = built
        with _LOCK:
            _CACHE[config.key] = built
    if fetch and _background(ctx.env):
        built_now.update(_list_in_background(fetch, ctx.env))
    elif fetch:
        built_now.update(_fetch_and_keep(fetch, ctx.env, _progress_stream(ctx.env)))
    for config in configs:
        built = built_now[config.key]
        d.add(built.skills)
        d.diagnostics.extend(built.diagnostics)
    return d.result()


#: Set to 1 (``skillpath serve`` does): servers to list are listed in the background,
#: and the load in progress goes on without their skills (see :func:`discover`).
BACKGROUND_VAR = "SKILLPATH_MCP_BACKGROUND"
#: The servers (config keys) being listed in the background now.
_LISTING: set[str] = set()


def _background(env: Mapping[str, str]) -> bool:
    return env.get(BACKGROUND_VAR, "").strip().lower() in ("1", "true", "yes", "on")


def _fetch_and_keep(
    fetch: list[ServerConfig], env: Mapping[str, str], progress: Any
) -> dict[str, _Built]:
    """List ``fetch`` together, build their skills, and keep each result: a listing in
    this process and on disk, a failure for its ``retry_after``."""
    with _LOCK:
        generations = {c.key: _GENERATION.get(c.key, 0) for c in fetch}
    idents = {c.key: _listcache.identity(c, env) for c in fetch}
    stamp = _listcache.now()
    client = _client()
    closes = client.CLOSES[0]
    fetched = client.fetch_catalogs(fetch, env, progress=progress)
    # connections closed by this process meanwhile (its exit, clear_cache): a failure
    # then is not the server's, and is neither kept nor remembered
    closed = client.CLOSES[0] != closes
    out: dict[str, _Built] = {}
    for config, res in zip(fetch, fetched, strict=True):
        if isinstance(res, _catalog.ServerFailure):
            built = _failed(config, res, stamp)
        else:
            built = _build(config, env, res, _Listing(stamp))
        out[config.key] = built
        with _LOCK:
            unchanged = _GENERATION.get(config.key, 0) == generations[config.key]
            if unchanged and not (closed and built.failed):
                _CACHE[config.key] = built
        if isinstance(res, _catalog.ServerFailure):
            if closed:
                continue
            # the last good listing is not served in its place; the failure is, for
            # the next runs within retry_after (a hung server costs one wait)
            _listcache.store_failure(config, env, res.reason, stamp, idents[config.key])
        elif unchanged:
            _listcache.store(config, env, res, stamp, idents[config.key])
    return out


def _list_in_background(fetch: list[ServerConfig], env: Mapping[str, str]) -> dict[str, _Built]:
    """Start listing ``fetch`` in a thread; what the load in progress shows meanwhile.

    A long-running host (``skillpath serve``) must not make its clients wait for
    one slow or hung server: its catalog is made without them, and when they
    have answered (or failed) :func:`skillpath.watch.mark_changed` makes the
    host load again, this time from what was kept.
    """
    with _LOCK:
        start = [c for c in fetch if c.key not in _LISTING]
        _LISTING.update(c.key for c in start)

    def run() -> None:
        try:
            _fetch_and_keep(start, env, None)
        finally:
            with _LOCK:
                _LISTING.difference_update(c.key for c in start)
            from skillpath.watch import mark_changed

            mark_changed()

    if start:
        threading.Thread(target=run, name="skillpath-mcp-listing", daemon=True).start()
    return {
        c.key: _Built(
            (),
            (
                _diag(
                    "info",
                    "mcp-server-listing",
                    f"MCP server {c.name!r} is being listed; its skills follow when it "
                    f"answers (at most {c.timeout:g}s)",
                    c,
                ),
            ),
        )
        for c in fetch
    }


def _relisted(
    config: ServerConfig, env: Mapping[str, str], uri: str
) -> _catalog.RemoteSkill | None:
    """Drop the cached listing, list the server again, and its entry for ``uri`` now."""
    forget(config, env)
    ident = _listcache.identity(config, env)
    stamp = _listcache.now()
    (res,) = _client().fetch_catalogs([config], env)
    if isinstance(res, _catalog.ServerFailure):
        return None
    _listcache.store(config, env, res, stamp, ident)
    for remote in res.skills:
        if remote.uri == uri:
            return remote
    return None


# -- invocation ---------------------------------------------------------------


def _is_mcp(skill: Skill | None) -> bool:
    return (
        skill is not None
        and skill.source.provider == PROVIDER_ID
        and skill.source.loaded_from == "mcp"
        and "server" in skill.source.detail
    )


def _config_for(skill: Skill, ctx: SkillContext, error: type[Exception]) -> ServerConfig:
    server = str(skill.source.detail["server"])
    config = server_by_name(ctx, server)
    if config is None:
        raise error(f"skill {skill.name!r}: MCP server {server!r} is no longer configured")
    return config


def transform(text: str, invocation: Invocation, ctx: SkillContext) -> str | None:
    """The prompt text of an MCP skill. Other skills: unchanged.

    A skill backed by a prompt: ``prompts/get`` with the mapped arguments (the
    text so far, the skill's description, is replaced). A skill without one:
    the text so far (its ``SKILL.md`` body, read and verified from the server)
    with ``ARGUMENTS: …`` appended when arguments were given. Nothing is ever
    executed locally for an MCP skill.
    """
    skill = invocation.skill
    if not _is_mcp(skill):
        return None
    detail = skill.source.detail
    prompt = detail.get("prompt")
    if prompt:
        from skillpath_mcp.arguments import map_arguments

        declared = [
            (str(a["name"]), bool(a.get("required"))) for a in detail.get("arguments") or ()
        ]
        arguments = map_arguments(str(prompt), declared, invocation.args)
        config = _config_for(skill, ctx, PromptError)
        try:
            return _client().get_prompt(config, ctx.env, str(prompt), arguments)
        except _catalog.ServerFailure as exc:
            if detail.get("cached"):
                # the server may have changed since it was listed: list it afresh next time
                forget(config, ctx.env)
                raise PromptError(
                    f"{exc} (its listing came from the cache, which is now dropped)"
                ) from None
            raise PromptError(str(exc)) from None
    if invocation.args.strip():
        return text.rstrip("\n") + f"\n\nARGUMENTS: {invocation.args.strip()}\n"
    return text


# -- skill:// reads -------------------------------------------------------------


def _split_url(url: str) -> tuple[str, str, bool] | None:
    """``(name, decoded relative path, had a slash)`` like the core resolver decodes them."""
    if url[: len("skill://")].lower() != "skill://":
        return None
    rest = url[len("skill://") :]
    raw_name, sep, raw_rel = rest.partition("/")
    try:
        name = unquote(raw_name, encoding="utf-8", errors="strict")
        rel = unquote(raw_rel, encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        raise ResolveError(f"{url!r:.100} is not valid UTF-8 after percent-decoding") from None
    return name, rel, bool(sep)


def _files(skill: Skill) -> list[str]:
    """The skill's files relative to its root (just ``SKILL.md`` when not published)."""
    detail = skill.source.detail
    uri = str(detail.get("uri") or "")
    resources = detail.get("resources")
    uris = [r["uri"] for r in resources] if resources else list(detail.get("files") or ())
    if not uris or not uri:
        return ["SKILL.md"]
    base = uri[: -len("SKILL.md")]
    return sorted({u[len(base) :] for u in uris if u.startswith(base)} | {"SKILL.md"})


def _listing(files: list[str], folder: str) -> str | None:
    """Entries directly under ``folder`` (``""`` for the root), directories with ``/``."""
    prefix = folder.rstrip("/") + "/" if folder else ""
    entries: set[str] = set()
    for f in files:
        if not f.startswith(prefix):
            continue
        head, sep, _ = f[len(prefix) :].partition("/")
        entries.add(head + "/" if sep else head)
    if not entries:
        return None
    return "\n".join(sorted(entries)) + "\n"


def resolve(url: str, ctx: SkillContext) -> Resource | None:
    """Read ``skill://<name>/<path>`` for a skill loaded from an MCP server.

    Only URLs naming an MCP skill are handled (``None`` otherwise); the file
    is read from the skill's own server and nowhere else. The URL is decoded
    as the core resolver decodes it (``skill://name`` is ``SKILL.md``,
    ``skill://name/.`` lists the files) and the relative path must pass the
    core's containment check. When the server published the skill's file
    list, only listed files are read and each is checked against its digest.
    """
    parts = _split_url(url)
    if parts is None:
        return None
    name, rel, _ = parts
    skill = ctx.skills.get(name)
    if not _is_mcp(skill):
        return None
    from skillpath.resources import Resource

    assert skill is not None
    detail = skill.source.detail
    if rel in (".", "./"):
        return Resource(url, _listing(_files(skill), "") or "", "text/plain", None, name, True)
    clean = str(check_relative(rel)) if rel else "SKILL.md"
    if detail.get("kind") != "skill":
        if clean != "SKILL.md":
            raise ResolveError(
                f"File not found: skill {name!r} is the MCP prompt {detail.get('prompt')!r} "
                f"of server {detail.get('server')!r} and has no file {clean!r}"
            )
        return Resource(url, skill.body, "text/markdown", None, name)
    uri = str(detail["uri"])
    remote_uri = uri[: -len("SKILL.md")] + clean
    resources = detail.get("resources")
    digests = {r["uri"]: r["digest"] for r in resources} if resources is not None else None
    if digests is not None and remote_uri not in digests:
        listing = _listing(_files(skill), clean)
        if listing is not None:
            return Resource(url, listing, "text/plain", None, name, True)
        raise ResolveError(
            f"File not found: skill {name!r} has no file {clean!r} "
            f"(per the skills/list entry of MCP server {detail.get('server')!r})"
        )
    config = _config_for(skill, ctx, ResolveError)
    try:
        data, mime = _fetch_verified(config, ctx.env, remote_uri, digests)
    except _catalog.ServerFailure as exc:
        if not detail.get("cached"):
            raise ResolveError(str(exc)) from None
        # the listing came from the cache: list the server again and check against that
        fresh = _relisted(config, ctx.env, uri)
        if fresh is None or (fresh.resources is not None and remote_uri not in fresh.resources):
            raise ResolveError(
                f"{exc} (its listing came from the cache, which is now dropped)"
            ) from None
        try:
            data, mime = _fetch_verified(config, ctx.env, remote_uri, fresh.resources)
        except _catalog.ServerFailure as again:
            raise ResolveError(str(again)) from None
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    if "\x00" in text[:8192]:
        raise ResolveError(f"Cannot read {clean!r} of skill {name!r}: binary file")
    return Resource(url, text, mime or _mime_for(clean), None, name)


def _mime_for(path: str) -> str:
    """The core resolver's content types: Markdown, JSON, else plain text."""
    ext = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
    if ext in ("md", "markdown", "mdx"):
        return "text/markdown"
    if ext == "json":
        return "application/json"
    return "text/plain"
