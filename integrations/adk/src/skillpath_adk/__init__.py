"""skillpath for Google ADK: every skill the user has, for ADK's ``SkillToolset``.

ADK's :class:`~google.adk.tools.skill_toolset.SkillToolset` gives the model
its skill tools — ``list_skills``, ``load_skill``, ``load_skill_resource``
and ``run_skill_script`` (plus ``search_skills`` with a registry) — over ADK
:class:`~google.adk.skills.Skill` objects. This package makes those objects
from a :class:`skillpath.SkillSession`:

- :func:`to_adk_skill` turns one skillpath skill into an ADK ``Skill`` whose
  instructions are the session's render (inline-shell policy, variables) and
  whose resources are read lazily through the session's ``skill://``
  resolver (containment included);
- :class:`SkillpathRegistry` is an ADK ``SkillRegistry`` over the session:
  every ``load_skill`` fetches the skill afresh (an edit is seen on the next
  turn), and a name that is not a skill the model may use fails with
  skillpath's message (nearest names, user-only, not active yet);
- :class:`SkillpathSkillToolset` is a ``SkillToolset`` wired to both: its
  catalog (``list_skills``, or the system instruction in ``EAGER`` mode) is
  skillpath's listing, budget applied, re-read on every request.

Example::

    from google.adk.agents import LlmAgent
    from skillpath_adk import SkillpathSkillToolset

    agent = LlmAgent(name="dev", model="gemini-flash-latest",
                     tools=[SkillpathSkillToolset.open(".")])
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import anyio.to_thread
from google.adk.skills import Frontmatter, Resources, Script, SkillRegistry
from google.adk.skills import Skill as AdkSkill
from google.adk.tools import skill_toolset
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.skill_toolset import SkillToolset
from google.genai import types
from pydantic import PrivateAttr, ValidationError
from skillpath import Skill, SkillSession
from skillpath.agent import SEARCH_TOOL_NAME, AgentSkills
from skillpath.errors import SkillpathError
from skillpath.listing import shorten
from skillpath.plugin_writer import claude_skill_name_problem

__all__ = [
    "SkillpathRegistry",
    "SkillpathResources",
    "SkillpathSearchTool",
    "SkillpathSkillToolset",
    "adk_metadata",
    "adk_skills",
    "argument_error",
    "skills_for",
    "to_adk_skill",
]

_BASE_DIR = "Base directory for this skill: "
_RESOURCE_HINT = (
    "Its files are read with the load_skill_resource tool: file_path references/<path> "
    "(a file beside SKILL.md too), assets/<path> or scripts/<path>."
)


def skills_for(
    skills: AgentSkills | SkillSession,
    *,
    listing_format: str | None = None,
    budget: int | None = None,
    refresh: bool = True,
) -> AgentSkills:
    """The :class:`AgentSkills` to serve: ``skills`` as is, or a session wrapped."""
    return AgentSkills.of(
        skills,
        refresh="turn" if refresh else "manual",
        budget=budget,
        format=listing_format,
        search_tool=SEARCH_TOOL_NAME,
    )


#: The arguments of ADK's skill tools that must be strings when given.
_STRING_ARGUMENTS = ("skill_name", "file_path", "query", "command")
#: ADK's own skill tools (the ones :class:`SkillpathSkillToolset` guards).
_SKILL_TOOLS: tuple[type, ...] = (
    skill_toolset.ListSkillsTool,
    skill_toolset.LoadSkillTool,
    skill_toolset.LoadSkillResourceTool,
    skill_toolset.RunSkillScriptTool,
    skill_toolset.SearchSkillsTool,
    *((skill_toolset.UnloadSkillTool,) if hasattr(skill_toolset, "UnloadSkillTool") else ()),
)


def argument_error(args: Any) -> dict[str, str] | None:
    """ADK's tool-error answer for arguments a skill tool cannot take, else ``None``:
    arguments that are not an object, or a string argument given as another type."""
    if not isinstance(args, Mapping):
        return {
            "error": f"The arguments must be an object, not {type(args).__name__}.",
            "error_code": "INVALID_ARGUMENTS",
        }
    wrong = [
        f"Argument {key!r} must be a string, not {type(args[key]).__name__}."
        for key in _STRING_ARGUMENTS
        if args.get(key) is not None and not isinstance(args[key], str)
    ]
    if wrong:
        return {"error": "\n".join(wrong), "error_code": "INVALID_ARGUMENTS"}
    return None


def _guard_tool(tool: Any) -> None:
    """Make ``tool.run_async`` check its arguments' types first (:func:`argument_error`)
    and turn anything it raises into a tool error, so what the model sends can never
    raise out of ADK's tool call (once per tool object)."""
    if getattr(tool, "_skillpath_guarded", False):
        return
    run = tool.run_async

    async def run_async(*, args: Any, tool_context: Any) -> Any:
        refused = argument_error(args)
        if refused is not None:
            return refused
        try:
            return await run(args=args, tool_context=tool_context)
        except Exception as exc:  # noqa: BLE001 - the model gets the reason as a tool error
            return {"error": f"{tool.name} failed: {exc}", "error_code": "TOOL_ERROR"}

    tool.run_async = run_async
    tool._skillpath_guarded = True


