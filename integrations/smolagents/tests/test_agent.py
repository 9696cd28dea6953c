"""``SkillpathSkills`` end to end through smolagents' real agent loops, with a scripted model."""

from __future__ import annotations

import importlib
import socket

import pytest
from skillpath import SkillSession
from skillpath.agent import AgentSkills
from skillpath_smolagents import SkillpathSkills, with_read_hint
from smolagents import CodeAgent, Tool, ToolCallingAgent
from smolagents.memory import ActionStep
from smolagents.models import ChatMessage, MessageRole

from .conftest import ScriptedModel, World, calls, final, text_of


def run_agent(
    world: World, *replies: ChatMessage, skills: SkillpathSkills | None = None
) -> tuple[ToolCallingAgent, ScriptedModel]:
    model = ScriptedModel(*replies, final())
    s = skills or SkillpathSkills(cwd=world.project)
    agent = s.attach(ToolCallingAgent(tools=[s.tool], model=model, instructions="You help."))
    agent.run("go")
    return agent, model


def observations(agent: ToolCallingAgent) -> list[str]:
    return [
        step.observations or ""
        for step in agent.memory.steps
        if isinstance(step, ActionStep) and step.observations
    ]


def system(model: ScriptedModel, turn: int = 0) -> str:
    return text_of(model.seen[turn][0])


def test_project_and_pack_skills_through_the_agent_loop(world: World) -> None:
    agent, model = run_agent(
        world,
        calls(("Skill", {"skill": "greet", "args": "Ada"})),
        calls(("Skill", {"skill": "code-review", "args": "main"})),
    )
    seen = observations(agent)
    assert "Say hello to Ada." in seen[0]  # .claude/skills, $ARGUMENTS substituted
    assert "Review the change against `main`" in seen[1]  # the acme-skills pack
    # what the model received: the listing in the system prompt, after the agent's own text
    first = model.seen[0][0]
    assert first.role == MessageRole.SYSTEM
    prompt = system(model)
    assert "You help.\n\nThe following skills are available for use with the Skill tool:" in prompt
    for name in ("greet", "code-review", "release-checklist"):
        assert f"- {name}: " in prompt
    assert "secret" not in prompt and "deploy" not in prompt
    assert model.tools_seen[0] == ["Skill", "final_answer", "read_skill", "search_skills"]
    # the tool answers reached the model
    later = "".join(text_of(m) for m in model.seen[2])
    assert "Say hello to Ada." in later and "Review the change against `main`" in later


def test_code_agent_calls_the_tool_from_its_code(world: World) -> None:
    model = ScriptedModel(
        ChatMessage(
            role=MessageRole.ASSISTANT,
            content='<code>\nprint(Skill(skill="greet", args="Grace"))\n</code>',
        ),
        ChatMessage(role=MessageRole.ASSISTANT, content='<code>\nfinal_answer("done")\n</code>'),
    )
    s = SkillpathSkills(cwd=world.project)
    agent = s.attach(CodeAgent(tools=[s.tool], model=model, instructions="You help."))
    assert agent.run("go") == "done"
    assert "- greet: Greet someone by name." in system(model)
    assert "Say hello to Grace." in "".join(text_of(m) for m in model.seen[1])


def test_refusals_are_answers_for_the_model(world: World) -> None:
    agent, _ = run_agent(
        world,
        calls(("Skill", {"skill": "gret"})),
        calls(("Skill", {"skill": "deploy"})),
    )
    seen = observations(agent)
    assert seen[0].startswith("Error: Unknown skill 'gret'. Did you mean: greet?")
    assert "secret" not in seen[0]  # hidden skills are never suggested
    assert seen[1] == (
        "Error: skill 'deploy' cannot be invoked by the model (disable-model-invocation)"
    )
    assert all(step.error is None for step in agent.memory.steps if isinstance(step, ActionStep))


def test_hidden_skill_is_callable_but_not_listed(world: World) -> None:
    agent, model = run_agent(world, calls(("Skill", {"skill": "secret"})))
    assert "Body." in observations(agent)[0]
    assert "secret" not in system(model)


def test_inline_shell_and_arguments_follow_skillpaths_policy(world: World) -> None:
    world.skill("shelly", "Runs a command.", body="Date: !`echo from-shell` for $0\n")
    agent, _ = run_agent(world, calls(("Skill", {"skill": "shelly", "args": "prod"})))
    direct = SkillSession.open(world.project).invoke("shelly", "prod", trigger="tool").content
    assert "[shell command execution disabled by policy]" in direct and "for prod" in direct
    # the tool's answer is skillpath's (smolagents strips the observation)
    assert s_tool_answer(world, "shelly", "prod") == direct
    assert observations(agent)[0] == with_read_hint(direct, "shelly").strip()


