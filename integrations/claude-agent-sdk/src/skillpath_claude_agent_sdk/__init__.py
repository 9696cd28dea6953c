"""skillpath for the Claude Agent SDK: every skill, as a local Claude plugin.

The Claude Agent SDK (and the Claude Code CLI it drives) reads skills only
from disk. :class:`SkillpathPlugin` writes the skills of a
:class:`skillpath.SkillSession` — packs, MCP skills, any provider's — as a
local Claude plugin (``.claude-plugin/plugin.json`` + ``skills/<name>/``,
through :mod:`skillpath.plugin_writer`: atomic, hashed, never touching
folders it did not write) and builds the ``ClaudeAgentOptions`` that enable
it::

    from claude_agent_sdk import query
    from skillpath_claude_agent_sdk import SkillpathPlugin

    plugin = SkillpathPlugin.open(".")
    async for message in query(prompt="…", options=plugin.options()):
        ...

What stays skillpath's:

- **which skills the model may use**: ``options().skills`` names the skills
  the model may call (``hide`` and ``disable-model-invocation`` skills left
  out; with ``search=False`` only those skillpath's budgeted listing shows),
  plugin-qualified (``skillpath:<name>``), so Claude Code's own copy of a
  ``.claude/skills`` skill does not show twice and every other skill is
  refused by its Skill tool;
- **user-only skills** keep ``disable-model-invocation`` in their exported
  frontmatter;
- **inline shell** the ``[shell]`` policy would not run is replaced in the
  exported text, so Claude Code cannot run it either;
- **a folder of its own**: the plugin folder is created fresh (mode
  ``0700``) or reused only when it is the user's own, writable by no one
  else, and holds skillpath's manifest; a default folder someone else
  created in a shared cache (its name is computable) is never enabled: a new
  private folder (``tempfile.mkdtemp``, removed when the plugin object goes)
  is used instead, with an ``export-folder-refused`` warning, and an explicit
  ``path`` that is refused raises :class:`skillpath.plugin_writer.FolderRefused`;
- **no more powers than the source**: frontmatter ``hooks``,
  ``allowed-tools``, ``context``, ``agent`` and ``mcp-servers`` of skills
  below the hand-written tier are left out (:mod:`skillpath.powers`);
- **freshness**: :meth:`SkillpathPlugin.sync` writes what changed;
  ``options()`` syncs, and its ``SessionStart`` hook syncs again (after
  loading the catalog again when the disk changed, ``refresh``, on by
  default) and asks Claude Code to re-scan skills, so a skill added or
  edited on disk is seen by the next session;
- **search**: ``options()`` adds an in-process MCP server with the
  ``search_skills`` tool (the model calls it as
  ``mcp__skillpath__search_skills``), skillpath's ranked search.

A conversation is a Claude Code session (one ``query()``, or one
``ClaudeSDKClient`` connection): which skills it loaded is Claude Code's own
record; the plugin keeps nothing per session.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import tempfile
import threading
import weakref
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from claude_agent_sdk import ClaudeAgentOptions, HookMatcher, create_sdk_mcp_server, tool
from skillpath import Diagnostic, Skill, SkillSession
from skillpath.agent import SEARCH_TOOL_NAME, AgentSkills
from skillpath.extract import cache_root
from skillpath.plugin_writer import FolderRefused, PluginExport, write_claude_plugin
from skillpath.shell import ShellPolicy

__all__ = ["DEFAULT_PLUGIN_NAME", "SkillpathPlugin", "default_plugin_dir", "search_tool_name"]

#: The plugin's name: Claude Code shows its skills as ``skillpath:<name>``.
DEFAULT_PLUGIN_NAME = "skillpath"


def search_tool_name(name: str = DEFAULT_PLUGIN_NAME) -> str:
    """The name under which Claude Code offers the plugin's search tool (an MCP tool)."""
    return f"mcp__{name}__{SEARCH_TOOL_NAME}"


