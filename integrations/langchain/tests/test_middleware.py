"""``SkillsMiddleware`` end to end through ``create_agent``'s real loop, with a scripted model."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from skillpath import SkillSession
from skillpath.agent import AgentSkills
from skillpath_langchain import SkillsMiddleware

from .conftest import World, scripted


def call(name: str, args: dict[str, Any], call_id: str) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id}])


def tool_answers(result: dict[str, Any]) -> dict[str, str]:
    return {m.tool_call_id: m.content for m in result["messages"] if isinstance(m, ToolMessage)}


def run(
    world: World,
    *replies: AIMessage,
    middleware: SkillsMiddleware | None = None,
    tools: list[Any] | None = None,
) -> tuple[dict[str, Any], Any]:
    model = scripted(*replies, AIMessage(content="done"))
    mw = middleware or SkillsMiddleware(cwd=world.project)
    agent = create_agent(model, tools=tools or [], middleware=[mw], system_prompt="You help.")
    result = agent.invoke({"messages": [HumanMessage("go")]})
    return result, model


def test_project_and_pack_skills_through_the_agent_loop(world: World) -> None:
    result, model = run(
        world,
        call("Skill", {"skill": "greet", "args": "Ada"}, "c1"),
        call("Skill", {"skill": "code-review", "args": "main"}, "c2"),
    )
    answers = tool_answers(result)
    assert "Say hello to Ada." in answers["c1"]  # .claude/skills, $ARGUMENTS substituted
    assert "Review the change against `main`" in answers["c2"]  # the acme-skills pack
    # what the model received: the listing in the system message, every turn
    first = model.seen[0]
    assert isinstance(first[0], SystemMessage)
    system = first[0].content
    assert system.startswith("You help.\n\nThe following skills are available")
    for name in ("greet", "code-review", "release-checklist"):
        assert f"- {name}: " in system
    assert "secret" not in system and "deploy" not in system  # hide / disable-model-invocation
    # the Skill tool's enum holds exactly the listable names
    (schema,) = [t for t in model.tools_seen[0] if isinstance(t, dict)]
    assert schema["function"]["name"] == "Skill"
    enum = schema["function"]["parameters"]["properties"]["skill"]["enum"]
    assert enum == ["code-review", "greet", "release-checklist"]
    # the tool answers reached the model
    last = model.seen[-1]
    assert [m.content for m in last if isinstance(m, ToolMessage)] == [answers["c1"], answers["c2"]]


def test_refusals_are_answers_for_the_model(world: World) -> None:
    result, _ = run(
        world,
        call("Skill", {"skill": "gret"}, "c1"),
        call("Skill", {"skill": "deploy"}, "c2"),
    )
    answers = tool_answers(result)
    assert answers["c1"].startswith("Error: Unknown skill 'gret'. Did you mean: greet?")
    assert "secret" not in answers["c1"]  # hidden skills are never suggested
    assert answers["c2"] == (
        "Error: skill 'deploy' cannot be invoked by the model (disable-model-invocation)"
    )


def test_hidden_skill_is_callable_but_not_listed(world: World) -> None:
    result, model = run(world, call("Skill", {"skill": "secret"}, "c1"))
    assert "Body." in tool_answers(result)["c1"]
    assert "secret" not in model.seen[0][0].content


def test_inline_shell_follows_skillpaths_policy(world: World) -> None:
    world.skill("shelly", "Runs a command.", body="Date: !`echo from-shell`\n")
    result, _ = run(world, call("Skill", {"skill": "shelly"}, "c1"))
    answer = tool_answers(result)["c1"]
    # project skills may not run inline shell by default: skillpath's policy, not ours
    direct = SkillSession.open(world.project).invoke("shelly", trigger="tool").content
    assert "[shell command execution disabled by policy]" in direct
    assert answer == direct


def test_skill_url_containment_is_skillpaths(world: World) -> None:
    skills = AgentSkills.open(world.project)
    assert skills.read("skill://greet/../../../../etc/passwd").startswith("Error: ")
    assert skills.read("skill://greet").startswith("---")


def test_skill_added_and_edited_on_disk_is_seen_next_turn(world: World) -> None:
    mw = SkillsMiddleware(cwd=world.project)
    model = scripted(
        AIMessage(content="one"), call("Skill", {"skill": "fresh"}, "c1"), AIMessage(content="two")
    )
    agent = create_agent(model, tools=[], middleware=[mw])
    agent.invoke({"messages": [HumanMessage("first")]})
    assert "fresh" not in model.seen[0][0].content
    world.skill("fresh", "Added while the agent runs.", body="Fresh body.\n")
    world.skill("greet", "Greet warmly.", body="Hug $ARGUMENTS.\n")
    result = agent.invoke({"messages": [HumanMessage("second")]})
    system = model.seen[1][0].content
    assert "- fresh: Added while the agent runs." in system
    assert "- greet: Greet warmly." in system
    assert "Fresh body." in tool_answers(result)["c1"]


def test_manual_refresh(world: World) -> None:
    mw = SkillsMiddleware(cwd=world.project, refresh="manual")
    world.skill("later", "Added later.")
    assert "later" not in mw.skills.model_skill_names()
    assert mw.refresh() is True
    assert "later" in mw.skills.model_skill_names()


def test_file_tools_activate_conditional_skills(world: World) -> None:
    world.skill("py-style", "Python style rules.", paths='"**/*.py"')

    @tool
    def read_file(file_path: str) -> str:
        """Read a file."""
        return "print('hi')"

    result, model = run(
        world,
        call("Skill", {"skill": "py-style"}, "c1"),
        call("read_file", {"file_path": "src/app.py"}, "c2"),
        call("Skill", {"skill": "py-style"}, "c3"),
        tools=[read_file],
    )
    answers = tool_answers(result)
    assert "is conditional" in answers["c1"] and answers["c1"].startswith("Error: ")
    assert "py-style" not in model.seen[0][0].content
    assert "- py-style: Python style rules." in model.seen[-2][0].content
    assert answers["c3"].endswith("\n\nBody.\n")


def test_file_tools_load_nested_skills_directories(world: World) -> None:
    nested = world.project / "packages" / "web" / ".claude" / "skills" / "web-style"
    nested.mkdir(parents=True)
    (nested / "SKILL.md").write_text(
        "---\nname: web-style\ndescription: Web package rules.\n---\nUse tabs.\n"
    )
    # nested folders are quarantined until approved (skillpath.trust): approved by rule
    config = world.home / ".skillpath" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[trust]\napprove = ["nested:*"]\n')

    @tool
    def read_file(file_path: str) -> str:
        """Read a file."""
        return "export {}"

    result, model = run(
        world,
        call("read_file", {"file_path": "packages/web/src/index.ts"}, "c1"),
        call("Skill", {"skill": "web-style"}, "c2"),
        tools=[read_file],
    )
    assert "web-style" not in model.seen[0][0].content
    assert "- web-style: Web package rules." in model.seen[1][0].content
    assert tool_answers(result)["c2"].endswith("Use tabs.\n")


def test_listing_respects_the_budget(world: World) -> None:
    for i in range(40):
        world.skill(f"extra-{i:02d}", "A long description. " * 20)
    mw = SkillsMiddleware(cwd=world.project, budget=1500)
    _, model = run(world, middleware=mw)
    listing = model.seen[0][0].content.removeprefix("You help.\n\n")
    assert len(listing) <= 1500
    # the listing says what it left out and how to reach it
    assert "budget 1500 chars" in listing and "Skill tool" in listing


def test_no_network_at_import_or_construction(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("network use")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    import importlib

    import skillpath_langchain

    importlib.reload(skillpath_langchain)
    mw = SkillsMiddleware(cwd=world.project)
    create_agent(scripted(AIMessage(content="x")), tools=[], middleware=[mw])


def test_the_model_reads_a_skill_file_with_the_read_tool(world: World) -> None:
    """``create_agent`` has no file tool: a body that says "read references/style.md" is
    followed through ``read_skill_file`` (skillpath's contained reader)."""
    folder = world.skill("styled", "Write in house style.", body="Read references/style.md.\n")
    (folder.parent / "references").mkdir()
    (folder.parent / "references" / "style.md").write_text("Short sentences.\n", encoding="utf-8")
    (world.project / "secret.txt").write_text("no\n", encoding="utf-8")
    result, model = run(
        world,
        call("Skill", {"skill": "styled"}, "c1"),
        call("read_skill_file", {"skill": "styled", "path": "references/style.md"}, "c2"),
        call("read_skill_file", {"skill": "styled", "path": "../../../secret.txt"}, "c3"),
    )
    answers = tool_answers(result)
    base = answers["c1"].splitlines()[0].removeprefix("Base directory for this skill: ")
    assert "Read references/style.md." in answers["c1"] and base == str(folder.parent)
    assert answers["c2"] == "Short sentences.\n"
    assert answers["c3"].startswith("Error: ")
    names = {t["function"]["name"] if isinstance(t, dict) else t.name for t in model.tools_seen[0]}
    assert names == {"Skill", "search_skills", "read_skill_file"}
    without = SkillsMiddleware(cwd=world.project, read_tool=False)
    assert [t.name for t in without.tools] == ["Skill", "search_skills"]
