"""``SkillpathAgentSkills`` end to end through Strands' real ``Agent`` loop, scripted model."""

from __future__ import annotations

import socket

import pytest
from skillpath import SkillSession
from skillpath_strands import SkillpathAgentSkills
from strands import Agent
from strands.vended_plugins.skills import AgentSkills

from .conftest import ScriptedModel, World, call


def agent_for(plugin: AgentSkills, model: ScriptedModel) -> Agent:
    return Agent(model=model, system_prompt="You help.", plugins=[plugin], callback_handler=None)


def run(plugin: AgentSkills, model: ScriptedModel, prompt: str = "go") -> str:
    return str(agent_for(plugin, model)(prompt)).strip()


def test_project_and_pack_skills_through_the_agent_loop(world: World) -> None:
    model = ScriptedModel(
        [
            call("skills", "c1", skill_name="greet", args="Ada"),
            call("skills", "c2", skill_name="release-checklist", args="2.0"),
        ]
    )
    plugin = SkillpathAgentSkills(cwd=world.project)
    agent = agent_for(plugin, model)
    assert str(agent("go")).strip() == "done"
    out = model.tool_results()
    assert out["c1"].startswith("Base directory for this skill: ")
    assert "Say hello to Ada." in out["c1"]  # .claude/skills, $ARGUMENTS substituted
    assert "Location: " in out["c1"]  # Strands' own metadata lines follow
    assert "Prepare release `2.0` of the project" in out["c2"]  # the acme-skills pack
    assert "scripts/check_release.py" in out["c2"].split("Available resources:")[1]
    system = model.turns[0].system
    assert system.startswith("You help.")
    assert "<available_skills>" in system  # Strands' own prompt block
    for name in ("greet", "code-review", "release-checklist"):
        assert f"<name>{name}</name>" in system
    assert "secret" not in system and "deploy" not in system
    spec, *others = model.turns[0].tools
    assert [t["name"] for t in others] == ["read_skill", "search_skills"]
    assert spec["name"] == "skills"
    assert set(spec["inputSchema"]["json"]["properties"]) == {"skill_name", "args"}
    assert plugin.get_activated_skills(agent) == ["greet", "release-checklist"]


def test_refusals_are_answers_for_the_model(world: World) -> None:
    model = ScriptedModel(
        [
            call("skills", "c1", skill_name="gret"),
            call("skills", "c2", skill_name="deploy"),
            call("skills", "c3", skill_name="secre"),
            call("skills", "c4", skill_name="secret"),
        ]
    )
    run(SkillpathAgentSkills(cwd=world.project), model)
    out = model.tool_results()
    assert out["c1"] == "Error: Unknown skill 'gret'. Did you mean: greet?"
    assert out["c2"] == (
        "Error: skill 'deploy' cannot be invoked by the model (disable-model-invocation)"
    )
    assert "secret" not in out["c3"]  # hidden skills are never suggested
    assert "Body." in out["c4"]  # hidden: not listed, callable by name


def test_inline_shell_follows_skillpaths_policy(world: World) -> None:
    world.skill("shelly", "Runs a command.", body="Date: !`echo from-shell`\n")
    model = ScriptedModel([call("skills", "c1", skill_name="shelly")])
    run(SkillpathAgentSkills(cwd=world.project), model)
    direct = SkillSession.open(world.project).invoke("shelly", trigger="tool").content
    assert "[shell command execution disabled by policy]" in direct
    first, rest = direct.split("\n", 1)
    hint = " (read its files with read_skill: skill://shelly/<path>)"
    assert model.tool_results()["c1"].startswith(f"{first}{hint}\n{rest}")
    assert "from-shell" not in model.tool_results()["c1"]


def test_skill_added_and_edited_on_disk_is_seen_next_invocation(world: World) -> None:
    model = ScriptedModel()
    agent = agent_for(SkillpathAgentSkills(cwd=world.project), model)
    agent("one")
    assert "<name>fresh</name>" not in model.turns[0].system
    world.skill("fresh", "Added while the agent runs.", body="Fresh body.\n")
    world.skill("greet", "Greet warmly.")
    model.script.append([call("skills", "c1", skill_name="fresh")])
    agent("two")
    system = model.turns[1].system
    assert "<name>fresh</name>" in system
    assert "<description>Greet warmly.</description>" in system
    assert system.count("<available_skills>") == 1  # Strands replaced its block
    assert "Fresh body." in model.tool_results()["c1"]


def test_manual_refresh(world: World) -> None:
    plugin = SkillpathAgentSkills(cwd=world.project, refresh="manual")
    model = ScriptedModel()
    agent = agent_for(plugin, model)
    world.skill("fresh", "Added later.")
    agent("one")
    assert "<name>fresh</name>" not in model.turns[0].system
    assert plugin.refresh() is True
    agent("two")
    assert "<name>fresh</name>" in model.turns[1].system


def test_listing_respects_the_budget(world: World) -> None:
    for i in range(40):
        world.skill(f"extra-{i:02d}", "A long description. " * 20)
    plugin = SkillpathAgentSkills(cwd=world.project, budget=1500)
    model = ScriptedModel()
    run(plugin, model)
    listed = plugin.skillpath.listed_names()
    assert len(plugin.skillpath.instructions()) <= 1500
    assert 0 < len(listed) <= 43 and plugin.skillpath.listing().report.trimmed
    assert model.turns[0].system.count("<skill>") == len(listed)
    assert sorted(s.name for s in plugin.get_available_skills()) == sorted(listed)


