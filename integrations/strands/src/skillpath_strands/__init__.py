"""skillpath for Strands Agents (``strands-agents``): its ``AgentSkills`` plugin fed by skillpath.

Strands' ``AgentSkills`` plugin puts an ``<available_skills>`` block into the
system prompt before every invocation and gives the model a ``skills`` tool
that loads one skill's instructions. :class:`SkillpathAgentSkills` is that
plugin with skillpath behind it::

    from strands import Agent
    from skillpath_strands import SkillpathAgentSkills

    agent = Agent(model=..., plugins=[SkillpathAgentSkills(cwd=".")])

* the prompt block lists the skills skillpath lists for the model (every
  provider, pack and MCP skill, after precedence, filters and the listing
  budget; hidden and ``disable-model-invocation`` skills left out), checked
  against the disk before every invocation;
* the ``skills`` tool answers with skillpath's rendering (arguments, inline-shell
  policy, ``disable-model-invocation``), followed by Strands' own metadata and
  resource lines; an unknown name gets skillpath's near names;
* after any tool call with a ``file_path``/``path``/``paths``/``filename``
  argument, nested skills directories load and conditional skills (``paths:``)
  activate for those paths; the next invocation lists them.

Nothing here discovers, parses or filters skills: that is skillpath's
(:class:`skillpath.agent.AgentSkills`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from skillpath import SkillSession
from skillpath.agent import AgentSkills, paths_in_arguments
from skillpath.model import Skill
from strands.hooks.events import AfterToolCallEvent, BeforeInvocationEvent
from strands.plugins import hook
from strands.tools.decorator import tool
from strands.types.tools import ToolContext
from strands.vended_plugins.skills import AgentSkills as StrandsAgentSkills
from strands.vended_plugins.skills import Skill as StrandsSkill

__all__ = ["TOOL_NAME", "SkillpathAgentSkills", "SkillpathSkill", "skills_for"]

#: The Strands plugin's tool name.
TOOL_NAME = "skills"

_ERROR = "Error: "


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


class SkillpathSkill(StrandsSkill):
    """A Strands ``Skill`` for one skillpath skill.

    Its ``instructions`` are rendered by skillpath each time they are read
    (empty arguments, ``trigger="tool"``), so code that reads them (Strands'
    own ``AgentSkills`` given these objects) gets skillpath's inline-shell
    policy and refusals.
    """

    def __init__(self, skills: AgentSkills, record: Skill) -> None:
        fm = record.frontmatter
        super().__init__(
            name=record.name,
            description=record.description,
            instructions="",
            path=Path(record.base_dir) if record.base_dir is not None else None,
            allowed_tools=list(fm.allowed_tools) or None,
            metadata=dict(fm.metadata),
            license=fm.license,
            compatibility=fm.compatibility,
        )
        self._skillpath = skills

    @property  # type: ignore[override]
    def instructions(self) -> str:
        """The skill rendered by skillpath (``Error:`` text when refused)."""
        return self._skillpath.call(self.name, "", force=True)

    @instructions.setter
    def instructions(self, value: str) -> None:
        # The dataclass __init__ assigns the field; skillpath renders on read instead.
        pass


class SkillpathAgentSkills(StrandsAgentSkills):
    """Strands' ``AgentSkills`` plugin serving every skillpath skill.

    Pass an :class:`~skillpath.agent.AgentSkills` or a
    :class:`~skillpath.SkillSession`, or let it open one for ``cwd`` (keyword
    arguments as :meth:`AgentSkills.open`). Before every invocation the disk is
    checked and the prompt block follows skillpath's catalog
    (``refresh="turn"``; with ``"manual"``, call :meth:`refresh`).
    ``state_key`` and ``max_resource_files`` are Strands' own.

    Differences from Strands' plugin over folders: the ``skills`` tool takes an
    optional ``args`` string (skillpath's ``$ARGUMENTS``); its text is
    skillpath's rendering (it starts with the skill's base directory; inline
    shell runs only as skillpath's policy allows); a hidden skill can be loaded
    by name although it is not listed; a user-only or unknown skill is refused
    with an ``Error:`` text naming the nearest skills the model may use.
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
        state_key: str = "agent_skills",
        max_resource_files: int = 20,
    ) -> None:
        self.skillpath = skills_for(
            skills, cwd=cwd, home=home, env=env, settings=settings, refresh=refresh, budget=budget
        )
        self._listed = self.skillpath.listed_skills()
        super().__init__(
            skills=self._strands_skills(),
            state_key=state_key,
            max_resource_files=max_resource_files,
        )

    def _strands_skills(self) -> list[StrandsSkill]:
        return [SkillpathSkill(self.skillpath, s) for s in self._listed]

    def _sync(self) -> None:
        listed = self.skillpath.listed_skills()
        if listed is not self._listed:
            self._listed = listed
            self.set_available_skills(self._strands_skills())

    def refresh(self) -> bool:
        """Load the skills again now; whether skillpath's active skills changed."""
        changed = self.skillpath.refresh()
        self._sync()
        return changed

    @hook
    async def _on_before_invocation(self, event: BeforeInvocationEvent) -> None:
        """Check the disk, follow skillpath's catalog, then inject Strands' prompt block."""
        self.skillpath.begin_turn()
        self._sync()
        await super()._on_before_invocation(event)

    @hook
    def _on_after_tool_call(self, event: AfterToolCallEvent) -> None:
        """After any tool with a ``file_path``/``path``/``paths``/``filename`` argument ran:
        nested skills directories load and conditional skills activate for those paths."""
        paths = paths_in_arguments(event.tool_use.get("input"))
        if paths:
            self.skillpath.files_touched(paths)

    @tool(context=True)
    async def skills(self, skill_name: str, tool_context: ToolContext, args: str = "") -> str:
        """Activate a skill to load its full instructions.

        Use this tool to load the complete instructions for a skill listed in
        the available_skills section of your system prompt.

        Args:
            skill_name: Name of the skill to activate.
            tool_context: Injected by the framework. Not user-facing.
            args: Arguments for the skill (its $ARGUMENTS), or an empty string.
        """
        name = str(skill_name or "")
        text = self.skillpath.call(name, str(args or ""), force=True)
        if text.startswith(_ERROR):
            return text
        agent = tool_context.agent
        self._track_activated_skill(agent, name)
        record = self.skillpath.session.get(name)
        if record is None:  # pragma: no cover (call() answered, so the skill exists)
            return text
        shown = StrandsSkill(
            name=name,
            description=record.description,
            instructions=text,
            path=Path(record.base_dir) if record.base_dir is not None else None,
            allowed_tools=list(record.frontmatter.allowed_tools) or None,
            compatibility=record.frontmatter.compatibility,
        )
        return await self._format_skill_response(shown, agent.sandbox)
