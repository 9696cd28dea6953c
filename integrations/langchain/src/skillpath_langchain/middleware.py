"""``SkillsMiddleware``: skillpath skills for ``langchain.agents.create_agent``."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from langchain.agents.middleware.types import (
    AgentMiddleware,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
)
from langchain.tools import ToolRuntime
from langchain_core.messages import SystemMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.types import Command
from pydantic import BaseModel, Field
from skillpath import SkillSession
from skillpath.agent import READ_TOOL_NAME, SEARCH_TOOL_NAME, SKILL_TOOL_NAME, AgentSkills

__all__ = ["FILE_PATH_ARGS", "SkillsMiddleware", "conversation_of", "skills_for"]

#: Tool-call arguments that name files the agent touched (``paths``: a list).
FILE_PATH_ARGS = ("file_path", "path", "paths", "filename")


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


class _SkillArgs(BaseModel):
    skill: str = Field(description="The skill name.")
    args: str = Field(default="", description="Optional arguments for the skill.")


class _SearchArgs(BaseModel):
    query: str = Field(description="A few words describing the task.")
    k: int = Field(default=5, description="How many skills to return (default 5).")


class _ReadArgs(BaseModel):
    skill: str = Field(description="The skill's name.")
    path: str = Field(default="", description="The file's path inside the skill's folder.")


def conversation_of(runtime: Any) -> Any:
    """The conversation a tool call belongs to: the run's ``thread_id``, else the id of
    the conversation's first message (each new conversation starts with a new one),
    else ``None`` (the caller treats the run as its own conversation)."""
    config = getattr(runtime, "config", None) or {}
    thread = (config.get("configurable") or {}).get("thread_id")
    if thread is not None:
        return f"thread:{thread}"
    state = getattr(runtime, "state", None)
    messages = state.get("messages") if isinstance(state, Mapping) else None
    first = messages[0] if messages else None
    ident = getattr(first, "id", None)
    return f"message:{ident}" if isinstance(ident, str) and ident else None


def _with_listing(system: SystemMessage | None, listing: str) -> SystemMessage | None:
    if not listing:
        return system
    if system is None:
        return SystemMessage(content=listing)
    content = system.content
    if isinstance(content, str):
        joined: str | list[Any] = f"{content}\n\n{listing}" if content else listing
    else:
        joined = [*content, {"type": "text", "text": listing}]
    return SystemMessage(content=joined)  # type: ignore[arg-type]


def _touched(args: Any) -> list[str]:
    if not isinstance(args, Mapping):
        return []
    out: list[str] = []
    for key in FILE_PATH_ARGS:
        value = args.get(key)
        values = value if isinstance(value, list | tuple) else [value]
        out += [v for v in values if isinstance(v, str) and v and not v.startswith("skill://")]
    return out


class SkillsMiddleware(AgentMiddleware):  # type: ignore[type-arg]
    """Every skillpath skill for a ``create_agent`` agent.

    Pass an :class:`~skillpath.agent.AgentSkills` or a
    :class:`~skillpath.SkillSession`, or let it open one for ``cwd`` (keyword
    arguments as :meth:`AgentSkills.open`)::

        agent = create_agent(model, tools=[...], middleware=[SkillsMiddleware(cwd=".")])

    Each model call gets the listing appended to its system message and the
    ``Skill`` tool (``{"skill": name, "args": text}``) whose answer is the
    rendered skill or an ``Error: …`` text, and the ``search_skills`` tool
    (``{"query": text, "k": n}``) for the skills the listing has no room for,
    and the ``read_skill_file`` tool (``{"skill": name, "path": file}``), which
    reads a file in a skill's folder (``references/style.md``; the reader is
    skillpath's, contained in the folder): ``create_agent`` gives the agent no
    file tool of its own (``read_tool=False`` leaves it out, for an agent that has
    one that reaches the skills' folders).
    The "already loaded" note of a skill called twice holds only within one
    conversation: the run's ``thread_id`` (``config={"configurable":
    {"thread_id": …}}``), or without one the conversation's first message.
    Before each model turn the skills
    on disk are checked and loaded again when they changed (``refresh="turn"``,
    the default; ``"manual"``: call :meth:`refresh`). A tool call with a
    ``file_path``/``path``/``paths``/``filename`` argument loads nested skills
    directories and activates conditional skills for those paths.
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
        self.track_files = track_files
        self.skill_tool: BaseTool = StructuredTool.from_function(
            func=self._call_skill,
            name=SKILL_TOOL_NAME,
            description=self.skills.tool_description(),
            args_schema=_SkillArgs,
        )
        self.search_tool: BaseTool = StructuredTool.from_function(
            func=self._search,
            name=SEARCH_TOOL_NAME,
            description=self.skills.search_schema()["description"],
            args_schema=_SearchArgs,
        )
        read = self.skills.read_schema()
        self.read_tool: BaseTool = StructuredTool.from_function(
            func=self.skills.read_file,
            name=READ_TOOL_NAME,
            description=read["description"],
            args_schema=_ReadArgs,
        )
        self.tools = [self.skill_tool, self.search_tool, *([self.read_tool] if read_tool else [])]

    @property
    def name(self) -> str:
        """The middleware's name in the graph."""
        return "SkillpathSkillsMiddleware"

    def _call_skill(self, skill: str, args: str = "", *, runtime: ToolRuntime) -> str:
        key = conversation_of(runtime)
        return self.skills.call(
            skill, args, conversation=self.skills.new_conversation() if key is None else key
        )

    def _search(self, query: str, k: int = 5) -> str:
        return self.skills.search({"query": query, "k": k})

    def refresh(self) -> bool:
        """Load the skills again now (see :meth:`AgentSkills.refresh`)."""
        return self.skills.refresh()

    # -- model calls --------------------------------------------------------
    def _prepare(self, request: ModelRequest) -> ModelRequest:  # type: ignore[type-arg]
        self.skills.begin_turn()
        schema = self.skills.tool_schema(format="openai-chat")
        tools = [
            schema if isinstance(t, BaseTool) and t.name == SKILL_TOOL_NAME else t
            for t in request.tools
        ]
        system = _with_listing(request.system_message, self.skills.instructions())
        return request.override(system_message=system, tools=tools)

    def wrap_model_call(
        self,
        request: ModelRequest,  # type: ignore[type-arg]
        handler: Callable[[ModelRequest], ModelResponse],  # type: ignore[type-arg]
    ) -> ModelResponse:  # type: ignore[type-arg]
        """Add the listing and the current Skill tool schema, then call the model."""
        return handler(self._prepare(request))

    async def awrap_model_call(
        self,
        request: ModelRequest,  # type: ignore[type-arg]
        handler: Callable[[ModelRequest], Awaitable[ModelResponse]],  # type: ignore[type-arg]
    ) -> ModelResponse:  # type: ignore[type-arg]
        """Async :meth:`wrap_model_call`."""
        return await handler(self._prepare(request))

    # -- tool calls ---------------------------------------------------------
    def _after_tool(self, request: ToolCallRequest) -> None:
        if self.track_files:
            paths = _touched(request.tool_call.get("args"))
            if paths:
                self.skills.files_touched(paths)

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        """Run the tool; file paths in its arguments activate skills."""
        result = handler(request)
        self._after_tool(request)
        return result

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """Async :meth:`wrap_tool_call`."""
        result = await handler(request)
        self._after_tool(request)
        return result
