"""``SkillSession``: the runtime object an agent host keeps for one agent session.

It holds the loaded catalog, the context every hook receives (with
``ctx.skills`` kept equal to the active skills) and the plugin host, and
offers everything the agent needs at run time: the listing, ``skill://``
reads, ``/skill:`` parsing, the Skill tool and invocation.

Skills can join during the session (:meth:`SkillSession.add_skills`, used by
conditional activation and nested skill directories); the listing, the Skill
tool enum and ``skill://`` see them at once. :meth:`SkillSession.refresh`
loads the catalog again (skills added, edited or removed on disk) without
starting a new session.

The "already loaded" note: when the model's Skill tool (trigger ``tool``)
re-invokes a skill with the same arguments in the same session and the
skill's source text has not changed since it was last rendered in full (by the
tool or by a ``/skill:`` command), :meth:`SkillSession.invoke` returns a short
note instead of the whole prompt. Everything else always renders in full: a
user-typed ``/skill:`` command (trigger ``command``), MCP prompt requests
(trigger ``mcp``), ``force=True``, and any skill whose text holds inline
shell (`` !`cmd` `` or a ```` ```! ```` block), whose output can change from
one run to the next. After the host compacts or trims the conversation, the
earlier text may be gone: call :meth:`SkillSession.forget_invocations` so the
next invocation renders in full again.

One session can serve many conversations (a chat server with one agent
object): pass ``conversation=`` to :meth:`SkillSession.invoke` and the note
applies only within that conversation; a new conversation gets the skill. The
remembered invocations of every conversation share one bounded LRU of
:data:`MAX_REMEMBERED` entries (the oldest forgotten first: its next call
renders in full), so thousands of conversations never grow it.
"""

from __future__ import annotations

import hashlib
import itertools
import operator
import os
import threading
import uuid
from collections.abc import Hashable, Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import attrs

from skillpath.activation import PathActivator
from skillpath.cache.changes import FileStamps, watching
from skillpath.commands import (
    RenderedPrompt,
    SkillCommand,
    SlashInvocation,
    UnknownSkillError,
    parse_slash_command,
    read_source,
    render_skill,
    skill_tool_schema,
    unknown_skill,
)
from skillpath.context import SkillContext, make_context
from skillpath.context_files import ContextFile, discover_context_files
from skillpath.dynamic import NestedDirs, discover_dirs_for_paths
from skillpath.errors import ResolveError
from skillpath.listing import Listing, render_listing
from skillpath.loader import load_skills
from skillpath.model import Diagnostic, LoadResult, Skill, Skipped, sort_key
from skillpath.plugins import PluginHost, get_plugin_host
from skillpath.resources import Resource
from skillpath.settings import Settings
from skillpath.shell import shell_spans
from skillpath.suggest import (
    by_folder,
    by_qualified,
    conditional_message,
    folder_matches,
    near_names,
    unknown_skill_message,
)
from skillpath.trust import REASONS as TRUST_REASONS
from skillpath.trust import held_back
from skillpath.trust import refusal as trust_refusal
from skillpath.urls import UnknownSkillURLError

if TYPE_CHECKING:
    from skillpath.contentscan import ContentFinding
    from skillpath.search import SearchHit
    from skillpath.watch import SkillEvent

__all__ = ["ALREADY_LOADED", "SkillSession"]

#: The note returned for an unchanged re-invocation (``{name}`` is filled in).
ALREADY_LOADED = (
    "Skill {name!r} is already loaded in this session and has not changed; "
    "follow the instructions it gave earlier."
)
#: Triggers whose full render puts the skill's text into the conversation.
_RECORD_TRIGGERS = ("command", "tool")
#: Invocations remembered for the "already loaded" note, across every conversation
#: (the oldest are forgotten first).
MAX_REMEMBERED = 1024
#: Distinct diagnostics that requests (:meth:`SkillSession.resolve`,
#: :meth:`SkillSession.invoke`, :meth:`SkillSession.context_files`) add to a
#: session's :attr:`~SkillSession.diagnostics`; a repeat of one already kept is
#: not added again, and past this many one ``diagnostics-dropped`` warning says so.
MAX_REQUEST_DIAGNOSTICS = 256
#: Distinct ``content-<id>`` warnings (the findings of invoked skills) a session's
#: :attr:`~SkillSession.diagnostics` keeps, apart from the requests' problems: a
#: caller that makes many requests fail cannot crowd a hostile skill's findings out.
MAX_FINDING_DIAGNOSTICS = 4096


