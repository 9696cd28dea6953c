"""deepagents' own SkillsMiddleware over every skillpath skill (docs/integrations/langchain.md).

``make_agent`` is all the wiring there is; the docs test runs it with an offline
model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deepagents import create_deep_agent
from deepagents.backends import CompositeBackend, StateBackend
from skillpath_langchain import SkillpathBackend


def make_agent(model: Any, project: str | Path = ".") -> Any:
    """A deep agent whose ``/skills/`` folder holds the skills visible from ``project``."""
    backend = CompositeBackend(
        default=StateBackend(),  # the agent's own scratch files
        routes={"/skills/": SkillpathBackend(cwd=project)},
    )
    # a (path, label) source: deepagents' prompt says "Skillpath Skills: /skills/"
    # (deepagents' annotation says str; it accepts (path, label) sources as well)
    sources: list[Any] = [("/skills/", "Skillpath")]
    return create_deep_agent(model=model, backend=backend, skills=sources)
