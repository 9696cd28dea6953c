"""What every agent-framework adapter does with a :class:`~skillpath.SkillSession`.

The adapters (``skillpath-langchain``, ``skillpath-openai-agents``, …) are thin
mappings of one :class:`AgentSkills` onto a framework's hooks; this module
holds the little logic they share, so that each framework's agent sees the
same skills, the same listing and the same answers:

* :meth:`AgentSkills.begin_turn`: before each model turn, look whether the
  skills or the config files on disk changed and load them again when they
  did. The roots the session's loads watch (:mod:`skillpath.cache.reuse`: inotify,
  on Linux and local file systems) cost one read of the queued events; every
  other skills root, skill folder, ``SKILL.md`` and config file a ``stat``
  each (no file is read);
* :meth:`AgentSkills.instructions`: the listing for the system prompt;
* :meth:`AgentSkills.call`: the answer to the model's Skill tool call, within
  one conversation (``conversation=``: the framework's own key, such as a thread
  id; the "already loaded" note is given only within it, see
  :meth:`AgentSkills.conversation_key`). Every
  refusal (an unknown name, a ``disable-model-invocation`` skill, a failed
  inline-shell command) becomes a text for the model that starts with
  ``Error:`` and says what to do instead; it never raises. An unknown name
  gets the nearest names the model may call (hidden skills are never named);
* :meth:`AgentSkills.search`: the answer to the model's ``search_skills`` tool
  call (:func:`skillpath.search.run_search_tool`; the listing's over-budget
  notice names that tool);
* :meth:`AgentSkills.read`: the answer to a ``skill://`` read (containment is
  the ``resolve_url`` hooks'), with refusals as text too;
* :meth:`AgentSkills.read_file`: the answer to the model's ``read_skill_file``
  tool call (:meth:`AgentSkills.read_schema`), the resource tool for frameworks
  that give the agent no file tool: a file in a skill's folder by its relative
  path (or the absolute path the "Base directory" line gives), read through
  :meth:`read` (contained, at most :data:`skillpath.urls.MAX_READ_BYTES`);
* :meth:`AgentSkills.files_touched`: after the agent's file tools touched
  paths, nested skills directories load and conditional skills activate.

The texts every adapter gives the model when there is nothing to give are one
function each: :func:`no_skills_text` (no skill the model may use) and
:func:`unknown_for_model` (a name that is not one). An :class:`AgentSkills`
opened where no skill provider is installed and no skill is found raises
:class:`~skillpath.errors.NoProviderError` naming the install command
(:func:`require_provider`), instead of serving an agent with no skills.

Discovery, parsing, precedence, the listing budget, argument substitution and
the inline-shell policy all stay the session's.
"""

from __future__ import annotations

import functools
import os
import threading
import uuid
import weakref
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any, TypeVar
from urllib.parse import quote

import attrs

from skillpath.cache.changes import any_changed, watch_enabled, watched_root
from skillpath.cache.changes import fingerprint as disk_state
from skillpath.commands import SKILL_TOOL_NAME, skill_tool_schema
from skillpath.errors import NoProviderError, SkillpathError
from skillpath.listing import Listing
from skillpath.model import LoadResult, Skill
from skillpath.search import SEARCH_TOOL_NAME, run_search_tool, search_tool_schema
from skillpath.session import SkillSession
from skillpath.settings import Settings, settings_paths
from skillpath.suggest import LIST_ALL_UP_TO, conditional_message, echo_name, near_names

__all__ = [
    "FILE_PATH_ARGS",
    "INSTALL_PROVIDERS",
    "READ_TOOL_NAME",
    "REFRESH_MODES",
    "SEARCH_TOOL_NAME",
    "SKILL_TOOL_NAME",
    "AgentSkills",
    "NoProviderError",
    "disk_state",
    "error_text",
    "no_skills_text",
    "paths_in_arguments",
    "provider_plugins",
    "require_provider",
    "unknown_for_model",
    "watch_paths",
]

