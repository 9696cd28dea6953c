"""skillpath for Microsoft Agent Framework (``agent-framework-core``).

Agent Framework has its own skills feature: a ``SkillsProvider`` (a context
provider) lists skills in the system prompt and offers the ``load_skill``,
``read_skill_resource`` and ``run_skill_script`` tools over the skills a
``SkillsSource`` returns. This package maps skillpath's catalog onto it:

* :class:`SkillpathSkillsSource` — a ``SkillsSource`` whose skills are the
  skills skillpath lists for the model (budget, ``hide`` and
  ``disable-model-invocation`` applied), checked against the disk on every
  agent run;
* :class:`SkillpathSkillsProvider` — a ``SkillsProvider`` over that source
  whose ``load_skill`` answers any name the way skillpath's Skill tool does
  (a hidden skill renders, a user-only skill is refused, an unknown name gets
  the nearest names the model may call)::

      agent = Agent(client, instructions="You help.",
                    context_providers=[SkillpathSkillsProvider(cwd=".")])

``load_skill`` returns the skill rendered by skillpath (inline shell as
skillpath's policy allows; Agent Framework's ``load_skill`` passes no
arguments, so ``$ARGUMENTS`` and ``$0``… are empty) and ``read_skill_resource``
is a ``skill://<name>/<resource>`` read under skillpath's containment. The
provider adds a ``search_skills`` tool for the skills the listing has no room
for, and does not offer ``run_skill_script`` (skillpath runs nothing outside
its inline-shell policy). The "already loaded" note of a skill loaded twice
holds within one Agent Framework session (``AgentSession.session_id``). Nothing
here discovers, parses or filters skills (:class:`skillpath.agent.AgentSkills`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from datetime import timedelta
from typing import Any

from agent_framework import (
    AgentSession,
    FunctionInvocationContext,
    FunctionMiddleware,
    FunctionTool,
    Skill,
    SkillFrontmatter,
    SkillResource,
    SkillsProvider,
    SkillsSource,
    SkillsSourceContext,
)
from agent_framework._skills import SCRIPT_RUNNER_INSTRUCTIONS
from skillpath import SkillSession
from skillpath.adapters import with_files_hint
from skillpath.agent import SEARCH_TOOL_NAME, AgentSkills, paths_in_arguments
from skillpath.listing import neutralise
from skillpath.model import Skill as SkillRecord

__all__ = [
    "SkillpathFileTracker",
    "SkillpathResource",
    "SkillpathSkill",
    "SkillpathSkillsProvider",
    "SkillpathSkillsSource",
    "conversation_of",
    "skills_for",
]

#: The tool name Agent Framework's listing points the model at.
TOOL_NAME = SkillsProvider.LOAD_SKILL_TOOL_NAME


_LOAD_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "skill_name": {"type": "string", "description": "The name of the skill to load."},
    },
    "required": ["skill_name"],
    "additionalProperties": False,
}


def conversation_of(session: Any) -> str | None:
    """The conversation of an agent run: its ``AgentSession``'s ``session_id`` (Agent
    Framework makes a new session for a run given none), else ``None``."""
    ident = getattr(session, "session_id", None)
    return f"session:{ident}" if isinstance(ident, str) and ident else None


def _metadata(values: Mapping[str, Any]) -> dict[str, str] | None:
    """Agent Framework's ``metadata`` (string values): non-strings as JSON."""
    out = {
        str(k): v if isinstance(v, str) else json.dumps(v, sort_keys=True, default=str)
        for k, v in values.items()
    }
    return out or None