def s_tool_answer(world: World, skill: str, args: str) -> str:
    return str(SkillpathSkills(cwd=world.project).tool(skill=skill, args=args))


def test_skill_url_containment_is_skillpaths(world: World) -> None:
    skills = SkillpathSkills(cwd=world.project).skills
    assert skills.read("skill://greet/../../../../etc/passwd").startswith("Error: ")


def test_skill_added_and_edited_on_disk_is_seen_next_turn(world: World) -> None:
    s = SkillpathSkills(cwd=world.project)
    model = ScriptedModel(
        calls(("Skill", {"skill": "greet", "args": "Ada"})),
        calls(("Skill", {"skill": "fresh"})),
        final(),
        final(),
    )

    def add_skills(step: ActionStep) -> None:
        if step.step_number == 1:  # between the first and the second model turn
            world.skill("fresh", "Added while the agent runs.", body="Fresh body.\n")
            world.skill("greet", "Greet warmly.", body="Hug $ARGUMENTS.\n")

    agent = s.attach(
        ToolCallingAgent(
            tools=[s.tool], model=model, instructions="You help.", step_callbacks=[add_skills]
        )
    )
    agent.run("first")
    assert "fresh" not in system(model, 0)
    assert "- fresh: Added while the agent runs." in system(model, 1)
    assert "- greet: Greet warmly." in system(model, 1)
    assert "Fresh body." in observations(agent)[1]
    # a new run starts from the disk too
    world.skill("later", "Added between runs.")
    agent.run("second")
    assert "- later: Added between runs." in system(model, 3)


def test_manual_refresh(world: World) -> None:
    s = SkillpathSkills(cwd=world.project, refresh="manual")
    world.skill("later", "Added later.")
    assert "later" not in s.instructions()
    assert s.refresh() is True
    assert "- later: Added later." in s.instructions()


def test_attach_needs_the_tool(world: World) -> None:
    s = SkillpathSkills(cwd=world.project)
    with pytest.raises(ValueError, match=r"add SkillpathSkills\.tool"):
        s.attach(ToolCallingAgent(tools=[], model=ScriptedModel()))


def test_attach_twice_keeps_one_listing(world: World) -> None:
    s = SkillpathSkills(cwd=world.project)
    model = ScriptedModel(final())
    agent = ToolCallingAgent(tools=[s.tool], model=model, instructions="You help.")
    assert s.attach(s.attach(agent)) is agent
    with pytest.raises(ValueError, match="already has skillpath skills"):
        SkillpathSkills(cwd=world.project).attach(agent)
    agent.run("go")
    assert system(model).count("The following skills are available") == 1


def test_listing_respects_the_budget(world: World) -> None:
    for i in range(40):
        world.skill(f"extra-{i:02d}", "A long description. " * 20)
    s = SkillpathSkills(AgentSkills.open(world.project, budget=1500))
    _, model = run_agent(world, skills=s)
    prompt = system(model)
    start = prompt.index("The following skills are available")
    listing = s.skills.instructions()
    assert prompt[start:].startswith(listing) and len(listing) <= 1500
    # the listing says what the budget did and how to reach the rest
    assert s.skills.listing().report.trimmed and "budget 1500 chars" in listing


def test_no_network_at_import_or_construction(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network use")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    import skillpath_smolagents

    importlib.reload(skillpath_smolagents)
    s = skillpath_smolagents.SkillpathSkills(cwd=world.project)
    s.attach(ToolCallingAgent(tools=[s.tool], model=ScriptedModel()))


class ReadFile(Tool):
    name = "read_file"
    description = "Read a file."
    inputs = {"file_path": {"type": "string", "description": "The file."}}  # noqa: RUF012
    output_type = "string"

    def forward(self, file_path: str) -> str:
        return "print('hi')"


def test_file_tools_activate_conditional_skills(world: World) -> None:
    world.skill("py-style", "Python style rules.", paths='"**/*.py"')
    model = ScriptedModel(
        calls(("Skill", {"skill": "py-style"})),
        calls(("read_file", {"file_path": "src/app.py"})),
        calls(("Skill", {"skill": "py-style"})),
        final(),
    )
    s = SkillpathSkills(cwd=world.project)
    agent = s.attach(
        ToolCallingAgent(tools=[s.tool, ReadFile()], model=model, instructions="You help.")
    )
    agent.run("go")
    seen = observations(agent)
    assert seen[0].startswith("Error: ") and "is conditional" in seen[0]
    assert "py-style" not in system(model, 0)
    assert "- py-style: Python style rules." in system(model, 2)
    assert seen[2].endswith("Body.")
