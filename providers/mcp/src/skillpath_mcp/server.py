"""``skillpath serve``: one project's skills over MCP (stdio, or streamable HTTP on loopback).

What a client sees:

* **prompts** — every user-invocable skill (frontmatter ``user-invocable``),
  with arguments from ``arguments`` (one optional argument each) or a single
  free-form ``args`` described by ``argument-hint``; ``prompts/get`` returns
  the rendered prompt (``SkillSession.invoke(..., trigger="mcp")``, so the
  shell policy and every transform step apply as for a local invocation);
* **resources** — every file of every skill on disk as
  ``skill://<name>/<path>`` (``SKILL.md`` first), with the MIME type the core
  resolver gives it (``text/markdown``, ``application/json``, ``text/plain``;
  binary files by extension); ``resources/read`` goes through
  ``SkillSession.resolve``, the same resolver and containment check local
  reads use, so ``skill://x/../../etc/passwd`` and its ``%2e%2e`` forms are
  refused;
* **SEP-2640 skills** — the server declares the
  ``io.modelcontextprotocol/skills`` extension and answers ``skills/list`` and
  ``skills/get`` with ``{uri, frontmatter, resources: [{uri, digest, size}]}``
  (frontmatter verbatim, ``sha256:`` digests and byte counts of the raw bytes;
  on 2026-07-28 connections with the list-caching attributes ``ttlMs`` and
  ``cacheScope``); ``resources/directory/read`` (declared as ``directoryRead: true``)
  lists the direct children of a skill's folder ``skill://<name>`` or of one of its
  subfolders, files with their MIME type and size and subfolders as
  ``inode/directory``, paged by ``nextCursor``. It lists only what ``resources/list``
  lists (the same bounded, contained walk), so it can name nothing ``resources/read``
  would refuse; any other URI is ``-32602``. The extension is declared under
  ``capabilities.extensions``
  (SEP-2133) at every protocol version, and under ``capabilities.experimental``
  too on handshake-era connections, for clients that look there;
* **tools** — ``load_skill(name, args?)`` for hosts without prompt support (the
  Skill tool's rules: ``disable-model-invocation`` skills are refused),
  ``search_skills(query, k?)`` ranking the model-invocable skills for a task
  (:mod:`skillpath.search`), and ``list_skills()`` returning the
  ``skills/list`` entries;
* **list_changed** — the folders the catalog comes from are watched (the
  system's file watcher, through ``watchfiles``): every skills root, every
  folder in it, and every folder of a served skill that its files were listed
  from. After a burst of changes the catalog is read again (bounded walk,
  digests cached by size and mtime); when it changed, clients get
  ``notifications/prompts/list_changed`` and
  ``notifications/resources/list_changed`` (and, on 2026-07-28 connections,
  the same events on ``subscriptions/listen`` streams). What cannot be watched
  — the settings files, roots that do not exist yet, folder names that are not
  UTF-8 — is ``stat``'ed every ``poll`` seconds; nothing is re-read while
  nothing changed. Where the native watcher is refused (the inotify watch
  limit), every watched folder is polled every ``poll`` seconds instead, and
  stderr says so once.

Bounds (:class:`~skillpath_mcp._guard.ServeLimits`, ``--limit NAME=VALUE``): HTTP
connections, request deadlines, sessions (the least recently used idle one is
evicted, never a lockout), argument size, and requests read ahead over stdio
(backpressure on a client that does not read). SIGINT and SIGTERM stop the
server with one line, killing the process groups of running inline commands.

Inline shell: over stdio the client is the agent that started the server, and
prompts run inline shell as the ``[shell]`` policy allows. A loopback HTTP port
can be reached by any local process, so over HTTP no command runs unless the
caller opts in (``serve(..., shell=True)``, ``skillpath serve --allow-shell``).
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import itertools
import json
import mimetypes
import os
import signal
import stat
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import anyio.to_thread
import attrs
import mcp_types as types
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
)
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from skillpath import __version__
from skillpath.cache.changes import (
    encodable,
    fingerprint,
    folder_fingerprint,
    local_paths,
    outside_changes,
    root_appeared,
    watched_folders,
)
from skillpath.errors import PromptError, ResolveError, SkillpathError
from skillpath.model import Skill
from skillpath.resources import walk_skill_files
from skillpath.safety import (
    ContainmentError,
    describe_oserror,
    read_bounded,
    resolve_inside,
)
from skillpath.search import SEARCH_TOOL_NAME, run_search_tool, search_tool_schema
from skillpath.session import SkillSession
from skillpath.settings import settings_paths
from skillpath.shell import stop_commands
from skillpath.textguard import strip_invisible
from skillpath.urls import MAX_READ_BYTES, mime_type_for

from skillpath_mcp._guard import (
    ACCEPT_BATCH,
    LISTEN_QUEUE,
    ServeLimits,
    guarded_protocol,
    make_lru,
    stdio_transport,
)
from skillpath_mcp._wire import EncodedListings, encode_result, splicing_transport
from skillpath_mcp.client import SKILLS_EXTENSION

__all__ = ["ServeLimits", "SkillServer", "serve"]

#: Files listed per skill at most (walk order: sorted, breadth by directory).
MAX_FILES_PER_SKILL = 500
#: Children per page of a ``resources/directory/read`` answer (``nextCursor`` pages on).
DIRECTORY_PAGE = 100
#: The MIME type SEP-2640 gives a directory resource.
DIRECTORY_MIME = "inode/directory"
#: Directory depth walked below a skill's folder.
MAX_DEPTH = 8
_SKILL_FILE = "SKILL.md"
#: Seconds a client may take to accept a ``list_changed`` notification.
NOTIFY_SECONDS = 10.0
#: Milliseconds over which a burst of file changes is gathered into one re-read.
DEBOUNCE_MS = 200
#: Listings whose answer depends on the catalog only: shaped for the wire once per
#: catalog and protocol version, then answered from that (see ``_cached_listing``).
_CACHED_LISTINGS = frozenset(
    {"tools/list", "prompts/list", "resources/list", "resources/templates/list", "skills/list"}
)


@attrs.frozen
class FileEntry:
    """One file of a served skill."""

    skill: str
    rel: str
    path: Path
    uri: str
    mime_type: str
    size: int
    digest: str
    binary: bool


@attrs.frozen
class SkillEntry:
    """One served skill: its ``SKILL.md`` URI, verbatim frontmatter and files."""

    name: str
    uri: str
    frontmatter: Mapping[str, Any]
    description: str
    files: tuple[FileEntry, ...]
    #: The folders ``files`` were listed from (the skill's folder first): a change
    #: in any of them can change the entry, so they are watched.
    folders: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The SEP-2640 entry: ``{uri, frontmatter, resources: [{uri, digest, size}]}``."""
        return {
            "uri": self.uri,
            "frontmatter": dict(self.frontmatter),
            "resources": [{"uri": f.uri, "digest": f.digest, "size": f.size} for f in self.files],
        }


