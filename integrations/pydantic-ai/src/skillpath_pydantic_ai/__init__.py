"""skillpath for pydantic-ai: every skill the user has, as one toolset.

:class:`SkillpathToolset` is a pydantic-ai toolset over a
:class:`skillpath.agent.AgentSkills` (a :class:`skillpath.SkillSession` and
its per-turn refresh). It gives the model

- instructions: the skill listing (the budget of ``[listing]``; ``hide`` and
  ``disable-model-invocation`` skills are not listed), whose header points at
  the ``Skill`` tool, re-rendered before every model request;
- a ``Skill`` tool (``skill``, ``args``) that renders a skill through the
  session (argument substitution, inline-shell policy, the "already loaded"
  note within one conversation);
- a ``read_skill`` tool that reads a skill's files at ``skill://`` URLs
  through the session's resolver (containment included), and
- a ``search_skills`` tool (``query``, ``k``) for the skills the listing has
  no room for.

A conversation is pydantic-ai's own: ``RunContext.conversation_id`` (the
``conversation_id`` a run is given, else the one on its ``message_history``,
else a new one per run).

A mistake of the model (an unknown or user-only skill, a path outside the
skill) comes back to the model as an ``Error: …`` tool result, never as an
exception in the run. :class:`SkillpathCapability` wraps the toolset as a
pydantic-ai capability, and :func:`skill_capabilities` offers each listed
skill as a deferred capability that the model loads with pydantic-ai's own
``load_capability`` tool.

Example::

    from pydantic_ai import Agent
    from skillpath_pydantic_ai import SkillpathToolset

    agent = Agent("openai:gpt-5", toolsets=[SkillpathToolset.open(".")])
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio.to_thread
from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset
from pydantic_ai.toolsets.abstract import ToolsetTool
from pydantic_core import SchemaValidator, core_schema
from skillpath import SkillSession
from skillpath.agent import SEARCH_TOOL_NAME, SKILL_TOOL_NAME, AgentSkills, error_text

__all__ = [
    "READ_TOOL_NAME",
    "SkillCapability",
    "SkillpathCapability",
    "SkillpathToolset",
    "conversation_of",
    "skill_capabilities",
]

#: The name of the ``skill://`` read tool.
READ_TOOL_NAME = "read_skill"

_ANY = SchemaValidator(core_schema.any_schema())
_READ_DESCRIPTION = (
    "Read a file of a skill: skill://<name>/<path> (a path the skill's instructions "
    "mention); skill://<name>/. lists the skill's files, a folder's URL that folder's. "
    "To use a skill, call the Skill tool instead: it fills in the skill's arguments."
)
_READ_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"url": {"type": "string", "description": "A skill:// URL."}},
    "required": ["url"],
    "additionalProperties": False,
}
_BASE_DIR = "Base directory for this skill: "


def conversation_of(ctx: Any) -> Any:
    """The conversation a tool call belongs to: ``RunContext.conversation_id`` (a run's
    ``conversation_id``, else the one on its ``message_history``), else the run's
    ``run_id``, else ``None`` (the caller treats the call as its own conversation)."""
    for attr, prefix in (("conversation_id", "conversation"), ("run_id", "run")):
        value = getattr(ctx, attr, None)
        if isinstance(value, str) and value:
            return f"{prefix}:{value}"
    return None


def _with_read_hint(text: str, name: str) -> str:
    """The base-directory line, followed by where the read tool finds the skill's files."""
    if not text.startswith(_BASE_DIR):
        return text
    first, sep, rest = text.partition("\n")
    hint = f"Its files are at skill://{name}/<path>: read them with the {READ_TOOL_NAME} tool."
    return f"{first}\n{hint}{sep}{rest}"


