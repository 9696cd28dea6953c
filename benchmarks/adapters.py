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
* ``skillpath-agno``: ``get_system_prompt_snippet()`` and ``get_tools()``, which Agno
  asks for at the start of every run (Agno's own prompt and tool building included);
* ``skillpath-pydantic-ai``: ``SkillpathToolset.get_instructions`` and ``get_tools`` on a
  real ``RunContext`` (pydantic-ai asks for both before every model request), and the
  same after ``for_run`` (a run's first request: its disk check runs in a worker thread);
* ``skillpath-adk``: ``SkillpathSkillToolset.process_llm_request`` and ``get_tools``,
  what ADK calls before every model request, with the ``ToolContext`` of a real
  ``InMemoryRunner`` invocation and a new ``LlmRequest`` (ADK's own instruction
  building included); once as configured by default (the catalog is the
  ``list_skills`` tool's answer) and once in ``EAGER`` mode (the catalog is in the
  system instruction of every request);
* ``skillpath-claude-agent-sdk``: model turns run in the Claude Code CLI, which reads the
  plugin from disk, so the adapter's code per turn is the hooks ``options()`` registers
  for events other than ``SessionStart`` (none today: the row calls every one there
  is). Its work is per session, printed as ``per session`` rows without the per-turn
  verdict: ``options()`` (which syncs the plugin) and its ``SessionStart`` hook (which
  syncs again) with the plugin unchanged, and the first ``options()``, which writes the
  plugin.

Two adapters cannot share the workspace's environment (``integrations/strands`` and
``integrations/crewai`` are uv projects of their own): their rows are measured by
``adapters_strands.py`` and ``adapters_crewai.py`` in those projects' environments, on the
same corpus, each beside a hand-wired loop timed in that same process. This script runs
them (``uv run --project integrations/<id>``) and prints their rows in the same table;
``--no-standalone`` leaves them out.

Times are CPU time of the process (``time.process_time``: every thread, so the disk
checks pydantic-ai, ADK and the Claude Agent SDK run in worker threads count too),
which other load on the machine moves less than wall time. The target is the adapter's
own work per turn: at most 1 ms (``TARGET_MS``), printed beside the hand-wired loop.

Import time (new processes, median of ``--import-runs``): the framework modules
the adapter uses are imported first, then the adapter, timed inside the process.

    python3 -m uv run python benchmarks/adapters.py            # N = 1,000
    python3 -m uv run python benchmarks/adapters.py --n 100 --runs 20
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: The most an adapter may do per model turn (CPU ms at 1,000 skills).
TARGET_MS = 1.0

REPO = Path(__file__).resolve().parents[1]

#: The adapters with an environment of their own: their benchmark script, run there.
STANDALONE = {
    "strands": "adapters_strands.py",
    "crewai": "adapters_crewai.py",
}

Row = tuple[str, tuple[float, float]]

#: Rows whose name starts with this are a cost per conversation, not per model turn:
#: printed without the per-turn verdict.
SESSION_MARK = "per session: "


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


def corpus_env(root: Path) -> dict[str, str]:
    """The environment every row runs in: a private home and cache under ``root``, and
    the example pack (installed in the test environments) switched off, so the corpus
    is the ``.claude/skills`` folder alone."""
    home = root / "home"
    home.mkdir(exist_ok=True)
    return {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "SKILLPATH_CACHE_DIR": str(root / "cache"),
        "SKILLPATH_DISABLE_PACKS": "acme",
    }


def median_ms(fn: Callable[[], Any], runs: int) -> tuple[float, float]:
    """Median and minimum CPU time of ``fn()`` (ms, ``time.process_time``), after one
    warm-up call."""
    fn()
    times = []
    for _ in range(runs):
        t0 = time.process_time()
        fn()
        times.append((time.process_time() - t0) * 1000)
    return statistics.median(times), min(times)


def per_turn(project: Path, runs: int) -> list[Row]:
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
    rows.append(("skillpath-agno prompt snippet + tools", median_ms(agno_turn, runs)))
    rows += sdk_rows(project, runs, loop)
    loop.close()
    print(f"skills: {n}")
    return rows


def adk_context(toolset: Any) -> Any:
    """The ``ToolContext`` ADK hands ``toolset.process_llm_request``, from one real
    invocation (``InMemoryRunner``, an agent with ``toolset`` and a model that answers
    ``done``)."""
    from google.adk.agents import LlmAgent
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_response import LlmResponse
    from google.adk.runners import InMemoryRunner
    from google.genai import types

    class Done(BaseLlm):
        model: str = "done"

        async def generate_content_async(self, llm_request: Any, stream: bool = False) -> Any:
            text = types.Part.from_text(text="done")
            usage = types.GenerateContentResponseUsageMetadata(
                prompt_token_count=1, candidates_token_count=1, total_token_count=2
            )
            content = types.Content(role="model", parts=[text])
            yield LlmResponse(content=content, usage_metadata=usage)

    agent = LlmAgent(name="bench", model=Done(), tools=[toolset], instruction="You help.")
    runner = InMemoryRunner(agent=agent, app_name="bench")
    seen: list[Any] = []
    process = toolset.process_llm_request

    async def spy(*, tool_context: Any, llm_request: Any) -> None:
        seen.append(tool_context)
        await process(tool_context=tool_context, llm_request=llm_request)

    async def one_invocation() -> None:
        made = await runner.session_service.create_session(app_name="bench", user_id="u")
        message = types.Content(role="user", parts=[types.Part.from_text(text="hi")])
        async for _event in runner.run_async(user_id="u", session_id=made.id, new_message=message):
            pass

    toolset.process_llm_request = spy
    try:
        asyncio.run(one_invocation())
    finally:
        del toolset.process_llm_request
    return seen[0]


def sdk_rows(project: Path, runs: int, loop: asyncio.AbstractEventLoop) -> list[Row]:
    """pydantic-ai, ADK and the Claude Agent SDK: what each adapter does per model turn
    (and, for the Claude Agent SDK, whose turns run in the Claude Code CLI, per session)."""
    from google.adk.models.llm_request import LlmRequest
    from google.adk.tools.skill_toolset import SkillDiscoveryMode
    from pydantic_ai import RunContext
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.usage import RunUsage
    from skillpath import SkillSession
    from skillpath_adk import SkillpathSkillToolset
    from skillpath_claude_agent_sdk import SkillpathPlugin
    from skillpath_pydantic_ai import SkillpathToolset

    toolset = SkillpathToolset(SkillSession.open(project))
    ctx = RunContext(deps=None, model=TestModel(), usage=RunUsage())

    async def pydantic_request() -> None:  # pydantic-ai asks both before every model request
        await toolset.get_instructions(ctx)
        await toolset.get_tools(ctx)

    async def pydantic_run_start() -> None:
        await toolset.for_run(ctx)
        await pydantic_request()

    def adk_request(**options: Any) -> Callable[[], None]:
        """Before every model request ADK has the toolset process the request and
        give its tools (``process_llm_request`` and ``get_tools``)."""
        adk = SkillpathSkillToolset(SkillSession.open(project), **options)
        tool_context = adk_context(adk)

        async def request() -> None:
            await adk.process_llm_request(tool_context=tool_context, llm_request=LlmRequest())
            await adk.get_tools(tool_context)

        return lambda: loop.run_until_complete(request())

    plugin = SkillpathPlugin(SkillSession.open(project), project.parent / "claude-plugin")
    t0 = time.process_time()
    options = plugin.options()  # the first write of the plugin
    first = (time.process_time() - t0) * 1000
    # Model turns run in the Claude Code CLI: the adapter's code that runs per turn is
    # the hooks its options register for events other than SessionStart.
    turn_hooks = [
        callback
        for event, matchers in (options.hooks or {}).items()
        if event != "SessionStart"
        for matcher in matchers
        for callback in matcher.hooks
    ]
    session_hooks = [h for m in (options.hooks or {}).get("SessionStart", []) for h in m.hooks]

    async def claude_turn() -> None:
        for callback in turn_hooks:
            await callback({"hook_event_name": "UserPromptSubmit"}, None, {"signal": None})

    async def claude_session() -> None:  # options() for the query, then its SessionStart
        for callback in plugin.options().hooks["SessionStart"][-1].hooks:
            await callback({"hook_event_name": "SessionStart"}, None, {"signal": None})

    assert len(session_hooks) == 1, session_hooks
    n_turn = len(turn_hooks)
    return [
        (
            "skillpath-pydantic-ai instructions + tools (every request)",
            median_ms(lambda: loop.run_until_complete(pydantic_request()), runs),
        ),
        (
            "skillpath-pydantic-ai run start (for_run + instructions + tools)",
            median_ms(lambda: loop.run_until_complete(pydantic_run_start()), runs),
        ),
        ("skillpath-adk process_llm_request + get_tools", median_ms(adk_request(), runs)),
        (
            "skillpath-adk the same, EAGER (catalog in the instruction)",
            median_ms(adk_request(discovery_mode=SkillDiscoveryMode.EAGER), runs),
        ),
        (
            f"skillpath-claude-agent-sdk per-turn hooks ({n_turn} registered)",
            median_ms(lambda: loop.run_until_complete(claude_turn()), runs),
        ),
        (
            f"{SESSION_MARK}claude-agent-sdk options() + SessionStart hook",
            median_ms(lambda: loop.run_until_complete(claude_session()), runs),
        ),
        (f"{SESSION_MARK}claude-agent-sdk first options() (writes plugin)", (first, first)),
    ]


def standalone_rows(adapter: str, project: Path, runs: int, env: dict[str, str]) -> list[Row]:
    """The rows of ``adapter``'s own script, run in its project's environment on ``project``
    (its first row is the hand-wired loop timed in that process)."""
    script = Path(__file__).with_name(STANDALONE[adapter])
    clean = {k: v for k, v in env.items() if k not in {"VIRTUAL_ENV", "PYTHONPATH"}}
    cmd = [sys.executable, "-m", "uv", "run", "--quiet", "--locked"]
    cmd += ["--project", str(REPO / "integrations" / adapter), "python", str(script)]
    cmd += ["--project-dir", str(project), "--runs", str(runs), "--json"]
    done = subprocess.run(cmd, env=clean, capture_output=True, text=True, cwd=REPO)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stdout}{done.stderr}")
    last = done.stdout.strip().splitlines()[-1]
    rows: list[Row] = []
    for name, ms, low in json.loads(last):
        if name.startswith("baseline"):  # say which process's hand-wired loop it is
            name = f"baseline ({adapter} env){name.removeprefix('baseline')}"
        rows.append((name, (ms, low)))
    return rows


