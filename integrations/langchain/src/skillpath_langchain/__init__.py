"""skillpath for LangChain agents (``langchain>=1``: ``create_agent``, LangGraph) and deepagents.

Two pieces, both thin mappings over :class:`skillpath.agent.AgentSkills`:

* :class:`SkillsMiddleware` — an ``AgentMiddleware`` for ``create_agent``: adds
  the skill listing to the system message of every model call, registers the
  ``Skill`` tool (its ``skill`` argument lists the current names), loads the
  skills again before a model turn when they changed on disk, and, after a
  tool call with a file path argument, loads nested skills directories and
  activates conditional skills;
* :class:`SkillpathBackend` (``skillpath_langchain.deepagents``) — a read-only
  deepagents backend serving every skillpath skill under ``/skills/`` so that
  deepagents' own ``SkillsMiddleware`` lists them and its ``read_file`` tool
  reads them.

Nothing here discovers, parses or filters skills: that is skillpath's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillpath_langchain.middleware import SkillsMiddleware, skills_for

if TYPE_CHECKING:  # imported on first use (an optional dependency)
    from skillpath_langchain.deepagents import SkillpathBackend

__all__ = ["SkillpathBackend", "SkillsMiddleware", "skills_for"]


def __getattr__(name: str) -> Any:
    # deepagents is an optional dependency (``skillpath-langchain[deepagents]``)
    if name == "SkillpathBackend":
        from skillpath_langchain.deepagents import SkillpathBackend

        return SkillpathBackend
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