class SkillpathToolset(AbstractToolset[Any]):
    """A pydantic-ai toolset: the skill listing as instructions, the Skill, read and search tools.

    :param skills: the skills to serve: an :class:`~skillpath.agent.AgentSkills`
        or a :class:`~skillpath.SkillSession` (one per agent; it serves every
        conversation).
    :param id: the toolset's id among the agent's toolsets.
    :param listing_format: the listing format (default: ``claude``, whose
        header points at the ``Skill`` tool).
    :param budget: the listing's character budget (default: the ``[listing]`` setting).
    :param read_tool: offer the ``read_skill`` tool for the skills' files.
    :param search_tool: offer the ``search_skills`` tool.
    :param refresh_each_run: at the start of each run (and before each model
        request) look whether the skills on disk changed and load them again
        when they did (on by default; ``False``: only :meth:`refresh`).
    """

    def __init__(
        self,
        skills: AgentSkills | SkillSession,
        *,
        id: str | None = "skillpath",
        listing_format: str | None = None,
        budget: int | None = None,
        read_tool: bool = True,
        search_tool: bool = True,
        refresh_each_run: bool = True,
    ) -> None:
        self.skills = AgentSkills.of(
            skills,
            refresh="turn" if refresh_each_run else "manual",
            budget=budget,
            format=listing_format,
            search_tool=SEARCH_TOOL_NAME if search_tool else None,
        )
        self.session = self.skills.session
        self._id = id
        self.read_tool = read_tool
        self.search_tool = search_tool

    @classmethod
    def open(
        cls,
        cwd: str | os.PathLike[str] | None = None,
        *,
        home: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        settings: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> SkillpathToolset:
        """Open a :class:`SkillSession` for ``cwd`` and wrap it (``options`` as for the class)."""
        return cls(SkillSession.open(cwd, home=home, env=env, settings=settings), **options)

    @property
    def id(self) -> str | None:
        """The toolset's id (``skillpath`` unless given)."""
        return self._id

    @property
    def refresh_each_run(self) -> bool:
        """Whether the skills on disk are checked before each run and model request."""
        return self.skills.refresh_mode == "turn"

    def refresh(self) -> None:
        """Load the skills again now (see :meth:`skillpath.agent.AgentSkills.refresh`)."""
        self.skills.refresh()

    def instructions(self) -> str:
        """The skill listing, as the model sees it (empty when no skill is listed)."""
        return self.skills.instructions()

    async def for_run(self, ctx: RunContext[Any]) -> SkillpathToolset:
        """Check the disk first (``refresh_each_run``); the toolset is shared by every run."""
        await anyio.to_thread.run_sync(self.skills.begin_turn)
        return self

    async def get_instructions(self, ctx: RunContext[Any]) -> str | None:
        """The skill listing, rendered before every model request (after the disk check)."""
        self.skills.begin_turn()
        return self.instructions() or None

    def tool_definitions(self) -> list[ToolDefinition]:
        """The tools the model sees now (the Skill tool's ``enum`` is the listed skills)."""
        spec = self.skills.tool_schema(format="openai")
        defs = [
            ToolDefinition(
                name=SKILL_TOOL_NAME,
                description=spec["description"],
                parameters_json_schema=spec["parameters"],
            )
        ]
        if self.read_tool:
            defs.append(
                ToolDefinition(
                    name=READ_TOOL_NAME,
                    description=_READ_DESCRIPTION,
                    parameters_json_schema=_READ_SCHEMA,
                )
            )
        if self.search_tool:
            search = self.skills.search_schema()
            defs.append(
                ToolDefinition(
                    name=SEARCH_TOOL_NAME,
                    description=search["description"],
                    parameters_json_schema=search["input_schema"],
                )
            )
        return defs

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        """The Skill, read and search tools (built from the session on every step)."""
        return {
            d.name: ToolsetTool(toolset=self, tool_def=d, max_retries=1, args_validator=_ANY)
            for d in self.tool_definitions()
        }

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> str:
        """Answer a tool call with text (the session's work runs in a thread)."""
        owner = conversation_of(ctx)
        key = self.skills.new_conversation() if owner is None else owner
        return await anyio.to_thread.run_sync(self.answer, name, tool_args, key)

    def answer(
        self, name: str, tool_args: Mapping[str, Any], conversation: Hashable | None = None
    ) -> str:
        """The text result of tool ``name`` called with ``tool_args`` (synchronous).

        ``conversation`` is the conversation's key (see :func:`conversation_of`;
        ``None``: a conversation of its own).
        """
        if not isinstance(tool_args, Mapping):
            return error_text("the arguments must be an object")
        if name == SKILL_TOOL_NAME:
            skill, args = tool_args.get("skill"), tool_args.get("args")
            if not isinstance(skill, str) or not skill.strip():
                return error_text("`skill` must be the name of a skill (a non-empty string)")
            if args is not None and not isinstance(args, str):
                return error_text("`args` must be a string")
            key = self.skills.new_conversation() if conversation is None else conversation
            answer = self.skills.call(skill.strip(), args, conversation=key)
            return _with_read_hint(answer, skill.strip()) if self.read_tool else answer
        if name == READ_TOOL_NAME and self.read_tool:
            url = tool_args.get("url")
            if not isinstance(url, str):
                return error_text("`url` must be a skill:// URL (a string)")
            return self.skills.read(url)
        if name == SEARCH_TOOL_NAME and self.search_tool:
            return self.skills.search(tool_args)
        return error_text(f"{name!r} is not a skillpath tool")


@dataclass
class SkillpathCapability(AbstractCapability[Any]):
    """The :class:`SkillpathToolset` as a pydantic-ai capability (``capabilities=[…]``).

    The listing reaches the model through the toolset's instructions.
    """

    toolset: SkillpathToolset = field()

    @classmethod
    def get_serialization_name(cls) -> str | None:
        """Not spec-serializable: it holds a live session."""
        return None

    def get_toolset(self) -> SkillpathToolset:
        """The toolset with the Skill and read tools."""
        return self.toolset


@dataclass
class SkillCapability(AbstractCapability[Any]):
    """One skill as a deferred capability: loading it puts the skill's instructions in context.

    The instructions are rendered once, when the capability is first loaded
    (the Skill tool's render with empty arguments, with its policies), and
    stay the same for every run and conversation of the agent.
    """

    session: AgentSkills | SkillSession = field(repr=False)
    skill: str = field()
    _rendered: str | None = field(default=None, init=False, repr=False)

    @classmethod
    def get_serialization_name(cls) -> str | None:
        """Not spec-serializable: it holds a live session."""
        return None

    def render(self) -> str:
        """The skill's instructions (rendered on the first call, then kept)."""
        if self._rendered is None:
            skills = AgentSkills.of(self.session, refresh="manual")
            self._rendered = skills.call(self.skill, "", force=True)
        return self._rendered

    def get_instructions(self) -> Callable[[], str]:
        """The skill's rendered instructions, once the model has loaded the capability."""
        return self.render


def skill_capabilities(
    session: AgentSkills | SkillSession,
    *,
    listing_format: str | None = None,
    budget: int | None = None,
) -> list[SkillCapability]:
    """Each skill the listing shows, as a deferred capability (``load_capability``).

    Only skills the model may call and that fit the listing budget become
    capabilities, with the description the listing gives them; ids are
    ``skill-<name>``. The set is fixed when called: build the agent's
    capabilities again after a refresh to offer new skills.
    """
    skills = AgentSkills.of(session, refresh="manual", budget=budget, format=listing_format)
    return [
        SkillCapability(
            skills,
            skill.name,
            id=f"skill-{skill.name}",
            description=skill.description,
            defer_loading=True,
        )
        for skill in skills.listed_skills()
    ]
