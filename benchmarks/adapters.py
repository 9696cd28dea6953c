"""Agent-framework adapters: overhead per model turn on top of ``SkillSession``, and import time.

Per turn (in-process, N skills in ``.claude/skills`` of a temporary project, median
of ``--runs`` turns after a warm-up):

* baseline: what a hand-wired loop does with a ``SkillSession`` every turn
  (``session.listing()`` and ``session.skill_tool()``, as docs/examples/agent_loop.py);
* ``AgentSkills``: ``begin_turn()`` (the disk check) + ``instructions()`` + the tool schema;
* ``skillpath-langchain``: ``SkillsMiddleware.wrap_model_call`` on a real ``ModelRequest``
  (the handler returns at once);
* ``skillpath-openai-agents``: the dynamic instructions callable the SDK awaits every turn;
* ``SkillpathBackend`` (deepagents): ``ls("/")`` (deepagents' index reads it once per thread).
* ``skillpath-agent-framework``: ``SkillpathSkillsSource.get_skills`` (Agent Framework asks
  once per run; its own prompt and tools are built from the result);
* ``skillpath-smolagents``: ``SkillpathSkills.instructions`` (a run's start; after each step
  only the disk check runs);
* ``skillpath-llamaindex``: ``SkillpathSkills.system_prompt`` (before every run);
* ``skillpath-strands``: the plugin's before-invocation hook (disk check, catalog sync and
  Strands' own ``<available_skills>`` injection) on a stand-in agent;
* ``skillpath-agno``: ``get_system_prompt_snippet()`` and ``get_tools()``, which Agno
  asks for at the start of every run (Agno's own prompt and tool building included).

Import time (new processes, median of ``--import-runs``): the framework modules
the adapter uses are imported first, then the adapter, timed inside the process.

    python3 -m uv run python benchmarks/adapters.py            # N = 1,000
    python3 -m uv run python benchmarks/adapters.py --n 100 --runs 20
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

TARGET_MS = 5.0


def make_corpus(root: Path, n: int) -> Path:
    """A project (git root) with ``n`` skills in ``.claude/skills``; returns the project."""
    project = root / "project"
    (project / ".git").mkdir(parents=True)
    skills = project / ".claude" / "skills"
    for i in range(n):
        folder = skills / f"skill-{i:05d}"
        folder.mkdir(parents=True)
        body = f"# Skill {i}\n\n" + "Follow these steps carefully. " * 40 + "\n"
        (folder / "SKILL.md").write_text(
            f"---\nname: skill-{i:05d}\ndescription: Does task number {i} for the project "
            f"when the user asks for it.\n---\n{body}",
            encoding="utf-8",
        )
    return project


def median_ms(fn: Callable[[], Any], runs: int) -> tuple[float, float]:
    """Median and minimum time of ``fn()`` (ms), after one warm-up call."""
    fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), min(times)


def per_turn(project: Path, runs: int) -> list[tuple[str, tuple[float, float]]]:
    from langchain.agents.middleware.types import ModelRequest
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, SystemMessage
    from skillpath import SkillSession
    from skillpath.agent import AgentSkills
    from skillpath_langchain import SkillpathBackend, SkillsMiddleware
    from skillpath_openai_agents import SkillpathSkills

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

    mw = SkillsMiddleware(SkillSession.open(project))
    model = GenericFakeChatModel(messages=iter([AIMessage(content="x")]))
    request = ModelRequest(
        model=model,
        messages=[],
        system_message=SystemMessage(content="You help."),
        tools=[mw.skill_tool],
    )

    def langchain_turn() -> None:
        mw.wrap_model_call(request, lambda r: r)  # type: ignore[arg-type,return-value]

    oa = SkillpathSkills(SkillSession.open(project))
    dynamic = oa.instructions("You help.")
    loop = asyncio.new_event_loop()

    def openai_turn() -> None:
        loop.run_until_complete(dynamic(None, None))  # type: ignore[arg-type]

    backend = SkillpathBackend(SkillSession.open(project))

    def deep_index() -> None:
        backend.ls("/")

    from skillpath_agent_framework import SkillpathSkillsSource
    from skillpath_llamaindex import SkillpathSkills as LlamaSkills
    from skillpath_smolagents import SkillpathSkills as SmolSkills

    af_source = SkillpathSkillsSource(SkillSession.open(project))

    def agent_framework_run() -> None:
        loop.run_until_complete(af_source.get_skills(None))  # type: ignore[arg-type]

    smol = SmolSkills(SkillSession.open(project))

    def smolagents_turn() -> None:
        smol.instructions("You help.")

    llama = LlamaSkills(SkillSession.open(project))

    def llamaindex_run() -> None:
        llama.system_prompt("You help.")
    from skillpath_agno import SkillpathSkills as AgnoSkills
    from skillpath_strands import SkillpathAgentSkills
    from strands.agent.state import AgentState
    from strands.hooks.events import BeforeInvocationEvent

    class StandIn:
        """What Strands' hook reads of an agent: its state and system prompt."""

        def __init__(self) -> None:
            self.state = AgentState()
            self.system_prompt: Any = "You help."
            self.system_prompt_content: Any = None

    plugin = SkillpathAgentSkills(SkillSession.open(project))
    stand_in = StandIn()
    event = BeforeInvocationEvent(agent=stand_in)  # type: ignore[arg-type]

    def strands_turn() -> None:
        loop.run_until_complete(plugin._on_before_invocation(event))

    agno = AgnoSkills(SkillSession.open(project))

    def agno_turn() -> None:
        agno.get_system_prompt_snippet()
        agno.get_tools()

    rows = [("baseline: SkillSession listing + tool schema", median_ms(baseline, runs))]
    rows.append(("AgentSkills turn (disk check + listing + schema)", median_ms(agent_skills, runs)))
    rows.append(
        ("skillpath-langchain SkillsMiddleware.wrap_model_call", median_ms(langchain_turn, runs))
    )
    rows.append(("skillpath-openai-agents dynamic instructions", median_ms(openai_turn, runs)))
    rows.append(("skillpath-langchain SkillpathBackend.ls('/')", median_ms(deep_index, runs)))
    rows.append(
        ("skillpath-agent-framework SkillsSource.get_skills", median_ms(agent_framework_run, runs))
    )
    rows.append(("skillpath-smolagents instructions", median_ms(smolagents_turn, runs)))
    rows.append(("skillpath-llamaindex system_prompt", median_ms(llamaindex_run, runs)))
    rows.append(("skillpath-strands before-invocation hook", median_ms(strands_turn, runs)))
    rows.append(("skillpath-agno prompt snippet + tools", median_ms(agno_turn, runs)))
    loop.close()
    print(f"skills: {n}")
    return rows


