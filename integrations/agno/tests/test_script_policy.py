"""Agno's script runner follows skillpath's shell policy (a project skill's script does
not run while the policy keeps project skills from running commands)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from agno.agent import Agent
from skillpath_agno import SkillpathSkills

from .conftest import ScriptedModel, World, call


def _with_script(world: World, marker: Path) -> None:
    world.skill("tooling", "Runs a helper script.")
    scripts = world.project / ".claude" / "skills" / "tooling" / "scripts"
    scripts.mkdir()
    script = scripts / "run.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\necho ran\n", encoding="utf-8")
    script.chmod(0o755)


def _run(skills: SkillpathSkills) -> dict[str, object]:
    model = ScriptedModel(
        script=[
            [
                call(
                    "get_skill_script",
                    "c1",
                    skill_name="tooling",
                    script_path="run.sh",
                    execute=True,
                ),
                call("get_skill_script", "c2", skill_name="tooling", script_path="run.sh"),
            ]
        ]
    )
    Agent(model=model, instructions="You help.", skills=skills, telemetry=False).run("go")
    return {k: json.loads(v) for k, v in model.tool_results().items()}


def test_a_project_skills_script_does_not_run_under_the_default_policy(
    world: World, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    _with_script(world, marker)
    out = _run(SkillpathSkills(cwd=world.project))
    assert not marker.exists()
    assert "error" in out["c1"] and "[shell] levels" in str(out["c1"]["error"])
    assert "touch" in str(out["c2"]["content"])  # reading it is still allowed


def test_the_script_runs_when_the_policy_lets_project_skills_run_commands(
    world: World, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    _with_script(world, marker)
    settings = {"shell": {"levels": ["user", "managed", "project"]}}
    out = _run(SkillpathSkills(cwd=world.project, settings=settings))
    assert marker.exists(), out
    assert "error" not in out["c1"]


def test_shell_disabled_stops_even_a_users_own_skill(world: World, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    _with_script(world, marker)
    settings = {"shell": {"enabled": False, "levels": ["project"]}}
    out = _run(SkillpathSkills(cwd=world.project, settings=settings))
    assert not marker.exists()
    assert "disabled" in str(out["c1"]["error"])
    assert os.access(world.project / ".claude/skills/tooling/scripts/run.sh", os.X_OK)
