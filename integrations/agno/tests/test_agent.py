"""``SkillpathSkills`` and ``SkillpathSkillLoader`` end to end through Agno's real ``Agent.run``."""

from __future__ import annotations

import json
import os
import socket

import pytest
from agno.agent import Agent
from agno.skills import Skills
from skillpath import SkillSession
from skillpath_agno import SkillpathSkillLoader, SkillpathSkills

from .conftest import ScriptedModel, World, call


def run(skills: Skills, model: ScriptedModel, prompt: str = "go") -> str:
    agent = Agent(model=model, instructions="You help.", skills=skills, telemetry=False)
    return str(agent.run(prompt).content)


def answers(model: ScriptedModel) -> dict[str, dict[str, object]]:
    return {k: json.loads(v) for k, v in model.tool_results().items()}


def test_project_and_pack_skills_through_the_agent_loop(world: World) -> None:
    model = ScriptedModel(
        script=[
            [
                call("get_skill_instructions", "c1", skill_name="greet", args="Ada"),
                call("get_skill_instructions", "c2", skill_name="code-review", args="main"),
                call(
                    "get_skill_reference",
                    "c3",
                    skill_name="code-review",
                    reference_path="checklist.md",
                ),
                call("get_skill_script", "c4", skill_name="code-review", script_path="diffstat.py"),
            ]
        ]
    )
    assert run(SkillpathSkills(cwd=world.project), model) == "done"
    out = answers(model)
    assert "Say hello to Ada." in str(out["c1"]["instructions"])  # .claude/skills, $ARGUMENTS
    assert "Review the change against `main`" in str(out["c2"]["instructions"])  # the pack
    assert out["c2"]["available_references"] == ["checklist.md", "severity.md"]
    assert out["c2"]["available_scripts"] == ["diffstat.py"]
    assert str(out["c3"]["content"]).startswith("# ACME code review checklist")
    assert "content" in out["c4"] and "error" not in out["c4"]
    system = model.turns[0].system
    assert system.startswith("You help.")
    assert "<skills_system>" in system  # Agno's own prompt
    for name in ("greet", "code-review", "release-checklist"):
        assert f"<name>{name}</name>" in system
    assert "secret" not in system and "deploy" not in system
    assert model.tool_names() == [
        "get_skill_instructions",
        "get_skill_reference",
        "get_skill_script",
        "search_skills",
    ]
    params = model.turns[0].tools[0]["function"]["parameters"]
    assert set(params["properties"]) == {"skill_name", "args"}


def test_refusals_are_answers_for_the_model(world: World) -> None:
    model = ScriptedModel(
        script=[
            [
                call("get_skill_instructions", "c1", skill_name="gret"),
                call("get_skill_instructions", "c2", skill_name="deploy"),
                call("get_skill_instructions", "c3", skill_name="secre"),
                call("get_skill_instructions", "c4", skill_name="secret"),
                call("get_skill_reference", "c5", skill_name="deploy", reference_path="x.md"),
            ]
        ]
    )
    run(SkillpathSkills(cwd=world.project), model)
    out = answers(model)
    assert out["c1"] == {"error": "Unknown skill 'gret'. Did you mean: greet?"}
    assert out["c2"] == {
        "error": "skill 'deploy' cannot be invoked by the model (disable-model-invocation)"
    }
    assert "secret" not in str(out["c3"])  # hidden skills are never suggested
    assert str(out["c4"]["instructions"]).endswith("Body.\n")  # hidden: callable by name
    assert "error" in out["c5"] and "disable-model-invocation" in str(out["c5"]["error"])


def test_references_keep_skillpaths_containment(world: World) -> None:
    secret = world.home / "secret.txt"
    secret.write_text("TOP-SECRET\n", encoding="utf-8")
    refs = world.project / ".claude" / "skills" / "greet" / "references"
    refs.mkdir()
    (refs / "notes.md").write_text("Notes.\n", encoding="utf-8")
    os.symlink(secret, refs / "leak.md")
    model = ScriptedModel(
        script=[
            [
                call("get_skill_reference", "c1", skill_name="greet", reference_path="notes.md"),
                call("get_skill_reference", "c2", skill_name="greet", reference_path="leak.md"),
                call(
                    "get_skill_reference",
                    "c3",
                    skill_name="greet",
                    reference_path="../../../../../home/secret.txt",
                ),
                call(
                    "get_skill_script",
                    "c4",
                    skill_name="greet",
                    script_path="../references/leak.md",
                    execute=True,
                ),
            ]
        ]
    )
    run(SkillpathSkills(cwd=world.project), model)
    out = answers(model)
    assert out["c1"]["content"] == "Notes.\n"
    for key in ("c2", "c3", "c4"):
        assert "error" in out[key], out[key]
    assert "TOP-SECRET" not in json.dumps(out)


def test_inline_shell_follows_skillpaths_policy(world: World) -> None:
    world.skill("shelly", "Runs a command.", body="Date: !`echo from-shell`\n")
    model = ScriptedModel(script=[[call("get_skill_instructions", "c1", skill_name="shelly")]])
    run(SkillpathSkills(cwd=world.project), model)
    direct = SkillSession.open(world.project).invoke("shelly", trigger="tool").content
    assert "[shell command execution disabled by policy]" in direct
    first, rest = direct.split("\n", 1)
    hint = " (read its files with get_skill_reference: reference_path inside this folder)"
    assert answers(model)["c1"]["instructions"] == f"{first}{hint}\n{rest}"


