"""``SkillpathSkillsProvider`` end to end through Agent Framework's ``Agent`` and its tool loop."""

from __future__ import annotations

import asyncio
import importlib
import socket
from typing import Any

import pytest
from agent_framework import Agent, ChatResponse, SkillsProvider, tool
from skillpath import SkillSession
from skillpath.agent import AgentSkills
from skillpath_agent_framework import SkillpathSkillsProvider, SkillpathSkillsSource

from .conftest import ScriptedClient, World, calls, final, system_text, tool_results


def provider(world: World, **kwargs: Any) -> SkillpathSkillsProvider:
    return SkillpathSkillsProvider(
        cwd=world.project,
        disable_load_skill_approval=True,
        disable_read_skill_resource_approval=True,
        **kwargs,
    )


def run(
    world: World, *replies: ChatResponse, skills: SkillpathSkillsProvider | None = None
) -> tuple[Any, ScriptedClient]:
    client = ScriptedClient(*replies, final())
    agent = Agent(client, instructions="You help.", context_providers=[skills or provider(world)])
    result = asyncio.run(agent.run("go"))
    return result, client


def load(name: str) -> tuple[str, dict[str, Any]]:
    return ("load_skill", {"skill_name": name})


def test_project_and_pack_skills_through_the_agent_loop(world: World) -> None:
    result, client = run(world, calls(load("greet"), load("code-review")))
    assert result.text == "done"
    answers = tool_results(client.seen[-1])
    assert "Base directory for this skill" in answers["c1"] and "Say hello to ." in answers["c1"]
    assert "Review the change against" in answers["c2"]  # the acme-skills pack
    # what the model received: Agent Framework's own skills prompt and tools
    prompt = system_text(client, 0)
    assert prompt.startswith("You help.")
    assert "<available_skills>" in prompt
    for name in ("greet", "code-review", "release-checklist"):
        assert f"<name>{name}</name>" in prompt
    assert "<description>Greet someone by name.</description>" in prompt
    assert "secret" not in prompt and "deploy" not in prompt
    assert client.tools_seen[0][:2] == [
        SkillsProvider.LOAD_SKILL_TOOL_NAME,
        SkillsProvider.READ_SKILL_RESOURCE_TOOL_NAME,
    ]


def test_resources_are_skill_urls_under_skillpaths_containment(world: World) -> None:
    (world.project / ".claude" / "skills" / "greet" / "notes.md").write_text("be kind\n")
    _, client = run(
        world,
        calls(
            ("read_skill_resource", {"skill_name": "greet", "resource_name": "notes.md"}),
            ("read_skill_resource", {"skill_name": "greet", "resource_name": "../../../x"}),
            ("read_skill_resource", {"skill_name": "greet", "resource_name": "missing.md"}),
            ("read_skill_resource", {"skill_name": "deploy", "resource_name": "SKILL.md"}),
        ),
    )
    answers = tool_results(client.seen[-1])
    assert answers["c1"] == "be kind\n"
    direct = AgentSkills.open(world.project)
    assert answers["c2"] == direct.read("skill://greet/../../../x")
    assert answers["c2"].startswith("Error: ")
    assert answers["c3"].startswith("Error: ")
    assert "cannot be invoked by the model" in answers["c4"]


def test_refusals_are_answers_for_the_model(world: World) -> None:
    _, client = run(world, calls(load("gret"), load("deploy"), load("secret")))
    answers = tool_results(client.seen[-1])
    assert answers["c1"].startswith("Error: Unknown skill 'gret'. Did you mean: greet?")
    assert "secret" not in answers["c1"]  # hidden skills are never suggested
    assert answers["c2"] == (
        "Error: skill 'deploy' cannot be invoked by the model (disable-model-invocation)"
    )
    assert answers["c3"].endswith("Body.\n")  # hidden: callable, not listed


def test_inline_shell_follows_skillpaths_policy(world: World) -> None:
    world.skill("shelly", "Runs a command.", body="Date: !`echo from-shell`\n")
    _, client = run(world, calls(load("shelly")))
    direct = SkillSession.open(world.project).invoke("shelly", trigger="tool").content
    assert "[shell command execution disabled by policy]" in direct
    first, rest = direct.split("\n", 1)
    hint = " (read its files with read_skill_resource: skill_name 'shelly', resource_name the"
    answer = tool_results(client.seen[-1])["c1"]
    assert answer.startswith(first + hint) and answer.endswith(rest)


def test_skill_added_and_edited_on_disk_is_seen_next_run(world: World) -> None:
    skills = provider(world)
    client = ScriptedClient(final("one"), calls(load("fresh")), final("two"))
    agent = Agent(client, instructions="You help.", context_providers=[skills])
    asyncio.run(agent.run("first"))
    assert "fresh" not in system_text(client, 0)
    world.skill("fresh", "Added while the agent runs.", body="Fresh body.\n")
    world.skill("greet", "Greet warmly.", body="Hug $ARGUMENTS.\n")
    asyncio.run(agent.run("second"))
    prompt = system_text(client, 1)
    assert "<name>fresh</name>" in prompt and "Greet warmly." in prompt
    assert "Fresh body." in tool_results(client.seen[-1])["c1"]