def _not_text(**named: Any) -> str | None:
    """Agent Framework's ``Error: …`` answer when an argument that must be a string
    (or ``None``, for Agent Framework's own "cannot be empty") is something else."""
    for key, value in named.items():
        if value is not None and not isinstance(value, str):
            return f"Error: Argument {key!r} must be a string, not {type(value).__name__}."
    return None


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
    (``search``: the agent has the ``search_skills`` tool, so the listing leaves the
    skills that do not fit to it)."""
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


def _frontmatter(record: SkillRecord) -> SkillFrontmatter:
    """Agent Framework's frontmatter for a skill skillpath already validated.

    Built without Agent Framework's own name check, which would refuse names
    skillpath accepts (a plugin's ``plugin:skill``, say).
    """
    fm = SkillFrontmatter.__new__(SkillFrontmatter)
    fm.name = record.name
    fm.description = neutralise(record.description)[0]
    fm.license = record.frontmatter.license
    fm.compatibility = record.frontmatter.compatibility
    fm.allowed_tools = " ".join(record.frontmatter.allowed_tools) or None
    fm.metadata = _metadata(record.frontmatter.metadata)
    return fm


class SkillpathResource(SkillResource):
    """A file of a skill, read as ``skill://<skill>/<name>`` (refusals as ``Error:`` text)."""

    def __init__(self, skills: AgentSkills, skill: str, name: str) -> None:
        super().__init__(name=name)
        self._skills = skills
        self._skill = skill

    async def read(self, **kwargs: Any) -> Any:
        """The file's text, or skillpath's ``Error: …`` (containment, missing file)."""
        return self._skills.read(f"skill://{self._skill}/{self.name}")


class SkillpathSkill(Skill):
    """One skillpath skill as an Agent Framework ``Skill``."""

    def __init__(self, skills: AgentSkills, record: SkillRecord) -> None:
        self._skills = skills
        self._frontmatter = _frontmatter(record)

    @property
    def frontmatter(self) -> SkillFrontmatter:
        """Name, description, licence, compatibility, allowed tools and metadata,
        from skillpath's record."""
        return self._frontmatter

    async def get_content(self) -> str:
        """The skill rendered by skillpath for the model, in full (``Error: …`` when
        refused). :class:`SkillpathSkillsProvider`'s ``load_skill`` renders per session
        instead, with the "already loaded" note within one."""
        return self._skills.call(self._frontmatter.name, force=True)

    async def get_resource(self, name: str) -> SkillResource | None:
        """Any file of the skill (``skill://`` containment decides at read time)."""
        if not isinstance(name, str) or not name.strip():
            return None
        return SkillpathResource(self._skills, self._frontmatter.name, name)


class SkillpathSkillsSource(SkillsSource):
    """A ``SkillsSource`` serving the skills skillpath lists for the model.

    Pass an :class:`~skillpath.agent.AgentSkills` or a
    :class:`~skillpath.SkillSession`, or let it open one for ``cwd`` (keyword
    arguments as :meth:`AgentSkills.open`). Every :meth:`get_skills` (Agent
    Framework asks once per agent run) checks the disk first
    (``refresh="turn"``; ``"manual"``: call :meth:`refresh`). The skills are
    those the listing budget keeps, without ``hide`` and
    ``disable-model-invocation`` skills. ``search``: the agent has the
    ``search_skills`` tool (:class:`SkillpathSkillsProvider` offers it; Agent
    Framework's plain ``SkillsProvider`` does not, hence the default ``False``).
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
        search: bool = False,
    ) -> None:
        self.skills = skills_for(
            skills,
            cwd=cwd,
            home=home,
            env=env,
            settings=settings,
            refresh=refresh,
            budget=budget,
            search=search,
        )

    def refresh(self) -> bool:
        """Load the skills again now (see :meth:`AgentSkills.refresh`)."""
        return self.skills.refresh()

    def _build(self) -> tuple[SkillpathSkill, ...]:
        session = self.skills.session
        records = (session.get(name) for name in self.skills.listed_names())
        return tuple(SkillpathSkill(self.skills, r) for r in records if r is not None)

    async def get_skills(self, context: SkillsSourceContext) -> list[Skill]:
        """The current skills (the same objects until the catalog changes)."""
        self.skills.begin_turn()
        return list(self.skills.memo("agent-framework:skills", self._build))


class SkillpathFileTracker(FunctionMiddleware):
    """Function middleware: the files the agent's tools touch activate skills.

    After a tool call with a ``file_path``, ``path``, ``paths`` or ``filename``
    argument, nested skills directories above those paths load and
    conditional skills (``paths:`` frontmatter) that match activate. Such a
    skill can be loaded at once; Agent Framework's prompt lists it from the
    next run. Pass it in the agent's ``middleware``
    (:attr:`SkillpathSkillsProvider.file_tracker`).
    """

    def __init__(self, skills: AgentSkills) -> None:
        self.skills = skills

    async def process(
        self,
        context: FunctionInvocationContext,
        call_next: Callable[[], Awaitable[None]],
    ) -> None:
        """Run the tool, then hand the paths its arguments name to skillpath."""
        await call_next()
        args: Any = context.arguments
        if hasattr(args, "model_dump"):
            args = args.model_dump()
        paths = paths_in_arguments(args)
        if paths:
            self.skills.files_touched(paths)


class SkillpathSkillsProvider(SkillsProvider):
    """Agent Framework's ``SkillsProvider`` over a :class:`SkillpathSkillsSource`.

    Its prompt and tools are Agent Framework's; the keyword arguments
    ``instruction_template`` and ``disable_*_approval`` are passed on to it
    (by default Agent Framework asks for approval of every skill tool). A
    ``load_skill`` or ``read_skill_resource`` for a name the listing does not
    show is answered by skillpath rather than "not found": a hidden skill
    renders, a ``disable-model-invocation`` skill is refused with the reason,
    a conditional skill says when it activates, and an unknown name gets the
    nearest names the model may call.
    """

    def __init__(
        self,
        skills: AgentSkills | SkillSession | SkillpathSkillsSource | None = None,
        *,
        cwd: str | os.PathLike[str] | None = None,
        home: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        settings: Mapping[str, Any] | None = None,
        refresh: str = "turn",
        budget: int | None = None,
        instruction_template: str | None = None,
        disable_load_skill_approval: bool = False,
        disable_read_skill_resource_approval: bool = False,
        disable_run_skill_script_approval: bool = False,
        source_id: str | None = None,
        cache_refresh_interval: timedelta | None = None,
    ) -> None:
        if isinstance(skills, SkillpathSkillsSource):
            source = skills
        else:
            source = SkillpathSkillsSource(
                skills,
                cwd=cwd,
                home=home,
                env=env,
                settings=settings,
                refresh=refresh,
                budget=budget,
                search=True,
            )
        self.source = source
        self.skills = source.skills
        self.file_tracker = SkillpathFileTracker(self.skills)
        self._skillpath_load_approval_disabled = disable_load_skill_approval
        super().__init__(
            source,
            instruction_template=instruction_template,
            disable_load_skill_approval=disable_load_skill_approval,
            disable_read_skill_resource_approval=disable_read_skill_resource_approval,
            disable_run_skill_script_approval=disable_run_skill_script_approval,
            source_id=source_id,
            cache_refresh_interval=cache_refresh_interval,
        )

    def refresh(self) -> bool:
        """Load the skills again now (see :meth:`AgentSkills.refresh`)."""
        return self.skills.refresh()

    async def before_run(
        self,
        *,
        agent: Any,
        session: AgentSession,
        context: Any,
        state: dict[str, Any],
    ) -> None:
        """Agent Framework's skills prompt and tools for this run, per session.

        ``load_skill`` answers within the run's session (the "already loaded"
        note holds only there); ``search_skills`` is added; ``run_skill_script``
        and its prompt lines are left out (skillpath runs no skill scripts).
        """
        skills, instructions, tools = await self._create_context(
            SkillsSourceContext(agent=agent, session=session)
        )
        if not skills:
            return
        key = conversation_of(session)
        conversation = self.skills.new_conversation() if key is None else key
        kept: list[Any] = []
        for t in tools:
            if t.name == self.RUN_SKILL_SCRIPT_TOOL_NAME:
                continue
            kept.append(self._load_tool(skills, conversation) if t.name == TOOL_NAME else t)
        kept.append(self._search_tool())
        text = (instructions or "").replace(SCRIPT_RUNNER_INSTRUCTIONS, "")
        dropped = len(self.skills.listing().report.dropped)
        if dropped:
            more = "skill is" if dropped == 1 else "skills are"
            text += (
                f"\n{dropped} more {more} not listed: call `{SEARCH_TOOL_NAME}` with a few "
                f"words of the task to find them, then `{TOOL_NAME}` one by name."
            )
        context.extend_instructions(self.source_id, text)
        context.extend_tools(self.source_id, kept)

    def _approval(self) -> Any:
        return "never_require" if self._skillpath_load_approval_disabled else "always_require"

    def _load_tool(self, skills: Sequence[Skill], conversation: Hashable) -> FunctionTool:
        async def load(skill_name: str) -> str:
            return await self._load_in(skills, skill_name, conversation)

        return FunctionTool(
            name=TOOL_NAME,
            description="Loads the full instructions for a specific skill.",
            func=load,
            approval_mode=self._approval(),
            input_model=_LOAD_SCHEMA,
        )

    def _search_tool(self) -> FunctionTool:
        schema = self.skills.search_schema()

        async def search(query: Any = None, k: Any = 5) -> str:
            return self.skills.search({"query": query, "k": k})

        return FunctionTool(
            name=SEARCH_TOOL_NAME,
            description=schema["description"],
            func=search,
            approval_mode=self._approval(),
            input_model={**schema["input_schema"], "additionalProperties": False},
        )

    def _readable(self, name: str, text: str) -> str:
        """The base-directory line also says how ``read_skill_resource`` reaches its files."""
        tool = self.READ_SKILL_RESOURCE_TOOL_NAME
        hint = (
            f" (read its files with {tool}: skill_name {name!r}, "
            "resource_name the path inside this folder)"
        )
        return with_files_hint(self.skills.session, name, text, tool, hint=hint)

    async def _load_in(
        self, skills: Sequence[Skill], skill_name: Any, conversation: Hashable
    ) -> str:
        refused = _not_text(skill_name=skill_name)
        if refused is not None:
            return refused
        if not skill_name or not skill_name.strip():
            return "Error: Skill name cannot be empty."
        found = self._find_skill(skills, skill_name)
        if found is not None and not isinstance(found, SkillpathSkill):
            return await found.get_content()
        name = found.frontmatter.name if found is not None else skill_name
        return self._readable(name, self.skills.call(name, conversation=conversation))

    async def _load_skill(self, skills: Sequence[Skill], skill_name: str) -> str:
        return await self._load_in(skills, skill_name, self.skills.new_conversation())

    async def _read_skill_resource(
        self,
        skills: Sequence[Skill],
        skill_name: str,
        resource_name: str,
        *,
        runtime_kwargs: Mapping[str, Any] | None = None,
    ) -> Any:
        refused = _not_text(skill_name=skill_name, resource_name=resource_name)
        if refused is not None:
            return refused
        name = (skill_name or "").strip()
        if name and (resource_name or "").strip() and self._find_skill(skills, name) is None:
            record = self.skills.session.get(name)
            if record is None or record.frontmatter.disable_model_invocation:
                return self.skills.call(name)  # the unknown/user-only/conditional answer
            return self.skills.read(f"skill://{name}/{resource_name}")
        return await super()._read_skill_resource(
            skills, skill_name, resource_name, runtime_kwargs=runtime_kwargs
        )

    async def _run_skill_script(
        self,
        skills: Sequence[Skill],
        skill_name: str,
        script_name: str,
        args: dict[str, Any] | list[str] | None = None,
        *,
        context: FunctionInvocationContext,
    ) -> Any:
        """Not offered (:meth:`before_run` leaves the tool out); refused when called."""
        return (
            f"Error: {self.RUN_SKILL_SCRIPT_TOOL_NAME} is not available: skillpath runs no "
            "skill scripts. Follow the skill's instructions with the tools you have."
        )
