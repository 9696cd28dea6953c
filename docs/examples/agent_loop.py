"""Wire skillpath into an agent loop.

The documentation includes this file in the "Wire it into an agent loop"
section of its home page (docs/index.md). The model call is yours. This file
shows the six places where skills plug in: the system prompt, the Skill tool,
``/skill:`` messages, ``skill://`` reads, files the agent touches and context
compaction.
"""

from __future__ import annotations

import sys
from typing import Any

from skillpath import SkillSession


def system_prompt(session: SkillSession) -> str:
    """Your instructions plus the listing of the skills the model may use."""
    listing = session.listing()  # fits [listing] budget, byte-stable across runs
    return "You are a careful coding agent.\n\n" + listing.text


def tools(session: SkillSession) -> list[dict[str, Any]]:
    """Tool definitions to send with each model request (Anthropic format)."""
    return [session.skill_tool(format="anthropic")]


def tell_user(text: str) -> None:
    """Show ``text`` to the user, not to the model (your UI; here: stderr)."""
    print(text, file=sys.stderr)


def on_user_message(session: SkillSession, message: str) -> str | None:
    """What to send to the model for a user message (``None``: nothing, the user was told).

    ``/skill:<name> [args]`` becomes the skill's instructions; other text passes.
    """
    slash = session.parse_slash(message)
    if slash is None:
        return message  # no skill command
    if not slash.known:
        # e.g. "Unknown skill 'gret'. Did you mean: greet? (1 skill available; …)"
        tell_user(slash.error or f"Unknown skill {slash.name!r}")
        return None
    content = session.invoke(slash.name, slash.args, trigger="command").content
    before = message[: slash.start].strip()  # args are only the text after the command
    return f"{before}\n\n{content}" if before else content


def on_tool_call(session: SkillSession, name: str, arguments: dict[str, Any]) -> str:
    """Answer the model's tool calls that concern skills."""
    if name == "Skill":
        rendered = session.invoke(arguments["skill"], arguments.get("args", ""), trigger="tool")
        return rendered.content
    if name == "read" and str(arguments.get("path", "")).startswith("skill://"):
        return session.resolve(arguments["path"]).content
    raise ValueError(f"not a skill tool call: {name!r}")


def on_files_touched(session: SkillSession, paths: list[str]) -> list[str]:
    """After a file operation: nested skill dirs load, conditional skills activate."""
    joined = session.discover_dirs_for_paths(paths)
    joined += session.activate_for_paths(paths)
    return [skill.name for skill in joined]


def on_compaction(session: SkillSession) -> None:
    """After the conversation is compacted: skills the model asks for again render in full.

    (A repeated Skill tool call for an unchanged skill otherwise gets a short
    "already loaded" note that points back to text compaction removed.)
    """
    session.forget_invocations()


def main(argv: list[str]) -> int:
    """Print the system prompt an agent started in ``argv[0]`` (default: here) would get."""
    session = SkillSession.open(argv[0] if argv else None)
    print(system_prompt(session))
    for d in session.result.diagnostics:
        if d.level != "info":
            print(f"{d.level}: {d.location()} {d.message}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
