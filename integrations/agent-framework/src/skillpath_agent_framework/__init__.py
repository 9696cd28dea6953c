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
arguments, so ``$ARGUMENTS`` is empty) and ``read_skill_resource`` is a
``skill://<name>/<resource>`` read under skillpath's containment. Nothing
here discovers, parses or filters skills (:class:`skillpath.agent.AgentSkills`).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import timedelta
from typing import Any

from agent_framework import (
    FunctionInvocationContext,
    FunctionMiddleware,
    Skill,
    SkillFrontmatter,
    SkillResource,
    SkillsProvider,
    SkillsSource,
    SkillsSourceContext,
)
from skillpath import SkillSession
from skillpath.agent import AgentSkills, paths_in_arguments
from skillpath.listing import neutralise
from skillpath.model import Skill as SkillRecord

__all__ = [
    "SkillpathFileTracker",
    "SkillpathResource",
    "SkillpathSkill",
    "SkillpathSkillsProvider",
    "SkillpathSkillsSource",
    "skills_for",
]

#: The tool name Agent Framework's listing points the model at.
TOOL_NAME = SkillsProvider.LOAD_SKILL_TOOL_NAME


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
) -> AgentSkills:
    """The :class:`AgentSkills` to serve: ``skills`` as is, a session wrapped, or a new one."""
    return AgentSkills.of(
        skills,
        cwd=cwd,
        home=home,
        env=env,
        settings=settings,
        refresh=refresh,
        budget=budget,
        tool_name=TOOL_NAME,
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
    fm.compatibility = None
    fm.allowed_tools = " ".join(record.frontmatter.allowed_tools) or None
    fm.metadata = None
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
        """Name, description, licence and allowed tools, from skillpath's record."""
        return self._frontmatter

    async def get_content(self) -> str:
        """The skill rendered by skillpath for the model (``Error: …`` when refused)."""
        return self._skills.call(self._frontmatter.name)

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
    ``disable-model-invocation`` skills.
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
    ) -> None:
        self.skills = skills_for(
            skills, cwd=cwd, home=home, env=env, settings=settings, refresh=refresh, budget=budget
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
            )
        self.source = source
        self.skills = source.skills
        self.file_tracker = SkillpathFileTracker(self.skills)
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

    async def _load_skill(self, skills: Sequence[Skill], skill_name: str) -> str:
        refused = _not_text(skill_name=skill_name)
        if refused is not None:
            return refused
        if skill_name and skill_name.strip() and self._find_skill(skills, skill_name) is None:
            return self.skills.call(skill_name)
        return await super()._load_skill(skills, skill_name)

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
        refused = _not_text(skill_name=skill_name, script_name=script_name)
        if refused is not None:
            return refused
        return await super()._run_skill_script(
            skills, skill_name, script_name, args, context=context
        )
