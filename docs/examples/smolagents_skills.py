"""Give a smolagents agent every skill the user has (docs/integrations/smolagents.md).

``make_agent`` and ``make_code_agent`` are all the wiring there is; the docs
test runs them with an offline model. Run this file to talk to a real model
(``InferenceClientModel`` needs a Hugging Face token).
"""

from __future__ import annotations

import sys
from pathlib import Path

from skillpath_smolagents import SkillpathSkills
from smolagents import CodeAgent, Model, ToolCallingAgent


def make_agent(model: Model, project: str | Path = ".") -> ToolCallingAgent:
    """A ``ToolCallingAgent`` with the skill tools and the listing in its instructions."""
    skills = SkillpathSkills(cwd=project)
    agent = ToolCallingAgent(
        tools=skills.tools, model=model, instructions="You are a careful coding agent."
    )
    return skills.attach(agent)


def make_code_agent(model: Model, project: str | Path = ".") -> CodeAgent:
    """A ``CodeAgent``: its code calls ``Skill(skill=..., args=...)``."""
    skills = SkillpathSkills(cwd=project)
    agent = CodeAgent(
        tools=skills.tools, model=model, instructions="You are a careful coding agent."
    )
    return skills.attach(agent)


if __name__ == "__main__":
    from smolagents import InferenceClientModel

    print(make_agent(InferenceClientModel()).run(" ".join(sys.argv[1:])))
