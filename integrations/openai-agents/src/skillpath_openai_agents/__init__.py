"""skillpath for the OpenAI Agents SDK (``openai-agents``).

For a plain ``Agent``: :class:`SkillpathSkills` gives dynamic instructions
(your text plus the skill listing, refreshed before every model turn), a
``load_skill`` function tool whose answer is the rendered skill, a
``search_skills`` tool for the skills the listing has no room for and a
``read_skill_file`` tool that reads a file in a skill's folder (a plain
``Agent`` has no file tool)::

    skills = SkillpathSkills(cwd=".")
    agent = Agent(
        name="dev",
        instructions=skills.instructions("You are a careful coding agent."),
        tools=skills.tools,
    )

For a ``SandboxAgent``: :class:`SkillpathLazySkillSource` (in
``skillpath_openai_agents.sandbox``) is a ``LazySkillSource`` for the
sandbox's ``Skills`` capability, backed by the same skills.

Nothing here discovers, parses or filters skills: that is skillpath's
(:class:`skillpath.agent.AgentSkills`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from agents import Agent, FunctionTool, RunContextWrapper, Tool
from skillpath import SkillSession
from skillpath.agent import READ_TOOL_NAME, SEARCH_TOOL_NAME, AgentSkills, error_text

if TYPE_CHECKING:  # imported on first use (an optional dependency)
    from skillpath_openai_agents.sandbox import SkillpathLazySkillSource

__all__ = [
    "TOOL_NAME",
    "SkillpathLazySkillSource",
    "SkillpathSkills",
    "conversation_of",
    "skills_for",
]

#: The function tool's name (the SDK's sandbox ``Skills`` capability uses the same).
TOOL_NAME = "load_skill"

_DESCRIPTION = (
    "Load a skill: its instructions are returned for you to follow. Use it when the task "
    "matches one of the skills in your instructions, before doing the work. Pass the "
    "skill's name in `skill` and any arguments for it in `args` (empty string for none)."
)
_PARAMS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "skill": {"type": "string", "description": "The skill name, from the skills listing."},
        "args": {"type": "string", "description": "Arguments for the skill, or an empty string."},
    },
    "required": ["skill", "args"],
    "additionalProperties": False,
}


def conversation_of(context: Any) -> Any:
    """The conversation a tool call belongs to: ``RunConfig(group_id=…)`` (the SDK's
    "chat thread ID"), else the run itself (its usage record, one per run), else ``None``."""
    config = getattr(context, "run_config", None)
    group = getattr(config, "group_id", None)
    if isinstance(group, str) and group:
        return f"group:{group}"
    return getattr(context, "usage", None)


Instructions = Callable[[RunContextWrapper[Any], Agent[Any]], Awaitable[str] | str]


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
        tool_name=TOOL_NAME,
        search_tool=SEARCH_TOOL_NAME,
    )


class SkillpathSkills:
    """Every skillpath skill for an ``agents.Agent``.

    Pass an :class:`~skillpath.agent.AgentSkills` or a
    :class:`~skillpath.SkillSession`, or let it open one for ``cwd`` (keyword
    arguments as :meth:`AgentSkills.open`). Before every model turn (when the
    SDK asks for the instructions) the skills on disk are checked and loaded
    again when they changed (``refresh="turn"``; ``"manual"``: call
    :meth:`refresh`). Offer :attr:`tools` (``load_skill``, ``search_skills`` and
    ``read_skill_file``, the resource tool: skillpath's reader, contained in the
    skill's folder; ``read_tool=False`` leaves it out).

    One object serves many conversations: a skill loaded again in the same
    conversation gets a short "already loaded" note, a new conversation gets the
    skill. A conversation is the ``RunConfig(group_id=…)`` of the runs (pass
    your chat thread's id there); without one, each run is its own.
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
        read_tool: bool = True,
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
        self.tool = FunctionTool(
            name=TOOL_NAME,
            description=_DESCRIPTION,
            params_json_schema=_PARAMS,
            on_invoke_tool=self._invoke,
            strict_json_schema=True,
        )
        search = self.skills.search_schema()
        self.search_tool = FunctionTool(
            name=SEARCH_TOOL_NAME,
            description=search["description"],
            params_json_schema={**search["input_schema"], "additionalProperties": False},
            on_invoke_tool=self._search,
            strict_json_schema=False,
        )
        read = self.skills.read_schema()
        self.read_tool = FunctionTool(
            name=READ_TOOL_NAME,
            description=read["description"],
            params_json_schema={**read["input_schema"], "additionalProperties": False},
            on_invoke_tool=self._read,
            strict_json_schema=True,
        )
        #: The tools to give the agent: ``load_skill``, ``search_skills``, ``read_skill_file``.
        self.tools: list[Tool] = [
            self.tool,
            self.search_tool,
            *([self.read_tool] if read_tool else []),
        ]

    def refresh(self) -> bool:
        """Load the skills again now (see :meth:`AgentSkills.refresh`)."""
        return self.skills.refresh()

    def listing(self) -> str:
        """The current listing, after the per-turn refresh check."""
        self.skills.begin_turn()
        return self.skills.instructions()

    def instructions(self, base: str | Instructions | None = None) -> Instructions:
        """Dynamic instructions for ``Agent(instructions=...)``: ``base`` then the listing.

        ``base`` may be a string or the SDK's own ``(context, agent)`` callable
        (sync or async).
        """

        async def dynamic(context: RunContextWrapper[Any], agent: Agent[Any]) -> str:
            head: Any = base(context, agent) if callable(base) else base
            if hasattr(head, "__await__"):
                head = await head
            listing = self.listing()
            parts = [str(head)] if head else []
            if listing:
                parts.append(listing)
            return "\n\n".join(parts)

        return dynamic

    async def _search(self, _context: Any, raw: str) -> str:
        try:
            data = json.loads(raw or "{}")
        except ValueError as exc:
            return error_text(f"the arguments are not JSON ({exc}); pass {{query, k}}")
        return self.skills.search(data)

    async def _read(self, _context: Any, raw: str) -> str:
        try:
            data = json.loads(raw or "{}")
        except ValueError as exc:
            return error_text(f"the arguments are not JSON ({exc}); pass {{skill, path}}")
        if not isinstance(data, dict):
            return error_text("pass the skill's name in `skill` and the file in `path`")
        return self.skills.read_file(data.get("skill"), data.get("path"))

    async def _invoke(self, context: Any, raw: str) -> str:
        try:
            data = json.loads(raw or "{}")
        except ValueError as exc:
            return error_text(f"the arguments are not JSON ({exc}); pass {{skill, args}}")
        if not isinstance(data, dict) or not isinstance(data.get("skill"), str):
            return error_text("pass the skill's name in `skill` (a string)")
        args = data.get("args")
        owner = conversation_of(context)
        key = (
            self.skills.new_conversation() if owner is None else self.skills.conversation_key(owner)
        )
        return self.skills.call(
            data["skill"], args if isinstance(args, str) else "", conversation=key
        )


def __getattr__(name: str) -> Any:
    if name == "SkillpathLazySkillSource":
        from skillpath_openai_agents.sandbox import SkillpathLazySkillSource

        return SkillpathLazySkillSource
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
