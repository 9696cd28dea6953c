"""Give an Agno agent every skill the user has (docs/integrations/agno.md).

``make_agent`` is all the wiring there is; the docs test runs it with an
offline model. Run this file to talk to a real model (it needs ``agno``'s
OpenAI extra and ``OPENAI_API_KEY``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from agno.agent import Agent
from skillpath_agno import SkillpathSkills


def make_agent(model: Any = None, project: str | Path = ".") -> Agent:
    """An Agno ``Agent`` whose skills (prompt and tools) come from skillpath."""
    if model is None:
        from agno.models.openai import OpenAIChat

        model = OpenAIChat(id="gpt-4.1-mini")
    return Agent(
        model=model,
        instructions="You are a careful coding agent.",
        skills=SkillpathSkills(cwd=project),
    )


if __name__ == "__main__":
    print(make_agent().run(" ".join(sys.argv[1:])).content)