def _rebuilt_in_place(
    old: tuple[Skill, ...], new: tuple[Skill, ...], active: Mapping[str, Skill]
) -> list[Skill] | None:
    """The skills of ``new`` that replace another of the same name in the same place of
    ``old``, when that is the only difference and ``active`` holds exactly ``old``;
    else ``None``."""
    if not (len(active) == len(old) == len(new)):
        return None
    moved = list(itertools.compress(range(len(old)), map(operator.is_not, old, new)))
    for i in moved:
        if old[i].name != new[i].name or active.get(old[i].name) is not old[i]:
            return None
    return [new[i] for i in moved]


@attrs.define(eq=False)
class SkillSession:
    """One agent session's view of the skills (identity-bearing, mutable).

    Build one with :meth:`open`. ``ctx.skills`` maps every active skill's name
    (hidden ones included) to the skill.
    """

    ctx: SkillContext
    host: PluginHost
    result: LoadResult
    session_id: str
    diagnostics: list[Diagnostic] = attrs.field(factory=list)
    #: The ``settings`` given to :meth:`open` (re-applied on top of the config files
    #: by :meth:`refresh`; a ready :class:`Settings` is used as is); ``None``: refresh
    #: reads the config files alone.
    settings_arg: Mapping[str, Any] | Settings | None = attrs.field(default=None, kw_only=True)
    _active: dict[str, Skill] = attrs.field(factory=dict, init=False)
    #: :meth:`skills` of the current ``_active`` (``None``: sort again; :meth:`_sync` clears it)
    _sorted: tuple[Skill, ...] | None = attrs.field(default=None, init=False)
    #: (name, argument digest) or (name, argument digest, conversation) → source digest
    _loaded: dict[tuple[Any, ...], str] = attrs.field(factory=dict, init=False)
    _lock: threading.RLock = attrs.field(factory=threading.RLock, init=False)
    _request_diagnostics: set[Diagnostic] = attrs.field(factory=set, init=False)
    _finding_diagnostics: set[Diagnostic] = attrs.field(factory=set, init=False)
    _stamps: FileStamps = attrs.field(default=None, init=False)
    _activator: PathActivator = attrs.field(
        default=attrs.Factory(lambda self: PathActivator.of(self.result.conditional), True),
        init=False,
    )
    _nested: NestedDirs = attrs.field(
        default=attrs.Factory(lambda self: NestedDirs.for_roots(self.result.roots), True),
        init=False,
    )
    #: nested skills the trust step held back (:mod:`skillpath.trust`), for the refusal
    _held: list[Skipped] = attrs.field(factory=list, init=False)

    def __attrs_post_init__(self) -> None:
        self._active = {s.name: s for s in self.result.skills}
        # what each loaded file was: an edit of a body alone is a change (refresh)
        self._stamps = FileStamps(self.ctx.env)
        self._stamps.update(None, self.result)
        if self.ctx.session_id != self.session_id:
            self.ctx = attrs.evolve(self.ctx, session_id=self.session_id)
        self._sync()

    # -- construction -------------------------------------------------------
    @classmethod
    def open(
        cls,
        cwd: str | os.PathLike[str] | None = None,
        *,
        home: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        settings: Mapping[str, Any] | Settings | None = None,
        host: PluginHost | None = None,
        session_id: str | None = None,
    ) -> SkillSession:
        """Load the skills visible from ``cwd`` and start a session.

        Arguments are as for :func:`skillpath.load_skills`; ``session_id``
        defaults to a new ``uuid4().hex``.
        """
        sid = session_id or uuid.uuid4().hex
        ctx, sdiags = make_context(cwd, home=home, env=env, settings=settings, session_id=sid)
        if host is None:
            host = get_plugin_host(
                ctx.env,
                blocked=ctx.settings.get("plugins", "blocked", ()),
                strict=True if ctx.settings.get("plugins", "strict") else None,
            )
        with watching(ctx.env):  # a session loads again: watch what it keeps
            result = load_skills(ctx=ctx, host=host)
        if sdiags:
            result = attrs.evolve(result, diagnostics=tuple(sdiags) + result.diagnostics)
        return cls(ctx=ctx, host=host, result=result, session_id=sid, settings_arg=settings)

    def _sync(self) -> None:
        self._sorted = None
        self.ctx = attrs.evolve(self.ctx, skills=MappingProxyType(dict(self._active)))

    # -- the catalog --------------------------------------------------------
    def skills(self) -> tuple[Skill, ...]:
        """The active skills (hidden ones included), sorted by name (the same tuple until
        they change, so a search per tool call finds its index by identity)."""
        with self._lock:
            if self._sorted is None:
                self._sorted = tuple(sorted(self._active.values(), key=sort_key))
            return self._sorted

    def get(self, name: str) -> Skill | None:
        """The active skill called exactly ``name`` (hidden ones included), or the
        one active skill whose folder is called ``name`` when its frontmatter name
        differs (:func:`skillpath.suggest.by_folder`), or the one active skill
        called ``<namespace>:name`` (:func:`skillpath.suggest.by_qualified`)."""
        skill = self._active.get(name)
        if skill is None:
            with self._lock:
                active = list(self._active.values())
            skill = by_folder(name, active) or by_qualified(name, active)
        return skill

    def add_skills(self, skills: Iterable[Skill]) -> list[Skill]:
        """Make ``skills`` active; a name already active keeps its skill.

        :returns: the skills that became active, in the order given.
        """
        added: list[Skill] = []
        with self._lock:
            for skill in skills:
                if skill.name in self._active:
                    continue
                self._active[skill.name] = skill
                added.append(skill)
            if added:
                self._sync()
        return added

    def pending(self) -> tuple[Skill, ...]:
        """Conditional skills still waiting for a matching path, sorted by name."""
        return self._activator.pending

    def activate_for_paths(self, paths: Iterable[str | os.PathLike[str]]) -> list[Skill]:
        """Activate the conditional skills whose ``paths`` match a touched file.

        Paths are relative to the session's cwd (absolute ones inside cwd are
        made relative; outside cwd nothing matches); matching follows
        :mod:`skillpath.activation`. An activated skill stays active.

        :returns: exactly the skills that became active now, sorted by name.
        """
        with self._lock:
            return self.add_skills(self._activator.match(list(paths), self.ctx.cwd))

    def discover_dirs_for_paths(self, paths: Iterable[str | os.PathLike[str]]) -> list[Skill]:
        """Load nested skills directories found above touched files (below cwd).

        See :mod:`skillpath.dynamic`. New skills pass the same filters and
        de-duplication as at start (clashes and problems are added to
        :attr:`diagnostics`); new conditional skills wait for a matching path
        (call :meth:`activate_for_paths` with the same paths next).

        :returns: exactly the skills that became active now, sorted by name.
        """
        with self._lock:
            existing = [*self._active.values(), *self._activator.pending]
            res = discover_dirs_for_paths(
                list(paths), self.ctx, self.host, state=self._nested, existing=existing
            )
            self.diagnostics.extend(res.diagnostics)
            self._held.extend(s for s in res.skipped if s.reason in TRUST_REASONS)
            self._activator.add(res.conditional)
            return self.add_skills(res.skills)

    def refresh(self) -> tuple[SkillEvent, ...]:
        """Load the catalog again from disk (cheap: only what changed is read again).

        The session's loads keep what they built in this process and watch the
        skills roots they read (inotify, on Linux and local file systems): a
        refresh reads only the files with an event since the last load (see
        :mod:`skillpath.cache.reuse`; ``SKILLPATH_NO_WATCH=1`` checks every file's
        ``stat`` instead, ``SKILLPATH_NO_REUSE=1`` turns the reuse off).

        Skills added, edited or removed since the last load show in the
        listing, the Skill tool and ``skill://`` at once. Conditional skills
        already activated stay active (with their new record); skills from
        nested directories stay active while their ``SKILL.md`` exists. The
        config files are read again; ``settings`` given to :meth:`open` still
        apply. The new load's problems are in :attr:`result` (``diagnostics``).

        :returns: what changed in the loaded catalog (see
            :func:`skillpath.watch.diff_results`): empty when nothing did, so it is
            false then. A skill whose ``SKILL.md`` was written since the last load
            is a :class:`~skillpath.watch.SkillChanged` even when only its body
            changed (or the same text was written again): a host that keeps
            rendered prompts drops that skill's. Only the files of the skills the
            load built again are ``stat``'ed for it (see
            :class:`skillpath.cache.changes.FileStamps`).
        """
        from skillpath.watch import diff_results

        # the overrides given to open() (none: the config files alone), never the
        # settings loaded last time, which would hide every change of the files
        ctx, sdiags = make_context(
            self.ctx.cwd,
            home=self.ctx.home,
            env=self.ctx.env,
            settings=self.settings_arg,
            session_id=self.session_id,
        )
        with watching(ctx.env):
            result = load_skills(ctx=ctx, host=self.host)
        if sdiags:
            result = attrs.evolve(result, diagnostics=tuple(sdiags) + result.diagnostics)
        with self._lock:
            before_result = self.result
            before = dict(self._active)
            in_place = _rebuilt_in_place(before_result.skills, result.skills, before)
            if in_place is not None:
                # nothing joined besides the loaded skills, and the same names in the
                # same places: only the skills rebuilt in place are replaced
                fresh = before
                for skill in in_place:
                    fresh[skill.name] = skill
                still_pending = [s for s in result.conditional if s.name not in fresh]
            else:
                fresh, still_pending = self._merge_refresh(before_result, result, before)
            self.ctx = ctx
            self.result = result
            if not self._activator.holds_exactly(still_pending):
                self._activator = PathActivator.of(still_pending)
            self._active = fresh
            self._sync()
            stamps = self._stamps.update(before_result, result)
            return diff_results(before_result, result, stamps=stamps)

    @staticmethod
    def _merge_refresh(
        before_result: LoadResult, result: LoadResult, before: dict[str, Skill]
    ) -> tuple[dict[str, Skill], list[Skill]]:
        """The active skills after a refresh, and the conditional ones still waiting."""
        loaded = {s.name for s in before_result.skills}
        fresh: dict[str, Skill] = {s.name: s for s in result.skills}
        waiting = {s.name: s for s in result.conditional}
        still_pending: list[Skill] = []
        for name, skill in waiting.items():
            if name in fresh:
                continue
            if name in before and name not in loaded:  # activated earlier
                fresh[name] = skill
            else:
                still_pending.append(skill)
        for name, skill in before.items():
            if name in fresh or name in loaded or name in waiting:
                continue
            # joined from a nested skills directory: kept while its file exists
            if skill.path is None or os.path.exists(skill.path):
                fresh[name] = skill
        return fresh, still_pending

    # -- what the model sees ------------------------------------------------
    def listing(
        self,
        *,
        format: str | None = None,
        budget: int | None = None,
        read_tool: bool = True,
        entry_cap: int | None = None,
        search_tool: str | None = None,
    ) -> Listing:
        """The system-prompt listing; ``format`` and ``budget`` default to ``[listing]``.

        ``entry_cap`` defaults to :data:`skillpath.listing.ENTRY_CAP` (``0``: no cap).
        ``search_tool`` names the search tool the agent has (the over-budget notice
        points to it).
        """
        fmt = format if format is not None else str(self.ctx.settings.get("listing", "format"))
        limit = budget if budget is not None else int(self.ctx.settings.get("listing", "budget"))
        return render_listing(
            self.skills(),
            format=fmt,
            budget=limit,
            read_tool=read_tool,
            entry_cap=entry_cap,
            search_tool=search_tool,
            pinned=tuple(self.ctx.settings.get("listing", "pinned", ())),
            quotas=dict(self.ctx.settings.get("listing", "quotas", {}) or {}),
        )

    def search(self, query: str, k: int = 5, *, include_hidden: bool = False) -> list[SearchHit]:
        """The active skills ranked for ``query``, best ``k`` first (see
        :func:`skillpath.search.search_skills`; the session's plugins may re-rank)."""
        from skillpath.search import search_skills

        return search_skills(
            self.skills(), query, k, include_hidden=include_hidden, ctx=self.ctx, host=self.host
        )

    def skill_tool(self, *, format: str = "anthropic") -> dict[str, Any]:
        """The Skill tool definition (see :func:`skillpath.commands.skill_tool_schema`)."""
        return skill_tool_schema(self.skills(), format=format)

    def context_files(self) -> list[ContextFile]:
        """``AGENTS.md`` files visible from the session's cwd (unreadable ones reported)."""
        fresh: list[Diagnostic] = []
        try:
            return discover_context_files(self.ctx.cwd, home=self.ctx.home, diagnostics=fresh)
        finally:
            self._keep(fresh)

    def _keep(self, fresh: Iterable[Diagnostic], *, findings: bool = False) -> None:
        """Add a request's diagnostics to :attr:`diagnostics`, bounded: a long-running
        server answering the same bad request a million times keeps one diagnostic
        for it (see :data:`MAX_REQUEST_DIAGNOSTICS`). ``findings``: the content
        findings of a skill, counted apart (:data:`MAX_FINDING_DIAGNOSTICS`)."""
        kind = "content findings of invoked skills" if findings else "problems came from requests"
        with self._lock:
            kept = self._finding_diagnostics if findings else self._request_diagnostics
            bound = MAX_FINDING_DIAGNOSTICS if findings else MAX_REQUEST_DIAGNOSTICS
            for diag in fresh:
                if diag in kept:
                    continue
                if len(kept) >= bound:
                    if len(kept) == bound:
                        dropped = Diagnostic(
                            "warning",
                            "diagnostics-dropped",
                            f"more than {bound} distinct {kind} "
                            "in this session; later ones are not kept",
                        )
                        kept.add(dropped)
                        self.diagnostics.append(dropped)
                    return
                kept.add(diag)
                self.diagnostics.append(diag)

    # -- reading and invoking -----------------------------------------------
    def resolve(self, url: str) -> Resource:
        """Read ``url`` through the ``resolve_url`` hooks.

        :raises ResolveError: (including ``ContainmentError``) when refused; for
            an unknown skill name the message offers the nearest names, or says
            that a conditional skill is not active yet.
        """
        fresh: list[Diagnostic] = []
        try:
            return self.host.resolve(url, self.ctx, fresh)
        except UnknownSkillURLError as exc:
            held = self.held_back(exc.name)
            if held is not None:  # quarantined or blocked by its trust tier
                raise ResolveError(trust_refusal(held)) from exc
            pending = self._pending_named(exc.name)
            if pending is None:
                raise
            raise ResolveError(conditional_message(pending)) from exc
        finally:
            self._keep(fresh)

    def command(self, name: str) -> SkillCommand:
        """The command object of the active skill ``name``.

        :raises UnknownSkillError: when no active skill has that name.
        """
        skill = self.get(name)
        if skill is None:
            held = self.held_back(name)
            if held is not None:  # quarantined or blocked by its trust tier
                raise UnknownSkillError(trust_refusal(held))
            skills = self.skills()
            raise unknown_skill(
                name,
                [s.name for s in skills],
                conditional=self._pending_named(name),
                first=folder_matches(name, skills),
            )
        return SkillCommand(skill)

    def held_back(self, name: str) -> Skipped | None:
        """The skip record of ``name`` when its trust tier held it back
        (:mod:`skillpath.trust`: quarantined, blocked or tier-unlisted), at load or
        among the nested folders found since; ``None`` otherwise."""
        found = held_back(self.result, name)
        if found is None:
            found = next((s for s in self._held if s.skill.name == name), None)
        return found

    def _pending_named(self, name: str) -> Skill | None:
        """The conditional skill ``name`` that is still waiting for a matching path."""
        return next((s for s in self._activator.pending if s.name == name), None)

    def parse_slash(self, message: str) -> SlashInvocation | None:
        """Recognise ``/skill:<name> [args]`` in a user message.

        ``None`` when skill commands are disabled (``[skills]
        enable_skill_commands``) or the message holds no skill command. A
        name that is not a command the user can run now gives an invocation
        with ``known=False``, ``suggestions`` (the nearest user-invocable
        names) and ``error``, the line to show the user: ``Unknown skill
        …``, a skill with ``user-invocable: false``, or a conditional skill
        that is not active yet. ``args`` is only the text after the command.
        """
        if not self.ctx.settings.skills["enable_skill_commands"]:
            return None
        names = {n for n, s in self._active.items() if s.frontmatter.user_invocable}
        slash = parse_slash_command(message, names)
        if slash is None or slash.known:
            return slash
        active = self.get(slash.name)
        if active is not None and active.frontmatter.user_invocable and slash.name != active.name:
            # the folder name of a skill named otherwise
            return attrs.evolve(slash, name=active.name, known=True, suggestions=(), error=None)
        if active is None:
            invocable = [s for s in self._active.values() if s.frontmatter.user_invocable]
            first = folder_matches(slash.name, invocable)
            if first:
                near = near_names(slash.name, names, first=first)
                slash = attrs.evolve(
                    slash,
                    suggestions=near,
                    error=unknown_skill_message(slash.name, names, first=first),
                )
        if active is not None:  # user-invocable: false
            error = (
                f"Skill {slash.name!r} cannot be run as a command (user-invocable: false); "
                "only the model can use it"
            )
            return attrs.evolve(slash, error=error)
        pending = self._pending_named(slash.name)
        if pending is not None:
            return attrs.evolve(slash, suggestions=(), error=conditional_message(pending))
        return slash

    def script_refusal(self, name: str) -> str | None:
        """Why skill ``name``'s scripts may not run, or ``None`` when they may: the
        ``[shell]`` policy that decides its inline shell (level, ``enabled``, MCP
        skills never). Every runner of a skill's scripts (an adapter's tool that
        executes ``scripts/…``) asks this first."""
        from skillpath.shell import ShellPolicy

        skill = self.get(name)
        if skill is None:
            return f"no skill named {name!r}"
        return ShellPolicy.from_settings(self.ctx.settings).refusal(skill)

    def findings(self, name: str) -> tuple[ContentFinding, ...]:
        """The content findings of skill ``name`` (its ``SKILL.md`` and the text files of
        its folder; worst first; empty for an unknown name or with the checks off), kept
        per content digest (see :mod:`skillpath.findings`). What a server or an adapter
        passes on beside a rendered skill (the MCP server's ``_meta``)."""
        from skillpath.findings import findings_for

        skill = self.get(name)
        if skill is None:
            return ()
        return findings_for(skill, env=self.ctx.env, home=self.ctx.home)

    def _findings(self, skill: Skill) -> list[Diagnostic]:
        """A ``content-<id>`` warning per content finding of ``skill`` (see
        :mod:`skillpath.findings`), for :attr:`diagnostics`."""
        from skillpath.findings import findings_for

        return [
            Diagnostic(
                "warning",
                f"content-{f.id}",
                f"skill {skill.name!r}: {f.severity}: {f.reason}",
                f.path,
                f.line,
                skill.source.provider,
            )
            for f in findings_for(skill, env=self.ctx.env, home=self.ctx.home)
        ]

    def invoke(
        self,
        name: str,
        args: str = "",
        *,
        trigger: str = "command",
        force: bool = False,
        conversation: Hashable | None = None,
    ) -> RenderedPrompt:
        """Render skill ``name`` with ``args`` through the transform chain.

        ``trigger`` is ``command`` (a user-typed ``/skill:``), ``tool`` (the
        model's Skill tool) or ``mcp``. Only ``tool`` can get the "already
        loaded" note (see the module docstring); ``force=True`` always renders.
        ``conversation`` (any hashable key, such as a thread id; ``None``: the
        session's own) scopes the note: it is given only for an invocation
        rendered earlier in the same conversation.

        :raises UnknownSkillError: for a name that is not an active skill (the
            message offers near names, or says that a conditional skill is not
            active yet).
        :raises PromptError: when the trigger is not allowed for this skill,
            the skill cannot be read, or a step aborts (e.g. inline shell failed).
        """
        cmd = self.command(name)
        cmd.check_trigger(trigger)
        skill = cmd.skill
        source = read_source(skill)
        # Inline shell output can change between runs: such a skill is never deduplicated.
        volatile = bool(shell_spans(source))
        digest = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
        # the argument string is remembered by digest: a long one is not kept alive
        key: tuple[Any, ...] = (
            name,
            hashlib.sha256(args.encode("utf-8", "surrogatepass")).hexdigest(),
        )
        if conversation is not None:
            key += (conversation,)
        if trigger == "tool" and not force and not volatile:
            with self._lock:
                seen = self._loaded.get(key)
            if seen == digest:
                note = ALREADY_LOADED.format(name=name)
                return RenderedPrompt(
                    name=name,
                    content=note,
                    text=note,
                    args=args,
                    trigger=trigger,
                    path=skill.path,
                    base_dir=skill.base_dir,
                    session_id=self.session_id,
                    already_loaded=True,
                )
        rendered = render_skill(
            skill,
            args,
            ctx=self.ctx,
            host=self.host,
            trigger=trigger,
            session_id=self.session_id,
            source=source,
        )
        self._keep(rendered.diagnostics)
        self._keep(self._findings(skill), findings=True)
        if trigger in _RECORD_TRIGGERS and not volatile:
            with self._lock:
                self._loaded.pop(key, None)
                self._loaded[key] = digest  # most recent last
                while len(self._loaded) > MAX_REMEMBERED:
                    del self._loaded[next(iter(self._loaded))]
        return rendered

    def remembered(self) -> int:
        """How many invocations the "already loaded" note remembers now (every
        conversation's; at most :data:`MAX_REMEMBERED`)."""
        with self._lock:
            return len(self._loaded)

    def forget_invocations(
        self, name: str | None = None, *, conversation: Hashable | None = None
    ) -> int:
        """Forget which skills were rendered in full, so the next invocation renders again.

        Call it after compacting or trimming the conversation (the text the
        "already loaded" note points back to may be gone). ``name`` limits it
        to one skill (every argument string of it); ``conversation`` to the
        invocations of that conversation (default: every conversation's).

        :returns: how many remembered invocations were forgotten.
        """
        with self._lock:
            if name is None and conversation is None:
                count = len(self._loaded)
                self._loaded.clear()
                return count
            keys = [
                k
                for k in self._loaded
                if (name is None or k[0] == name)
                and (conversation is None or (len(k) > 2 and k[2] == conversation))
            ]
            for k in keys:
                del self._loaded[k]
            return len(keys)
