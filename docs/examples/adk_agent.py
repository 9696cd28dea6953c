"""A Google ADK agent with every skill the user has (docs/integrations/adk.md)."""

from __future__ import annotations

import os

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from skillpath_adk import SkillpathSkillToolset


def build_agent(cwd: str | os.PathLike[str], model: BaseLlm | str) -> LlmAgent:
    """An agent with ADK's skill tools over every skillpath skill."""
    skills = SkillpathSkillToolset.open(cwd)  # checks the disk before each model request
    return LlmAgent(
        name="dev", model=model, instruction="You are a careful coding agent.", tools=[skills]
    )


if __name__ == "__main__":
    import asyncio

    from google.adk.runners import InMemoryRunner

    runner = InMemoryRunner(agent=build_agent(".", "gemini-flash-latest"))
    asyncio.run(runner.run_debug("Review my last commit."))
