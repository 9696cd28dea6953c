"""Give an OpenAI Agents SDK agent every skill the user has (docs/integrations/openai-agents.md).

``make_agent`` and ``make_sandbox_agent`` are all the wiring there is; the docs
test runs them with an offline model. Run this file to talk to a real model
(it needs ``OPENAI_API_KEY``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from agents import Agent, Runner
from agents.sandbox import SandboxAgent
from agents.sandbox.capabilities import Shell, Skills
from skillpath_openai_agents import SkillpathLazySkillSource, SkillpathSkills


def make_agent(model: Any = None, project: str | Path = ".") -> Agent[Any]:
    """A plain ``Agent``: the listing in its instructions, ``load_skill``, ``search_skills``
    and ``read_skill_file`` (a skill's files) as its tools."""
    skills = SkillpathSkills(cwd=project)
    return Agent(
        name="dev",
        instructions=skills.instructions("You are a careful coding agent."),
        tools=skills.tools,
        **({"model": model} if model is not None else {}),
    )


def make_sandbox_agent(model: Any = None, project: str | Path = ".") -> SandboxAgent[Any]:
    """A ``SandboxAgent`` whose lazily loaded skills come from skillpath."""
    return SandboxAgent(
        name="dev",
        instructions="You are a careful coding agent.",
        capabilities=[Skills(lazy_from=SkillpathLazySkillSource.open(project)), Shell()],
        **({"model": model} if model is not None else {}),
    )


if __name__ == "__main__":
    result = Runner.run_sync(make_agent(), " ".join(sys.argv[1:]))
    print(result.final_output)
