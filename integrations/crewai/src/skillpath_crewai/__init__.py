"""skillpath for CrewAI (``crewai``): every skillpath skill behind CrewAI's own skills.

CrewAI's ``Agent(skills=[...])`` and ``Crew(skills=[...])`` take skill
objects (``crewai.skills.Skill``). Skills at the metadata level are listed in
the agent's prompt (``<available_skills>``) and loaded by CrewAI's
``load_skill`` tool when the model asks for them. This package gives CrewAI
such objects for every skill skillpath lists for the model::

    skills = SkillpathSkills(cwd=".")
    agent = Agent(role=..., goal=..., backstory=..., llm=..., skills=skills.skills())

The prompt and the tool stay CrewAI's; what the tool returns is skillpath's:

* ``load_skill`` answers with the skill rendered by skillpath (the
  ``<skill name="...">`` block CrewAI always returns, holding skillpath's
  rendering: inline shell as skillpath's policy allows, ``$ARGUMENTS`` empty).
  Nothing is read from the skill's folder by CrewAI, so skills without a
  ``SKILL.md`` on disk (MCP skills, pack skills not unpacked yet) and names
  CrewAI's own parser refuses are served too;
* a name the prompt does not list is answered by skillpath: a hidden skill
  renders, a ``disable-model-invocation`` skill is refused with the reason, a
  conditional skill says when it activates, and an unknown name gets the
  nearest names the model may use;
* before every model call the disk is checked (``refresh="turn"``); when the
  catalog changed, the agent's skills, CrewAI's prompt block and the
  ``load_skill`` catalog are brought up to date, so an added or edited skill
  is seen on the next model turn;
* file paths in the agent's tool calls (``file_path``, ``path``, ``paths``,
  ``filename``) activate conditional skills and nested skills directories.

A conversation is one CrewAI request: one ``Agent.kickoff()``, or one agent's
execution of one task in a ``Crew.kickoff()`` (CrewAI builds a ``load_skill``
tool for each, and the message history lives there): a skill loaded again
within it gets skillpath's short "already loaded" note, any other request
gets the skill in full. :meth:`SkillpathSkills.tools` are two more tools for
the agent: ``read_skill`` (a skill's files as ``skill://`` URLs) and
``search_skills`` (the skills the listing has no room for).

These run as CrewAI hooks (a before-model-call hook and before/after
tool-call hooks, registered once per process); they act only for agents that
hold skills from this package. Nothing here discovers, parses or filters
skills: that is skillpath's (:class:`skillpath.agent.AgentSkills`).
"""

from __future__ import annotations

import operator
import os
import re
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from crewai.hooks import (
    LLMCallHookContext,
    ToolCallHookContext,
    get_after_tool_call_hooks,
    get_before_llm_call_hooks,
    get_before_tool_call_hooks,
    register_after_tool_call_hook,
    register_before_llm_call_hook,
    register_before_tool_call_hook,
)
from crewai.skills.loader import build_skill_catalog, format_skill_context
from crewai.skills.models import INSTRUCTIONS, METADATA, Skill, SkillFrontmatter
from crewai.skills.tool import LOAD_SKILL_TOOL_NAME, LoadSkillTool
from crewai.tools import BaseTool
from crewai.utilities.prompts import Prompts
from pydantic import BaseModel, Field, PrivateAttr
from skillpath import SkillSession
from skillpath.adapters import READ_TOOL_DESCRIPTION, with_files_hint
from skillpath.agent import SEARCH_TOOL_NAME, AgentSkills, paths_in_arguments, unknown_for_model
from skillpath.listing import neutralise
from skillpath.model import Skill as SkillRecord
from skillpath.search import search_tool_schema

__all__ = [
    "READ_TOOL_NAME",
    "TOOL_NAME",
    "SkillpathReadTool",
    "SkillpathSearchTool",
    "SkillpathSkill",
    "SkillpathSkills",
    "install_hooks",
    "skills_for",
]

#: The tool CrewAI's skills prompt points the model at.
TOOL_NAME = LOAD_SKILL_TOOL_NAME

#: The name of the ``skill://`` read tool (:meth:`SkillpathSkills.tools`).
READ_TOOL_NAME = "read_skill"

_ERROR = "Error:"


