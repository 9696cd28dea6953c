"""A pydantic-ai agent with every skill the user has (docs/integrations/pydantic-ai.md)."""

from __future__ import annotations

import os

from pydantic_ai import Agent
from pydantic_ai.models import Model
from skillpath_pydantic_ai import SkillpathToolset


def build_agent(cwd: str | os.PathLike[str], model: Model | str) -> Agent[None, str]:
    """An agent whose model sees the skill listing and can load skills and their files."""
    skills = SkillpathToolset.open(cwd)  # checks the disk before each run
    return Agent(model, instructions="You are a careful coding agent.", toolsets=[skills])


if __name__ == "__main__":
    agent = build_agent(".", "openai:gpt-5")
    print(agent.run_sync("Review my last commit.").output)