def test_manual_refresh(world: World) -> None:
    source = SkillpathSkillsSource(cwd=world.project, refresh="manual")
    world.skill("later", "Added later.")
    names = [s.frontmatter.name for s in asyncio.run(source.get_skills(None))]  # type: ignore[arg-type]
    assert "later" not in names
    assert source.refresh() is True
    names = [s.frontmatter.name for s in asyncio.run(source.get_skills(None))]  # type: ignore[arg-type]
    assert "later" in names


def test_listing_respects_the_budget(world: World) -> None:
    for i in range(40):
        world.skill(f"extra-{i:02d}", "A long description. " * 20)
    skills = provider(world, budget=1500)
    _, client = run(world, skills=skills)
    prompt = system_text(client, 0)
    listed = skills.skills.listed_names()
    assert skills.skills.listing().report.trimmed  # the budget had to act
    for name in skills.skills.model_skill_names():
        assert (f"<name>{name}</name>" in prompt) == (name in listed)


def test_approval_stays_agent_frameworks_default(world: World) -> None:
    skills = SkillpathSkillsProvider(cwd=world.project)
    tools = skills._create_tools(asyncio.run(skills.source.get_skills(None)))  # type: ignore[arg-type]
    assert {t.approval_mode for t in tools} == {"always_require"}


def test_no_network_at_import_or_construction(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network use")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    import skillpath_agent_framework

    importlib.reload(skillpath_agent_framework)
    skills = skillpath_agent_framework.SkillpathSkillsProvider(cwd=world.project)
    Agent(ScriptedClient(), instructions="x", context_providers=[skills])


def test_file_tools_activate_conditional_skills(world: World) -> None:
    world.skill("py-style", "Python style rules.", paths='"**/*.py"')

    @tool(approval_mode="never_require")
    def read_file(file_path: str) -> str:
        """Read a file."""
        return "print('hi')"

    skills = provider(world)
    client = ScriptedClient(
        calls(load("py-style")),
        calls(("read_file", {"file_path": "src/app.py"}), first=2),
        calls(load("py-style"), first=3),
        final("one"),
        final("two"),
    )
    agent = Agent(
        client,
        instructions="You help.",
        tools=[read_file],
        context_providers=[skills],
        middleware=[skills.file_tracker],
    )
    asyncio.run(agent.run("first"))
    answers = tool_results(client.seen[3])
    assert answers["c1"].startswith("Error: ") and "is conditional" in answers["c1"]
    assert "py-style" not in system_text(client, 0)
    # loadable in the same run once a file tool touched a matching path
    assert answers["c3"].endswith("Body.\n")
    # and listed by Agent Framework's prompt from the next run
    asyncio.run(agent.run("second"))
    assert "<name>py-style</name>" in system_text(client, 4)


#: What a model may send where a string belongs (JSON can carry each of these).
BAD_VALUES: list[Any] = [None, 0, 7, -1, 3.5, True, False, [], ["a"], {}, {"x": 1}, [None]]


def _bad_calls() -> list[tuple[str, dict[str, Any]]]:
    cases: list[tuple[str, dict[str, Any]]] = []
    for value in BAD_VALUES:
        cases += [
            ("load_skill", {"skill_name": value}),
            ("read_skill_resource", {"skill_name": value, "resource_name": "SKILL.md"}),
            ("read_skill_resource", {"skill_name": "greet", "resource_name": value}),
            ("run_skill_script", {"skill_name": value, "script_name": "x.py"}),
            ("run_skill_script", {"skill_name": "greet", "script_name": value}),
        ]
    return cases


def test_arguments_of_the_wrong_type_are_errors_through_the_agent_loop(world: World) -> None:
    cases = _bad_calls()
    result, client = run(
        world, calls(*cases), skills=provider(world, disable_run_skill_script_approval=True)
    )
    assert result.text == "done"
    answers = tool_results(client.seen[-1])
    assert len(answers) == len(cases)
    assert all(str(a).startswith("Error:") for a in answers.values()), answers


def test_arguments_of_the_wrong_type_are_errors_in_the_tool_functions(world: World) -> None:
    """Before: the provider's handlers behind ``load_skill``, ``read_skill_resource`` and
    ``run_skill_script`` raised ``AttributeError`` for a number, a list or an object
    (the functions Agent Framework calls, when its schema check is not in the way)."""
    from agent_framework import FunctionInvocationContext

    skills_provider = provider(world)
    found = asyncio.run(skills_provider.source.get_skills(None))  # type: ignore[arg-type]
    tools = {t.name: t for t in skills_provider._create_tools(found)}
    ctx = FunctionInvocationContext.__new__(FunctionInvocationContext)
    ctx.kwargs = {}

    async def call(name: str, args: dict[str, Any]) -> Any:
        func = tools[name].func
        assert func is not None
        if name == "load_skill":
            return await func(**args)
        return await func(ctx, **args)

    for name, args in _bad_calls():
        answer = asyncio.run(call(name, args))
        assert isinstance(answer, str) and answer.startswith("Error: "), (name, args, answer)