def import_ms(framework: str, adapter: str, runs: int, env: dict[str, str]) -> tuple[float, float]:
    """Median time of ``framework`` imports, then of ``adapter`` imported after them (ms)."""
    code = (
        "import time; t0 = time.perf_counter(); "
        f"{framework}; t1 = time.perf_counter(); {adapter}; t2 = time.perf_counter(); "
        "print((t1 - t0) * 1000, (t2 - t1) * 1000)"
    )
    fw, extra = [], []
    for i in range(runs + 1):
        out = subprocess.run(
            [sys.executable, "-c", code], check=True, env=env, capture_output=True, text=True
        ).stdout.split()
        if i:  # the first run warms the page cache
            fw.append(float(out[0]))
            extra.append(float(out[1]))
    return statistics.median(fw), statistics.median(extra)


IMPORTS = {
    "skillpath-langchain": (
        "import langchain.agents.middleware.types, langchain_core.tools, langgraph.types, pydantic",
        "import skillpath_langchain",
    ),
    "skillpath-langchain (deepagents backend)": (
        "import deepagents.backends.protocol, deepagents.backends.utils, yaml, "
        "langchain.agents.middleware.types, langchain_core.tools, langgraph.types",
        "import skillpath_langchain.deepagents",
    ),
    "skillpath-openai-agents": ("import agents", "import skillpath_openai_agents"),
    "skillpath-strands": (
        "import strands, strands.vended_plugins.skills, strands.plugins",
        "import skillpath_strands",
    ),
    "skillpath-agno": ("import agno.agent, agno.skills", "import skillpath_agno"),
    "skillpath-openai-agents (sandbox source)": (
        "import agents, agents.sandbox.capabilities.skills",
        "import skillpath_openai_agents.sandbox",
    ),
    "skillpath-agent-framework": (
        "from agent_framework import Agent, Skill, SkillFrontmatter, SkillResource, "
        "SkillsProvider, SkillsSource, SkillsSourceContext",
        "import skillpath_agent_framework",
    ),
    "skillpath-smolagents": (
        "import smolagents, smolagents.agents, smolagents.memory",
        "import skillpath_smolagents",
    ),
    "skillpath-llamaindex": (
        "import llama_index.core.agent.workflow.base_agent, llama_index.core.tools, pydantic",
        "import skillpath_llamaindex",
    ),
}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="skills in the corpus")
    ap.add_argument("--runs", type=int, default=50, help="timed turns per row")
    ap.add_argument("--import-runs", type=int, default=5, help="timed imports per row")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="skillpath-adapters-") as tmp:
        root = Path(tmp)
        home = root / "home"
        home.mkdir()
        env = {
            **os.environ,
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "SKILLPATH_CACHE_DIR": str(root / "cache"),
        }
        os.environ.update(env)
        project = make_corpus(root, args.n)
        rows = per_turn(project, args.runs)
        base = rows[0][1][0]
        print(f"\nper model turn, N = {args.n}, {args.runs} turns (ms)")
        print(f"{'what':58} {'median':>8} {'min':>7} {'over baseline':>14} {'target':>7}")
        for name, (ms, low) in rows:
            over = ms - base
            verdict = (
                "" if name.startswith("baseline") else ("PASS" if over <= TARGET_MS else "FAIL")
            )
            print(f"{name:58} {ms:8.2f} {low:7.2f} {over:14.2f} {verdict:>7}")
        print(f"\nimport time beyond the framework's own, median of {args.import_runs} (ms)")
        print(f"{'adapter':42} {'framework':>10} {'beyond it':>10}")
        for name, (framework, adapter) in IMPORTS.items():
            fw, extra = import_ms(framework, adapter, args.import_runs, env)
            print(f"{name:42} {fw:10.0f} {extra:10.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