_T = TypeVar("_T")

#: ``turn``: check the disk before every model turn; ``manual``: only :meth:`AgentSkills.refresh`.
REFRESH_MODES = ("turn", "manual")

_CLAUDE_TOOL = f"with the {SKILL_TOOL_NAME} tool"

#: The resource tool's name (:meth:`AgentSkills.read_file`, :meth:`AgentSkills.read_schema`).
READ_TOOL_NAME = "read_skill_file"


def watch_paths(result: LoadResult, skills: Iterable[Skill] | None = None) -> list[str]:
    """What :func:`disk_state` stats for the skills behind ``result``.

    Every skills root, every ``SKILL.md`` of ``skills`` (default: the result's
    active and conditional skills; a session passes its own, those that joined
    later too) and every folder in a root that holds no known skill (a folder
    whose ``SKILL.md`` is not written yet), and the files the providers declared as
    their inputs (:attr:`skillpath.LoadResult.inputs`: settings, registries).
    Skills served from MCP are left out.
    """
    return _watch_plan(result, skills, watched=False)[0]


def _watch_plan(
    result: LoadResult, skills: Iterable[Skill] | None, *, watched: bool = True
) -> tuple[list[str], list[Any]]:
    """The paths to ``stat`` (:func:`watch_paths`) less what the watched roots cover,
    and those roots' kept memos (for :func:`skillpath.cache.reuse.any_changed`).

    A root is covered when every memo kept for it is watched
    (:func:`skillpath.cache.reuse.watched`): its skill folders and ``SKILL.md``
    files give events, and a folder added to it is an event of the root. The
    root itself is ``stat``'ed still, and so is every entry reached through a
    symlink (the folder and its ``SKILL.md``: where a link leads can change
    with no event).
    """
    paths = [os.fspath(r.path) for r in result.roots]
    covered: dict[str, set[str]] = {}
    kept: list[Any] = []
    if watched:
        for root in paths:
            w = watched_root(root)
            if w is not None:
                kept += w[0]
                covered[root] = w[1]
                prefix = root if root.endswith(os.sep) else root + os.sep
                for name in sorted(w[1]):
                    paths += [prefix + name, prefix + name + os.sep + "SKILL.md"]
    known: set[str] = set()
    for skill in (*result.skills, *result.conditional) if skills is None else skills:
        if skill.path is None or skill.source.loaded_from == "mcp":
            continue
        path = os.fspath(skill.path)
        folder = os.path.dirname(path)
        known.add(folder)
        if covered:
            links = covered.get(os.path.dirname(folder))
            if links is not None and os.path.basename(folder) not in links:
                continue  # its folder and file are watched
        paths.append(path)
    for r in result.roots:
        if os.fspath(r.path) in covered:
            continue  # a folder added to it is an event
        try:
            with os.scandir(r.path) as it:
                for entry in it:
                    if entry.name.startswith(".") or entry.path in known:
                        continue
                    try:
                        if entry.is_dir():
                            paths.append(entry.path)
                    except OSError:
                        continue
        except OSError:
            continue
    # the providers' settings, registries and the folders they walked (once each)
    listed = set(paths)
    paths += [p for p in map(os.fspath, result.inputs) if p not in listed]
    return paths, kept


#: Tool-call arguments that name files an agent's tool touched (``paths``: a list).
def error_text(exc: BaseException | str) -> str:
    """How a refused skill call or ``skill://`` read is shown to the model."""
    return f"Error: {exc}"


#: Tool-call arguments that name files an agent's tool touched (``paths``: a list).
FILE_PATH_ARGS = ("file_path", "path", "paths", "filename")