@attrs.frozen
class Catalog:
    """A snapshot of what the server offers; ``fingerprint`` changes when anything does."""

    prompts: tuple[types.Prompt, ...]
    entries: Mapping[str, SkillEntry]
    by_uri: Mapping[str, FileEntry]
    fingerprint: str


def skill_uri(name: str, rel: str) -> str:
    """``skill://<name>/<rel>`` with both parts percent-encoded as needed."""
    return f"skill://{quote(name, safe='')}/{quote(rel, safe='/')}"


class _Digests:
    """sha256 digests and a binary flag per file, cached by ``(path, size, mtime_ns)``."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, int, int], tuple[str, bool]] = {}
        self._lock = threading.Lock()

    def get(self, path: Path, st: os.stat_result) -> tuple[str, bool]:
        key = (str(path), st.st_size, st.st_mtime_ns)
        with self._lock:
            hit = self._cache.get(key)
        if hit is not None:
            return hit
        h = hashlib.sha256()
        binary = False
        # non-blocking, regular files only, never more than the listing bound
        data = read_bounded(path, MAX_READ_BYTES)
        binary = b"\x00" in data[:8192]
        h.update(data)
        value = ("sha256:" + h.hexdigest(), binary)
        with self._lock:
            if len(self._cache) > 20000:
                self._cache.clear()
            self._cache[key] = value
        return value


def _walk(base: Path) -> tuple[list[tuple[str, Path]], list[str]]:
    """``(relative posix path, path)`` of the regular files below ``base``, ``SKILL.md``
    first, and the folders that were listed to find them: the files
    :func:`skillpath.resources.walk_skill_files` finds (bounded; dot entries, refused
    names and links leaving ``base`` left out: the resolver's rules)."""
    walk = walk_skill_files(base, max_files=MAX_FILES_PER_SKILL, max_depth=MAX_DEPTH)
    out = [(e.rel, e.path) for e in walk.entries]
    out.sort(key=lambda item: (item[0] != _SKILL_FILE, item[0]))
    return out, [str(f) for f in walk.folders]


def _prompt(skill: Skill, session: SkillSession) -> types.Prompt:
    cmd = session.command(skill.name)
    return types.Prompt(
        name=skill.name,
        description=strip_invisible(skill.description)[0] or None,
        arguments=[
            types.PromptArgument(
                name=str(a["name"]),
                description=a.get("description"),
                required=bool(a.get("required")),
            )
            for a in cmd.mcp_arguments()
        ],
    )


def _entry(skill: Skill, digests: _Digests) -> SkillEntry | None:
    """The served form of a skill whose ``SKILL.md`` is on disk (``None`` otherwise)."""
    if skill.path is None or skill.base_dir is None or skill.path.name != _SKILL_FILE:
        return None
    if skill.source.loaded_from in ("pack", "bundled"):
        from skillpath.extract import materialize

        try:
            materialize(skill)  # their files are extracted on first use
        except SkillpathError:
            return None
    base = skill.base_dir
    files: list[FileEntry] = []
    walked, folders = _walk(base)
    for rel, path in walked:
        try:
            st = path.stat()
            if st.st_size > MAX_READ_BYTES:
                continue
            digest, binary = digests.get(path, st)
        except OSError:
            continue
        if binary:
            mime = mimetypes.guess_type(rel)[0] or "application/octet-stream"
        else:
            mime = mime_type_for(rel)
        files.append(
            FileEntry(
                skill.name, rel, path, skill_uri(skill.name, rel), mime, st.st_size, digest, binary
            )
        )
    if not files or files[0].rel != _SKILL_FILE:
        return None
    return SkillEntry(
        name=skill.name,
        uri=skill_uri(skill.name, _SKILL_FILE),
        frontmatter=dict(skill.frontmatter.raw),
        description=strip_invisible(skill.description)[0],
        files=tuple(files),
        folders=tuple(folders),
    )


def _local_skills(session: SkillSession) -> frozenset[str]:
    """The names of ``session``'s skills whose folder is on a local file system."""
    folders = {s.name: os.fspath(s.path.parent) for s in session.skills() if s.path is not None}
    local = local_paths(set(folders.values()))
    return frozenset(name for name, folder in folders.items() if folder in local)


def build_catalog(session: SkillSession, digests: _Digests) -> Catalog:
    """Snapshot ``session``'s skills: prompts, SEP entries and their files."""
    prompts: list[types.Prompt] = []
    entries: dict[str, SkillEntry] = {}
    by_uri: dict[str, FileEntry] = {}
    h = hashlib.sha256()
    for skill in session.skills():
        if skill.frontmatter.user_invocable:
            prompt = _prompt(skill, session)
            prompts.append(prompt)
            h.update(prompt.model_dump_json().encode())
        entry = _entry(skill, digests)
        if entry is not None:
            entries[skill.name] = entry
            for f in entry.files:
                by_uri[f.uri] = f
            h.update(json.dumps(entry.to_json(), sort_keys=True, default=str).encode())
        h.update(f"{skill.name}\0{skill.description}\0{skill.path}\n".encode())
    return Catalog(tuple(prompts), entries, by_uri, h.hexdigest())


def directory_children(entry: SkillEntry, rel: str) -> list[dict[str, Any]] | None:
    """The direct children of folder ``rel`` (``""``: the skill's folder) of ``entry``,
    as ``resources/directory/read`` entries, files before folders, each group by
    name; ``None`` when ``rel`` is no folder of the listed files.

    Built from the listed files only: a folder exists here when a listed file is
    inside it, so the walk's bounds, dot-entry rule and containment carry over."""
    prefix = f"{rel}/" if rel else ""
    files: list[dict[str, Any]] = []
    folders: dict[str, None] = {}
    found = not rel
    for f in entry.files:
        if not f.rel.startswith(prefix):
            continue
        found = True
        head, sep, _tail = f.rel[len(prefix) :].partition("/")
        if sep:
            folders.setdefault(head)
            continue
        files.append({"uri": f.uri, "name": head, "mimeType": f.mime_type, "size": f.size})
    if not found:
        return None
    subfolders = [
        {"uri": skill_uri(entry.name, prefix + name), "name": name, "mimeType": DIRECTORY_MIME}
        for name in sorted(folders)
    ]
    return [*files, *subfolders]


class _DirectoryReadParams(types.RequestParams):
    """``resources/directory/read`` params: a directory URI and an optional cursor."""

    uri: str
    cursor: str | None = None


class _SkillsGetParams(types.RequestParams):
    """``skills/get`` params: the ``SKILL.md`` URI of one skill."""

    uri: str


#: The ``_meta`` key of a rendered skill's content findings (``prompts/get``, the
#: ``load_skill`` tool): ``[{id, severity, file, line, reason}]``, worst first.
FINDINGS_META = "skillpath/findings"


def _findings_meta(session: SkillSession, name: str) -> dict[str, Any]:
    """``{"_meta": {FINDINGS_META: [...]}}`` when skill ``name`` has content findings
    (the client's diagnostics), else nothing. The excerpt is left out: it may hold the
    very text the checks flag."""
    found = session.findings(name)
    if not found:
        return {}
    rows = [
        {
            "id": f.id,
            "severity": f.severity,
            "file": strip_invisible(str(f.path))[0] if f.path is not None else None,
            "line": f.line,
            "reason": f.reason,
        }
        for f in found
    ]
    return {"_meta": {FINDINGS_META: rows}}


def _text(text: str) -> types.TextContent:
    return types.TextContent(type="text", text=text)


class _SkillsMCPServer(Server[Any]):
    """The SDK's low-level server whose default initialization options are
    skillpath's: every transport (stdio, and each streamable-HTTP session, which
    the SDK starts with the defaults) advertises ``listChanged`` for prompts and
    resources and the skills extension."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> Any:
        return super().create_initialization_options(
            notification_options
            or NotificationOptions(prompts_changed=True, resources_changed=True),
            # the handshake era's wire form has no ``capabilities.extensions``: the
            # extension is kept here too, and added back by ``_declare_extensions``
            {SKILLS_EXTENSION: {}}
            if experimental_capabilities is None
            else experimental_capabilities,
            extensions,
        )


class SkillServer:
    """The MCP server for one project: a :class:`SkillSession` kept fresh by watching.

    ``settings`` are overrides as for :meth:`SkillSession.open`; ``poll`` is the
    number of seconds between checks of what cannot be watched (the settings
    files, roots that do not exist yet), and between polls where the native
    watcher is refused (``0`` turns change notifications off); ``limits``
    bound what clients can make the server hold (see :class:`ServeLimits`).
    """

    def __init__(
        self,
        cwd: str | os.PathLike[str] | None = None,
        *,
        home: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        settings: Mapping[str, Any] | None = None,
        poll: float = 2.0,
        limits: ServeLimits | None = None,
    ) -> None:
        self.limits = limits if limits is not None else ServeLimits()
        #: The signal that stopped the server (``None`` while running or after EOF).
        self.stopped_by: int | None = None
        #: The stdio client closed the server's output while keeping its input open.
        self.output_lost = False
        self._open_args: dict[str, Any] = {
            "home": home,
            "env": env,
            "settings": settings,
        }
        self.cwd = cwd
        self.poll = poll
        self._digests = _Digests()
        self._lock = threading.Lock()
        self.session = SkillSession.open(cwd, **self._open_args)
        self.catalog = build_catalog(self.session, self._digests)
        ctx = self.session.ctx
        self._config_files = [p for _o, p in settings_paths(ctx.skillpath_home, ctx.project_root)]
        # the settings files as they were when the catalog was read (a change since
        # then is seen as a difference; the watcher's first tick reads again anyway)
        self._files = self._marks()
        self._watch_stop: anyio.Event | None = None
        self._loop_safe_for: tuple[SkillSession, bool] | None = None
        #: the skills of a session whose files are on a local file system
        #: (worked out with the session, off the event loop; see :meth:`_inline`)
        self._local: tuple[SkillSession, frozenset[str]] = (
            self.session,
            _local_skills(self.session),
        )
        # wire-shaped listings of ``_wire_of`` (the catalog they were made from)
        self._wire: dict[tuple[str, str], dict[str, Any]] = {}
        self._wire_of: Catalog | None = None
        #: their JSON text, sent as it is over streamable HTTP (see :mod:`._wire`)
        self.encoded_listings = EncodedListings()
        #: How many times the catalog was read again (the first read not counted).
        self.reloads = 0
        #: Keep the catalog out of the garbage collector's full passes (see
        #: :meth:`freeze_catalog`); set by :func:`serve`, which owns its process.
        self.freeze_gc = False
        # every live client connection (each forgets itself when it closes)
        self._clients: dict[int, Any] = {}
        self._client_ids = itertools.count()
        self._bus = InMemorySubscriptionBus()
        self.server = self._build()

    # -- state --------------------------------------------------------------
    def _state(self) -> tuple[SkillSession, Catalog]:
        with self._lock:
            return self.session, self.catalog

    def _marks(self, inputs: Any = None) -> tuple[Any, int, Any]:
        """The settings files' state, the count of :func:`skillpath.watch.mark_changed`
        calls (a change no file shows: a consumed MCP server's ``list_changed``) and the
        state of the providers' declared inputs (``inputs``, default: the current
        session's :attr:`skillpath.LoadResult.inputs`)."""
        if inputs is None:
            inputs = self.session.result.inputs
        return fingerprint(self._config_files), outside_changes(), fingerprint(inputs)

    def _loop_safe(self, session: SkillSession) -> bool:
        """``session`` runs no inline shell and only the core's own ``transform_prompt``
        and ``resolve_url`` implementations, or this package's (which abstain for every
        skill but a consumed MCP server's); kept per session."""
        memo = self._loop_safe_for
        if memo is not None and memo[0] is session:
            return memo[1]
        from skillpath.shell import ShellPolicy

        core = {r.name for r in session.host.records if r.status == "builtin"}
        hooks = session.host.pm.hook
        impls = [*hooks.transform_prompt.get_hookimpls(), *hooks.resolve_url.get_hookimpls()]
        ours = sys.modules.get(__package__ or "skillpath_mcp")
        safe = not ShellPolicy.from_settings(session.ctx.settings).enabled and all(
            i.plugin_name in core or (ours is not None and i.plugin is ours) for i in impls
        )
        self._loop_safe_for = (session, safe)
        return safe

    def _inline(self, session: SkillSession, skill: Skill | None) -> bool:
        """Whether rendering or reading ``skill`` may run on the event loop itself.

        Only when nothing in it can block: inline shell disabled, every
        ``transform_prompt`` and ``resolve_url`` implementation the core's own
        (a plugin's may do anything), and the skill a file already on a local
        file system (not a network or FUSE mount that could stall, not a consumed
        MCP server's, not a pack still to be unpacked). The rest runs in a worker
        thread. A thread hop costs more than the work it
        moves (about half of the server's time per request at 1,000 skills).
        """
        if skill is None or skill.source.loaded_from == "mcp" or skill.path is None:
            return False
        if not self._loop_safe(session):
            return False
        local_for, local = self._local
        if local_for is not session or skill.name not in local:
            return False
        try:
            return stat.S_ISREG(os.stat(skill.path).st_mode)
        except OSError:
            return False

    def reload(self) -> bool:
        """Re-read the project's skills; ``True`` when the catalog changed."""
        # stat'ed before they are read: a change that lands during the read
        # still shows as a difference afterwards
        before = self.session.result.inputs
        files = self._marks(before)
        session = SkillSession.open(self.cwd, **self._open_args)
        if session.result.inputs != before:  # the providers read other files this time
            files = (*files[:2], fingerprint(session.result.inputs))
        catalog = build_catalog(session, self._digests)
        local = _local_skills(session)
        with self._lock:
            changed = catalog.fingerprint != self.catalog.fingerprint
            self.session, self.catalog, self._files = session, catalog, files
            self._local = (session, local)
            self.reloads += 1
        if self.freeze_gc:
            del session, catalog  # the old ones are garbage now: collected, not frozen
            self.freeze_catalog()
        return changed

    def freeze_catalog(self) -> None:
        """Move every object alive now (the catalog, the session, the SDK's tables)
        to the garbage collector's permanent generation (:func:`gc.freeze`).

        A full collection walks every tracked object: at 1,000 skills one took
        130–180 ms, stalling every request in flight. The catalog does not
        change between reloads, so it need not be walked; after a reload the
        previous one is collected first (one full pass, once per change).
        Process-wide: :func:`serve` turns it on for the process it runs in.
        """
        gc.unfreeze()
        gc.collect()
        gc.freeze()

    def watch_paths(self) -> list[str]:
        """The folders watched (each on its own, not recursively), sorted.

        Every existing skills root and every folder in it (a skill added,
        edited, removed or renamed; see :func:`skillpath.watch.watch_skills`),
        the folder of a symlinked ``SKILL.md``'s target, and every folder a
        served skill's files were listed from (a resource added, edited or
        removed at any depth the listing reaches).
        """
        session, catalog = self._state()
        paths = set(watched_folders(session.result))
        for entry in catalog.entries.values():
            paths.update(entry.folders)
        return sorted(paths)

    def _stale(self, polled: list[str], seen: tuple[Any, ...]) -> bool:
        """Whether something that is not watched changed since the catalog was read."""
        session, _catalog = self._state()
        with self._lock:
            files = self._files
        return (
            self._marks() != files
            or root_appeared(session.result)
            or folder_fingerprint(polled) != seen
        )

    async def _reload_and_notify(self) -> None:
        try:
            changed = await anyio.to_thread.run_sync(self.reload)
        except Exception as exc:  # noqa: BLE001 - keep serving the last good catalog
            print(f"skillpath serve: reload failed: {exc!r}", file=sys.stderr)
            return
        if changed:
            await self.notify_changed()

    def stop_watching(self) -> None:
        """End :meth:`watch` soon (it returns at the watcher's next step)."""
        if self._watch_stop is not None:
            self._watch_stop.set()

    async def watch(self) -> None:
        """Watch for changes until :meth:`stop_watching` (or cancelled), notifying
        clients when the catalog changed.

        Event-driven: nothing is read again while nothing changed. After a
        burst of file events (gathered for :data:`DEBOUNCE_MS`), after a
        settings file or a missing root changed (checked every ``poll``
        seconds), and once after each new set of watches is in place (a change
        made before the watches existed gave no event), the catalog is read
        again; when the set of folders to watch changed with it, the watches
        are set up anew.
        """
        if self.poll <= 0:
            return
        import watchfiles

        tick = max(1, round(self.poll * 1000))
        stop = self._watch_stop = anyio.Event()
        polling = False  # set once the native watcher is refused

        async def pause() -> None:
            with anyio.move_on_after(self.poll):
                await stop.wait()

        while not stop.is_set():
            paths = await anyio.to_thread.run_sync(self.watch_paths)
            # names the native watcher cannot take (not UTF-8) are stat'ed on every tick
            watched = [p for p in paths if encodable(p)]
            polled = [p for p in paths if not encodable(p)]
            seen = folder_fingerprint(polled)
            if not watched:
                # nothing on disk to watch yet: check until a root or a settings file appears
                while not stop.is_set() and not self._stale(polled, seen):
                    await pause()
                if not stop.is_set():
                    await self._reload_and_notify()
                continue
            settle = True
            try:
                async for changes in watchfiles.awatch(
                    *watched,
                    watch_filter=None,  # every file of a skill is served: none is ignored
                    debounce=DEBOUNCE_MS,
                    step=50,
                    stop_event=stop,
                    rust_timeout=tick,
                    yield_on_timeout=True,
                    recursive=False,
                    force_polling=True if polling else None,  # None: the default
                    poll_delay_ms=tick,
                    ignore_permission_denied=True,
                ):
                    if not changes and not settle and not self._stale(polled, seen):
                        continue
                    settle = False
                    seen = folder_fingerprint(polled)
                    await self._reload_and_notify()
                    if await anyio.to_thread.run_sync(self.watch_paths) != paths:
                        break  # folders appeared or went away: watch the new set
                else:
                    return  # stopped
            except (FileNotFoundError, NotADirectoryError):
                # a folder went away between listing and watching: list again (the
                # new watcher's first tick reads again, so nothing is missed)
                continue
            except (OSError, RuntimeError) as exc:
                # the watch limit, no inotify instance left, or anything else the
                # native watcher refuses: poll every folder instead
                if polling:
                    await pause()  # polling failed too: list again after a while
                    continue
                polling = True
                print(
                    f"skillpath serve: cannot watch for changes natively ({exc}); "
                    f"polling every {tick} ms instead",
                    file=sys.stderr,
                )
                sys.stderr.flush()

    async def notify_changed(self) -> None:
        """Send prompts and resources ``list_changed`` to every live client.

        The clients are notified concurrently; one that cannot take a
        notification within :data:`NOTIFY_SECONDS` (it stopped reading) is
        forgotten, and never delays the others.
        """

        async def notify(key: int, client: Any) -> None:
            try:
                with anyio.fail_after(NOTIFY_SECONDS):
                    await client.send_prompt_list_changed()
                    await client.send_resource_list_changed()
            except Exception:  # noqa: BLE001 - a gone client must not stop the others
                self._clients.pop(key, None)

        async with anyio.create_task_group() as tg:
            for key, client in list(self._clients.items()):
                tg.start_soon(notify, key, client)
        await self._bus.publish(PromptsListChanged())
        await self._bus.publish(ResourcesListChanged())

    # -- handlers -----------------------------------------------------------
    async def _cached_listing(self, ctx: Any, call_next: Any) -> Any:
        """Answer a listing request from the wire form made for the current catalog.

        The first request for a listing (per catalog and protocol version) goes
        through the SDK's whole chain — the initialization gate, params
        validation, the handler and the per-version shaping of the result —
        and the dict it produced is kept; later requests of an initialized
        connection, without params, get that dict. A new catalog (see
        :meth:`reload`) starts afresh. Anything else — requests with params
        (a cursor, ``_meta``), connections not initialized yet, other
        methods — always takes the whole chain. The dict's JSON text is made
        once too: over streamable HTTP an answer carrying it is sent as that
        text instead of being encoded again (see :mod:`skillpath_mcp._wire`).
        """
        if ctx.method not in _CACHED_LISTINGS or ctx.request_id is None or ctx.params:
            return await call_next(ctx)
        key = (ctx.method, ctx.protocol_version)
        with self._lock:
            catalog = self.catalog
            hit = self._wire.get(key) if self._wire_of is catalog else None
        connection = _connection_of(ctx)
        if hit is not None and connection is not None and connection.initialize_accepted:
            return hit  # the SDK copies it before anything is added to it
        result = await call_next(ctx)
        if isinstance(result, dict):
            body = encode_result(result)
            with self._lock:
                if self.catalog is catalog:
                    if self._wire_of is not catalog:
                        self._wire, self._wire_of = {}, catalog
                        self.encoded_listings.clear()
                    self._wire[key] = result
                    if body is not None:
                        self.encoded_listings.keep(result, body)
        return result

    async def _on_initialized(self, ctx: Any, params: Any) -> None:
        connection = _connection_of(ctx)
        if connection is None:  # not a connection that lives on (nothing to notify)
            return
        key = next(self._client_ids)
        self._clients[key] = ctx.session
        # forgotten when its connection closes (an evicted or ended session)
        connection.exit_stack.callback(self._clients.pop, key, None)

    def _check_size(self, what: str, values: Any) -> None:
        """Refuse arguments longer than ``limits.max_argument_chars`` (all together)."""
        limit = self.limits.max_argument_chars
        total = sum(len(v) for v in values if isinstance(v, str))
        if total > limit:
            raise MCPError(
                types.INVALID_PARAMS,
                f"{what}: arguments too large ({total} characters; the limit is {limit})",
            )

    async def _list_prompts(self, ctx: Any, params: Any) -> types.ListPromptsResult:
        _session, catalog = self._state()
        return types.ListPromptsResult(prompts=list(catalog.prompts))

    async def _get_prompt(self, ctx: Any, params: types.GetPromptRequestParams) -> Any:
        session, _catalog = self._state()
        skill = session.get(params.name)
        if skill is None or not skill.frontmatter.user_invocable:
            raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {params.name!r:.200}")
        self._check_size(f"prompt {params.name!r:.200}", (params.arguments or {}).values())
        cmd = session.command(params.name)
        args = cmd.args_from_mapping(params.arguments or {})

        def render() -> str:
            return session.invoke(params.name, args, trigger="mcp").content

        try:
            if self._inline(session, skill):
                content = render()
            else:
                content = await anyio.to_thread.run_sync(render)
        except PromptError as exc:
            raise MCPError(types.INTERNAL_ERROR, str(exc)) from None
        return types.GetPromptResult(
            description=strip_invisible(skill.description)[0] or None,
            messages=[types.PromptMessage(role="user", content=_text(content))],
            **_findings_meta(session, skill.name),
        )

    async def _list_resources(self, ctx: Any, params: Any) -> types.ListResourcesResult:
        _session, catalog = self._state()
        resources: list[types.Resource] = []
        for entry in catalog.entries.values():
            for f in entry.files:
                is_skill = f.rel == _SKILL_FILE
                resources.append(
                    types.Resource(
                        uri=f.uri,
                        name=entry.name if is_skill else f"{entry.name}/{f.rel}",
                        description=entry.description if is_skill else None,
                        mime_type=f.mime_type,
                        size=f.size,
                    )
                )
        return types.ListResourcesResult(resources=resources)

    async def _list_templates(self, ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    name="skill-file",
                    uri_template="skill://{skill}/{+path}",
                    description="A file of a skill; skill://<name>/SKILL.md is its instructions.",
                )
            ]
        )

    async def _read_resource(
        self, ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        session, catalog = self._state()
        if uri[:8].lower() != "skill://":
            raise MCPError(types.INVALID_PARAMS, f"Unknown resource: {uri!r:.200}")
        listed = catalog.by_uri.get(uri)
        owner = session.get(listed.skill) if listed is not None else None
        try:
            if listed is not None and not listed.binary and self._inline(session, owner):
                res = session.resolve(uri)
            else:
                res = await anyio.to_thread.run_sync(session.resolve, uri)
        except ContainmentError as exc:
            raise MCPError(types.INVALID_PARAMS, str(exc)) from None
        except ResolveError as exc:
            if listed is None or not listed.binary:
                raise MCPError(types.INVALID_PARAMS, str(exc)) from None
            blob = await anyio.to_thread.run_sync(self._read_binary, listed, session)
            return types.ReadResourceResult(
                contents=[
                    types.BlobResourceContents(uri=uri, mime_type=listed.mime_type, blob=blob)
                ]
            )
        return types.ReadResourceResult(
            contents=[
                types.TextResourceContents(uri=uri, mime_type=res.mime_type, text=res.content)
            ]
        )

    @staticmethod
    def _read_binary(listed: FileEntry, session: SkillSession) -> str:
        """A listed binary file, base64-encoded (containment checked again)."""
        import base64

        skill = session.get(listed.skill)
        if skill is None or skill.base_dir is None:
            raise MCPError(types.INVALID_PARAMS, f"Unknown resource: {listed.uri!r}")
        path = resolve_inside(skill.base_dir, listed.rel)
        try:
            # checked again at read time: the file may have grown or been
            # replaced by a FIFO or a device since it was listed
            data = read_bounded(path, MAX_READ_BYTES)
        except OSError as exc:
            raise MCPError(
                types.INVALID_PARAMS, f"Cannot read {listed.uri}: {describe_oserror(exc)}"
            ) from None
        return base64.b64encode(data).decode("ascii")

    async def _skills_list(self, ctx: Any, params: Any) -> dict[str, Any]:
        _session, catalog = self._state()
        skills = [e.to_json() for e in catalog.entries.values()]
        return {**_cache_attributes(ctx), "skills": skills}

    async def _skills_get(self, ctx: Any, params: _SkillsGetParams) -> dict[str, Any]:
        _session, catalog = self._state()
        for entry in catalog.entries.values():
            if entry.uri == params.uri:
                return {**_cache_attributes(ctx), "skill": entry.to_json()}
        raise MCPError(types.INVALID_PARAMS, f"Unknown skill: {params.uri!r:.200}")

    async def _read_directory(self, ctx: Any, params: _DirectoryReadParams) -> dict[str, Any]:
        """SEP-2640 ``resources/directory/read``: one page of a served folder's children."""
        _session, catalog = self._state()
        uri = params.uri
        unknown = MCPError(types.INVALID_PARAMS, f"Not a skill directory: {uri!r:.200}")
        if uri[:8].lower() != "skill://":
            raise unknown
        name_part, _sep, rel = uri[8:].rstrip("/").partition("/")
        children = None
        for entry in catalog.entries.values():
            if skill_uri(entry.name, "") == f"skill://{name_part}/":
                # ``rel`` is matched against the listed folders in their
                # percent-encoded form: ``..`` or ``%2e%2e`` is no listed folder
                folders = {
                    quote(real, safe="/"): real
                    for f in entry.files
                    for parts in (f.rel.split("/"),)
                    for real in ("/".join(parts[:n]) for n in range(1, len(parts)))
                }
                folder = folders.get(rel) if rel else ""
                if folder is not None:
                    children = directory_children(entry, folder)
                break
        if children is None:
            raise unknown
        start = 0
        if params.cursor:
            cursor = params.cursor
            if not (cursor.isascii() and cursor.isdigit()) or int(cursor) > len(children):
                raise MCPError(types.INVALID_PARAMS, f"Bad cursor: {params.cursor!r:.50}")
            start = int(params.cursor)
        page = children[start : start + DIRECTORY_PAGE]
        result: dict[str, Any] = {"resources": page}
        if start + DIRECTORY_PAGE < len(children):
            result["nextCursor"] = str(start + DIRECTORY_PAGE)
        return result

    async def _declare_extensions(self, ctx: Any, call_next: Any) -> Any:
        """Put the extensions in an ``initialize`` result's ``capabilities.extensions``.

        SEP-2133 declares extensions there at every protocol version; the SDK's
        2025-11-25 wire form of the capabilities has no such field and drops
        it, so it is added back to the result here (the capabilities are an
        open set in that schema). ``experimental`` keeps the same entries for
        clients that read it.
        """
        result = await call_next(ctx)
        if ctx.method == "initialize" and isinstance(result, dict):
            caps = result.get("capabilities")
            if isinstance(caps, dict) and self.server.extensions:
                extensions = {k: dict(v) for k, v in self.server.extensions.items()}
                result = {**result, "capabilities": {**caps, "extensions": extensions}}
        return result

    async def _list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name="load_skill",
                    description=(
                        "Load a skill of this project by name: returns its instructions "
                        "(rendered with the arguments) for you to follow."
                    ),
                    input_schema={
                        "type": "object",
                        "properties": {
                            "name": {"type": "string", "description": "The skill name."},
                            "args": {
                                "type": "string",
                                "description": "Arguments for the skill (optional).",
                            },
                        },
                        "required": ["name"],
                    },
                ),
                types.Tool(
                    name=SEARCH_TOOL_NAME,
                    description=search_tool_schema()["description"],
                    input_schema=search_tool_schema()["input_schema"],
                ),
                types.Tool(
                    name="list_skills",
                    description=(
                        "List this project's skills: uri, frontmatter and files with "
                        "sha256 digests (the SEP-2640 skills/list entries)."
                    ),
                    input_schema={"type": "object", "properties": {}},
                ),
            ]
        )

    async def _call_tool(
        self, ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        session, catalog = self._state()
        arguments = params.arguments or {}
        if params.name == "list_skills":
            data = {"skills": [e.to_json() for e in catalog.entries.values()]}
            return types.CallToolResult(
                content=[_text(json.dumps(data, indent=2, sort_keys=True))],
                structured_content=data,
            )
        if params.name == SEARCH_TOOL_NAME:
            return await self._search_tool(session, arguments)
        if params.name != "load_skill":
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name!r:.200}")
        name = arguments.get("name")
        args = arguments.get("args") or ""
        if not isinstance(name, str) or not isinstance(args, str):
            return types.CallToolResult(
                content=[_text("load_skill needs a string 'name' (and an optional string 'args')")],
                is_error=True,
            )
        limit = self.limits.max_argument_chars
        if len(args) > limit:
            return types.CallToolResult(
                content=[
                    _text(
                        f"load_skill {name!r:.200}: arguments too large ({len(args)} "
                        f"characters; the limit is {limit})"
                    )
                ],
                is_error=True,
            )

        def render() -> str:
            return session.invoke(name, args, trigger="tool", force=True).content

        try:
            if self._inline(session, session.get(name)):
                content = render()
            else:
                content = await anyio.to_thread.run_sync(render)
        except PromptError as exc:
            return types.CallToolResult(content=[_text(str(exc))], is_error=True)
        return types.CallToolResult(content=[_text(content)], **_findings_meta(session, name))

    @staticmethod
    async def _search_tool(session: SkillSession, arguments: Any) -> types.CallToolResult:
        """``search_skills(query, k?)``: the model-invocable skills ranked for the query
        (the same search as ``skillpath search``; hidden skills never returned)."""
        # run_search_tool never returns a hidden skill; the session's own tuple finds
        # the index it already has (filtering here would cost a list per call)
        skills = session.skills()

        def run() -> tuple[str, Any]:
            return run_search_tool(skills, arguments, ctx=session.ctx, host=session.host)

        text, hits = await anyio.to_thread.run_sync(run)
        if hits is None:
            return types.CallToolResult(content=[_text(text)], is_error=True)
        data = {"results": [h.to_json() for h in hits]}
        return types.CallToolResult(content=[_text(text)], structured_content=data)

    def _build(self) -> Server[Any]:
        project = self.session.ctx.project_root
        server: Server[Any] = _SkillsMCPServer(
            "skillpath",
            version=__version__,
            instructions=(
                f"Agent Skills of the project {project.name!r}. Use a prompt, or the "
                "load_skill tool, to load a skill's instructions (search_skills finds one "
                "by task); its files are resources skill://<name>/<path>."
            ),
            on_list_prompts=self._list_prompts,
            on_get_prompt=self._get_prompt,
            on_list_resources=self._list_resources,
            on_list_resource_templates=self._list_templates,
            on_read_resource=self._read_resource,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_subscriptions_listen=ListenHandler(self._bus),
        )
        server.add_request_handler("skills/list", types.PaginatedRequestParams, self._skills_list)
        server.add_request_handler("skills/get", _SkillsGetParams, self._skills_get)
        server.add_request_handler(
            "resources/directory/read", _DirectoryReadParams, self._read_directory
        )
        server.add_notification_handler(
            "notifications/initialized", types.NotificationParams, self._on_initialized
        )
        server.extensions[SKILLS_EXTENSION] = {"directoryRead": True}
        server.middleware.append(self._declare_extensions)
        server.middleware.append(self._cached_listing)
        return server

    def initialization_options(self) -> Any:
        """Capabilities with ``listChanged`` for prompts and resources, and the
        skills extension (the same over every transport)."""
        return self.server.create_initialization_options()

    # -- transports ---------------------------------------------------------
    async def _stop_on_signal(self, stop: Any) -> None:
        """On SIGINT or SIGTERM: kill running inline commands, then ``stop()``."""
        if threading.current_thread() is not threading.main_thread():
            return  # signals reach the main thread only
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for signum in signals:
                self.stopped_by = signum
                stop_commands()  # their process groups, and no new command starts
                stop()
                return

    async def run_stdio(self) -> None:
        """Serve one client on stdin/stdout until it disconnects, closes the server's
        output (:attr:`output_lost` is then true), or a signal arrives."""
        stopping: list[Any] = []

        def lost() -> None:
            if not self.output_lost and self.stopped_by is None:
                self.output_lost = True
                for stop_now in stopping:
                    stop_now()

        async with (
            stdio_transport(self.limits, output_lost=lost) as (read, write),
            anyio.create_task_group() as tg,
        ):

            def stop() -> None:
                self.stop_watching()  # the watcher's thread returns at once
                tg.cancel_scope.cancel()

            stopping.append(stop)
            if self.output_lost:
                stop()

            tg.start_soon(self._stop_on_signal, stop)
            tg.start_soon(self.watch)
            await self.server.run(read, write, self.initialization_options())
            stop()

    def http_app(self) -> Any:
        """The ASGI application :meth:`run_http` serves (streamable HTTP at ``/mcp``,
        JSON answers, the session bound of :class:`ServeLimits`); its lifespan
        runs the SDK's session manager."""
        limits = self.limits
        app = self.server.streamable_http_app(
            host="127.0.0.1",
            session_idle_timeout=limits.session_idle_timeout,
            max_request_body_size=limits.max_request_bytes,
            json_response=True,
        )
        make_lru(self.server._session_manager, limits, splicing_transport(self.encoded_listings))
        return app

    async def run_http(self, port: int) -> None:
        """Serve streamable HTTP on ``127.0.0.1:port`` (``0``: a free port) until stopped.

        :raises SkillpathError: when the port cannot be bound (in use, not allowed).
        """
        import uvicorn

        limits = self.limits
        sock = _listen(port)
        app = self.http_app()
        config = uvicorn.Config(
            app,
            http=guarded_protocol(limits),
            log_level="warning",
            lifespan="on",
            timeout_keep_alive=limits.keep_alive,  # type: ignore[arg-type]  # any number works
            timeout_graceful_shutdown=2,
            # asyncio accepts up to `backlog` connections in one turn, before any
            # is closed to stay within max_connections: a small batch keeps the
            # open sockets near the bound (the kernel's queue is set after start)
            backlog=min(ACCEPT_BATCH, limits.max_connections),
        )
        web = _uvicorn_server()(config)

        def stop() -> None:
            web.should_exit = True

        served = anyio.Event()

        async def run_web() -> None:
            try:
                await web.serve([sock])
            finally:
                served.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(self._stop_on_signal, stop)
            tg.start_soon(run_web)
            while not web.started:
                if web.should_exit:
                    tg.cancel_scope.cancel()
                    return
                await anyio.sleep(0.05)
            with contextlib.suppress(OSError):
                sock.listen(LISTEN_QUEUE)  # waiting clients queue in the kernel, not here
            bound = sock.getsockname()[1]
            print(f"skillpath serve: listening on http://127.0.0.1:{bound}/mcp", file=sys.stderr)
            shell = self._state()[0].ctx.settings.get("shell", "enabled")
            print(
                "skillpath serve: inline shell "
                + ("follows the [shell] policy" if shell else "is off"),
                file=sys.stderr,
            )
            sys.stderr.flush()
            tg.start_soon(self.watch)
            while not web.should_exit:
                await anyio.sleep(0.2)
            stop_commands()
            self.stop_watching()
            # a clean stop: the sessions' streams (a GET stream, an answer being
            # written) end now, so uvicorn's shutdown finds every connection
            # closable and its lifespan (the session manager) ends normally;
            # cancelling it mid-way printed the lifespan's traceback
            await self._end_sessions()
            with anyio.move_on_after((config.timeout_graceful_shutdown or 0) + 3):
                await served.wait()
            tg.cancel_scope.cancel()

    async def _end_sessions(self) -> None:
        """Terminate every open HTTP session (their streams close; nothing waits on them)."""
        manager = getattr(self.server, "_session_manager", None)
        instances = getattr(manager, "_server_instances", None) or {}
        for transport in list(instances.values()):
            with contextlib.suppress(Exception):
                await transport.terminate()