#: ADK's limit on a skill description.
_ADK_DESCRIPTION_MAX = 1024
_SUBDIRS = ("references", "assets", "scripts")


class SkillpathResources(Resources):
    """An ADK ``Resources`` that reads a skill's files through the session, on demand.

    ``references/<id>`` is the file ``references/<id>`` of the skill's
    folder, or else ``<id>`` (so files beside ``SKILL.md`` and in other
    folders are reachable too); ``assets/`` and ``scripts/`` are those
    folders. Every read goes through :meth:`SkillSession.resolve`: a path
    that leaves the skill's folder is refused (the resource is "not found").
    """

    _session: SkillSession = PrivateAttr()
    _skill: str = PrivateAttr()
    _files: list[str] | None = PrivateAttr(default=None)

    @classmethod
    def of(cls, session: SkillSession, name: str) -> SkillpathResources:
        """The resources of skill ``name`` in ``session``."""
        res = cls()
        res._session = session
        res._skill = name
        return res

    def _read(self, rel: str) -> str | None:
        if not rel or rel.startswith("/"):
            return None
        try:
            found = self._session.resolve(f"skill://{self._skill}/{rel}")
        except SkillpathError:
            return None
        return None if found.is_directory else found.content

    def _all_files(self) -> list[str]:
        """Every file of the skill's folder (relative paths, sorted), read once."""
        if self._files is None:
            files: list[str] = []
            pending = ["."]
            while pending:
                rel = pending.pop()
                try:
                    listing = self._session.resolve(f"skill://{self._skill}/{rel}")
                except SkillpathError:
                    continue
                if not listing.is_directory:
                    continue
                for entry in listing.content.splitlines():
                    path = entry if rel == "." else f"{rel}/{entry}"
                    if entry.endswith("/"):
                        pending.append(path.rstrip("/"))
                    elif entry:
                        files.append(path)
            self._files = sorted(f for f in files if f != "SKILL.md")
        return self._files

    def _under(self, folder: str) -> list[str]:
        prefix = f"{folder}/"
        return [f[len(prefix) :] for f in self._all_files() if f.startswith(prefix)]

    def get_reference(self, reference_id: str) -> str | None:
        """``references/<id>``, else ``<id>`` in the skill's folder."""
        return self._read(f"references/{reference_id}") or self._read(reference_id)

    def get_asset(self, asset_id: str) -> str | None:
        """``assets/<id>`` in the skill's folder."""
        return self._read(f"assets/{asset_id}")

    def get_script(self, script_id: str) -> Script | None:
        """``scripts/<id>`` in the skill's folder."""
        text = self._read(f"scripts/{script_id}")
        return None if text is None else Script(src=text)

    def list_references(self) -> list[str]:
        """Files in ``references/`` and every other file outside ``assets/`` and ``scripts/``."""
        refs = self._under("references")
        others = [
            f for f in self._all_files() if f.split("/", 1)[0] not in _SUBDIRS and f not in refs
        ]
        return refs + others

    def list_assets(self) -> list[str]:
        """Files in ``assets/``."""
        return self._under("assets")

    def list_scripts(self) -> list[str]:
        """Files in ``scripts/``."""
        return self._under("scripts")


