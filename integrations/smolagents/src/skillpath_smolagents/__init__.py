"""skillpath for smolagents (``CodeAgent`` and ``ToolCallingAgent``).

:class:`SkillpathSkills` gives a smolagents agent a ``Skill`` tool (a
smolagents :class:`~smolagents.Tool` whose answer is the skill rendered by
skillpath) and keeps the skill listing in the agent's instructions::

    skills = SkillpathSkills(cwd=".")
    agent = ToolCallingAgent(tools=[skills.tool], model=model, instructions="You help.")
    skills.attach(agent)

:meth:`SkillpathSkills.attach` appends the listing to the agent's own
instructions, checks the skills on disk when a run starts and after every
step, and rebuilds the system prompt when they changed. ``CodeAgent`` calls
the tool from the code it writes (``Skill(skill="greet", args="Ada")``).

Nothing here discovers, parses or filters skills: that is skillpath's
(:class:`skillpath.agent.AgentSkills`).
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Hashable, Mapping
from typing import Any

from skillpath import SkillSession
from skillpath.agent import SEARCH_TOOL_NAME, SKILL_TOOL_NAME, AgentSkills, paths_in_arguments
from smolagents import Tool
from smolagents.agents import MultiStepAgent
from smolagents.memory import ActionStep, PlanningStep, SystemPromptStep

__all__ = [
    "READ_TOOL_NAME",
    "ReadSkillTool",
    "SearchSkillsTool",
    "SkillTool",
    "SkillpathSkills",
    "conversation_of",
    "skills_for",
]

#: The name of the tool that reads a skill's files (``skill://<name>/<path>``).
READ_TOOL_NAME = "read_skill"

_ATTACHED = "_skillpath_skills"
_BASE_DIR = "Base directory for this skill: "

_DESCRIPTION = (
    "Load a skill: its instructions are returned for you to follow. Use it when the task "
    "matches one of the skills listed in your instructions, before doing the work. Pass the "
    "skill's name in `skill` and any arguments for it in `args`."
)


def skills_for(
    skills: AgentSkills | SkillSession | None = None,
    *,
    cwd: str | os.PathLike[str] | None = None,
    home: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    settings: Mapping[str, Any] | None = None,
    refresh: str = "turn",
    budget: int | None = None,
    format: str | None = None,
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
        format=format,
        search_tool=SEARCH_TOOL_NAME,
    )


def conversation_of(agent: Any, skills: AgentSkills) -> Hashable:
    """The conversation key of ``agent``'s current run: its memory's first step.

    smolagents replaces the memory's steps when a run resets it (the default),
    so each such run is a conversation of its own; ``run(..., reset=False)``
    keeps the first step and with it the conversation. Without an agent (a tool
    not attached, called directly) every call is a conversation of its own.
    """
    steps = getattr(getattr(agent, "memory", None), "steps", None)
    if not steps:
        return skills.new_conversation()
    return skills.conversation_key(steps[0])


def with_read_hint(text: str, name: str, read_tool: str = READ_TOOL_NAME) -> str:
    """A rendered skill whose base-directory line also names the ``skill://`` URL of
    its files, which the agent reads with ``read_tool`` (it may have no file tool)."""
    if not text.startswith(_BASE_DIR):
        return text
    first, sep, rest = text.partition("\n")
    hint = f"Its files are at skill://{name}/<path>: read them with the {read_tool} tool."
    return f"{first}\n{hint}{sep}{rest}"


class SkillTool(Tool):
    """The ``Skill`` tool: ``Skill(skill=name, args=text)`` returns the rendered skill.

    Every refusal (an unknown name, a user-only skill, a conditional skill not
    active yet) is returned as a text starting with ``Error:``; it never raises.
    """

    name = SKILL_TOOL_NAME
    description = _DESCRIPTION
    inputs = {  # noqa: RUF012 (smolagents reads these class attributes)
        "skill": {"type": "string", "description": "The skill name, from the skills listing."},
        "args": {
            "type": "string",
            "description": "Arguments for the skill (optional).",
            "nullable": True,
        },
    }
    output_type = "string"

    def __init__(self, skills: AgentSkills, agent: MultiStepAgent | None = None) -> None:
        super().__init__()
        self.skills = skills
        self._agent = weakref.ref(agent) if agent is not None else None
        self.is_initialized = True

    def bound(self, agent: MultiStepAgent) -> SkillTool:
        """This tool for ``agent``: its calls belong to the agent's conversation."""
        return SkillTool(self.skills, agent)

    def forward(self, skill: str, args: str | None = None) -> str:
        """Render ``skill`` with ``args`` (skillpath's arguments and inline-shell policy).

        ``args`` left out renders as the empty string (``$ARGUMENTS`` empty,
        ``$0`` as written).
        """
        agent = self._agent() if self._agent is not None else None
        key = conversation_of(agent, self.skills)
        answer = self.skills.call(skill, args or "", conversation=key)
        if agent is None or READ_TOOL_NAME not in agent.tools:
            return answer
        return with_read_hint(answer, str(skill))


