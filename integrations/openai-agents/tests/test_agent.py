"""``SkillpathSkills`` end to end through ``agents.Runner``'s real loop, with a scripted model."""

from __future__ import annotations

import socket

import pytest
from agents import Agent, Runner
from skillpath import SkillSession
from skillpath_openai_agents import SkillpathSkills

from .conftest import ScriptedModel, World, text, tool_call


def run(skills: SkillpathSkills, model: ScriptedModel, prompt: str = "go") -> str:
    agent = Agent(
        name="dev",
        instructions=skills.instructions("You help."),
        tools=[skills.tool],
        model=model,
    )
    return str(Runner.run_sync(agent, prompt).final_output)


def test_project_and_pack_skills_through_the_runner(world: World) -> None:
    model = ScriptedModel(
        [
            tool_call("load_skill", "c1", skill="greet", args="Ada"),
            tool_call("load_skill", "c2", skill="release-checklist", args="2.0"),
        ],
        [text("done")],
    )
    assert run(SkillpathSkills(cwd=world.project), model) == "done"
    outputs = model.tool_outputs()
    assert "Say hello to Ada." in outputs["c1"]  # .claude/skills, $ARGUMENTS substituted
    assert "Prepare release `2.0` of the project" in outputs["c2"]  # the acme-skills pack
    system = model.turns[0].system
    assert system is not None
    assert system.startswith(
        "You help.\n\nThe following skills are available for use with the load_skill tool"
    )
    for name in ("greet", "code-review", "release-checklist"):
        assert f"- {name}: " in system
    assert "secret" not in system and "deploy" not in system
    (tool,) = model.turns[0].tools
    assert tool.name == "load_skill" and tool.params_json_schema["required"] == ["skill", "args"]


def test_refusals_are_answers_for_the_model(world: World) -> None:
    model = ScriptedModel(
        [
            tool_call("load_skill", "c1", skill="gret", args=""),
            tool_call("load_skill", "c2", skill="deploy", args=""),
            tool_call("load_skill", "c3", skill="secre", args=""),
        ],
    )
    run(SkillpathSkills(cwd=world.project), model)
    outputs = model.tool_outputs()
    assert outputs["c1"] == "Error: Unknown skill 'gret'. Did you mean: greet?"
    assert outputs["c2"] == (
        "Error: skill 'deploy' cannot be invoked by the model (disable-model-invocation)"
    )
    assert "secret" not in outputs["c3"]  # hidden skills are never suggested


def test_bad_arguments_are_answers_for_the_model(world: World) -> None:
    skills = SkillpathSkills(cwd=world.project)
    import asyncio

    assert asyncio.run(skills._invoke(None, "{not json")).startswith("Error: the arguments")
    assert asyncio.run(skills._invoke(None, '{"skill": 3}')).startswith("Error: pass the skill")


def test_inline_shell_follows_skillpaths_policy(world: World) -> None:
    world.skill("shelly", "Runs a command.", body="Date: !`echo from-shell`\n")
    model = ScriptedModel([tool_call("load_skill", "c1", skill="shelly", args="")])
    run(SkillpathSkills(cwd=world.project), model)
    direct = SkillSession.open(world.project).invoke("shelly", trigger="tool").content
    assert "[shell command execution disabled by policy]" in direct
    assert model.tool_outputs()["c1"] == direct


def test_skill_added_and_edited_on_disk_is_seen_next_turn(world: World) -> None:
    skills = SkillpathSkills(cwd=world.project)
    first = ScriptedModel([text("one")])
    run(skills, first)
    assert "fresh" not in (first.turns[0].system or "")
    world.skill("fresh", "Added while the agent runs.", body="Fresh body.\n")
    world.skill("greet", "Greet warmly.")
    second = ScriptedModel([tool_call("load_skill", "c1", skill="fresh", args="")])
    run(skills, second)
    system = second.turns[0].system or ""
    assert "- fresh: Added while the agent runs." in system
    assert "- greet: Greet warmly." in system
    assert "Fresh body." in second.tool_outputs()["c1"]


def test_listing_respects_the_budget(world: World) -> None:
    for i in range(40):
        world.skill(f"extra-{i:02d}", "A long description. " * 20)
    model = ScriptedModel([text("x")])
    run(SkillpathSkills(cwd=world.project, budget=1500), model)
    listing = (model.turns[0].system or "").removeprefix("You help.\n\n")
    assert len(listing) <= 1500
    assert listing.startswith("The following skills are available for use with the load_skill")


def test_no_network_at_import_or_construction(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network use")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    import importlib

    import skillpath_openai_agents

    importlib.reload(skillpath_openai_agents)
    skills = SkillpathSkills(cwd=world.project)
    Agent(name="dev", instructions=skills.instructions(), tools=[skills.tool])


def test_files_touched_by_the_hosts_tools_activate_conditional_skills(world: World) -> None:
    world.skill("py-style", "Python style rules.", paths='"**/*.py"')
    skills = SkillpathSkills(cwd=world.project)
    first = ScriptedModel([tool_call("load_skill", "c1", skill="py-style", args="")])
    run(skills, first)
    assert "is conditional" in first.tool_outputs()["c1"]
    assert skills.skills.files_touched(["src/app.py"]) == ["py-style"]
    second = ScriptedModel([tool_call("load_skill", "c1", skill="py-style", args="")])
    run(skills, second)
    assert "- py-style: Python style rules." in (second.turns[0].system or "")
    assert second.tool_outputs()["c1"].endswith("Body.\n")
