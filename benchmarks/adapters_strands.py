"""The Strands adapter: overhead per model turn on top of ``SkillSession``, and import time.

A sibling of ``benchmarks/adapters.py`` (same corpus, timing and baseline), run in
the Strands project's own environment (``integrations/strands`` has its own lock;
``adapters.py`` runs this script there and prints its rows in its table):

* baseline: what a hand-wired loop does with a ``SkillSession`` every turn
  (``session.listing()`` and ``session.skill_tool()``);
* ``skillpath-strands`` before-invocation hook: what the plugin does before every
  invocation of a real Strands ``Agent`` (the disk check, the catalog sync and Strands'
  own ``<available_skills>`` injection into the agent's system prompt);
* the same hook with the skill tool's spec, as Strands' tool registry hands it to the
  model (the plugin's three tools).

    python3 -m uv run --project integrations/strands python benchmarks/adapters_strands.py
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from adapters import Row, median_ms, standalone_main

os.environ.setdefault("OTEL_SDK_DISABLED", "true")


def per_turn(project: Path, runs: int) -> list[Row]:
    from skillpath import SkillSession
    from skillpath_strands import SkillpathAgentSkills
    from strands import Agent
    from strands.hooks.events import BeforeInvocationEvent

    session = SkillSession.open(project)
    n = len(session.skills())

    def baseline() -> None:
        session.listing()
        session.skill_tool(format="openai-chat")

    plugin = SkillpathAgentSkills(SkillSession.open(project))
    agent = Agent(system_prompt="You help.", plugins=[plugin], callback_handler=None)
    event = BeforeInvocationEvent(agent=agent)
    loop = asyncio.new_event_loop()

    def hook() -> None:
        loop.run_until_complete(plugin._on_before_invocation(event))

    def hook_and_specs() -> None:
        hook()
        agent.tool_registry.get_all_tool_specs()

    rows = [("baseline: SkillSession listing + tool schema", median_ms(baseline, runs))]
    rows.append(("skillpath-strands before-invocation hook (real Agent)", median_ms(hook, runs)))
    rows.append(("skillpath-strands hook + Strands' tool specs", median_ms(hook_and_specs, runs)))
    loop.close()
    print(f"skills: {n}, listed for Strands: {len(plugin.get_available_skills())}")
    return rows


if __name__ == "__main__":
    raise SystemExit(
        standalone_main(
            sys.argv[1:],
            __doc__,
            per_turn,
            (
                "skillpath-strands",
                "import strands, strands.vended_plugins.skills, strands.plugins",
                "import skillpath_strands",
            ),
        )
    )
