"""The persistent cache of MCP server listings (``<cache>/mcp``).

Listing a stdio server means starting it, and a server can take seconds to
answer; so what one run listed (the :class:`~skillpath_mcp._catalog.Catalog`:
prompts, skills with their frontmatter and file digests, the problems met) is
kept, and the next runs reuse it without starting the server while all of
this holds:

* **the same identity**: everything in the server's config entry (command,
  args, env, cwd, url, headers, timeout, prefix, the ``[mcp]`` caps), the
  variables a stdio server inherits (``HOME``, ``PATH``, … and the nesting
  depth), and for a stdio server the file identity (device, inode, size,
  ``mtime``) of the resolved command and of every argument that names an
  existing file (``python server.py``: editing ``server.py`` counts). The
  identity names the cache file, so a changed entry simply finds no file;
* **the TTL**: the listing is younger than the server's ``cache_ttl``
  (``[mcp] cache_ttl``, default :data:`~skillpath_mcp.config.DEFAULT_CACHE_TTL`
  seconds; ``0`` turns the cache off for that server). A listing stamped in
  the future (a clock set back) is not believed;
* **no list_changed**: a long-running process (``serve``, a
  ``SkillSession``, ``watch``) that has the server open removes its file when
  the server sends ``notifications/prompts/list_changed`` or
  ``notifications/resources/list_changed``;
* **no refresh**: ``--refresh`` (``SKILLPATH_MCP_REFRESH=1``) lists every
  server again and rewrites its file.

Only complete listings are stored: a listing one of whose list calls failed is
never cached. A server that could not be listed at all (it could not be
started, did not answer within its ``timeout``, sent bytes that are not
JSON-RPC) has its failure stored in place of the listing cached before: for
``[mcp] retry_after`` seconds (:func:`load_failure`) the next runs show the
same failure without starting or waiting for the server again — a hung server
costs one wait, not one per run. The failure is keyed by the same identity, so
a changed entry, command or script tries the server again, and so does
``--refresh``. Reading a skill's content (``show``,
``invoke``, ``skill://``) always asks the server, and when the server's answer
does not match a cached listing the file is removed and the listing fetched
again at once.

The files get the same trust rules as every skillpath cache
(:mod:`skillpath.cache.files`): only a regular file (not a link) of this user,
in folders of this user that no one else may write, of at most
:data:`MAX_BYTES`, with a valid magic number and CRC-32, is read; its content
(JSON) is checked field by field and anything unexpected makes it absent. What
a server sent stays untrusted data: it is rebuilt into skills by the same code
and under the same caps as a fresh listing.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
from collections.abc import Mapping
from typing import Any

import skillpath.cache.files as _cachefile
from skillpath.cache.changes import expires

from skillpath_mcp import _catalog
from skillpath_mcp.config import ServerConfig

__all__ = [
    "MAX_BYTES",
    "MAX_FILES",
    "REFRESH_VAR",
    "Cached",
    "cache_dir",
    "identity",
    "invalidate",
    "load",
    "load_failure",
    "now",
    "refresh_requested",
    "store",
    "store_failure",
]

#: On-disk format version (part of the magic number).
FORMAT = 1
_MAGIC = _cachefile.magic(b"SWMCP", FORMAT)
#: Largest cache file read or written (a bigger listing is not cached).
MAX_BYTES = 32 << 20
#: Listing files kept (the least recently written go first), and bytes in all.
MAX_FILES = 64
MAX_TOTAL = 128 << 20
#: Set to 1 (``--refresh``): list every server again, ignoring its cache.
REFRESH_VAR = "SKILLPATH_MCP_REFRESH"
#: A listing stamped this far in the future is not believed (seconds).
_SKEW = 60.0
_SUFFIX = ".lst"

#: Variables a stdio server inherits (the MCP SDK's ``DEFAULT_INHERITED_ENV_VARS``,
#: copied so that reading the cache never imports the SDK; a test checks they agree).
INHERITED_ENV_VARS: tuple[str, ...] = (
    (
        "APPDATA",
        "HOMEDRIVE",
        "HOMEPATH",
        "LOCALAPPDATA",
        "PATH",
        "PATHEXT",
        "PROCESSOR_ARCHITECTURE",
        "SYSTEMDRIVE",
        "SYSTEMROOT",
        "TEMP",
        "USERNAME",
        "USERPROFILE",
    )
    if sys.platform == "win32"
    else ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")
)


def _clock() -> float:
    return time.time()


def now() -> float:
    """The current time in seconds (wall clock; tests replace :func:`_clock`)."""
    return _clock()


def refresh_requested(env: Mapping[str, str]) -> bool:
    """Whether ``env`` asks for fresh listings (``SKILLPATH_MCP_REFRESH=1``)."""
    return env.get(REFRESH_VAR, "").strip().lower() in ("1", "true", "yes", "on")


def cache_dir(env: Mapping[str, str]) -> str:
    """``<cache>/mcp``, next to the discovery index and the snapshots."""
    return os.path.join(_cachefile.cache_root(env), "mcp")


def _file_id(path: str) -> list[Any] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    if not os.path.isfile(path):
        return None
    return [path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns]


def _resolve_command(config: ServerConfig, child_env: Mapping[str, str]) -> str | None:
    """The file the command runs, resolved as the subprocess will (``PATH`` of its env)."""
    command = str(config.command)
    base = config.cwd or os.getcwd()
    if os.sep in command or (os.altsep and os.altsep in command):
        return os.path.normpath(os.path.join(base, os.path.expanduser(command)))
    found = shutil.which(command, path=child_env.get("PATH", os.defpath))
    return os.path.abspath(found) if found else None


def _local_files(config: ServerConfig, child_env: Mapping[str, str]) -> list[Any]:
    """File identities of the command and of every argument naming an existing file."""
    out: list[Any] = []
    command = _resolve_command(config, child_env)
    out.append(_file_id(command) if command else ["unresolved", config.command])
    base = config.cwd or os.getcwd()
    for arg in config.args:
        if not arg or arg.startswith("-") or "\x00" in arg or len(arg) > 4096:
            continue
        path = os.path.normpath(os.path.join(base, os.path.expanduser(arg)))
        found = _file_id(path)
        if found is not None:
            out.append(found)
    return out


def child_env(config: ServerConfig, env: Mapping[str, str]) -> dict[str, str]:
    """The environment a stdio server of ``config`` gets (as :mod:`client` builds it)."""
    out = {k: env[k] for k in INHERITED_ENV_VARS if k in env}
    out.update(dict(config.env))
    out[_catalog.DEPTH_VAR] = str(_catalog.nesting_depth(env) + 1)
    return out


def identity(config: ServerConfig, env: Mapping[str, str]) -> str:
    """A fingerprint of everything that decides what the server lists (see the module)."""
    parts: list[Any] = [FORMAT, config.key, config.transport]
    if config.transport == "stdio":
        cenv = child_env(config, env)
        parts.append(sorted(cenv.items()))
        parts.append(config.cwd or os.getcwd())
        parts.append(_local_files(config, cenv))
    raw = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


def _path(env: Mapping[str, str], ident: str) -> str:
    return os.path.join(cache_dir(env), f"{ident[:40]}{_SUFFIX}")


# -- encoding ---------------------------------------------------------------------


def _encode(catalog: _catalog.Catalog) -> dict[str, Any]:
    return {
        "server": catalog.server,
        "server_name": catalog.server_name,
        "server_version": catalog.server_version,
        "prompts": [
            {
                "name": p.name,
                "title": p.title,
                "description": p.description,
                "arguments": [[a.name, a.description, a.required] for a in p.arguments],
            }
            for p in catalog.prompts
        ],
        "skills": [
            {
                "uri": s.uri,
                "skill_path": s.skill_path,
                "frontmatter": dict(s.frontmatter),
                "resources": dict(s.resources) if s.resources is not None else None,
                "via": s.via,
                "files": list(s.files),
            }
            for s in catalog.skills
        ],
        "problems": list(catalog.problems),
    }


class _Bad(ValueError):
    """The cached data does not have the expected shape."""


def _str(value: Any, optional: bool = False) -> Any:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise _Bad("not a string")
    return value


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise _Bad("not a list")
    return value


def _decode(data: Any, config: ServerConfig) -> _catalog.Catalog:
    """Rebuild a catalog from cached JSON, checking every field (raises :class:`_Bad`)."""
    if not isinstance(data, dict):
        raise _Bad("not an object")
    prompts = []
    for p in _list(data.get("prompts")):
        if not isinstance(p, dict):
            raise _Bad("prompt")
        args = []
        for a in _list(p.get("arguments")):
            if not isinstance(a, list) or len(a) != 3 or not isinstance(a[2], bool):
                raise _Bad("argument")
            args.append(_catalog.PromptArg(_str(a[0]), _str(a[1], True), a[2]))
        prompts.append(
            _catalog.RemotePrompt(
                _str(p.get("name")),
                _str(p.get("title"), True),
                _str(p.get("description"), True),
                tuple(args),
            )
        )
    skills = []
    for s in _list(data.get("skills")):
        if not isinstance(s, dict) or not isinstance(s.get("frontmatter"), dict):
            raise _Bad("skill")
        resources = s.get("resources")
        if resources is not None and not (
            isinstance(resources, dict)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in resources.items())
        ):
            raise _Bad("resources")
        files = tuple(_str(f) for f in _list(s.get("files")))
        via = _str(s.get("via"))
        if via not in ("skills/list", "resources/list"):
            raise _Bad("via")
        remote = _catalog.RemoteSkill(
            _str(s.get("uri")), _str(s.get("skill_path")), s["frontmatter"], resources, via, files
        )
        if not remote.uri.endswith("/SKILL.md") or not remote.skill_path:
            raise _Bad("uri")
        # the same caps as a fresh listing (they are part of the identity anyway)
        capped, _cut = _catalog._capped_skill(remote, config)
        if capped is None:
            raise _Bad("frontmatter")
        skills.append(capped)
    if len(prompts) > config.max_items or len(skills) > config.max_items:
        raise _Bad("too many items")
    return _catalog.Catalog(
        server=config.name,
        server_name=_str(data.get("server_name"), True),
        server_version=_str(data.get("server_version"), True),
        prompts=tuple(prompts),
        skills=tuple(skills),
        problems=tuple(_str(p) for p in _list(data.get("problems"))),
    )


# -- reading and writing -----------------------------------------------------------


class Cached:
    """A listing read from the cache: the catalog and when it was fetched (epoch seconds)."""

    __slots__ = ("catalog", "fetched")

    def __init__(self, catalog: _catalog.Catalog, fetched: float) -> None:
        self.catalog = catalog
        self.fetched = fetched


def load(config: ServerConfig, env: Mapping[str, str]) -> Cached | None:
    """The cached listing of ``config``'s server, or ``None`` (absent, expired, untrusted).

    A listing reused here tells a ``list`` run being recorded for replay that
    its output holds only until the TTL ends (:func:`skillpath.cache.changes.expires`).
    """
    ttl = config.cache_ttl
    if ttl <= 0:
        return None
    ident = identity(config, env)
    data = _cachefile.read_cache(_path(env, ident), MAX_BYTES)
    if data is None:
        return None
    parts = _cachefile.unseal(_MAGIC, data)
    if parts is None:
        return None
    try:
        record = json.loads(bytes(parts[0]).decode("utf-8"))
        if not isinstance(record, dict) or record.get("identity") != ident:
            return None
        fetched = record.get("fetched")
        if isinstance(fetched, bool) or not isinstance(fetched, (int, float)):
            return None
        current = now()
        if not (current - ttl < fetched <= current + _SKEW):
            return None
        catalog = _decode(record.get("catalog"), config)
    except (ValueError, UnicodeDecodeError, RecursionError, TypeError):
        return None
    expires(int((fetched + ttl) * 1_000_000_000))
    return Cached(catalog, float(fetched))


def store(
    config: ServerConfig,
    env: Mapping[str, str],
    catalog: _catalog.Catalog,
    fetched: float,
    ident: str | None = None,
) -> bool:
    """Keep a complete listing for the next runs; whether it was written.

    ``ident`` is the server's :func:`identity` taken before it was listed (so a
    command edited while the server was being listed is not credited with the
    old listing); by default it is taken now.

    Nothing is written for a server with ``cache_ttl = 0``, a partial listing
    (one of its list calls failed), a listing over :data:`MAX_BYTES`, or a
    cache folder that another user could write. Errors are ignored: it is a cache.
    """
    if config.cache_ttl <= 0 or catalog.partial:
        return False
    try:
        ident = identity(config, env) if ident is None else ident
        record = {"identity": ident, "fetched": fetched, "catalog": _encode(catalog)}
        raw = json.dumps(record, sort_keys=True, ensure_ascii=False, default=str).encode(
            "utf-8", "surrogatepass"
        )
    except (TypeError, ValueError):
        return False
    if len(raw) + 64 > MAX_BYTES:
        return False
    path = _path(env, ident)
    try:
        _cachefile.write_atomic(path, lambda f: f.write(_cachefile.seal(_MAGIC, raw)))
    except OSError:
        return False
    _cachefile.prune(
        os.path.dirname(path), _SUFFIX, max_files=MAX_FILES, max_bytes=MAX_TOTAL, newest=1
    )
    return True


class Failed:
    """A failure to list a server, read from the cache: its reason and when (epoch seconds)."""

    __slots__ = ("fetched", "reason")

    def __init__(self, reason: str, fetched: float) -> None:
        self.reason = reason
        self.fetched = fetched

    @property
    def stamp(self) -> str:
        """When the server failed, as ``YYYY-MM-DDTHH:MM:SSZ`` (UTC)."""
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.fetched))


def store_failure(
    config: ServerConfig,
    env: Mapping[str, str],
    reason: str,
    fetched: float,
    ident: str | None = None,
) -> bool:
    """Remember that ``config``'s server could not be listed, in place of its listing.

    Whether it was written: nothing is kept for ``retry_after = 0`` (the listing
    cached before is removed all the same, so it never stands in for the server).
    A run being recorded for replay is told that its output holds only until
    the failure is forgotten.
    """
    if config.retry_after <= 0:
        invalidate(config, env)
        return False
    try:
        ident = identity(config, env) if ident is None else ident
        record = {"identity": ident, "fetched": fetched, "failure": str(reason)[:2000]}
        raw = json.dumps(record, sort_keys=True, ensure_ascii=False).encode(
            "utf-8", "surrogatepass"
        )
    except (TypeError, ValueError):
        invalidate(config, env)
        return False
    sealed = _cachefile.seal(_MAGIC, raw)

    def write(f: Any) -> None:
        f.write(sealed)

    try:
        _cachefile.write_atomic(_path(env, ident), write)
    except OSError:
        invalidate(config, env)
        return False
    expires(int((fetched + config.retry_after) * 1_000_000_000))
    return True


def load_failure(config: ServerConfig, env: Mapping[str, str]) -> Failed | None:
    """The failure remembered for ``config``'s server, while younger than ``retry_after``."""
    wait = config.retry_after
    if wait <= 0:
        return None
    ident = identity(config, env)
    data = _cachefile.read_cache(_path(env, ident), MAX_BYTES)
    parts = _cachefile.unseal(_MAGIC, data) if data is not None else None
    if parts is None:
        return None
    try:
        record = json.loads(bytes(parts[0]).decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(record, dict) or record.get("identity") != ident:
        return None
    reason, fetched = record.get("failure"), record.get("fetched")
    if not isinstance(reason, str) or isinstance(fetched, bool):
        return None
    if not isinstance(fetched, (int, float)):
        return None
    current = now()
    if not (current - wait < fetched <= current + _SKEW):
        return None
    expires(int((fetched + wait) * 1_000_000_000))
    return Failed(reason, float(fetched))


def invalidate(config: ServerConfig, env: Mapping[str, str]) -> None:
    """Forget the cached listing of ``config``'s server (the next load lists it)."""
    try:
        os.unlink(_path(env, identity(config, env)))
    except OSError:
        pass