def test_strands_own_plugin_over_skillpath_skill_objects(world: World) -> None:
    """Strands' plain ``AgentSkills`` given ``SkillpathSkill`` objects: skillpath renders."""
    skills = SkillpathAgentSkills(cwd=world.project).get_available_skills()
    model = ScriptedModel([call("skills", "c1", skill_name="greet")])
    run(AgentSkills(skills=skills), model)
    assert model.tool_results()["c1"].startswith("Base directory for this skill: ")
    assert "Say hello to .\n" in model.tool_results()["c1"]


def test_no_network_at_import_or_construction(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network use")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    import importlib

    import skillpath_strands

    importlib.reload(skillpath_strands)
    plugin = skillpath_strands.SkillpathAgentSkills(cwd=world.project)
    Agent(model=ScriptedModel(), plugins=[plugin], callback_handler=None)


def test_file_tools_activate_conditional_skills(world: World) -> None:
    from strands import tool

    world.skill("py-style", "Python style rules.", paths='"**/*.py"')

    @tool
    def read_file(file_path: str) -> str:
        """Read a file.

        Args:
            file_path: The file to read.
        """
        return "print('hi')"

    model = ScriptedModel(
        [call("skills", "c1", skill_name="py-style")],
        [call("read_file", "c2", file_path="src/app.py")],
    )
    plugin = SkillpathAgentSkills(cwd=world.project)
    agent = Agent(
        model=model,
        system_prompt="You help.",
        plugins=[plugin],
        tools=[read_file],
        callback_handler=None,
    )
    agent("one")
    assert "is conditional" in model.tool_results()["c1"]
    assert "<name>py-style</name>" not in model.turns[0].system
    model.script.append([call("skills", "c3", skill_name="py-style")])
    agent("two")
    assert "<name>py-style</name>" in model.turns[-2].system
    assert model.tool_results()["c3"].startswith("Base directory for this skill: ")


def test_the_prompt_block_is_built_once_per_catalog_state(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The block is Strands' own, byte for byte, on every invocation; it is built
    again only when the skills change (not on every invocation)."""
    built: list[int] = []
    strands_block = AgentSkills._generate_skills_xml

    def counted(self: AgentSkills, agent: Agent | None = None) -> str:
        built.append(1)
        return strands_block(self, agent)

    plugin = SkillpathAgentSkills(cwd=world.project)
    model = ScriptedModel()
    agents = [agent_for(plugin, model) for _ in range(2)]
    monkeypatch.setattr(AgentSkills, "_generate_skills_xml", counted)

    def expected() -> str:  # Strands' plugin given the same skills, nothing cached
        block = strands_block(AgentSkills(skills=plugin.get_available_skills()))
        return f"You help.\n{block}"  # Strands joins its system blocks with a newline

    for prompt in ("one", "two", "three"):
        for agent in agents:
            agent(prompt)
            assert model.turns[-1].system == expected()
    assert len(built) == 1
    world.skill("fresh", "Added while the agents run.")
    agents[0]("four")
    assert "<name>fresh</name>" in model.turns[-1].system == expected()
    assert len(built) == 2
    # folders handed to Strands load per agent: the block is built on every invocation
    folder = world.project / ".claude" / "skills" / "greet"
    plugin.set_available_skills([str(folder)])
    agents[0]("five")
    agents[0]("six")
    assert len(built) == 4
    assert "<name>greet</name>" in model.turns[-1].system
    assert "<name>fresh</name>" not in model.turns[-1].system


def test_a_prompt_changed_between_invocations_gets_the_block_again(world: World) -> None:
    """The injection is skipped only when it would leave the prompt as it is."""
    plugin = SkillpathAgentSkills(cwd=world.project)
    model = ScriptedModel()
    agent = agent_for(plugin, model)
    agent("one")
    block = model.turns[-1].system.removeprefix("You help.\n")
    assert block.startswith("<available_skills>")
    agent("two")
    assert model.turns[-1].system == f"You help.\n{block}"
    agent.system_prompt = "Be brief."  # the user replaced the prompt, block and all
    agent("three")
    assert model.turns[-1].system == f"Be brief.\n{block}"
    agent.system_prompt = [{"text": "Cached."}, {"cachePoint": {"type": "default"}}]
    agent("four")
    agent("five")
    assert agent.system_prompt_content == [
        {"text": "Cached."},
        {"cachePoint": {"type": "default"}},
        {"text": block},
    ]
    assert agent.system_prompt_content is not None
    content = [*agent.system_prompt_content, {"text": "Appended later."}]
    agent.system_prompt = content  # a block after Strands': it moves its block last again
    agent("six")
    assert agent.system_prompt_content == [
        {"text": "Cached."},
        {"cachePoint": {"type": "default"}},
        {"text": "Appended later."},
        {"text": block},
    ]
    bare = agent_for(plugin, model)
    bare.system_prompt = None
    bare("seven")
    bare("eight")
    assert model.turns[-1].system == block
