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
  activate for those paths; the next invocation lists them;
* two more tools: ``read_skill`` (a skill's files as ``skill://`` URLs, under
  skillpath's containment) and ``search_skills`` (the skills the listing has
  no room for);
* a conversation is the agent's session (``agent.session_id``: the session
  manager's id, else the agent object's own): a skill loaded again within it
  gets skillpath's short "already loaded" note; an invocation that starts with
  an empty history starts the conversation afresh.

Nothing here discovers, parses or filters skills: that is skillpath's
(:class:`skillpath.agent.AgentSkills`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from skillpath import SkillSession
from skillpath.adapters import READ_TOOL_DESCRIPTION, with_files_hint
from skillpath.agent import SEARCH_TOOL_NAME, AgentSkills, paths_in_arguments
from skillpath.model import Skill
from skillpath.search import search_tool_schema
from skillpath.textguard import name_refusal
from strands.hooks.events import AfterToolCallEvent, BeforeInvocationEvent
from strands.plugins import hook
from strands.tools.decorator import tool
from strands.types.tools import ToolContext
from strands.vended_plugins.skills import AgentSkills as StrandsAgentSkills
from strands.vended_plugins.skills import Skill as StrandsSkill
from strands.vended_plugins.skills import SkillSource

__all__ = [
    "READ_TOOL_NAME",
    "TOOL_NAME",
    "SkillpathAgentSkills",
    "SkillpathSkill",
    "conversation_of",
    "skills_for",
]

#: The Strands plugin's tool name.
TOOL_NAME = "skills"

#: The name of the ``skill://`` read tool.
READ_TOOL_NAME = "read_skill"

_ERROR = "Error: "


def conversation_of(agent: Any) -> str | None:
    """The conversation of an invocation: the agent's ``session_id`` (its session
    manager's id, else one the agent object was given at construction), else ``None``."""
    ident = getattr(agent, "session_id", None)
    return f"session:{ident}" if isinstance(ident, str) and ident else None


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
        search_tool=SEARCH_TOOL_NAME,
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
        # the last prompt block: (Strands' skills mapping, skillpath's listing, the text)
        self._block: tuple[Any, Any, str] | None = None
        super().__init__(
            skills=self._strands_skills(),
            state_key=state_key,
            max_resource_files=max_resource_files,
        )

    def _strands_skills(self) -> list[SkillSource]:
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

    def _conversation(self, agent: Any) -> Any:
        key = conversation_of(agent)
        return self.skillpath.new_conversation() if key is None else key

    @hook
    async def _on_before_invocation(self, event: BeforeInvocationEvent) -> None:
        """Check the disk, follow skillpath's catalog, then inject Strands' prompt block.

        An invocation with an empty history starts its conversation afresh: the
        "already loaded" notes of the agent's session are forgotten (the text they
        point back to is gone).
        """
        self.skillpath.begin_turn()
        self._sync()
        key = conversation_of(event.agent)
        messages = getattr(event.agent, "messages", None)
        if key is not None and isinstance(messages, list) and not messages:
            self.skillpath.session.forget_invocations(conversation=key)
        if self._block_in_place(event.agent):
            return
        await super()._on_before_invocation(event)

    def _block_in_place(self, agent: Any) -> bool:
        """Whether Strands' injection would leave the agent as it is: the block it put
        into the prompt last time is the current one and is still the prompt's end,
        once. Then the injection is skipped (it would only rewrite the same prompt and
        store the same block in ``agent.state``, checking it is JSON on every write)."""
        if self._skill_paths or agent not in self._agent_skills:
            return False
        state = agent.state.get(self._state_key)
        last = state.get("last_injected_xml") if isinstance(state, dict) else None
        if not isinstance(last, str):
            return False
        content = agent.system_prompt_content
        if not content:  # no prompt yet (Strands' string path): let it inject
            return False
        xml = self._generate_skills_xml(agent)
        block = {"text": xml}
        return last == xml and content[-1] == block and content.count(block) == 1

    def _generate_skills_xml(self, agent: Any | None = None) -> str:
        """Strands' ``<available_skills>`` block, and a line naming ``search_skills``
        when the listing budget left skills out (Strands replaces both next time).

        Built once per catalog state: the text is kept while the skills Strands
        holds (replaced by :meth:`set_available_skills`, which every change of
        skillpath's catalog calls) and skillpath's listing are the same objects.
        Skill folders given to :meth:`set_available_skills` load per agent, so
        then the block is built every time.
        """
        listing = self.skillpath.listing()
        if self._skill_paths:
            return self._skills_block(agent, listing)
        block = self._block
        if block is not None and block[0] is self._skills and block[1] is listing:
            return block[2]
        text = self._skills_block(agent, listing)
        self._block = (self._skills, listing, text)
        return text

    def _skills_block(self, agent: Any, listing: Any) -> str:
        text = str(super()._generate_skills_xml(agent))
        dropped = len(listing.report.dropped)
        if not dropped:
            return text
        more = "skill is" if dropped == 1 else "skills are"
        return (
            f"{text}\n{dropped} more {more} not listed: call {SEARCH_TOOL_NAME} with a few "
            f"words of the task to find them, then {TOOL_NAME} one by name."
        )

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
        agent = tool_context.agent
        text = self.skillpath.call(name, str(args or ""), conversation=self._conversation(agent))
        if text.startswith(_ERROR):
            return text
        self._track_activated_skill(agent, name)
        text = with_files_hint(self.skillpath.session, name, text, READ_TOOL_NAME)
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

    async def _list_skill_resources(self, sandbox: Any, skill_path: str) -> list[str]:
        """Strands' list of a skill's ``scripts/``, ``references/`` and ``assets/`` files
        (the ``skills`` tool's "Available resources"), less the files and folders whose
        names skillpath refuses (:func:`skillpath.textguard.name_refusal`: never named
        to the model, as no skillpath read serves them)."""
        found = await super()._list_skill_resources(sandbox, skill_path)
        return [rel for rel in found if name_refusal(rel) is None]

    @tool(name=READ_TOOL_NAME, description=READ_TOOL_DESCRIPTION)
    def read_skill(self, url: str) -> str:
        """Read a skill's file at a ``skill://`` URL (skillpath's containment).

        Args:
            url: A skill:// URL, such as skill://<name>/<path>.
        """
        return self.skillpath.read(str(url))

    @tool(name=SEARCH_TOOL_NAME, description=search_tool_schema()["description"])
    def search_skills(self, query: str, k: int = 5) -> str:
        """The best matching skills for ``query`` (skillpath's search).

        Args:
            query: A few words describing the task.
            k: How many skills to return (default 5).
        """
        return self.skillpath.search({"query": query, "k": k})
