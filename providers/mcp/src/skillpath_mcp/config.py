"""``[[mcp.servers]]`` entries: validation into :class:`ServerConfig` records.

This module does not import the MCP SDK, so reading and checking the settings
costs nothing when no server is configured.

An entry is a table with ``name`` and either ``command`` (with optional
``args``, ``env`` and ``cwd``) for a server started as a subprocess and spoken
to over stdio, or ``url`` (with optional ``headers``) for a streamable HTTP
server. Optional keys for both: ``enabled`` (default true), ``timeout``
(seconds, overrides ``[mcp] timeout``), ``prefix`` (prepended to every
skill name from that server, e.g. ``"docs-"``) and ``cache_ttl`` (seconds a
listing is reused from the cache, overrides ``[mcp] cache_ttl``; ``0`` lists
the server every run; see :mod:`skillpath_mcp._listcache`).

A server that could not be listed (it did not start, did not answer within its
``timeout``, sent garbage) is not tried again for ``[mcp] retry_after`` seconds
(default :data:`DEFAULT_RETRY_AFTER`; ``0`` tries it every run): its failure is
remembered in the same cache, and ``--refresh`` tries it at once.

What one server may hand over is capped by ``[mcp]`` settings that apply to
every server: ``max_items`` (prompts, skills, and files per skill, each;
default 1000), ``max_description`` (characters of a description or title;
default 1024) and ``max_content`` (characters of a rendered prompt or of a
file read; default 8 MiB). Lists and descriptions beyond them are cut and the
cut is reported; a content beyond ``max_content`` is refused.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
from skillpath import Diagnostic, SkillContext
from skillpath.safety import MAX_CONFIG_BYTES, read_bounded

__all__ = ["ServerConfig", "parse_servers", "server_by_name"]

PROVIDER_ID = "mcp"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
_KNOWN = {
    "name",
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "enabled",
    "timeout",
    "prefix",
    "cache_ttl",
}
#: Default seconds a server's listing is reused from the cache (``[mcp] cache_ttl``).
DEFAULT_CACHE_TTL = 900.0
#: Default seconds a server that failed is not tried again (``[mcp] retry_after``).
DEFAULT_RETRY_AFTER = 300.0


@attrs.frozen
class ServerConfig:
    """One validated MCP server entry.

    ``transport`` is ``stdio`` or ``http``. ``timeout`` is in seconds and
    bounds each whole exchange with the server (start, handshake, requests).
    ``origin`` is the config file that declared the server, when known.
    ``cache_ttl`` is how many seconds its listing may be reused from the
    cache (``0``: never), ``retry_after`` how many seconds a failure to list
    it is remembered (``0``: never); neither is part of :attr:`key`.
    """

    name: str
    transport: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    timeout: float = 15.0
    prefix: str = ""
    max_items: int = 1000
    max_description: int = 1024
    max_content: int = 8 * 1024 * 1024
    cache_ttl: float = DEFAULT_CACHE_TTL
    retry_after: float = DEFAULT_RETRY_AFTER
    origin: Path | None = attrs.field(default=None, eq=False)

    @property
    def key(self) -> str:
        """A stable fingerprint of everything that decides what the server returns."""
        data = attrs.asdict(self)
        data.pop("origin", None)
        data.pop("cache_ttl", None)
        data.pop("retry_after", None)
        raw = json.dumps(data, sort_keys=True, default=str)
        return hashlib.sha256(raw.encode()).hexdigest()[:16]

    def describe(self) -> str:
        """``command args…`` or the URL, for messages."""
        if self.transport == "http":
            return str(self.url)
        return " ".join([str(self.command), *self.args])


def _origin(ctx: SkillContext, entry: Any) -> Path | None:
    """The config file that holds ``entry``, when known.

    The settings know which file set ``[mcp] servers`` (a project's config
    only counts when the user trusts the project); settings built in code
    without that record fall back to the last file that holds the entry.
    """
    recorded = ctx.settings.origin_path("mcp", "servers")
    if recorded is not None or ctx.settings.origin("mcp", "servers") is not None:
        return recorded
    import tomllib

    found: Path | None = None
    for path in ctx.settings.files:
        try:
            data = tomllib.loads(read_bounded(path, MAX_CONFIG_BYTES).decode("utf-8-sig"))
        except (OSError, ValueError):
            continue
        servers = data.get("mcp", {}).get("servers", []) if isinstance(data, dict) else []
        if isinstance(servers, list) and any(s == entry for s in servers):
            found = path
    return found


def _str_list(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def _str_table(value: Any) -> tuple[tuple[str, str], ...] | None:
    if isinstance(value, Mapping) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        return tuple(sorted(value.items()))
    return None


def _ttl(value: Any) -> float | None:
    """``value`` as a cache TTL in seconds (``None`` when it is not a number ``>= 0``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        return None
    return float(value) if value != float("inf") else None


def _check_entry(
    entry: Any, default_timeout: float, default_ttl: float = DEFAULT_CACHE_TTL
) -> tuple[ServerConfig | None, str | None, list[str]]:
    """``(config, error, warnings)`` for one raw entry."""
    warnings: list[str] = []
    if not isinstance(entry, Mapping):
        return None, f"must be a table, got {type(entry).__name__}", warnings
    name = entry.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        return (
            None,
            f"'name' must be 1-64 letters, digits, '.', '_' or '-', got {name!r}",
            warnings,
        )
    unknown = sorted(set(entry) - _KNOWN)
    if unknown:
        warnings.append(f"server {name!r}: unknown keys ignored: {', '.join(unknown)}")
    command, url = entry.get("command"), entry.get("url")
    if (command is None) == (url is None):
        return (
            None,
            f"server {name!r}: give exactly one of 'command' (stdio) or 'url' (HTTP)",
            warnings,
        )
    timeout = entry.get("timeout", default_timeout)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        return None, f"server {name!r}: 'timeout' must be a positive number of seconds", warnings
    if not isinstance(entry.get("enabled", True), bool):
        return None, f"server {name!r}: 'enabled' must be true or false", warnings
    prefix = entry.get("prefix", "")
    if not isinstance(prefix, str):
        return None, f"server {name!r}: 'prefix' must be a string", warnings
    cache_ttl = _ttl(entry.get("cache_ttl", default_ttl))
    if cache_ttl is None:
        return (
            None,
            f"server {name!r}: 'cache_ttl' must be a number of seconds >= 0 (0: no cache)",
            warnings,
        )
    if command is not None:
        if not isinstance(command, str) or not command.strip():
            return None, f"server {name!r}: 'command' must be a non-empty string", warnings
        args = _str_list(entry.get("args", []))
        if args is None:
            return None, f"server {name!r}: 'args' must be a list of strings", warnings
        env = _str_table(entry.get("env", {}))
        if env is None:
            return None, f"server {name!r}: 'env' must be a table of strings", warnings
        cwd = entry.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            return None, f"server {name!r}: 'cwd' must be a string", warnings
        for key in ("url", "headers"):
            if key in entry:
                warnings.append(f"server {name!r}: {key!r} is for HTTP servers; ignored")
        return (
            ServerConfig(
                name=name,
                transport="stdio",
                command=command,
                args=args,
                env=env,
                cwd=cwd,
                timeout=float(timeout),
                prefix=prefix,
                cache_ttl=cache_ttl,
            ),
            None,
            warnings,
        )
    if not isinstance(url, str) or not re.match(r"https?://[^\s/]+", url):
        return (
            None,
            f"server {name!r}: 'url' must be an http:// or https:// URL, got {url!r}",
            warnings,
        )
    headers = _str_table(entry.get("headers", {}))
    if headers is None:
        return None, f"server {name!r}: 'headers' must be a table of strings", warnings
    for key in ("args", "env", "cwd"):
        if key in entry:
            warnings.append(f"server {name!r}: {key!r} is for stdio servers; ignored")
    return (
        ServerConfig(
            name=name,
            transport="http",
            url=url,
            headers=headers,
            timeout=float(timeout),
            prefix=prefix,
            cache_ttl=cache_ttl,
        ),
        None,
        warnings,
    )


def parse_servers(ctx: SkillContext) -> tuple[list[ServerConfig], list[Diagnostic]]:
    """Validate ``[mcp] servers``: good entries in order, bad ones as diagnostics.

    Duplicate names keep the first entry; ``enabled = false`` entries are
    skipped silently (an ``info`` diagnostic says so).
    """
    raw: Sequence[Any] = ctx.settings.get("mcp", "servers", ()) or ()
    default_timeout = float(ctx.settings.get("mcp", "timeout", 15) or 15)
    out: list[ServerConfig] = []
    diags: list[Diagnostic] = []
    caps: dict[str, Any] = _caps(ctx, diags) if raw else {}
    default_ttl = _default_ttl(ctx, diags) if raw else DEFAULT_CACHE_TTL
    retry_after = _retry_after(ctx, diags) if raw else DEFAULT_RETRY_AFTER
    seen: set[str] = set()
    for index, entry in enumerate(raw):
        where = f"[[mcp.servers]] entry {index + 1}"
        config, error, warnings = _check_entry(entry, default_timeout, default_ttl)
        path = _origin(ctx, entry) if (error or warnings) else None
        for w in warnings:
            diags.append(
                Diagnostic("warning", "mcp-config", f"{where}: {w}", path, None, PROVIDER_ID)
            )
        if error is not None or config is None:
            diags.append(
                Diagnostic(
                    "error",
                    "mcp-config",
                    f"{where}: {error}; server skipped",
                    path,
                    None,
                    PROVIDER_ID,
                )
            )
            continue
        if isinstance(entry, Mapping) and entry.get("enabled", True) is False:
            diags.append(
                Diagnostic(
                    "info",
                    "mcp-server-disabled",
                    f"MCP server {config.name!r} is disabled (enabled = false)",
                    None,
                    None,
                    PROVIDER_ID,
                )
            )
            continue
        if config.name in seen:
            diags.append(
                Diagnostic(
                    "error",
                    "mcp-config",
                    f"{where}: duplicate server name {config.name!r}; the first entry is used",
                    _origin(ctx, entry),
                    None,
                    PROVIDER_ID,
                )
            )
            continue
        seen.add(config.name)
        out.append(
            attrs.evolve(config, origin=_origin(ctx, entry), retry_after=retry_after, **caps)
        )
    return out, diags


#: ``[mcp]`` caps on what one server may hand over, with their defaults.
CAPS = {"max_items": 1000, "max_description": 1024, "max_content": 8 * 1024 * 1024}


def _caps(ctx: SkillContext, diags: list[Diagnostic]) -> dict[str, int]:
    """The ``[mcp]`` caps; a value that is not a positive integer keeps the default."""
    out: dict[str, int] = {}
    for key, default in CAPS.items():
        value = ctx.settings.get("mcp", key, default)
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            diags.append(
                Diagnostic(
                    "warning",
                    "mcp-config",
                    f"[mcp] {key} must be a positive integer, got {value!r}; using {default}",
                    ctx.settings.origin_path("mcp", key),
                    None,
                    PROVIDER_ID,
                )
            )
            value = default
        out[key] = value
    return out


def _default_ttl(ctx: SkillContext, diags: list[Diagnostic]) -> float:
    """``[mcp] cache_ttl``; a value that is not a number ``>= 0`` keeps the default."""
    value = ctx.settings.get("mcp", "cache_ttl", DEFAULT_CACHE_TTL)
    ttl = _ttl(value)
    if ttl is None:
        diags.append(
            Diagnostic(
                "warning",
                "mcp-config",
                f"[mcp] cache_ttl must be a number of seconds >= 0, got {value!r}; "
                f"using {DEFAULT_CACHE_TTL:g}",
                ctx.settings.origin_path("mcp", "cache_ttl"),
                None,
                PROVIDER_ID,
            )
        )
        return DEFAULT_CACHE_TTL
    return ttl


def _retry_after(ctx: SkillContext, diags: list[Diagnostic]) -> float:
    """``[mcp] retry_after``; a value that is not a number ``>= 0`` keeps the default."""
    value = ctx.settings.get("mcp", "retry_after", DEFAULT_RETRY_AFTER)
    seconds = _ttl(value)
    if seconds is None:
        diags.append(
            Diagnostic(
                "warning",
                "mcp-config",
                f"[mcp] retry_after must be a number of seconds >= 0, got {value!r}; "
                f"using {DEFAULT_RETRY_AFTER:g}",
                ctx.settings.origin_path("mcp", "retry_after"),
                None,
                PROVIDER_ID,
            )
        )
        return DEFAULT_RETRY_AFTER
    return seconds


def server_by_name(ctx: SkillContext, name: str) -> ServerConfig | None:
    """The configured (and valid) server called ``name``, if any."""
    servers, _ = parse_servers(ctx)
    for server in servers:
        if server.name == name:
            return server
    return None