def paths_in_arguments(args: Any) -> list[str]:
    """The file paths a tool call's ``args`` name (see :data:`FILE_PATH_ARGS`).

    For frameworks that show an adapter the arguments of the agent's tool
    calls: pass the result to :meth:`AgentSkills.files_touched`. Anything but
    a mapping gives no paths; ``skill://`` URLs are not files.
    """
    if not isinstance(args, Mapping):
        return []
    out: list[str] = []
    for key in FILE_PATH_ARGS:
        value = args.get(key)
        values = value if isinstance(value, list | tuple) else [value]
        out += [v for v in values if isinstance(v, str) and v and not v.startswith("skill://")]
    return out


#: The command that installs every built-in skill provider (the meta distribution).
INSTALL_PROVIDERS = "pip install skillpath"


def no_skills_text() -> str:
    """What the model is told when it may use no skill (the same in every adapter)."""
    return "No skills are available."


def provider_plugins(session: SkillSession) -> list[str]:
    """The names of the installed plugins that discover skills (``discover_skills``)."""
    return sorted(
        r.name
        for r in session.host.records
        if r.status == "loaded" and "discover_skills" in r.hooks
    )


def require_provider(session: SkillSession) -> None:
    """Raise :class:`~skillpath.errors.NoProviderError` when ``session`` has no skill
    provider installed and found no skill.

    ``skillpath-core`` alone reads no agent's skills folder (each built-in provider
    is a distribution of its own), so such an agent would be told that no skills
    are available, whatever is on disk. Skills found without a provider (a
    ``SKILLPATH`` folder, ``[skills] paths``, bundled skills) are served as they are.
    """
    result = session.result
    if result.skills or result.conditional or provider_plugins(session):
        return
    raise NoProviderError(
        "no skill provider is installed: skillpath-core alone reads no agent's skills "
        f"folder, so this agent would have no skills. Install the providers: "
        f"{INSTALL_PROVIDERS} (or an adapter distribution, such as pip install "
        "skillpath-langchain, which brings them); `skillpath providers` lists what is installed"
    )


def unknown_for_model(name: str, names: Iterable[str]) -> str:
    """The model's error for a skill name it may not call: near names from ``names`` only.

    ``names`` are the names the model may call (hidden skills are never
    suggested); the text tells the model what to do next.
    """
    pool = sorted(set(names), key=lambda n: (n.casefold(), n))
    shown = echo_name(name)
    if not pool:
        return error_text(f"Unknown skill {shown}. {no_skills_text()}")
    near = near_names(name, pool)
    if near:
        return error_text(f"Unknown skill {shown}. Did you mean: {', '.join(near)}?")
    if len(pool) <= LIST_ALL_UP_TO:
        return error_text(f"Unknown skill {shown}. Available skills: {', '.join(pool)}.")
    return error_text(f"Unknown skill {shown}. Use a name from the skills listing.")


