"""The CrewAI adapter: overhead per model turn on top of ``SkillSession``, and import time.

A sibling of ``benchmarks/adapters.py`` (same corpus, timing and baseline), run in
the CrewAI project's own environment (``integrations/crewai`` has its own lock):

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

import argparse
import os
import sys
import tempfile
from pathlib import Path

from adapters import TARGET_MS, import_ms, make_corpus, median_ms

os.environ.setdefault("OTEL_SDK_DISABLED", "true")
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")


def per_turn(project: Path, runs: int) -> list[tuple[str, tuple[float, float]]]:
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
        role="helper", goal="help", backstory="You help.", llm="gpt-4.1-mini",
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


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="skills in the corpus")
    ap.add_argument("--runs", type=int, default=50, help="timed turns per row")
    ap.add_argument("--import-runs", type=int, default=5, help="timed imports")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="skillpath-crewai-") as tmp:
        root = Path(tmp)
        home = root / "home"
        home.mkdir()
        env = {
            **os.environ,
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "SKILLPATH_CACHE_DIR": str(root / "cache"),
            # the example pack is installed in this environment only: the same corpus
            # as benchmarks/adapters.py
            "SKILLPATH_DISABLE_PACKS": "acme",
        }
        os.environ.update(env)
        project = make_corpus(root, args.n)
        rows = per_turn(project, args.runs)
        base = rows[0][1][0]
        base_low = rows[0][1][1]
        print(f"\nper model turn, N = {args.n}, {args.runs} turns (ms)")
        print(
            f"{'what':58} {'median':>8} {'min':>7} {'over (median)':>14} {'over (min)':>11} "
            f"{'target':>7}"
        )
        for name, (ms, low) in rows:
            over = ms - base
            verdict = (
                "" if name.startswith("baseline") else ("PASS" if over <= TARGET_MS else "FAIL")
            )
            gap = low - base_low
            print(f"{name:58} {ms:8.2f} {low:7.2f} {over:14.2f} {gap:11.2f} {verdict:>7}")
        print(f"\nimport time beyond the framework's own, median of {args.import_runs} (ms)")
        framework = "import crewai, crewai.hooks, crewai.skills, crewai.utilities.prompts"
        fw, extra = import_ms(framework, "import skillpath_crewai", args.import_runs, env)
        print(f"{'skillpath-crewai':42} {fw:10.0f} {extra:10.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
