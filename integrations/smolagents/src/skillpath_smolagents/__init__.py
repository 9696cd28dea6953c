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
from collections.abc import Mapping
from typing import Any

from skillpath import SkillSession
from skillpath.agent import SKILL_TOOL_NAME, AgentSkills, paths_in_arguments
from smolagents import Tool
from smolagents.agents import MultiStepAgent
from smolagents.memory import ActionStep, PlanningStep, SystemPromptStep

__all__ = ["SkillTool", "SkillpathSkills", "skills_for"]

_ATTACHED = "_skillpath_skills"

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
    )


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

    def __init__(self, skills: AgentSkills) -> None:
        super().__init__()
        self.skills = skills
        self.is_initialized = True

    def forward(self, skill: str, args: str | None = None) -> str:
        """Render ``skill`` with ``args`` (skillpath's arguments and inline-shell policy)."""
        return self.skills.call(skill, args or "")


class SkillpathSkills:
    """Every skillpath skill for a smolagents agent.

    Pass an :class:`~skillpath.agent.AgentSkills` or a
    :class:`~skillpath.SkillSession`, or let it open one for ``cwd`` (keyword
    arguments as :meth:`AgentSkills.open`). Add :attr:`tool` to the agent's
    tools and call :meth:`attach` on the agent.
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
