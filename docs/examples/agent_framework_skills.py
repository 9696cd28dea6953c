"""Give a Microsoft Agent Framework agent every skill the user has.

See docs/integrations/agent-framework.md. ``make_agent`` is all the wiring
there is; the docs test runs it with an offline chat client. Run this file to
talk to a real model (it needs ``agent-framework-openai`` and ``OPENAI_API_KEY``).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from agent_framework import Agent
from skillpath_agent_framework import SkillpathSkillsProvider


def make_agent(client: Any, project: str | Path = ".") -> Agent[Any]:
    """An ``Agent`` whose ``SkillsProvider`` serves skillpath's skills."""
    skills = SkillpathSkillsProvider(
        cwd=project,
        # Agent Framework asks for approval of each skill tool by default;
        # loading and reading skills is what skillpath's policy governs.
        disable_load_skill_approval=True,
        disable_read_skill_resource_approval=True,
    )
    return Agent(client, instructions="You are a careful coding agent.", context_providers=[skills])


if __name__ == "__main__":
    from agent_framework.openai import OpenAIChatClient

    async def main() -> str:
        response = await make_agent(OpenAIChatClient()).run(" ".join(sys.argv[1:]))
        return str(response.text)

    print(asyncio.run(main()))