def skills_for(
    skills: AgentSkills | SkillSession | None = None,
    *,
    cwd: str | os.PathLike[str] | None = None,
    home: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    settings: Mapping[str, Any] | None = None,
    refresh: str = "turn",
    budget: int | None = None,
    search: bool = True,
) -> AgentSkills:
    """The :class:`AgentSkills` to serve: ``skills`` as is, a session wrapped, or a new one
    (``search``: the agents have ``search_skills``, so the listing leaves the skills that
    do not fit to it)."""
    return AgentSkills.of(
        skills,
        cwd=cwd,
        home=home,
        env=env,
        settings=settings,
        refresh=refresh,
        budget=budget,
        tool_name=TOOL_NAME,
        search_tool=SEARCH_TOOL_NAME if search else None,
    )


def _frontmatter(record: SkillRecord, description: str | None = None) -> SkillFrontmatter:
    """CrewAI's frontmatter for a skill skillpath already validated.

    Built without CrewAI's own checks (lower-case ``a-z0-9-`` names, 1,024
    characters of description), which would refuse skills skillpath accepts
    (a plugin's ``plugin:skill``, say). ``description`` is the one skillpath's
    listing shows (default: the skill's own, cleaned).
    """
    fm = record.frontmatter
    return SkillFrontmatter.model_construct(
        name=record.name,
        description=_untag(
            neutralise(record.description)[0] if description is None else description
        ),
        license=fm.license,
        compatibility=fm.compatibility,
        metadata=dict(fm.metadata) or None,
        allowed_tools=list(fm.allowed_tools) or None,
    )


# a "<" that would open or close one of the tags CrewAI's skills prompt is made of
_CREWAI_TAG = re.compile(r"<(?=\s*/?\s*(?:skill|skills|available_skills)\b)", re.IGNORECASE)


def _untag(text: str) -> str:
    """Write ``&lt;`` for a ``<`` that would open or close CrewAI's ``<skill>``,
    ``<skills>`` or ``<available_skills>`` (CrewAI does not escape descriptions)."""
    return _CREWAI_TAG.sub("&lt;", text) if "<" in text else text


def _shown_descriptions(listing: str, names: set[str]) -> dict[str, str]:
    """name → the description skillpath's listing (``claude`` format) shows for it.

    The listing budget may have shortened a description or listed the skill
    by name only (an empty description here); CrewAI's prompt shows the same.
    """
    out: dict[str, str] = {}
    for line in listing.splitlines():
        if not line.startswith("- "):
            continue
        entry = line[2:]
        if entry in names:
            out[entry] = ""
            continue
        name, sep, desc = entry.partition(": ")
        if sep and name in names:
            out[name] = desc
    return out


def _folder(record: SkillRecord) -> Path:
    """The skill's folder (``.`` for a skill that has none, as CrewAI's inline skills)."""
    return Path(record.base_dir) if record.base_dir is not None else Path(".")


class SkillpathSkill(Skill):
    """One skillpath skill as a CrewAI ``Skill`` (metadata level: listed, not loaded).

    CrewAI lists it in ``<available_skills>``; when the model calls
    ``load_skill`` for it, the adapter's hook puts the skill rendered by
    skillpath in its place first, so CrewAI never reads the folder.
    """

    _skillpath: SkillpathSkills | None = PrivateAttr(default=None)

    @classmethod
    def of(
        cls, owner: SkillpathSkills, record: SkillRecord, description: str | None = None
    ) -> SkillpathSkill:
        """The metadata-level object for ``record``, served by ``owner``
        (``description``: as skillpath's listing shows it)."""
        skill = cls(
            frontmatter=_frontmatter(record, description),
            path=_folder(record),
            disclosure_level=METADATA,
        )
        skill._skillpath = owner
        return skill

    @property
    def owner(self) -> SkillpathSkills | None:
        """The :class:`SkillpathSkills` that serves this skill."""
        return self._skillpath

    def rendered(self, text: str) -> SkillpathSkill:
        """This skill at CrewAI's instructions level, holding ``text`` (skillpath's rendering)."""
        loaded = type(self)(
            frontmatter=self.frontmatter,
            path=self.path,
            disclosure_level=INSTRUCTIONS,
            instructions=text,
        )
        loaded._skillpath = self._skillpath
        return loaded