def adk_metadata(skill: Skill) -> dict[str, Any]:
    """The ADK ``metadata`` of ``skill``: its frontmatter ``metadata`` as written, plus
    ``skillpath`` (provider and level).

    ADK's own keys pass through (``adk_additional_tools``: the tools loading the
    skill adds, from the toolset's ``additional_tools``; ``adk_inject_state``:
    ``{var}`` in the instructions filled from the session state). A
    ``metadata.include_tools`` (the space-separated tool names deepagents and
    agno read) becomes ``adk_additional_tools`` when that key is not given.
    """
    meta: dict[str, Any] = dict(skill.frontmatter.metadata or {})
    include = meta.get("include_tools")
    if "adk_additional_tools" not in meta and isinstance(include, str) and include.split():
        meta["adk_additional_tools"] = include.split()
    meta["skillpath"] = {"provider": skill.source.provider, "level": skill.source.level}
    return meta


def _frontmatter(skill: Skill) -> Frontmatter:
    fm = skill.frontmatter
    return Frontmatter(
        name=skill.name,
        description=shorten(skill.description, _ADK_DESCRIPTION_MAX) or skill.name,
        license=fm.license if isinstance(fm.license, str) else None,
        compatibility=shorten(fm.compatibility, 500) if isinstance(fm.compatibility, str) else None,
        allowed_tools=" ".join(fm.allowed_tools) or None,
        metadata=adk_metadata(skill),
    )


def _with_resource_hint(text: str) -> str:
    """The base-directory line, followed by how the model reads the skill's files."""
    if not text.startswith(_BASE_DIR):
        return text
    first, sep, rest = text.partition("\n")
    return f"{first}\n{_RESOURCE_HINT}{sep}{rest}"


def to_adk_skill(session: AgentSkills | SkillSession, name: str) -> AdkSkill:
    """The ADK ``Skill`` for the skill ``name`` the model may use in ``session``.

    Its instructions are rendered now, as the Skill tool renders them
    (trigger ``tool``, empty arguments, always in full: ADK keeps which
    skills a session loaded in the session's state); its resources are
    :class:`SkillpathResources`; its frontmatter carries ``license``,
    ``compatibility``, ``allowed-tools`` and :func:`adk_metadata`.

    :raises SkillpathError: for a name that is not an active skill the model
        may use (the message is the one every skillpath adapter gives: the
        nearest names, or why), a skill that cannot be rendered, or a name,
        description or metadata ADK does not accept.
    """
    skills = AgentSkills.of(session, refresh="manual")
    sess = skills.session
    skill = sess.get(name)
    if skill is None:
        raise SkillpathError(skills.call(name, "").removeprefix("Error: "))
    rendered = sess.invoke(name, "", trigger="tool", force=True)
    try:
        front = _frontmatter(skill)
    except ValidationError as exc:
        problems = "; ".join(str(e.get("msg", e)) for e in exc.errors())
        raise SkillpathError(f"skill {name!r} cannot be an ADK skill: {problems}") from exc
    return AdkSkill(
        frontmatter=front,
        instructions=_with_resource_hint(rendered.content),
        resources=SkillpathResources.of(sess, name),
    )