class ReadSkillTool(Tool):
    """The ``read_skill`` tool: ``read_skill(url="skill://<name>/<path>")``, a skill's file.

    ``skill://<name>`` is the skill's instructions as written, ``skill://<name>/.``
    lists its files; the read is skillpath's (a path that leaves the skill's
    folder is refused, so are binary files and files over 8 MiB). Refusals are
    ``Error:`` texts.
    """

    name = READ_TOOL_NAME
    description = (
        "Read a file of a skill: skill://<name>/<path> (a path the skill's instructions "
        "mention); skill://<name>/. lists the skill's files, a folder's URL that folder's. "
        "To use a skill, call the Skill tool instead: it fills in the skill's arguments."
    )
    inputs = {  # noqa: RUF012 (smolagents reads these class attributes)
        "url": {"type": "string", "description": "A skill:// URL."},
    }
    output_type = "string"

    def __init__(self, skills: AgentSkills) -> None:
        super().__init__()
        self.skills = skills
        self.is_initialized = True

    def forward(self, url: str) -> str:
        """The file's text, a folder's listing or an ``Error:`` text."""
        return self.skills.read(url)


class SearchSkillsTool(Tool):
    """The ``search_skills`` tool: ``search_skills(query=..., k=5)``, the best matching skills.

    skillpath's ranked search over every active skill (the listing's
    over-budget notice points the model here).
    """

    name = SEARCH_TOOL_NAME
    inputs = {  # noqa: RUF012 (smolagents reads these class attributes)
        "query": {"type": "string", "description": "A few words describing the task."},
        "k": {
            "type": "integer",
            "description": "How many skills to return (default 5).",
            "nullable": True,
        },
    }
    output_type = "string"

    def __init__(self, skills: AgentSkills) -> None:
        self.description = str(skills.search_schema()["description"])
        super().__init__()
        self.skills = skills
        self.is_initialized = True

    def forward(self, query: str, k: int | None = None) -> str:
        """The ranked skills (name and description) or an ``Error:`` text."""
        arguments: dict[str, Any] = {"query": query}
        if k is not None:
            arguments["k"] = k
        return self.skills.search(arguments)


class SkillpathSkills:
    """Every skillpath skill for a smolagents agent.

    Pass an :class:`~skillpath.agent.AgentSkills` or a
    :class:`~skillpath.SkillSession`, or let it open one for ``cwd`` (keyword
    arguments as :meth:`AgentSkills.open`). Add :attr:`tool` to the agent's
    tools (or all of :attr:`tools`) and call :meth:`attach` on the agent.
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
        format: str | None = None,
        track_files: bool = True,
    ) -> None:
        self.skills = skills_for(
            skills,
            cwd=cwd,
            home=home,
            env=env,
            settings=settings,
            refresh=refresh,
            budget=budget,
            format=format,
        )
        self.track_files = track_files
        self.tool = SkillTool(self.skills)
        self.read_tool = ReadSkillTool(self.skills)
        self.search_tool = SearchSkillsTool(self.skills)
        #: ``Skill``, ``read_skill`` and ``search_skills``.
        self.tools: list[Tool] = [self.tool, self.read_tool, self.search_tool]

    def refresh(self) -> bool:
        """Load the skills again now (see :meth:`AgentSkills.refresh`)."""
        return self.skills.refresh()

    def instructions(self, base: str | None = None) -> str:
        """``base`` then the current listing (after the per-turn disk check)."""
        self.skills.begin_turn()
        listing = self.skills.instructions()
        parts = [p for p in (base, listing) if p]
        return "\n\n".join(parts)

    def attach(self, agent: MultiStepAgent) -> MultiStepAgent:
        """Keep the listing in ``agent``'s instructions; returns ``agent``.

        The agent's own ``instructions`` come first. When a run starts (the
        agent builds its system prompt) and after every step, the skills on
        disk are checked; when they changed, the system prompt of the running
        agent is rebuilt, so its next model call sees the new listing. After a
        step whose tool calls name files (``file_path``, ``path``, ``paths``,
        ``filename``), nested skills directories load and conditional skills
        activate (``track_files=False`` turns that off). Attaching again is a
        no-op; attaching another :class:`SkillpathSkills` is refused.

        The agent's ``Skill`` tool is bound to it (its calls belong to the
        agent's conversation, see :func:`conversation_of`), and ``read_skill``
        and ``search_skills`` join its tools when it has no tool of that name.
        """
        if SKILL_TOOL_NAME not in agent.tools:
            raise ValueError(
                f"add SkillpathSkills.tool to the agent's tools before attach() "
                f"(the agent has: {', '.join(agent.tools) or 'no tools'})"
            )
        attached = getattr(agent, _ATTACHED, None)
        if attached is self:
            return agent
        if attached is not None:
            raise ValueError("the agent already has skillpath skills attached")
        setattr(agent, _ATTACHED, self)
        tool = agent.tools[SKILL_TOOL_NAME]
        if isinstance(tool, SkillTool):
            agent.tools[SKILL_TOOL_NAME] = tool.bound(agent)
        for extra in (self.read_tool, self.search_tool):
            agent.tools.setdefault(extra.name, extra)
        base = agent.instructions
        build = agent.initialize_system_prompt

        def initialize_system_prompt() -> str:
            agent.instructions = self.instructions(base)
            return build()

        def after_step(step: Any, agent: MultiStepAgent | None = None, **_: Any) -> None:
            if agent is None:
                return
            changed = self.skills.begin_turn()
            if self.track_files and isinstance(step, ActionStep):
                paths = [p for c in step.tool_calls or () for p in paths_in_arguments(c.arguments)]
                changed = bool(paths and self.skills.files_touched(paths)) or changed
            if changed:
                agent.memory.system_prompt = SystemPromptStep(system_prompt=agent.system_prompt)

        agent.initialize_system_prompt = initialize_system_prompt  # type: ignore[method-assign]
        agent.step_callbacks.register(ActionStep, after_step)
        agent.step_callbacks.register(PlanningStep, after_step)
        return agent
