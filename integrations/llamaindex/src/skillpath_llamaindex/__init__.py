"""skillpath for LlamaIndex agents (``llama-index-core``: ``FunctionAgent``, ``ReActAgent``, …).

:class:`SkillpathSkills` gives an agent three LlamaIndex ``FunctionTool``\\ s
(:attr:`SkillpathSkills.tools`): ``Skill`` (its answer is the skill rendered by
skillpath), ``read_skill`` (a skill's other files, read as ``skill://`` URLs
under skillpath's containment) and ``search_skills`` (the skills the listing
has no room for), and the skill listing for its system prompt::

    skills = SkillpathSkills(cwd=".")
    agent = skills.attach(FunctionAgent(tools=skills.tools, llm=llm, system_prompt="You help."))

:meth:`SkillpathSkills.attach` appends the listing to the agent's own system
prompt and, every time the agent is run, checks the skills on disk first and
rewrites the listing when they changed. :meth:`SkillpathSkills.system_prompt`
gives the same text for agents built some other way.

A conversation is the workflow ``Context`` (``agent.run(..., ctx=ctx)``, which
keeps the agent's memory from run to run; without ``ctx=`` each run is its own):
a skill loaded again within one conversation gets skillpath's short "already
loaded" note, another conversation gets the skill in full.

Nothing here discovers, parses or filters skills: that is skillpath's
(:class:`skillpath.agent.AgentSkills`).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from llama_index.core.agent.react.prompts import CONTEXT_REACT_CHAT_SYSTEM_HEADER
from llama_index.core.agent.workflow.base_agent import BaseWorkflowAgent
from llama_index.core.tools import BaseTool, FunctionTool
from llama_index.core.workflow import Context
from pydantic import BaseModel, Field
from skillpath import SkillSession
from skillpath.adapters import READ_TOOL_DESCRIPTION, with_files_hint
from skillpath.agent import SEARCH_TOOL_NAME, SKILL_TOOL_NAME, AgentSkills

__all__ = ["READ_TOOL_NAME", "STATE_KEY", "SkillpathSkills", "conversation_of", "skills_for"]

#: The name of the ``skill://`` read tool.
READ_TOOL_NAME = "read_skill"

_ATTACHED = "_skillpath_skills"


_DESCRIPTION = (
    "Load a skill: its instructions are returned for you to follow. Use it when the task "
    "matches one of the skills listed in your instructions, before doing the work. Pass the "
    "skill's name in `skill` and any arguments for it in `args`."
)


class _SkillArgs(BaseModel):
    skill: str = Field(description="The skill name, from the skills listing.")
    args: str = Field(default="", description="Arguments for the skill (optional).")


class _ReadArgs(BaseModel):
    url: str = Field(description="A skill:// URL, such as skill://<name>/<path>.")


class _SearchArgs(BaseModel):
    query: str = Field(description="A few words describing the task.")
    k: int = Field(default=5, description="How many skills to return (default 5).")


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


#: The key under which a conversation's id is kept in the workflow ``Context``'s store.
STATE_KEY = "skillpath_conversation"


async def conversation_of(ctx: Any) -> str | None:
    """The conversation a tool call belongs to: an id kept in the run's ``Context``
    store (under :data:`STATE_KEY`, written on the first skill call), else ``None``.

    A run without ``ctx=`` gets a new ``Context``, so it is a conversation of its
    own; runs that pass the same ``Context`` (or one restored from its
    ``to_dict()``) continue one, as they continue its memory. A workflow whose
    typed state cannot hold the key gets ``None`` (every call its own).
    """
    store = getattr(ctx, "store", None)
    if store is None:
        return None
    try:
        key = await store.get(STATE_KEY, default=None)
        if isinstance(key, str) and key:
            return key
        key = f"context:{uuid.uuid4().hex}"
        await store.set(STATE_KEY, key)
    except (AttributeError, KeyError, TypeError, ValueError):  # a typed state without it
        return None
    return key


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
    arguments as :meth:`AgentSkills.open`). Add :attr:`tools` to the agent's
    tools (at least :attr:`tool`) and call :meth:`attach` on the agent.
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

        # LlamaIndex hands the run's Context to a parameter annotated with the class
        # itself (not the string this module's annotations would be).
        async def call_skill(ctx: Context, skill: str, args: str = "") -> str:
            return await self._call(ctx, skill, args)

        call_skill.__annotations__ = {"ctx": Context, "skill": str, "args": str, "return": str}
        #: The ``Skill`` tool (``{"skill": name, "args": text}``).
        self.tool = FunctionTool.from_defaults(
            async_fn=call_skill,
            name=SKILL_TOOL_NAME,
            description=_DESCRIPTION,
            fn_schema=_SkillArgs,
        )
        #: The ``read_skill`` tool (``{"url": "skill://<name>/<path>"}``).
        self.read_tool = FunctionTool.from_defaults(
            fn=self._read,
            name=READ_TOOL_NAME,
            description=READ_TOOL_DESCRIPTION,
            fn_schema=_ReadArgs,
        )
        #: The ``search_skills`` tool (``{"query": text, "k": n}``).
        self.search_tool = FunctionTool.from_defaults(
            fn=self._search,
            name=SEARCH_TOOL_NAME,
            description=self.skills.search_schema()["description"],
            fn_schema=_SearchArgs,
        )
        #: The tools to give the agent: ``Skill``, ``read_skill`` and ``search_skills``.
        # typed as the agents' ``tools`` parameter, so that the list can be passed as is
        self.tools: list[BaseTool | Callable[..., Any]] = [
            self.tool,
            self.read_tool,
            self.search_tool,
        ]

    async def _conversation(self, ctx: Any) -> Hashable:
        key = await conversation_of(ctx)
        return self.skills.new_conversation() if key is None else key

    async def _call(self, ctx: Any, skill: str, args: str = "") -> str:
        """The rendered skill or an ``Error: …`` text (never raises)."""
        name = str(skill)
        text = self.skills.call(name, args or "", conversation=await self._conversation(ctx))
        return self._readable(name, text)

    def _readable(self, name: str, text: str) -> str:
        """The base-directory line also names the ``skill://`` URL ``read_skill`` takes."""
        return with_files_hint(self.skills.session, name, text, READ_TOOL_NAME)

    def _read(self, url: str) -> str:
        """A skill's file at a ``skill://`` URL, or an ``Error: …`` text (never raises)."""
        return self.skills.read(str(url))

    def _search(self, query: str, k: int = 5) -> str:
        """The best matching skills, or an ``Error: …`` text (never raises)."""
        return self.skills.search({"query": query, "k": k})

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