#: The list-caching attributes (SEP-2549) of ``skills/list`` and ``skills/get`` on
#: 2026-07-28 connections: immediately stale, not to be shared across users, as the
#: SDK gives every other cacheable result of this server. A client learns of a change
#: from the ``list_changed`` events of ``subscriptions/listen``.
CACHE_ATTRIBUTES: Mapping[str, Any] = {"ttlMs": 0, "cacheScope": "private"}


def _cache_attributes(ctx: Any) -> Mapping[str, Any]:
    """:data:`CACHE_ATTRIBUTES` at protocol versions that define them, else nothing."""
    version = getattr(ctx, "protocol_version", None)
    return CACHE_ATTRIBUTES if version in MODERN_PROTOCOL_VERSIONS else {}


def _connection_of(ctx: Any) -> Any:
    """The SDK ``Connection`` a request or notification came on (``None`` if unknown).

    The SDK's ``Context`` has it as ``ctx.connection``; the request context its
    runner hands to handlers and middleware (mcp 2.3) only through its session.
    """
    connection = getattr(ctx, "connection", None)
    if connection is None:
        connection = getattr(getattr(ctx, "session", None), "_connection", None)
    if connection is None or not hasattr(connection, "exit_stack"):
        return None
    return connection


def _listen(port: int) -> Any:
    """A socket bound to ``127.0.0.1:port``; a :class:`SkillpathError` when that fails."""
    import socket

    # IPPROTO_TCP named: asyncio sets TCP_NODELAY only on connections of a socket whose
    # protocol says TCP; without it a small answer written in parts (head, body) waits
    # for the client's delayed ACK, some 40 ms per request
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        sock.close()
        reason = exc.strerror or str(exc)
        raise SkillpathError(f"cannot listen on 127.0.0.1:{port}: {reason}") from None
    sock.set_inheritable(False)
    return sock


