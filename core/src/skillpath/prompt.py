"""Skill invocations: the object the ``transform_prompt`` chain works on."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from skillpath.model import Skill

__all__ = ["Invocation"]


@attrs.frozen
class Invocation:
    """One use of a skill.

    ``skill`` is the skill invoked, ``args`` the raw argument string (``""``
    when none), ``trigger`` how it was invoked (``command`` for ``/skill:``,
    ``tool`` for the model's Skill tool, ``mcp`` for an MCP prompt request),
    ``session_id`` the agent session, ``allow_shell`` whether inline shell may
    run for this invocation (decided by the shell policy).
    """

    skill: Skill
    args: str = ""
    trigger: str = "command"
    session_id: str | None = None
    allow_shell: bool = False
