"""Give a LangChain agent every skill the user has (docs/integrations/langchain.md).

``make_agent`` is all the wiring there is; the docs test runs it with an offline
model. Run this file to talk to a real model (it needs ``langchain-openai`` and
``OPENAI_API_KEY``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from skillpath_langchain import SkillsMiddleware


def make_agent(model: Any, project: str | Path = ".") -> Any:
    """A ``create_agent`` agent with the skills visible from ``project``."""
    return create_agent(
        model,
        tools=[],  # your tools
        system_prompt="You are a careful coding agent.",
        middleware=[SkillsMiddleware(cwd=project)],
    )


if __name__ == "__main__":
    agent = make_agent("openai:gpt-5-mini")
    reply = agent.invoke({"messages": [{"role": "user", "content": " ".join(sys.argv[1:])}]})
    print(reply["messages"][-1].content)
