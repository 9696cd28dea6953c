"""The real Claude Code runs nothing from a neutralised plugin skill (issue rows 4 and 6).

The neutraliser's table (``tests/export/test_export_powers.py``) comes from Claude
Code's documentation and public reports. This test runs the CLI bundled with the SDK
on one skill holding every form, each a ``touch`` of its own marker file: with the
project's level allowed to run shell (the control) the CLI runs the documented forms,
so the harness sees execution; under the default policy the plugin's copy is
neutralised and no marker appears, whatever form the CLI would run. The same for a
skill's frontmatter ``hooks``: the CLI runs them from a plugin skill that may keep them,
and the plugin's copy of a project skill has none.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, query
from skillpath_claude_agent_sdk import SkillpathPlugin
from skillpath_testing.adapters import AdapterWorld

from .test_claude_agent_sdk import cli_env, needs_cli

FORMS = {
    "line-start": "!`touch {m}/line-start`",
    "after-space": "Now: !`touch {m}/after-space`",
    "after-backtick": "Use `!`touch {m}/after-backtick`` here",
    "after-letter": "x!`touch {m}/after-letter`",
    "fence": "```!\ntouch {m}/fence\n```",
    "indented-fence": "  ```!\n  touch {m}/indented-fence\n  ```",
}
#: Forms Claude Code documents: the control must see these run.
DOCUMENTED = {"line-start", "after-space", "fence"}


async def _turn(options: ClaudeAgentOptions) -> list[Any]:
    return [m async for m in query(prompt="Run the probe skill.", options=options)]


def _run(
    world: AdapterWorld, tmp_path: Path, fake_api: Any, markers: Path, **settings: Any
) -> None:
    fake_api.calls = [{"skill": "skillpath:shell-probe"}]
    plugin = SkillpathPlugin(world.session(**settings), tmp_path / f"plugin-{markers.name}")
    options = plugin.options(
        env=cli_env(world, fake_api.url), max_turns=3, allowed_tools=["Bash", "Skill"]
    )
    messages = anyio.run(_turn, options)
    assert [m for m in messages if isinstance(m, ResultMessage)]
    assert len(fake_api.requests) >= 2, "the skill was not invoked"
    fake_api.requests.clear()


@needs_cli
def test_the_real_cli_runs_nothing_from_a_neutralised_copy(
    world: AdapterWorld, tmp_path: Path, fake_api: Any
) -> None:
    control, exported = tmp_path / "control", tmp_path / "exported"
    control.mkdir()
    exported.mkdir()
    body = "\n\n".join(FORMS.values()) + "\n"
    world.write("shell-probe", "Probe.", body.replace("{m}", str(control)))
    _run(world, tmp_path, fake_api, control, shell={"levels": ["user", "managed", "project"]})
    ran = set(os.listdir(control))
    assert ran >= DOCUMENTED, ran  # the harness sees what the CLI runs

    world.write("shell-probe", "Probe.", body.replace("{m}", str(exported)))
    _run(world, tmp_path, fake_api, exported)  # default policy: project skills run nothing
    assert os.listdir(exported) == []


def _hooks(markers: Path) -> str:
    return (
        "\n  PostToolUse:\n    - matcher: '*'\n      hooks:\n        - type: command\n"
        f"          command: touch {markers}/post-tool-use\n"
        "  Stop:\n    - hooks:\n        - type: command\n"
        f"          command: touch {markers}/stop\n"
    )


@needs_cli
def test_the_real_cli_runs_no_hooks_from_a_lower_tiers_copy(
    world: AdapterWorld, tmp_path: Path, fake_api: Any
) -> None:
    control, exported = tmp_path / "control", tmp_path / "exported"
    control.mkdir()
    exported.mkdir()
    world.write("shell-probe", "Probe.", "Probe.\n", hooks=_hooks(control))
    _run(world, tmp_path, fake_api, control, shell={"levels": ["user", "managed", "project"]})
    assert set(os.listdir(control)) == {"post-tool-use", "stop"}  # hooks are a real power

    world.write("shell-probe", "Probe.", "Probe.\n", hooks=_hooks(exported))
    _run(world, tmp_path, fake_api, exported)
    assert os.listdir(exported) == []
