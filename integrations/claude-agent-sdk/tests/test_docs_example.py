"""The docs example (docs/examples/claude_agent_sdk_agent.py) runs a real turn."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import claude_agent_sdk
import pytest
from claude_agent_sdk import ResultMessage
from skillpath_testing.adapters import PACK_SKILL, AdapterWorld

EXAMPLE = Path(__file__).resolve().parents[3] / "docs" / "examples" / "claude_agent_sdk_agent.py"
BUNDLED_CLI = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_example_claude_agent_sdk", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not os.access(BUNDLED_CLI, os.X_OK), reason="no bundled CLI here")
def test_the_docs_example_runs(world: AdapterWorld, fake_api: Any) -> None:
    fake_api.calls = [{"skill": f"skillpath:{PACK_SKILL}", "args": "HEAD~1"}]
    example = load_example()
    env = {
        "HOME": str(world.home),
        "CLAUDE_CONFIG_DIR": str(world.home / ".claude"),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "ANTHROPIC_BASE_URL": fake_api.url,
        "ANTHROPIC_API_KEY": "sk-fake-offline",
    }
    options = example.skill_options(world.project, max_turns=3, env=env)
    messages = anyio.run(example.ask, "Review my last commit.", options)
    assert [m for m in messages if isinstance(m, ResultMessage)]
    assert "Review the change against `HEAD~1`" in fake_api.text_of(fake_api.requests[-1])
