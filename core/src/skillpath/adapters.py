"""Helpers shared by the agent-framework adapters (``integrations/``).

An adapter maps a :class:`~skillpath.session.SkillSession` onto one
framework's tools and instructions. What every adapter needs lives here once:

- :func:`call_skill_tool` answers the model's Skill tool call with text: the
  rendered skill, or, for a name that is not a skill the model may use, a
  refused trigger, a failed render or bad arguments, an error *message* the
  model can act on (nearest names, why it was refused). A model's mistake
  never becomes a Python exception in the agent loop.
- :func:`read_skill_url` does the same for ``skill://`` reads (containment and
  every other refusal are the resolver's; the refusal comes back as text).
- :func:`model_skills` is the skills the model may call: listed (not
  ``hide``), model-invocable (no ``disable-model-invocation``).
- :func:`with_files_hint` adds where a rendered skill's files are (the
  ``skill://`` URL and the adapter's read tool) to its base-directory line,
  for frameworks whose agent has no file tool of its own.

Nothing here discovers, parses or caches skills: it only calls the session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillpath.commands import SKILL_TOOL_NAME
from skillpath.errors import SkillpathError

if TYPE_CHECKING:
    from skillpath.model import Skill
    from skillpath.session import SkillSession

__all__ = [
    "BASE_DIR_LINE",
    "READ_TOOL_DESCRIPTION",
    "SKILL_TOOL_NAME",
    "call_skill_tool",
    "model_skills",
    "read_skill_url",
    "tool_error",
    "with_files_hint",
]

#: How a skill rendered from its folder starts: this prefix, then the folder (the
#: ``base_dir`` step, 900, of :mod:`skillpath.transforms`), then a blank line.
BASE_DIR_LINE = "Base directory for this skill: "

#: The description of an adapter's ``skill://`` read tool.
READ_TOOL_DESCRIPTION = (
    "Read a skill's file by URL: skill://<name> is the skill's instructions, "
    "skill://<name>/<path> a file inside the skill's folder (a folder URL lists its files)."
)


def tool_error(message: str) -> str:
    """The text a tool returns to the model instead of raising (``Error: …``)."""
    return f"Error: {message}"


def model_skills(session: SkillSession) -> tuple[Skill, ...]:
    """The active skills the model may call: not hidden and model-invocable, sorted by name."""
    return tuple(s for s in session.skills() if not s.hidden)


def call_skill_tool(
    session: SkillSession, skill: Any, args: Any = "", *, force: bool = False
) -> str:
    """Answer a model's Skill tool call: the skill's rendered instructions or an error text.

    ``skill`` and ``args`` are what the model sent (anything; a non-string
    name or arguments give an error text). The render is
    ``session.invoke(skill, args, trigger="tool")``: argument substitution,
    the inline-shell policy and the "already loaded" note are the session's;
    a name that is no skill gets :func:`skillpath.agent.unknown_for_model`'s text
    (the same in every adapter).
    """
    if not isinstance(skill, str) or not skill.strip():
        return tool_error("`skill` must be the name of a skill (a non-empty string)")
    if args is None:
        args = ""
    if not isinstance(args, str):
        return tool_error("`args` must be a string")
    name = skill.strip()
    if session.get(name) is None and not any(s.name == name for s in session.pending()):
        from skillpath.agent import unknown_for_model  # the one unknown-skill text

        return unknown_for_model(name, (s.name for s in model_skills(session)))
    try:
        return session.invoke(name, args, trigger="tool", force=force).content
    except SkillpathError as exc:  # unknown skill, refused trigger, failed render
        return tool_error(str(exc))


def read_skill_url(session: SkillSession, url: Any) -> str:
    """Answer a model's ``skill://`` read: the file's text, a folder listing or an error text."""
    if not isinstance(url, str) or not url.startswith("skill://"):
        return tool_error("the URL must start with skill:// (for example skill://<name>)")
    try:
        return session.resolve(url).content
    except SkillpathError as exc:  # unknown skill, containment, missing file
        return tool_error(str(exc))


def with_files_hint(
    session: SkillSession, name: str, text: str, read_tool: str, *, hint: str | None = None
) -> str:
    """``text``, the skill ``name`` as ``session`` rendered it, with its base-directory
    line also saying where the model reads the skill's files.

    The line ``Base directory for this skill: <dir>`` names a folder on this
    machine, which an agent without a file tool cannot open; the hint appended
    to it, `` (read its files with <read_tool>: skill://<name>/<path>)``, names
    the read tool the adapter offers (:func:`read_skill_url` behind it) and the
    URL it takes. ``hint`` replaces that text (for a read tool that takes other
    arguments than a ``skill://`` URL).

    Call it after the render (a pack's skill has its folder once it is
    loaded). Text that does not start with the skill's base-directory line is
    returned unchanged: an ``Error:`` text, the "already loaded" note, a skill
    not on disk (MCP), or the base-directory step turned off.
    """
    skill = session.get(name)
    if skill is None or skill.base_dir is None:
        return text
    line = f"{BASE_DIR_LINE}{skill.base_dir}"
    if not text.startswith(line + "\n"):
        return text
    if hint is None:
        hint = f" (read its files with {read_tool}: skill://{name}/<path>)"
    return line + hint + text[len(line) :]
