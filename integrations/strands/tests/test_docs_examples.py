"""The example docs/integrations/strands.md includes really works (offline model)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from skillpath_testing.adapters import load_example

from .conftest import ScriptedModel, World, call

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"


def example(name: str) -> ModuleType:
    return load_example(EXAMPLES / f"{name}.py")


def test_the_page_includes_the_example() -> None:
    page = (EXAMPLES.parent / "integrations" / "strands.md").read_text(encoding="utf-8")
    assert '--8<-- "docs/examples/strands_skills.py"' in page


def test_the_example_agent(world: World) -> None:
    model = ScriptedModel([call("skills", "c1", skill_name="greet", args="Ada")])
    agent = example("strands_skills").make_agent(model, world.project)
    assert str(agent("greet Ada")).strip() == "done"
    assert "Say hello to Ada." in model.tool_results()["c1"]
    assert model.turns[0].system.startswith("You are a careful coding agent.")
    assert "<name>greet</name>" in model.turns[0].system


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
            str(EXAMPLES / "strands_skills.py"),
        ],
        cwd=EXAMPLES,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