def test_skill_added_and_edited_on_disk_is_seen_next_run(world: World) -> None:
    skills = SkillpathSkills(cwd=world.project)
    agent_model = ScriptedModel()
    agent = Agent(model=agent_model, instructions="You help.", skills=skills, telemetry=False)
    agent.run("one")
    assert "<name>fresh</name>" not in agent_model.turns[0].system
    world.skill("fresh", "Added while the agent runs.", body="Fresh body.\n")
    world.skill("greet", "Greet warmly.")
    agent_model.script.append([call("get_skill_instructions", "c1", skill_name="fresh")])
    agent.run("two")
    system = agent_model.turns[1].system
    assert "<name>fresh</name>" in system and "<description>Greet warmly.</description>" in system
    assert "Fresh body." in str(answers(agent_model)["c1"]["instructions"])


def test_manual_refresh(world: World) -> None:
    skills = SkillpathSkills(cwd=world.project, refresh="manual")
    world.skill("fresh", "Added later.")
    assert skills.get_skill("fresh") is None
    skills.get_tools()
    assert skills.get_skill("fresh") is None
    assert skills.refresh() is True
    assert skills.get_skill("fresh") is not None


def test_listing_respects_the_budget(world: World) -> None:
    for i in range(40):
        world.skill(f"extra-{i:02d}", "A long description. " * 20)
    skills = SkillpathSkills(cwd=world.project, budget=1500)
    model = ScriptedModel()
    run(skills, model)
    listed = skills.skillpath.listed_names()
    assert len(skills.skillpath.instructions()) <= 1500
    assert 0 < len(listed) <= 43 and skills.skillpath.listing().report.trimmed
    assert sorted(skills.get_skill_names()) == sorted(listed)
    system = model.turns[0].system
    assert system.count("<skill>") == len(listed)


def test_agnos_own_skills_with_the_skillpath_loader(world: World) -> None:
    """Agno's plain ``Skills`` over the loader: Agno's tools, skillpath's rendering."""
    skills = Skills(loaders=[SkillpathSkillLoader(cwd=world.project)])
    model = ScriptedModel(
        script=[
            [
                call("get_skill_instructions", "c1", skill_name="greet"),
                call("get_skill_instructions", "c2", skill_name="release-checklist"),
            ]
        ]
    )
    run(skills, model)
    out = answers(model)
    assert str(out["c1"]["instructions"]).endswith("Say hello to .\n")
    assert "# Release checklist" in str(out["c2"]["instructions"])
    assert sorted(skills.get_skill_names()) == ["code-review", "greet", "release-checklist"]
    world.skill("fresh", "Added later.")
    skills.reload()  # Agno's own reload calls load() again
    assert "fresh" in skills.get_skill_names()


def test_no_network_at_import_or_construction(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network use")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    import importlib

    import skillpath_agno

    importlib.reload(skillpath_agno)
    skills = skillpath_agno.SkillpathSkills(cwd=world.project)
    Agent(model=ScriptedModel(), skills=skills, telemetry=False)
    Skills(loaders=[skillpath_agno.SkillpathSkillLoader(cwd=world.project)])


def test_one_disk_check_per_run_and_the_snippet_alone_checks(world: World) -> None:
    skills = SkillpathSkills(cwd=world.project)
    skills.get_tools()
    skills.get_system_prompt_snippet()  # the run's second call: no second check
    world.skill("fresh", "Added later.")
    assert "<name>fresh</name>" in skills.get_system_prompt_snippet()  # alone: checks
    world.skill("fresher", "Added later still.")
    assert "<name>fresher</name>" in skills.get_system_prompt_snippet()
    world.skill("freshest", "And again.")
    skills.get_tools()  # a new run starts with the tools
    assert skills.get_skill("freshest") is not None


def test_tool_hook_activates_conditional_skills(world: World) -> None:
    world.skill("py-style", "Python style rules.", paths='"**/*.py"')

    def read_file(file_path: str) -> str:
        """Read a file.

        Args:
            file_path: The file to read.
        """
        return "print('hi')"

    skills = SkillpathSkills(cwd=world.project)
    model = ScriptedModel(
        script=[
            [call("get_skill_instructions", "c1", skill_name="py-style")],
            [call("read_file", "c2", file_path="src/app.py")],
        ]
    )
    agent = Agent(
        model=model,
        skills=skills,
        tools=[read_file],
        tool_hooks=[skills.tool_hook],
        telemetry=False,
    )
    agent.run("one")
    assert "is conditional" in json.loads(model.tool_results()["c1"])["error"]
    assert model.tool_results()["c2"] == "print('hi')"
    model.script.append([call("get_skill_instructions", "c3", skill_name="py-style")])
    agent.run("two")
    assert "<name>py-style</name>" in model.turns[-2].system
    assert json.loads(model.tool_results()["c3"])["instructions"].endswith("Body.\n")
