"""The example docs/integrations/crewai.md includes really works (offline LLM)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from skillpath_testing.adapters import load_example

from .conftest import ScriptedLLM, World, call

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"


def example(name: str) -> ModuleType:
    return load_example(EXAMPLES / f"{name}.py")


def test_the_page_includes_the_example() -> None:
    page = (EXAMPLES.parent / "integrations" / "crewai.md").read_text(encoding="utf-8")
    assert '--8<-- "docs/examples/crewai_skills.py"' in page


def test_the_example_agent(world: World) -> None:
    llm = ScriptedLLM([call("load_skill", "c1", skill_name="greet")], "Hello, Ada!")
    agent = example("crewai_skills").make_agent(llm, world.project)
    assert agent.kickoff("greet Ada").raw == "Hello, Ada!"
    assert "Say hello to ." in llm.tool_results()["c1"]
    system = llm.turns[0].system
    assert "You are a careful coding agent." in system and '<skill name="greet">' in system


def test_the_example_crew(world: World) -> None:
    llm = ScriptedLLM([call("load_skill", "c1", skill_name="code-review")], "Looks good.")
    crew = example("crewai_skills").make_crew("Review my change", llm, world.project)
    assert str(crew.kickoff()) == "Looks good."
    assert "# Code review" in llm.tool_results()["c1"]


def test_the_example_passes_mypy_strict() -> None:
    """What the page teaches is typed (the root suite checks the other examples)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--cache-dir",
            os.devnull,
            str(EXAMPLES / "crewai_skills.py"),
        ],
        cwd=EXAMPLES,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
