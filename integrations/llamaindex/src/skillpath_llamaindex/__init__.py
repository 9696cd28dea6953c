"""skillpath for LlamaIndex agents (``llama-index-core``: ``FunctionAgent``, ``ReActAgent``, …).

:class:`SkillpathSkills` gives an agent a ``Skill`` tool (a LlamaIndex
``FunctionTool`` whose answer is the skill rendered by skillpath) and the
skill listing for its system prompt::

    skills = SkillpathSkills(cwd=".")
    agent = skills.attach(FunctionAgent(tools=[skills.tool], llm=llm, system_prompt="You help."))

:meth:`SkillpathSkills.attach` appends the listing to the agent's own system
prompt and, every time the agent is run, checks the skills on disk first and
rewrites the listing when they changed. :meth:`SkillpathSkills.system_prompt`
gives the same text for agents built some other way.

Nothing here discovers, parses or filters skills: that is skillpath's
(:class:`skillpath.agent.AgentSkills`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from llama_index.core.agent.react.prompts import CONTEXT_REACT_CHAT_SYSTEM_HEADER
from llama_index.core.agent.workflow.base_agent import BaseWorkflowAgent
from llama_index.core.tools import FunctionTool
from pydantic import BaseModel, Field
from skillpath import SkillSession
from skillpath.agent import SKILL_TOOL_NAME, AgentSkills

__all__ = ["SkillpathSkills", "skills_for"]

_ATTACHED = "_skillpath_skills"

_DESCRIPTION = (
    "Load a skill: its instructions are returned for you to follow. Use it when the task "
    "matches one of the skills listed in your instructions, before doing the work. Pass the "
    "skill's name in `skill` and any arguments for it in `args`."
)


class _SkillArgs(BaseModel):
    skill: str = Field(description="The skill name, from the skills listing.")
    args: str = Field(default="", description="Arguments for the skill (optional).")


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


def _tool_name(tool: Any) -> str | None:
    metadata = getattr(tool, "metadata", None)
    return getattr(metadata, "name", None)


def _set_system_prompt(agent: BaseWorkflowAgent, previous: str | None, text: str) -> None:
    """Set ``agent``'s system prompt; a ReAct agent keeps it in its formatter's context too."""
    agent.system_prompt = text
    formatter = getattr(agent, "formatter", None)
    context = getattr(formatter, "context", None)
    if formatter is None or not isinstance(context, str):
        return
    if previous and previous in context:
        formatter.context = context.replace(previous, text, 1)
    else:
        formatter.context = f"{text}\n\n{context.strip()}" if context.strip() else text
    if formatter.context and "{context}" not in formatter.system_header:
        formatter.system_header = CONTEXT_REACT_CHAT_SYSTEM_HEADER


class SkillpathSkills:
    """Every skillpath skill for a LlamaIndex workflow agent.

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
        self.tool = FunctionTool.from_defaults(
            fn=self._call,
            name=SKILL_TOOL_NAME,
            description=_DESCRIPTION,
            fn_schema=_SkillArgs,
        )

    def _call(self, skill: str, args: str = "") -> str:
        """The rendered skill or an ``Error: …`` text (never raises)."""
        return self.skills.call(skill, args or "")

    def refresh(self) -> bool:
        """Load the skills again now (see :meth:`AgentSkills.refresh`)."""
        return self.skills.refresh()

    def system_prompt(self, base: str | None = None) -> str:
        """``base`` then the current listing (after the per-turn disk check)."""
        self.skills.begin_turn()
        listing = self.skills.instructions()
        return "\n\n".join(p for p in (base, listing) if p)

    def attach(self, agent: BaseWorkflowAgent) -> BaseWorkflowAgent:
        """Keep the listing in ``agent``'s system prompt; returns ``agent``.

        The agent's own ``system_prompt`` comes first. Each ``agent.run(...)``
        checks the skills on disk before the run starts and rewrites the
        listing when they changed. Attaching again is a no-op; attaching
        another :class:`SkillpathSkills` is refused.
        """
        if SKILL_TOOL_NAME not in {_tool_name(t) for t in agent.tools or []}:
            raise ValueError("add SkillpathSkills.tool to the agent's tools before attach()")
        attached = getattr(agent, _ATTACHED, None)
        if attached is self:
            return agent
        if attached is not None:
            raise ValueError("the agent already has skillpath skills attached")
        object.__setattr__(agent, _ATTACHED, self)
        base = agent.system_prompt
        run = agent.run
        shown = [base]

        def apply() -> None:
            text = self.system_prompt(base)
            _set_system_prompt(agent, shown[0], text)
            shown[0] = text

        def run_with_skills(*args: Any, **kwargs: Any) -> Any:
            apply()
            return run(*args, **kwargs)

        apply()
        # the instance's run, so that only this agent is affected
        object.__setattr__(agent, "run", run_with_skills)
        return agent