def adk_skills(
    session: AgentSkills | SkillSession,
    *,
    listing_format: str | None = None,
    budget: int | None = None,
) -> list[AdkSkill]:
    """ADK ``Skill`` objects for the skills the listing shows (budget applied).

    A snapshot (instructions rendered now): for a toolset that follows the
    disk, use :class:`SkillpathSkillToolset`. Skills ADK cannot take (a name
    that is not kebab-case) are left out; see :func:`to_adk_skill`.
    """
    skills = AgentSkills.of(session, refresh="manual", budget=budget, format=listing_format)
    out: list[AdkSkill] = []
    for skill in skills.listed_skills():
        try:
            out.append(to_adk_skill(skills, skill.name))
        except SkillpathError:
            continue
    return out


class SkillpathRegistry(SkillRegistry):
    """An ADK ``SkillRegistry`` over skillpath's skills.

    ``get_skill`` renders the skill afresh on every call; ``search_skills``
    is skillpath's ranked search (:meth:`skillpath.SkillSession.search`).
    """

    def __init__(
        self,
        session: AgentSkills | SkillSession,
        *,
        listing_format: str | None = None,
        budget: int | None = None,
    ) -> None:
        self.skills = skills_for(session, listing_format=listing_format, budget=budget)
        self.session = self.skills.session

    async def get_skill(self, *, name: str) -> AdkSkill:
        """The skill ``name`` (rendered in a worker thread).

        :raises SkillpathError: with skillpath's message for a name the model
            may not use (ADK passes it to the model as the tool's error).
        """
        return await anyio.to_thread.run_sync(to_adk_skill, self.skills, str(name).strip())

    async def search_skills(self, *, query: str) -> list[Frontmatter]:
        """The skills the model may call that best match ``query``, best first (at most 5)."""
        out: list[Frontmatter] = []
        for hit in self.session.search(str(query), 5):
            if hit.skill.hidden:
                continue
            try:
                out.append(_frontmatter(hit.skill))
            except ValidationError:
                continue
        return out

    def search_tool_description(self) -> str | None:
        """How the model should use ``search_skills`` here."""
        return str(self.skills.search_schema()["description"])


class SkillpathSearchTool(BaseTool):
    """``search_skills(query, k)``: skillpath's ranked search, as every adapter offers it.

    It takes the place of ADK's own ``search_skills`` in
    :class:`SkillpathSkillToolset` (which takes no ``k``); the answer is
    :meth:`skillpath.agent.AgentSkills.search`'s text: the best ``k`` skills,
    names and descriptions, or an ``Error:`` text.
    """

    def __init__(self, skills: AgentSkills) -> None:
        schema = skills.search_schema()
        super().__init__(name=str(schema["name"]), description=str(schema["description"]))
        self._skills = skills
        self._schema = schema["input_schema"]

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        return types.FunctionDeclaration(
            name=self.name, description=self.description, parameters_json_schema=self._schema
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: Any) -> Any:
        """The ranked skills, as text (``{"result": …}`` for the model)."""
        return await anyio.to_thread.run_sync(self._skills.search, args)


