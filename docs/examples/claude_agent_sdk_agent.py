"""The Claude Agent SDK with every skill the user has (docs/integrations/claude-agent-sdk.md)."""

from __future__ import annotations

import os
from typing import Any

import anyio
from claude_agent_sdk import ClaudeAgentOptions, query
from skillpath_claude_agent_sdk import SkillpathPlugin


def skill_options(cwd: str | os.PathLike[str], **fields: Any) -> ClaudeAgentOptions:
    """Options that load skillpath's skills as a local plugin (written and synced now)."""
    plugin = SkillpathPlugin.open(cwd)  # checks the disk before every sync
    return plugin.options(**fields)


async def ask(prompt: str, options: ClaudeAgentOptions) -> list[Any]:
    """Run one query and collect its messages."""
    return [message async for message in query(prompt=prompt, options=options)]


if __name__ == "__main__":
    for message in anyio.run(ask, "Review my last commit.", skill_options(".", max_turns=5)):
        print(message)