def print_rows(rows: list[Row], n: int, runs: int) -> None:
    """One table: each row's CPU time per turn, its difference to the hand-wired loop
    timed in the same process (the last ``baseline`` row above it), and the verdict
    against :data:`TARGET_MS` (the adapter's own work per turn)."""
    print(f"\nper model turn, N = {n}, {runs} turns (CPU ms)")
    print(f"{'what':64} {'median':>8} {'min':>7} {'vs hand-wired':>14} {'<= 1 ms':>8}")
    base = 0.0
    for name, (ms, low) in rows:
        if name.startswith("baseline"):
            base = ms
            print(f"{name:64} {ms:8.2f} {low:7.2f}")
            continue
        if name.startswith(SESSION_MARK):
            print(f"{name:64} {ms:8.2f} {low:7.2f} {'':>14} {'session':>8}")
            continue
        verdict = "PASS" if ms <= TARGET_MS else "FAIL"
        print(f"{name:64} {ms:8.2f} {low:7.2f} {ms - base:+14.2f} {verdict:>8}")


def standalone_main(
    argv: list[str],
    doc: str,
    per_turn: Callable[[Path, int], list[Row]],
    imports: tuple[str, str, str],
) -> int:
    """The ``main`` of ``adapters_<id>.py`` (an adapter measured in its own environment):
    a new corpus, or ``--project-dir`` (made by this script); ``--json`` prints the rows
    as the last line for :func:`standalone_rows`. ``imports``: the row's name, the
    framework's import statement and the adapter's."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="skills in the corpus")
    ap.add_argument("--runs", type=int, default=50, help="timed turns per row")
    ap.add_argument("--import-runs", type=int, default=5, help="timed imports")
    ap.add_argument("--project-dir", type=Path, help="a corpus made by benchmarks/adapters.py")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON (last line)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="skillpath-adapters-") as tmp:
        root = Path(tmp)
        env = corpus_env(root)  # a home and cache of its own, also beside --project-dir
        os.environ.update(env)
        project = make_corpus(root, args.n) if args.project_dir is None else args.project_dir
        rows = per_turn(project, args.runs)
        if args.json:
            print(json.dumps([[name, ms, low] for name, (ms, low) in rows]))
            return 0
        print_rows(rows, args.n, args.runs)
        name, framework, adapter = imports
        print(f"\nimport time beyond the framework's own, median of {args.import_runs} (ms)")
        fw, extra = import_ms(framework, adapter, args.import_runs, env)
        print(f"{name:42} {fw:10.0f} {extra:10.0f}")
    return 0


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
    "skillpath-pydantic-ai": ("import pydantic_ai", "import skillpath_pydantic_ai"),
    "skillpath-adk": (
        "import google.adk.agents, google.adk.tools.skill_toolset",
        "import skillpath_adk",
    ),
    "skillpath-claude-agent-sdk": ("import claude_agent_sdk", "import skillpath_claude_agent_sdk"),
}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="skills in the corpus")
    ap.add_argument("--runs", type=int, default=50, help="timed turns per row")
    ap.add_argument("--import-runs", type=int, default=5, help="timed imports per row")
    ap.add_argument(
        "--no-standalone",
        action="store_true",
        help="leave out the adapters with an environment of their own (strands, crewai)",
    )
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="skillpath-adapters-") as tmp:
        root = Path(tmp)
        env = corpus_env(root)
        os.environ.update(env)
        project = make_corpus(root, args.n)
        rows = per_turn(project, args.runs)
        if not args.no_standalone:
            for adapter in STANDALONE:
                rows += standalone_rows(adapter, project, args.runs, env)
        print_rows(rows, args.n, args.runs)
        print(f"\nimport time beyond the framework's own, median of {args.import_runs} (ms)")
        print(f"{'adapter':42} {'framework':>10} {'beyond it':>10}")
        for name, (framework, adapter) in IMPORTS.items():
            fw, extra = import_ms(framework, adapter, args.import_runs, env)
            print(f"{name:42} {fw:10.0f} {extra:10.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