class SkillpathSkills:
    """Every skill skillpath lists for the model, as CrewAI skill objects.

    Pass :meth:`skills` to ``Agent(skills=...)`` or ``Crew(skills=...)``. The
    keyword arguments are those of :meth:`skillpath.agent.AgentSkills.open`
    (``cwd``, ``home``, ``env``, ``settings``, ``refresh``, ``budget``), or
    pass an :class:`~skillpath.agent.AgentSkills` or a
    :class:`~skillpath.SkillSession` you already have. ``search`` (default
    ``True``): the agents get :meth:`tools` (``search_skills``), so the listing
    leaves the skills that do not fit to the search; pass ``False`` for agents
    without it (the listing then names them too, by name only).

    Building one installs the CrewAI hooks that serve the skills
    (:func:`install_hooks`).
    """

    def __init__(
        self,
        skills: AgentSkills | SkillSession | None = None,
        *,
        cwd: str | os.PathLike[str] | None = None,
        home: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        settings: Mapping[str, Any] | None = None,
        refresh: str = "turn",
        budget: int | None = None,
        search: bool = True,
    ) -> None:
        self.skillpath = skills_for(
            skills,
            cwd=cwd,
            home=home,
            env=env,
            settings=settings,
            refresh=refresh,
            budget=budget,
            search=search,
        )
        install_hooks()

    def skills(self) -> list[Path | Skill | str]:
        """The skills skillpath lists now, as CrewAI ``Skill`` objects (metadata level).

        Hidden and ``disable-model-invocation`` skills are left out, and so are
        those the listing budget drops. The objects are the same until the
        catalog changes. (Typed as CrewAI's ``skills`` fields are, so the list
        can be passed, or extended with CrewAI's own skill inputs, as is.)
        """
        install_hooks()
        with _LOCK:
            return list(self.current())

    def current(self) -> tuple[SkillpathSkill, ...]:
        """:meth:`skills` as a tuple (cached per catalog state), without a disk check."""
        return self.skillpath.memo("crewai:skills", self._build)

    def _build(self) -> tuple[SkillpathSkill, ...]:
        records = self.skillpath.listed_skills()
        shown = _shown_descriptions(self.skillpath.instructions(), {r.name for r in records})
        return tuple(SkillpathSkill.of(self, r, shown.get(r.name)) for r in records)

    def refresh(self) -> bool:
        """Load the skills again now; whether skillpath's active skills changed.

        Agents holding these skills see the change on their next model call.
        """
        with _LOCK:
            return self.skillpath.refresh()

    def tools(self) -> list[BaseTool]:
        """Two CrewAI tools for the agents holding these skills: ``read_skill``
        (:class:`SkillpathReadTool`) and ``search_skills`` (:class:`SkillpathSearchTool`).

        Pass them in ``Agent(tools=[...])`` next to your own.
        """
        return [SkillpathReadTool.of(self), SkillpathSearchTool.of(self)]

    def render(self, name: str, conversation: Any = None, *, readable: bool = False) -> str:
        """The skill rendered by skillpath within ``conversation`` (``None``: in full);
        ``readable``: the base-directory line also names the ``skill://`` URL of
        ``read_skill``."""
        key = None if conversation is None else self.skillpath.conversation_key(conversation)
        text = self.skillpath.call(name, force=key is None, conversation=key)
        if not readable:
            return text
        return with_files_hint(self.skillpath.session, name, text, READ_TOOL_NAME)

    def answer(
        self,
        skill_name: str,
        *,
        others: Sequence[str] = (),
        conversation: Any = None,
        readable: bool = False,
    ) -> str:
        """``load_skill``'s answer for a name the prompt does not list.

        A hidden skill renders (in CrewAI's ``<skill>`` block); a user-only
        or conditional skill is refused with skillpath's reason; an unknown
        name gets the nearest names the model may use (skillpath's, plus
        ``others``: the agent's other CrewAI skills). ``conversation`` and
        ``readable`` are as :meth:`render`'s.
        """
        name = str(skill_name)
        session = self.skillpath.session
        if session.get(name) is None and all(p.name != name for p in session.pending()):
            return unknown_for_model(name, [*self.skillpath.model_skill_names(), *others])
        text = self.render(name, conversation, readable=readable)
        record = session.get(name)
        if text.startswith(_ERROR) or record is None:
            return text
        return format_skill_context(SkillpathSkill.of(self, record).rendered(text))

    def __repr__(self) -> str:
        return f"SkillpathSkills(cwd={os.fspath(self.skillpath.session.ctx.cwd)!r})"


class _ReadArgs(BaseModel):
    url: str = Field(description="A skill:// URL, such as skill://<name>/<path>.")


class _SearchArgs(BaseModel):
    query: str = Field(description="A few words describing the task.")
    k: int = Field(default=5, description="How many skills to return (default 5).")


class SkillpathReadTool(BaseTool):
    """``read_skill``: a skill's file at a ``skill://`` URL (skillpath's containment and
    size limit; refusals as ``Error:`` text)."""

    name: str = READ_TOOL_NAME
    description: str = READ_TOOL_DESCRIPTION
    args_schema: type[BaseModel] = _ReadArgs
    _owner: SkillpathSkills | None = PrivateAttr(default=None)

    @classmethod
    def of(cls, owner: SkillpathSkills) -> SkillpathReadTool:
        """The tool reading ``owner``'s skills."""
        tool = cls()
        tool._owner = owner
        return tool

    def _run(self, url: str) -> str:
        if self._owner is None:
            return "Error: the tool is not bound to skillpath skills (use SkillpathSkills.tools())"
        with _LOCK:
            return self._owner.skillpath.read(str(url))


