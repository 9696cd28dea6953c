"""The CrewAI adapter: overhead per model turn on top of ``SkillSession``, and import time.

A sibling of ``benchmarks/adapters.py`` (same corpus, timing and baseline), run in
the CrewAI project's own environment (``integrations/crewai`` has its own lock;
``adapters.py`` runs this script there and prints its rows in its table):

* baseline: what a hand-wired loop does with a ``SkillSession`` every turn
  (``session.listing()`` and ``session.skill_tool()``);
* ``AgentSkills`` turn: ``begin_turn()`` (the disk check) + ``instructions()`` + the schema;
* ``skillpath-crewai`` model-call hook: what runs before every model call of an agent
  holding skillpath skills (the disk check and the comparison of the agent's skills
  with the catalog; nothing else when nothing changed), on a real ``Agent``;
* ``skillpath-crewai`` kickoff: the hook plus CrewAI's own work for the skills at the
  start of a run (its ``<available_skills>`` block and its ``load_skill`` tool, built
  from the agent's skills).

    python3 -m uv run --project integrations/crewai python benchmarks/adapters_crewai.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from adapters import Row, median_ms, standalone_main

os.environ.setdefault("OTEL_SDK_DISABLED", "true")
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")


def per_turn(project: Path, runs: int) -> list[Row]:
    from crewai import Agent
    from crewai.hooks import LLMCallHookContext
    from crewai.skills.tool import create_skill_loader_tool
    from crewai.utilities.prompts import Prompts
    from skillpath import SkillSession
    from skillpath.agent import AgentSkills
    from skillpath_crewai import SkillpathSkills, _before_model_call

    session = SkillSession.open(project)
    n = len(session.skills())

    def baseline() -> None:
        session.listing()
        session.skill_tool(format="openai-chat")

    skills = AgentSkills(SkillSession.open(project))

    def agent_skills() -> None:
        skills.begin_turn()
        skills.instructions()
        skills.tool_schema(format="openai-chat")

    crew_skills = SkillpathSkills(SkillSession.open(project))
    agent = Agent(
        role="helper",
        goal="help",
        backstory="You help.",
        llm="gpt-4.1-mini",
        skills=crew_skills.skills(),
    )
    context = LLMCallHookContext(messages=[], agent=agent)

    def hook_turn() -> None:
        _before_model_call(context)

    def kickoff_turn() -> None:
        _before_model_call(context)
        loader = create_skill_loader_tool(agent.skills)  # type: ignore[arg-type]
        assert loader is not None
        Prompts(agent=agent, skill_loader_tool_name=loader.name)._build_skill_block()

    rows = [("baseline: SkillSession listing + tool schema", median_ms(baseline, runs))]
    rows.append(("AgentSkills turn (disk check + listing + schema)", median_ms(agent_skills, runs)))
    rows.append(("skillpath-crewai model-call hook", median_ms(hook_turn, runs)))
    rows.append(
        ("skillpath-crewai kickoff (hook + CrewAI's block and tool)", median_ms(kickoff_turn, runs))
    )
    print(f"skills: {n}, listed for CrewAI: {len(agent.skills or [])}")
    return rows


if __name__ == "__main__":
    raise SystemExit(
        standalone_main(
            sys.argv[1:],
            __doc__,
            per_turn,
            (
                "skillpath-crewai",
                "import crewai, crewai.hooks, crewai.skills, crewai.utilities.prompts",
                "import skillpath_crewai",
            ),
        )
    )
