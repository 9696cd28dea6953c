"""Give a Strands agent every skill the user has (docs/integrations/strands.md).

``make_agent`` is all the wiring there is; the docs test runs it with an
offline model. Run this file to talk to a real model (Strands' default model
provider needs AWS credentials).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from skillpath_strands import SkillpathAgentSkills
from strands import Agent


def make_agent(model: Any = None, project: str | Path = ".") -> Agent:
    """A Strands ``Agent`` with the ``AgentSkills`` plugin fed by skillpath."""
    return Agent(
        model=model,
        system_prompt="You are a careful coding agent.",
        plugins=[SkillpathAgentSkills(cwd=project)],
    )


if __name__ == "__main__":
    print(make_agent()(" ".join(sys.argv[1:])))