class SkillpathSkillToolset(SkillToolset):
    """ADK's ``SkillToolset`` over every skillpath skill, following the disk.

    The catalog the model sees (``list_skills``, or the system instruction
    in ``EAGER`` discovery mode) is skillpath's listing, budget applied,
    re-read on every request; ``load_skill`` and ``load_skill_resource``
    fetch through :class:`SkillpathRegistry`, so edits are seen on the next
    turn and an unknown name gets skillpath's helpful message;
    ``search_skills(query, k)`` is :class:`SkillpathSearchTool`.

    A conversation is an ADK session: which skills it loaded is ADK's own
    record in the session's state, and every ``load_skill`` gives the skill
    in full, so a new session gets every skill. This toolset keeps nothing
    per session.

    :param session: the skills to serve (an :class:`~skillpath.agent.AgentSkills`
        or a :class:`~skillpath.SkillSession`).
    :param listing_format: the listing format whose budget decides the catalog.
    :param budget: the listing budget (default: the ``[listing]`` setting).
    :param refresh_each_request: before every model request, look whether the
        skills on disk changed and load them again when they did (on by
        default; ``False``: only :meth:`refresh`).
    :param toolset_options: further ``SkillToolset`` arguments
        (``code_executor``, ``discovery_mode``, ``additional_tools``, …).
    """

    def __init__(
        self,
        session: AgentSkills | SkillSession,
        *,
        listing_format: str | None = None,
        budget: int | None = None,
        refresh_each_request: bool = True,
        **toolset_options: Any,
    ) -> None:
        self.agent_skills = skills_for(
            session, listing_format=listing_format, budget=budget, refresh=refresh_each_request
        )
        self.session = self.agent_skills.session
        self.listing_format = listing_format
        self.budget = budget
        self.refresh_each_request = refresh_each_request
        registry = SkillpathRegistry(self.agent_skills)
        super().__init__(registry=registry, **toolset_options)
        self._search_tool = SkillpathSearchTool(self.agent_skills)

    @classmethod
    def open(
        cls,
        cwd: str | os.PathLike[str] | None = None,
        *,
        home: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        settings: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> SkillpathSkillToolset:
        """Open a :class:`SkillSession` for ``cwd`` and wrap it (``options`` as for the class)."""
        return cls(SkillSession.open(cwd, home=home, env=env, settings=settings), **options)

    def refresh(self) -> None:
        """Load the skills again now (see :meth:`skillpath.agent.AgentSkills.refresh`)."""
        self.agent_skills.refresh()

    def _list_skills(self) -> list[AdkSkill]:  # ADK's catalog hook
        """The catalog: the listed skills' frontmatter (instructions are loaded on demand).

        Built once per catalog state (:meth:`skillpath.agent.AgentSkills.memo`): ADK
        reads it on every request in ``EAGER`` mode, and the entries only change when
        the skills do. ``load_skill`` and ``load_skill_resource`` do not use these
        entries: they fetch the skill afresh through :class:`SkillpathRegistry`.
        """
        return list(self.agent_skills.memo("adk:catalog", self._catalog))

    def _catalog(self) -> tuple[AdkSkill, ...]:
        out: list[AdkSkill] = []
        for skill in self.agent_skills.listed_skills():
            if claude_skill_name_problem(skill.name) is not None:
                continue  # ADK's rule is the same: kebab-case, at most 64
            # Only name and description are read from catalog entries: built
            # without validation (both already meet ADK's rules).
            front = Frontmatter.model_construct(
                name=skill.name,
                description=shorten(skill.description, _ADK_DESCRIPTION_MAX) or skill.name,
            )
            out.append(
                AdkSkill.model_construct(
                    frontmatter=front,
                    instructions="",
                    resources=SkillpathResources.of(self.session, skill.name),
                )
            )
        return tuple(out)

    async def get_tools(self, readonly_context: Any = None) -> list[Any]:
        """ADK's skill tools, each answering arguments of the wrong type (a number, a
        list, an object where a string is expected) with a tool error for the model
        instead of raising (see :func:`_guard_tool`); ``search_skills`` is
        :class:`SkillpathSearchTool`."""
        tools = await super().get_tools(readonly_context)
        out: list[Any] = []
        for tool in tools:
            if isinstance(tool, skill_toolset.SearchSkillsTool):
                tool = self._search_tool
            if isinstance(tool, (*_SKILL_TOOLS, SkillpathSearchTool)):
                _guard_tool(tool)
            out.append(tool)
        return out

    async def process_llm_request(self, *, tool_context: Any, llm_request: Any) -> None:
        """Check the disk first (``refresh_each_request``), then ADK's own work; when
        the listing budget leaves skills out of the catalog, say so and name
        ``search_skills``."""
        if self.refresh_each_request:
            await anyio.to_thread.run_sync(self.agent_skills.begin_turn)
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
        dropped = len(self.agent_skills.listing().report.dropped)
        if dropped:
            what = "skill is" if dropped == 1 else "skills are"
            llm_request.append_instructions(
                [
                    f"{dropped} more {what} not in the skills catalog (its budget): call "
                    f"{self._search_tool.name} with a few words of the task to find them."
                ]
            )