class SkillpathSearchTool(BaseTool):
    """``search_skills``: skillpath's ranked search over the skills (for those the
    listing budget leaves out)."""

    name: str = SEARCH_TOOL_NAME
    description: str = search_tool_schema()["description"]
    args_schema: type[BaseModel] = _SearchArgs
    _owner: SkillpathSkills | None = PrivateAttr(default=None)

    @classmethod
    def of(cls, owner: SkillpathSkills) -> SkillpathSearchTool:
        """The tool searching ``owner``'s skills."""
        tool = cls()
        tool._owner = owner
        return tool

    def _run(self, query: str, k: int = 5) -> str:
        if self._owner is None:
            return "Error: the tool is not bound to skillpath skills (use SkillpathSkills.tools())"
        with _LOCK:
            return self._owner.skillpath.search({"query": query, "k": k})


def _reads(agent: Any) -> bool:
    """Whether ``agent`` has the ``read_skill`` tool."""
    return any(isinstance(t, SkillpathReadTool) for t in getattr(agent, "tools", None) or ())


# -- the hooks ---------------------------------------------------------------------

# CrewAI runs the tool calls of one model turn in parallel threads, and a crew's agents
# may run at once: the hooks' work with skillpath (disk checks, rendering, unpacking a
# pack) is done one at a time.
_LOCK = threading.RLock()


def _owner_of(skill: Any) -> SkillpathSkills | None:
    """``skill.owner`` for a :class:`SkillpathSkill` (read without pydantic's slow path)."""
    if not isinstance(skill, SkillpathSkill):
        return None
    private = skill.__pydantic_private__
    return private.get("_skillpath") if private else None


def _held(skills: Sequence[Any] | None) -> dict[int, tuple[SkillpathSkills, list[Any]]]:
    """Each :class:`SkillpathSkills` behind ``skills`` (in order of first appearance)
    with the entries of ``skills`` it serves."""
    out: dict[int, tuple[SkillpathSkills, list[Any]]] = {}
    for skill in skills or ():
        owner = _owner_of(skill)
        if owner is not None:
            out.setdefault(id(owner), (owner, []))[1].append(skill)
    return out


def _owners(skills: Sequence[Any] | None) -> list[SkillpathSkills]:
    """The :class:`SkillpathSkills` behind ``skills``, in order of first appearance."""
    return [owner for owner, _ in _held(skills).values()]


def _updated(skills: list[Any], owners: list[SkillpathSkills]) -> list[Any]:
    """``skills`` with each owner's entries replaced by its current ones (in place of the first)."""
    out: list[Any] = []
    placed: list[SkillpathSkills] = []
    for skill in skills:
        owner = _owner_of(skill)
        if owner is None:
            if not (isinstance(skill, Skill) and any(skill.name == s.name for s in out)):
                out.append(skill)
            continue
        if any(owner is p for p in placed):
            continue
        placed.append(owner)
        names = {s.name for s in out if isinstance(s, Skill)}
        out += [s for s in owner.current() if s.name not in names]
    return out


def _same(a: Sequence[Any], b: Sequence[Any]) -> bool:
    """The same objects in the same order."""
    return len(a) == len(b) and all(map(operator.is_, a, b))


def _loader(executor: Any) -> LoadSkillTool | None:
    """The executor's ``load_skill`` tool, if it has one."""
    for tool in getattr(executor, "original_tools", None) or ():
        if isinstance(tool, LoadSkillTool):
            return tool
    return None


def _skill_block(agent: Any, loader: LoadSkillTool) -> str:
    """The skills part of the agent's prompt, as CrewAI renders it (CrewAI internal)."""
    prompts = Prompts(agent=agent, skill_loader_tool_name=loader.name)
    return str(prompts._build_skill_block())