def _uvicorn_server() -> type:
    import uvicorn

    class Quiet(uvicorn.Server):
        """uvicorn's server without its own signal handlers (the caller handles signals)."""

        @contextlib.contextmanager
        def capture_signals(self) -> Any:
            yield

    return Quiet


def serve(
    cwd: str | os.PathLike[str] | None = None,
    *,
    http: int | None = None,
    poll: float = 2.0,
    shell: bool | None = None,
    limits: ServeLimits | None = None,
) -> int | None:
    """Run the server for the project at ``cwd`` (stdio unless ``http`` is a port).

    Returns the signal number that stopped it (SIGINT, SIGTERM), or ``None``
    when the stdio client disconnected.

    :raises SkillpathError: when the port cannot be bound, or when the stdio
        client closed the server's output but not its input (nothing the
        server says can reach the client any more: it stops).

    ``shell`` decides whether rendering a prompt may run inline shell: ``False``
    never, ``True`` as the ``[shell]`` policy allows, ``None`` (the default) as
    the policy allows over stdio and never over HTTP — a loopback port can be
    reached by any local process, not only the user's agent.
    """
    if shell is None:
        shell = http is None
    settings = None if shell else {"shell": {"enabled": False}}
    # the MCP servers this project consumes are listed in the background: one that
    # hangs must not keep this server from answering its own clients (their skills
    # follow when the watcher reloads; without one, --poll 0, they are waited for)
    env = {**os.environ, "SKILLPATH_MCP_BACKGROUND": "1"} if poll > 0 else None
    app = SkillServer(cwd, env=env, settings=settings, poll=poll, limits=limits)
    app.freeze_gc = True
    app.freeze_catalog()
    if http is None:
        anyio.run(app.run_stdio)
        if app.output_lost:
            raise SkillpathError(
                "serve stopped: the client closed the server's output (stdout) "
                "while keeping its input open"
            )
    else:
        anyio.run(app.run_http, http)
    return app.stopped_by
