"""skillpath for pydantic-ai: every skill the user has, as one toolset.

:class:`SkillpathToolset` is a pydantic-ai toolset over a
:class:`skillpath.SkillSession`. It gives the model

- instructions: the session's skill listing (``[listing]`` format and
  budget; ``hide`` and ``disable-model-invocation`` skills are not listed),
  re-rendered before every model request;
- a ``Skill`` tool (``skill``, ``args``) that renders a skill through the
  session (argument substitution, inline-shell policy, the "already loaded"
  note), and
- a ``read_skill`` tool that reads ``skill://`` URLs through the session's
  resolver (containment included).

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
from collections.abc import Callable, Mapping
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
from skillpath.adapters import (
    READ_TOOL_DESCRIPTION,
    SKILL_TOOL_NAME,
    call_skill_tool,
    model_skills,
    read_skill_url,
)

__all__ = [
    "READ_TOOL_NAME",
    "SkillCapability",
    "SkillpathCapability",
    "SkillpathToolset",
    "skill_capabilities",
]

#: The name of the ``skill://`` read tool.
READ_TOOL_NAME = "read_skill"

_ANY = SchemaValidator(core_schema.any_schema())
_READ_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"url": {"type": "string", "description": "A skill:// URL."}},
    "required": ["url"],
    "additionalProperties": False,
}


class SkillpathToolset(AbstractToolset[Any]):
    """A pydantic-ai toolset: the skill listing as instructions, the Skill and read tools.

    :param session: the skillpath session to serve (one per agent session).
    :param id: the toolset's id among the agent's toolsets.
    :param listing_format: the listing format (default: the ``[listing]`` setting).
    :param budget: the listing's character budget (default: the ``[listing]`` setting).
    :param read_tool: offer the ``read_skill`` tool for ``skill://`` URLs.
    :param refresh_each_run: call :meth:`SkillSession.refresh` at the start of
        each agent run, so skills added or removed on disk are seen without
        restarting (edits to a skill's body are always seen on its next call).
    """

    def __init__(
        self,
        session: SkillSession,
        *,
        id: str | None = "skillpath",
        listing_format: str | None = None,
        budget: int | None = None,
        read_tool: bool = True,
        refresh_each_run: bool = False,
    ) -> None:
        self.session = session
        self._id = id
        self.listing_format = listing_format
        self.budget = budget
        self.read_tool = read_tool
        self.refresh_each_run = refresh_each_run

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

    def refresh(self) -> None:
        """Load the skills again now (see :meth:`skillpath.SkillSession.refresh`)."""
        self.session.refresh()

    def instructions(self) -> str:
        """The skill listing, as the model sees it (empty when no skill is listed)."""
        return self.session.listing(format=self.listing_format, budget=self.budget).text

    async def for_run(self, ctx: RunContext[Any]) -> SkillpathToolset:
        """Refresh the catalog first when ``refresh_each_run`` is set; the toolset is shared."""
        if self.refresh_each_run:
            await anyio.to_thread.run_sync(self.session.refresh)
        return self

    async def get_instructions(self, ctx: RunContext[Any]) -> str | None:
        """The skill listing, rendered before every model request."""
        return self.instructions() or None

    def tool_definitions(self) -> list[ToolDefinition]:
        """The tools the model sees now (the Skill tool's ``enum`` is the listed skills)."""
        spec = self.session.skill_tool(format="openai")
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
                    description=READ_TOOL_DESCRIPTION,
                    parameters_json_schema=_READ_SCHEMA,
                )
            )
        return defs

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        """The Skill and read tools (built from the session on every step)."""
        return {
            d.name: ToolsetTool(toolset=self, tool_def=d, max_retries=1, args_validator=_ANY)
            for d in self.tool_definitions()
        }

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> str:
        """Answer a Skill or read call with text (the session's work runs in a thread)."""
        return await anyio.to_thread.run_sync(self.answer, name, tool_args)

    def answer(self, name: str, tool_args: Mapping[str, Any]) -> str:
        """The text result of tool ``name`` called with ``tool_args`` (synchronous)."""
        if name == SKILL_TOOL_NAME:
            return call_skill_tool(self.session, tool_args.get("skill"), tool_args.get("args", ""))
        if name == READ_TOOL_NAME and self.read_tool:
            return read_skill_url(self.session, tool_args.get("url"))
        return f"Error: {name!r} is not a skillpath tool"


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
    (the Skill tool's render, with its policies), and stay the same for the
    rest of the session.
    """

    session: SkillSession = field(repr=False)
    skill: str = field()
    _rendered: str | None = field(default=None, init=False, repr=False)

    @classmethod
    def get_serialization_name(cls) -> str | None:
        """Not spec-serializable: it holds a live session."""
        return None

    def render(self) -> str:
        """The skill's instructions (rendered on the first call, then kept)."""
        if self._rendered is None:
            self._rendered = call_skill_tool(self.session, self.skill, force=True)
        return self._rendered

    def get_instructions(self) -> Callable[[], str]:
        """The skill's rendered instructions, once the model has loaded the capability."""
        return self.render


def skill_capabilities(
    session: SkillSession, *, listing_format: str | None = None, budget: int | None = None
) -> list[SkillCapability]:
    """Each skill the listing shows, as a deferred capability (``load_capability``).

    Only skills the model may call and that fit the listing budget become
    capabilities, with the description the listing gives them; ids are
    ``skill-<name>``. The set is fixed when called: build the agent's
    capabilities again after :meth:`SkillSession.refresh` to offer new skills.
    """
    listing = session.listing(format=listing_format, budget=budget)
    dropped = set(listing.report.dropped)
    caps: list[SkillCapability] = []
    for skill in model_skills(session):
        if skill.name in dropped:
            continue
        caps.append(
            SkillCapability(
                session,
                skill.name,
                id=f"skill-{skill.name}",
                description=skill.description,
                defer_loading=True,
            )
        )
    return caps