def _before_model_call_unlocked(context: LLMCallHookContext) -> None:
    """Before each model call: bring the agent's skillpath skills up to date.

    When the catalog changed (checked against the disk, ``refresh="turn"``),
    the agent's ``skills`` are replaced, the prompt's skills block is
    rewritten in the messages about to be sent and the ``load_skill`` catalog
    is rebuilt.
    """
    agent = context.agent
    skills = getattr(agent, "skills", None)
    held = _held(skills)
    if not held or not isinstance(skills, list):
        return
    for owner, _ in held.values():
        owner.skillpath.begin_turn()
    if all(_same(entries, owner.current()) for owner, entries in held.values()):
        return
    fresh = _updated(skills, [owner for owner, _ in held.values()])
    if _same(fresh, skills):
        return
    loader = _loader(context.executor)
    old = _skill_block(agent, loader) if loader is not None else ""
    agent.skills = fresh
    if loader is None:
        return  # no load_skill tool in this run: the next run builds one
    new = _skill_block(agent, loader)
    for message in context.messages:
        content = message.get("content")
        if old and isinstance(content, str) and old in content:
            message["content"] = content.replace(old, new, 1)
            break
    catalog = build_skill_catalog(s for s in fresh if isinstance(s, Skill))
    loader.catalog.clear()
    loader.catalog.update(catalog)


def _never_cache(_args: Any, _result: Any) -> bool:
    """``load_skill`` answers are rendered per call (skills change, inline shell runs)."""
    return False


def _skill_loader(context: ToolCallHookContext) -> LoadSkillTool | None:
    tool = getattr(context.tool, "_original_tool", None) or context.tool
    return tool if isinstance(tool, LoadSkillTool) else None


def _before_tool_call_unlocked(context: ToolCallHookContext) -> None:
    """Before ``load_skill`` for a skillpath skill: put skillpath's rendering in its place."""
    loader = _skill_loader(context)
    if loader is None:
        return
    catalog = loader.catalog
    if not _owners(list(catalog.values())):
        return
    loader.cache_function = _never_cache
    name = context.tool_input.get("skill_name")
    entry = catalog.get(name) if isinstance(name, str) else None
    owner = entry.owner if isinstance(entry, SkillpathSkill) else None
    if owner is not None and isinstance(name, str) and isinstance(entry, SkillpathSkill):
        # the loader is CrewAI's per request (a kickoff, a task's execution): the conversation
        text = owner.render(entry.name, loader, readable=_reads(context.agent))
        catalog[name] = entry.rendered(text)


def _after_tool_call_unlocked(context: ToolCallHookContext) -> str | None:
    """After a tool call: skillpath's answers for ``load_skill``, file paths for activation."""
    owners = _owners(getattr(context.agent, "skills", None))
    paths = paths_in_arguments(context.tool_input)
    if paths:
        for owner in owners:
            owner.skillpath.files_touched(paths)
    loader = _skill_loader(context)
    if loader is None:
        return None
    catalog = loader.catalog
    owners = _owners(list(catalog.values())) or owners
    if not owners:
        return None
    name = context.tool_input.get("skill_name")
    if not isinstance(name, str):
        return None
    entry = catalog.get(name)
    if isinstance(entry, SkillpathSkill):
        text = entry.instructions or ""
        return text if text.startswith(_ERROR) else None
    if entry is not None:
        return None  # one of the agent's own CrewAI skills
    others = [label for label, s in catalog.items() if not isinstance(s, SkillpathSkill)]
    for owner in owners:
        owner.skillpath.begin_turn()  # a skill written since the model's turn began
    readable = _reads(context.agent)
    for owner in owners:
        if owner.skillpath.session.get(name) is not None:
            return owner.answer(name, others=others, conversation=loader, readable=readable)
    return owners[0].answer(name, others=others, conversation=loader, readable=readable)


def _before_model_call(context: LLMCallHookContext) -> None:
    """Before each model call: bring the agent's skillpath skills up to date (see
    :func:`_before_model_call_unlocked`)."""
    with _LOCK:
        _before_model_call_unlocked(context)


def _before_tool_call(context: ToolCallHookContext) -> None:
    """Before a tool call (see :func:`_before_tool_call_unlocked`)."""
    with _LOCK:
        _before_tool_call_unlocked(context)


def _after_tool_call(context: ToolCallHookContext) -> str | None:
    """After a tool call (see :func:`_after_tool_call_unlocked`)."""
    with _LOCK:
        return _after_tool_call_unlocked(context)


def install_hooks() -> None:
    """Register the adapter's CrewAI hooks (once per process; again after CrewAI's hooks
    were cleared). :class:`SkillpathSkills` calls it; agents built before the
    hooks were registered do not get the model-call hook."""
    if _before_model_call not in get_before_llm_call_hooks():
        register_before_llm_call_hook(_before_model_call)
    if _before_tool_call not in get_before_tool_call_hooks():
        register_before_tool_call_hook(_before_tool_call)
    if _after_tool_call not in get_after_tool_call_hooks():
        register_after_tool_call_hook(_after_tool_call)