class AgentSkills:
    """One agent's skills: a :class:`SkillSession` plus the per-turn refresh.

    :param session: the session (see :meth:`open` to build both at once).
    :param refresh: ``turn`` (default): :meth:`begin_turn` loads the skills
        again when the disk changed; ``manual``: only :meth:`refresh` does.
    :param budget: the listing's character budget (default: ``[listing] budget``).
    :param format: the listing format (default: ``claude``, whose header line
        points the model at the skill tool; ``skills`` and ``agentskills``
        point it at ``skill://`` reads instead).
    :param tool_name: the name under which the framework offers the Skill tool
        (the ``claude`` listing names it).
    :param search_tool: the name under which the framework offers the
        ``search_skills`` tool (:meth:`search`; the listing's over-budget
        notice names it and leaves the skills that do not fit to it), or
        ``None`` when it offers none.

    Raises :class:`~skillpath.errors.NoProviderError` when no skill provider is
    installed and the session found no skill (:func:`require_provider`): an
    exception at construction, where the install is wrong, rather than an
    agent that is told it has no skills.

    Conversations: one object serves every conversation of an agent. Pass
    each Skill tool call's conversation key to :meth:`call`; the remembered
    invocations of all conversations share the session's bounded LRU
    (:data:`skillpath.session.MAX_REMEMBERED` entries, the oldest forgotten
    first), so 10,000 conversations take no more room than a few.
    """

    def __init__(
        self,
        session: SkillSession,
        *,
        refresh: str = "turn",
        budget: int | None = None,
        format: str | None = None,
        tool_name: str = SKILL_TOOL_NAME,
        search_tool: str | None = None,
    ) -> None:
        if refresh not in REFRESH_MODES:
            raise SkillpathError(
                f"unknown refresh mode {refresh!r} (choose from {', '.join(REFRESH_MODES)})"
            )
        require_provider(session)
        self.session = session
        self.refresh_mode = refresh
        self.budget = budget
        self.format = format
        self.tool_name = tool_name
        self.search_tool = search_tool
        self._keys: dict[int, tuple[Any, str]] = {}
        self._keys_lock = threading.Lock()
        self._paths: list[str] = []
        self._watched: list[Any] = []
        self._cache: dict[str, Any] = {}
        self._cache_for: Any = None
        self._state = self._disk_state()

    @classmethod
    def open(
        cls,
        cwd: str | os.PathLike[str] | None = None,
        *,
        home: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        settings: Mapping[str, Any] | None = None,
        refresh: str = "turn",
        budget: int | None = None,
        format: str | None = None,
        tool_name: str = SKILL_TOOL_NAME,
        search_tool: str | None = None,
    ) -> AgentSkills:
        """Open a :class:`SkillSession` for ``cwd`` (arguments as :meth:`SkillSession.open`)."""
        session = SkillSession.open(cwd, home=home, env=env, settings=settings)
        return cls(
            session,
            refresh=refresh,
            budget=budget,
            format=format,
            tool_name=tool_name,
            search_tool=search_tool,
        )

    @classmethod
    def of(
        cls,
        skills: AgentSkills | SkillSession | None = None,
        *,
        cwd: str | os.PathLike[str] | None = None,
        home: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        settings: Mapping[str, Any] | None = None,
        refresh: str = "turn",
        budget: int | None = None,
        format: str | None = None,
        tool_name: str = SKILL_TOOL_NAME,
        search_tool: str | None = None,
    ) -> AgentSkills:
        """What an adapter serves: ``skills`` as is, a session wrapped, or a new one
        opened for ``cwd`` (the other arguments as :meth:`open`)."""
        if isinstance(skills, AgentSkills):
            return skills
        if isinstance(skills, SkillSession):
            return cls(
                skills,
                refresh=refresh,
                budget=budget,
                format=format,
                tool_name=tool_name,
                search_tool=search_tool,
            )
        if skills is not None:
            raise TypeError(
                "AgentSkills.of(skills): expected an AgentSkills, a SkillSession or None, "
                f"not {type(skills).__name__} (a project folder goes in cwd=)"
            )
        return cls.open(
            cwd,
            home=home,
            env=env,
            settings=settings,
            refresh=refresh,
            budget=budget,
            format=format,
            tool_name=tool_name,
            search_tool=search_tool,
        )

    def _disk_state(self) -> tuple[Any, ...]:
        session = self.session
        ctx = session.ctx
        self._paths, self._watched = _watch_plan(
            session.result,
            (*session.skills(), *session.pending()),
            watched=watch_enabled(ctx.settings, ctx.env),
        )
        if not isinstance(session.settings_arg, Settings):  # the config files are read
            self._paths += [
                os.fspath(p) for _o, p in settings_paths(ctx.skillpath_home, ctx.project_root)
            ]
        return disk_state(self._paths)

    def _cached(self, key: str, make: Callable[[], _T]) -> _T:
        """``make()`` once per catalog state (``ctx.skills`` is replaced on every change)."""
        current = self.session.ctx.skills
        if current is not self._cache_for:
            self._cache = {}
            self._cache_for = current
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]  # type: ignore[no-any-return]

    def memo(self, key: str, make: Callable[[], _T]) -> _T:
        """``make()`` once per catalog state: an adapter's own derived objects (cached).

        The value is kept until the skills change (a refresh that changed
        them, an activation); ``key`` names it (prefix it with the
        adapter's id). The value is shared: do not modify it.
        """
        return self._cached(f"memo:{key}", make)

    # -- freshness ----------------------------------------------------------
    def refresh(self) -> bool:
        """Load the skills again now; whether the active skills changed."""
        changed = bool(self.session.refresh())
        self._state = self._disk_state()
        return changed

    def begin_turn(self) -> bool:
        """Call before each model turn: refresh when the disk changed (``refresh="turn"``).

        The roots the session's loads watch are checked by reading the queued
        events (the kernel queues one before the write that caused it returns:
        no timing window); the rest, and every entry reached through a symlink,
        by a ``stat`` each. Without inotify, on a network file system, with
        ``SKILLPATH_NO_WATCH=1`` or ``SKILLPATH_NO_REUSE=1``, or in a forked
        child, every root, skill folder and ``SKILL.md`` is ``stat``'ed.

        :returns: whether the active skills changed.
        """
        if self.refresh_mode != "turn":
            return False
        if self._watched and any_changed(self._watched):
            return self.refresh()
        if disk_state(self._paths) == self._state:
            return False
        return self.refresh()

    # -- what the model sees ------------------------------------------------
    def listing(self) -> Listing:
        """The listing of the skills the model may use, and its budget report (cached).

        It fits the budget; in the ``claude`` format (the default) its header
        names :attr:`tool_name` (the budget counts the header as shown).
        """
        return self._cached("listing", self._render_listing)

    def _render_listing(self) -> Listing:
        fmt = self.format or "claude"
        search = self.search_tool
        if fmt != "claude" or self.tool_name == SKILL_TOOL_NAME:
            return self.session.listing(budget=self.budget, format=fmt, search_tool=search)
        budget = self.budget
        if budget is None:
            budget = int(self.session.ctx.settings.get("listing", "budget"))
        grow = len(self.tool_name) - len(SKILL_TOOL_NAME)
        limit = max(1, budget - grow) if budget > 0 else budget
        listing = self.session.listing(budget=limit, format=fmt, search_tool=search)
        text = listing.text.replace(_CLAUDE_TOOL, f"with the {self.tool_name} tool", 1)
        return attrs.evolve(listing, text=text)

    def instructions(self) -> str:
        """The listing's text (empty when there is no skill the model may use)."""
        return self.listing().text

    def model_skill_names(self) -> list[str]:
        """The names the model may pass to the Skill tool (listable skills), sorted."""
        return list(
            self._cached(
                "names", lambda: tuple(s.name for s in self.session.skills() if not s.hidden)
            )
        )

    def listed_names(self) -> list[str]:
        """:meth:`model_skill_names` less the skills the listing budget dropped."""
        dropped = set(self.listing().report.dropped)
        return [n for n in self.model_skill_names() if n not in dropped]

    def listed_skills(self) -> tuple[Skill, ...]:
        """The skill records behind :meth:`listed_names`, in listing order (cached).

        For frameworks that hold their own skill objects (built from these):
        the tuple is the same object until the catalog changes, so an adapter
        rebuilds its objects only when ``listed_skills() is not last``.
        """
        return self._cached("listed", self._listed_records)

    def _listed_records(self) -> tuple[Skill, ...]:
        names = set(self.listed_names())
        return tuple(s for s in self.session.skills() if s.name in names)

    def tool_schema(self, *, format: str = "anthropic") -> dict[str, Any]:
        """The Skill tool definition (:func:`skillpath.commands.skill_tool_schema`; cached:
        the same object until the skills change, do not modify it)."""
        return self._cached(
            f"schema:{format}", lambda: skill_tool_schema(self.session.skills(), format=format)
        )

    def tool_description(self) -> str:
        """The Skill tool's description for frameworks that take it separately."""
        return str(self.tool_schema()["description"])

    def search_schema(self) -> dict[str, Any]:
        """The ``search_skills`` tool definition (:func:`skillpath.search.search_tool_schema`,
        named :attr:`search_tool`): ``name``, ``description``, ``input_schema``."""
        schema = search_tool_schema()
        schema["name"] = self.search_tool or SEARCH_TOOL_NAME
        return schema

    def read_schema(self) -> dict[str, Any]:
        """The ``read_skill_file`` tool definition (:meth:`read_file`): ``name``,
        ``description``, ``input_schema`` (a new object each call)."""
        return {
            "name": READ_TOOL_NAME,
            "description": (
                "Read a file of a skill you loaded, when its instructions name one (such as "
                "references/style.md or a script to look at): pass the skill's name and the "
                "file's path inside the skill's folder (relative, or the absolute path under "
                "its base directory). A folder lists its files; an empty path lists the "
                "skill's folder."
            ),
            "input_schema": {
                "type": "object",
                "properties": {
                    "skill": {"type": "string", "description": "The skill's name."},
                    "path": {
                        "type": "string",
                        "description": "The file's path inside the skill's folder.",
                    },
                },
                "required": ["skill", "path"],
            },
        }

    def read_file(self, skill: Any, path: Any = "") -> str:
        """The ``read_skill_file`` tool's answer: a file in ``skill``'s folder (never raises).

        ``path`` is relative to the skill's folder, or absolute under its base
        directory (what the rendered skill's "Base directory" line names); an
        empty path or a folder lists the files. ``SKILL.md`` itself is the skill
        as the Skill tool renders it (:meth:`call`, in full), never the raw file
        with its placeholders. The read is :meth:`read` of the ``skill://`` URL:
        containment and the size bound are the resolver's; every refusal is an
        ``Error:`` text.
        """
        if not isinstance(skill, str) or not skill.strip():
            return error_text("`skill` must be the name of a skill (a non-empty string)")
        if path is None:
            path = ""
        if not isinstance(path, str):
            return error_text("`path` must be a string (a file inside the skill's folder)")
        name = skill.strip()
        rel = path.strip().replace("\\", "/")
        record = self.session.get(name)
        if rel.startswith("/"):
            base = None if record is None else record.base_dir
            prefix = None if base is None else os.fspath(base).replace("\\", "/").rstrip("/")
            if prefix is None or not (rel == prefix or rel.startswith(prefix + "/")):
                return error_text(
                    f"{rel[:200]!r} is not inside the folder of skill {name!r}: pass a path "
                    "relative to it, such as references/style.md"
                )
            rel = rel[len(prefix) :]
        rel = rel.strip("/")
        if record is None:
            return self.call(name)  # the unknown or conditional skill's text
        if rel in ("SKILL.md", "./SKILL.md"):
            return self.call(name, "", force=True)
        url = f"skill://{quote(name, safe='')}/{quote(rel or '.', safe='/')}"
        return self.read(url)

    def runs_commands(self, name: str) -> bool:
        """Whether rendering skill ``name`` (:meth:`call`) would run an inline shell
        command: it has one and the shell policy allows it for this skill.

        For an adapter that must render skills where running commands is not
        acceptable (building a framework's skill index every new conversation).
        """
        skill = self.session.get(name)
        if skill is None or skill.path is None:
            return False
        from skillpath.commands import read_source
        from skillpath.shell import ShellPolicy, shell_spans

        try:
            spans = shell_spans(read_source(skill))
        except (OSError, SkillpathError):
            return False
        return bool(spans) and ShellPolicy.from_settings(self.session.ctx.settings).allows(skill)

    # -- conversations ------------------------------------------------------
    def conversation_key(self, owner: Any) -> Hashable:
        """A conversation key for a framework object that stands for one conversation.

        A string or an integer (a thread id, a session id) is its own key. Any
        other object (a run context, a session object) gets a fresh key of its
        own, kept while the object lives (a new object never gets an old one's
        key, even at the same address; equality is not used, so unhashable
        objects work too); an object that cannot be weakly referenced gets a
        new key each time (every call a conversation of its own: the skill is
        always rendered in full).
        """
        if isinstance(owner, str | int) and not isinstance(owner, bool):
            return owner
        ident = id(owner)
        with self._keys_lock:
            held = self._keys.get(ident)
            if held is not None and held[0]() is owner:
                return held[1]
            key = uuid.uuid4().hex
            try:
                ref = weakref.ref(owner, functools.partial(self._drop_key, ident))
            except TypeError:  # not weakly referenceable: every call its own conversation
                return key
            self._keys[ident] = (ref, key)
            return key

    def _drop_key(self, ident: int, ref: Any) -> None:
        with self._keys_lock:
            held = self._keys.get(ident)
            if held is not None and held[0] is ref:
                del self._keys[ident]

    @staticmethod
    def new_conversation() -> str:
        """A fresh conversation key (for a run whose framework names no conversation)."""
        return uuid.uuid4().hex

    # -- answering the model ------------------------------------------------
    def call(
        self,
        skill: str,
        args: str | None = "",
        *,
        force: bool = False,
        conversation: Hashable | None = None,
    ) -> str:
        """The Skill tool's answer: the rendered skill, or an ``Error:`` text (never raises).

        Rendering is :meth:`SkillSession.invoke` with ``trigger="tool"`` (so
        ``disable-model-invocation`` skills are refused, arguments are
        substituted and the inline-shell policy applies). ``args`` of ``None``
        (a tool with no arguments field) renders as ``""``. ``force`` renders in
        full even when the same call was answered before (no "already loaded"
        note); ``conversation`` (the framework's key for the conversation, see
        :meth:`conversation_key`) limits that note to calls of the same
        conversation: a new conversation gets the skill in full.
        """
        name = str(skill)
        session = self.session
        if session.get(name) is None:
            pending = next((s for s in session.pending() if s.name == name), None)
            if pending is not None:
                return error_text(conditional_message(pending))
            held = session.held_back(name)
            if held is not None:  # quarantined or blocked by its trust tier
                from skillpath.trust import refusal

                return error_text(refusal(held))
            return unknown_for_model(name, self.model_skill_names())
        try:
            return session.invoke(
                name, str(args or ""), trigger="tool", force=force, conversation=conversation
            ).content
        except SkillpathError as exc:
            return error_text(exc)

    def search(self, arguments: Mapping[str, Any] | Any) -> str:
        """The ``search_skills`` tool's answer for the model's ``arguments`` (never raises).

        :func:`skillpath.search.run_search_tool` over the active skills, with the
        session's plugins (a ``rank_skills`` hook may re-rank). Arguments that are
        not a query give an ``Error:`` text saying what the tool needs.
        """
        session = self.session
        try:
            text, hits = run_search_tool(
                session.skills(), arguments, ctx=session.ctx, host=session.host
            )
        except SkillpathError as exc:
            return error_text(exc)
        return text if hits is not None else error_text(text)

    def read(self, url: str) -> str:
        """The text at a ``skill://`` URL, or an ``Error:`` text (never raises)."""
        try:
            return self.session.resolve(str(url)).content
        except SkillpathError as exc:
            return error_text(exc)

    def files_touched(self, paths: Iterable[str | os.PathLike[str]]) -> list[str]:
        """After file tools touched ``paths``: the names of the skills that joined."""
        batch = list(paths)
        joined = self.session.discover_dirs_for_paths(batch)
        joined += self.session.activate_for_paths(batch)
        if joined:
            self._state = self._disk_state()
        return [s.name for s in joined]