def default_plugin_dir(session: SkillSession, name: str = DEFAULT_PLUGIN_NAME) -> Path:
    """``<skillpath cache>/claude-plugins/<name>-<hash of the session's cwd>``."""
    key = hashlib.sha256(os.fsencode(session.ctx.cwd)).hexdigest()[:16]
    return cache_root(session.ctx.env) / "claude-plugins" / f"{name}-{key}"


class SkillpathPlugin:
    """The session's skills as a local Claude plugin, and the SDK options that enable it.

    :param session: the skillpath session to serve.
    :param path: the plugin folder (default: :func:`default_plugin_dir`); it
        must be new, or the user's own and empty or written by skillpath
        before (a refused default folder is replaced by a new private one).
    :param name: the plugin's name (its skills are ``<name>:<skill>``).
    :param listing_format: the listing format whose budget decides which
        skills are enabled (default: the ``[listing]`` setting).
    :param budget: the listing budget (default: the ``[listing]`` setting).
    :param refresh: before every :meth:`sync`, look whether the skills on disk
        changed and load them again when they did (on by default; ``False``:
        only an explicit :meth:`skillpath.agent.AgentSkills.refresh`).
    :param search: offer the ``search_skills`` tool (an in-process MCP server).
        Then every skill the model may call is enabled, so that what the search
        finds can be loaded; without it only the skills the budgeted listing
        shows are.
    """

    def __init__(
        self,
        session: AgentSkills | SkillSession,
        path: str | os.PathLike[str] | None = None,
        *,
        name: str = DEFAULT_PLUGIN_NAME,
        listing_format: str | None = None,
        budget: int | None = None,
        refresh: bool = True,
        search: bool = True,
    ) -> None:
        self.agent_skills = AgentSkills.of(
            session,
            refresh="turn" if refresh else "manual",
            budget=budget,
            format=listing_format,
            search_tool=search_tool_name(name) if search else None,
        )
        session = self.agent_skills.session
        self.session = session
        self.search = search
        self.name = name
        self.path = Path(path) if path is not None else default_plugin_dir(session, name)
        self._chosen = path is not None
        self._private: weakref.finalize | None = None
        self.listing_format = listing_format
        self.budget = budget
        self.refresh = refresh
        self.last: PluginExport | None = None
        self._lock = threading.Lock()

    @classmethod
    def open(
        cls,
        cwd: str | os.PathLike[str] | None = None,
        *,
        home: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        settings: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> SkillpathPlugin:
        """Open a :class:`SkillSession` for ``cwd`` and wrap it (``options`` as for the class)."""
        return cls(SkillSession.open(cwd, home=home, env=env, settings=settings), **options)

    def sync(self) -> PluginExport:
        """Write the session's active skills into the plugin folder (only what changed).

        Every active skill is written (hidden and user-only ones too, so
        ``/skillpath:<name>`` works for the user); which ones the model may
        use is :meth:`skill_names`. Problems (a name Claude Code does not
        accept, an unreadable skill) are in the returned export's
        ``diagnostics``.
        """
        with self._lock:
            if self.refresh:
                self.agent_skills.begin_turn()
            skills = self.session.skills()
            try:
                self.last = self._write(skills)
            except FolderRefused as exc:
                if self._chosen or self._private is not None:
                    raise
                self._use_private_folder()
                done = self._write(skills)
                warning = Diagnostic(
                    "warning",
                    "export-folder-refused",
                    f"{exc}; the plugin is written to the new private folder {self.path}",
                    default_plugin_dir(self.session, self.name),
                )
                self.last = PluginExport(
                    root=done.root,
                    skills=done.skills,
                    written=done.written,
                    unchanged=done.unchanged,
                    removed=done.removed,
                    diagnostics=(warning, *done.diagnostics),
                )
            return self.last

    def _write(self, skills: Iterable[Skill]) -> PluginExport:
        return write_claude_plugin(
            self.path,
            skills,
            name=self.name,
            description="Skills found and served by skillpath.",
            shell_policy=ShellPolicy.from_settings(self.session.ctx.settings),
            env=self.session.ctx.env,
        )

    def _use_private_folder(self) -> None:
        """Switch to a new folder only this process created (removed with this object)."""
        private = Path(tempfile.mkdtemp(prefix=f"{self.name}-plugin-"))
        self.path = private
        self._private = weakref.finalize(self, shutil.rmtree, private, ignore_errors=True)

    def skill_names(self) -> list[str]:
        """The plugin-qualified names the model may use: with ``search``, every skill
        the model may call; else those skillpath's budgeted listing shows."""
        skills = self.agent_skills
        names = skills.model_skill_names() if self.search else skills.listed_names()
        exported = set(self.last.skills) if self.last is not None else None
        return [f"{self.name}:{n}" for n in names if exported is None or n in exported]

    def search_server(self) -> Any:
        """The in-process MCP server (``create_sdk_mcp_server``) with ``search_skills``:
        :meth:`skillpath.agent.AgentSkills.search` over the active skills."""
        import anyio.to_thread

        schema = self.agent_skills.search_schema()
        description = (
            f"{schema['description']} Skills are called with the Skill tool as {self.name}:<name>."
        )

        @tool(SEARCH_TOOL_NAME, description, schema["input_schema"])
        async def search_skills(args: dict[str, Any]) -> dict[str, Any]:
            text = await anyio.to_thread.run_sync(self.agent_skills.search, args)
            return {"content": [{"type": "text", "text": text}]}

        return create_sdk_mcp_server(name=self.name, tools=[search_skills])

    def plugin_config(self) -> dict[str, str]:
        """The ``plugins`` entry: ``{"type": "local", "path": <plugin folder>}``."""
        return {"type": "local", "path": str(self.path)}

    async def _on_session_start(
        self, hook_input: Any, tool_use_id: str | None, context: Any
    ) -> dict[str, Any]:
        import anyio.to_thread

        await anyio.to_thread.run_sync(self.sync)
        return {
            "hookSpecificOutput": {"hookEventName": "SessionStart", "reloadSkills": True},
        }

    def options(self, base: ClaudeAgentOptions | None = None, **fields: Any) -> ClaudeAgentOptions:
        """Sync the plugin and return ``base`` (or new options) with it enabled.

        Adds the plugin to ``plugins``, sets ``skills`` to :meth:`skill_names`
        (names already in a ``skills`` list of ``base`` are kept; ``"all"``
        stays ``"all"``), defaults
        ``cwd`` to the session's cwd and adds a ``SessionStart`` hook that
        syncs again and asks for a skills re-scan. With ``search``, adds the
        :meth:`search_server` to ``mcp_servers`` (under the plugin's name) and
        its tool to ``allowed_tools``. ``fields`` are further
        ``ClaudeAgentOptions`` fields.
        """
        self.sync()
        opts = base if base is not None else ClaudeAgentOptions()
        if fields:
            opts = dataclasses.replace(opts, **fields)
        plugins = [p for p in opts.plugins if p.get("path") != str(self.path)]
        plugins.append(self.plugin_config())  # type: ignore[arg-type]
        names: list[str] | str = self.skill_names()
        if isinstance(opts.skills, list):
            names = [*opts.skills, *(n for n in names if n not in opts.skills)]
        elif opts.skills == "all":
            names = "all"  # the caller asked for every skill Claude Code finds
        hooks = dict(opts.hooks or {})
        hooks["SessionStart"] = [
            *hooks.get("SessionStart", []),
            HookMatcher(hooks=[self._on_session_start]),
        ]
        extra: dict[str, Any] = {}
        if self.search:
            servers = opts.mcp_servers if isinstance(opts.mcp_servers, dict) else None
            if servers is not None:
                extra["mcp_servers"] = {**servers, self.name: self.search_server()}
                allowed = search_tool_name(self.name)
                if allowed not in opts.allowed_tools:
                    extra["allowed_tools"] = [*opts.allowed_tools, allowed]
        return dataclasses.replace(
            opts,
            plugins=plugins,
            skills=names,
            cwd=opts.cwd if opts.cwd is not None else str(self.session.ctx.cwd),
            hooks=hooks,
            **extra,
        )
