"""``SkillpathSkills`` end to end through LlamaIndex's ``FunctionAgent`` and ``ReActAgent``."""

from __future__ import annotations

import asyncio
import importlib
import socket
from typing import Any

import pytest
from llama_index.core.agent.workflow import FunctionAgent, ReActAgent
from skillpath import SkillSession
from skillpath.agent import AgentSkills
from skillpath_llamaindex import SkillpathSkills

from .conftest import Script, World, calls, final, system_text, tool_results


def skill(name: str, args: str = "") -> tuple[str, dict[str, Any]]:
    return ("Skill", {"skill": name, "args": args})


def make(world: World, script: Script, skills: SkillpathSkills | None = None) -> FunctionAgent:
    s = skills or SkillpathSkills(cwd=world.project)
    return s.attach(FunctionAgent(tools=[s.tool], llm=script.llm(), system_prompt="You help."))


def run(world: World, *replies: Any, skills: SkillpathSkills | None = None) -> Script:
    script = Script(*replies, final())
    agent = make(world, script, skills)

    async def go() -> None:
        await agent.run(user_msg="go")

    asyncio.run(go())
    return script


def test_project_and_pack_skills_through_the_agent_loop(world: World) -> None:
    script = run(world, calls(skill("greet", "Ada"), skill("code-review", "main")))
    answers = tool_results(script.seen[-1])
    assert "Say hello to Ada." in answers["c1"]  # .claude/skills, $ARGUMENTS substituted
    assert "Review the change against `main`" in answers["c2"]  # the acme-skills pack
    prompt = system_text(script.seen[0])
    assert prompt.startswith(
        "You help.\n\nThe following skills are available for use with the Skill tool:"
    )
    for name in ("greet", "code-review", "release-checklist"):
        assert f"- {name}: " in prompt
    assert "secret" not in prompt and "deploy" not in prompt
    (tool,) = script.tools_seen[0]
    assert tool["function"]["name"] == "Skill"
    assert set(tool["function"]["parameters"]["properties"]) == {"skill", "args"}


def test_refusals_are_answers_for_the_model(world: World) -> None:
    script = run(world, calls(skill("gret"), skill("deploy"), skill("secret")))
    answers = tool_results(script.seen[-1])
    assert answers["c1"].startswith("Error: Unknown skill 'gret'. Did you mean: greet?")
    assert "secret" not in answers["c1"]  # hidden skills are never suggested
    assert answers["c2"] == (
        "Error: skill 'deploy' cannot be invoked by the model (disable-model-invocation)"
    )
    assert answers["c3"].endswith("Body.\n")  # hidden: callable, not listed


def test_inline_shell_and_arguments_follow_skillpaths_policy(world: World) -> None:
    world.skill("shelly", "Runs a command.", body="Date: !`echo from-shell` for $0\n")
    script = run(world, calls(skill("shelly", "prod")))
    direct = SkillSession.open(world.project).invoke("shelly", "prod", trigger="tool").content
    assert "[shell command execution disabled by policy]" in direct and "for prod" in direct
    first, rest = direct.split("\n", 1)
    hint = " (read its files with read_skill: skill://shelly/<path>)"
    assert tool_results(script.seen[-1])["c1"] == f"{first}{hint}\n{rest}"


def test_skill_url_containment_is_skillpaths(world: World) -> None:
    skills = SkillpathSkills(cwd=world.project).skills
    assert skills.read("skill://greet/../../../../etc/passwd").startswith("Error: ")


def test_skill_added_and_edited_on_disk_is_seen_next_run(world: World) -> None:
    script = Script(final("one"), calls(skill("fresh")), final("two"))
    agent = make(world, script)

    async def go(msg: str) -> None:
        await agent.run(user_msg=msg)

    asyncio.run(go("first"))
    assert "fresh" not in system_text(script.seen[0])
    world.skill("fresh", "Added while the agent runs.", body="Fresh body.\n")
    world.skill("greet", "Greet warmly.", body="Hug $ARGUMENTS.\n")
    asyncio.run(go("second"))
    prompt = system_text(script.seen[1])
    assert "- fresh: Added while the agent runs." in prompt and "- greet: Greet warmly." in prompt
    assert prompt.count("The following skills are available") == 1
    assert "Fresh body." in tool_results(script.seen[-1])["c1"]


def test_manual_refresh(world: World) -> None:
    s = SkillpathSkills(cwd=world.project, refresh="manual")
    world.skill("later", "Added later.")
    assert "later" not in s.system_prompt()
    assert s.refresh() is True
    assert "- later: Added later." in s.system_prompt()


def test_attach_needs_the_tool(world: World) -> None:
    s = SkillpathSkills(cwd=world.project)
    with pytest.raises(ValueError, match=r"add SkillpathSkills\.tool"):
        s.attach(FunctionAgent(tools=[], llm=Script().llm()))


def test_attach_twice_keeps_one_listing(world: World) -> None:
    s = SkillpathSkills(cwd=world.project)
    script = Script(final())
    agent = FunctionAgent(tools=[s.tool], llm=script.llm(), system_prompt="You help.")
    assert s.attach(s.attach(agent)) is agent
    with pytest.raises(ValueError, match="already has skillpath skills"):
        SkillpathSkills(cwd=world.project).attach(agent)

    async def go() -> None:
        await agent.run(user_msg="go")

    asyncio.run(go())
    assert system_text(script.seen[0]).count("The following skills are available") == 1


def test_listing_respects_the_budget(world: World) -> None:
    for i in range(40):
        world.skill(f"extra-{i:02d}", "A long description. " * 20)
    s = SkillpathSkills(AgentSkills.open(world.project, budget=1500))
    script = run(world, skills=s)
    listing = system_text(script.seen[0]).removeprefix("You help.\n\n")
    assert listing == s.skills.instructions() and len(listing) <= 1500
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
    import skillpath_llamaindex

    importlib.reload(skillpath_llamaindex)
    s = skillpath_llamaindex.SkillpathSkills(cwd=world.project)
    s.attach(FunctionAgent(tools=[s.tool], llm=Script().llm()))


def test_react_agent_reads_the_listing_and_calls_the_tool(world: World) -> None:
    script = Script(
        final(
            "Thought: I need the greet skill.\nAction: Skill\n"
            'Action Input: {"skill": "greet", "args": "Ada"}'
        ),
        final("Thought: I can answer without using any more tools.\nAnswer: done"),
    )
    s = SkillpathSkills(cwd=world.project)
    agent = s.attach(ReActAgent(tools=[s.tool], llm=script.llm(), system_prompt="You help."))

    async def go() -> str:
        return str(await agent.run(user_msg="greet Ada"))

    assert asyncio.run(go()) == "done"
    first = " ".join(str(m.content) for m in script.seen[0])
    assert "You help.\n\nThe following skills are available" in first
    assert "- greet: Greet someone by name." in first
    assert first.count("The following skills are available") == 1
    assert "Observation: Base directory for this skill" in " ".join(
        str(m.content) for m in script.seen[1]
    )
    assert "Say hello to Ada." in " ".join(str(m.content) for m in script.seen[1])


def test_react_agent_without_a_system_prompt_sees_new_skills_next_run(world: World) -> None:
    script = Script(
        final("Thought: I can answer.\nAnswer: one"), final("Thought: I can answer.\nAnswer: two")
    )
    s = SkillpathSkills(cwd=world.project)
    agent = s.attach(ReActAgent(tools=[s.tool], llm=script.llm()))

    async def go() -> None:
        await agent.run(user_msg="hi")

    asyncio.run(go())
    world.skill("fresh", "Added between runs.")
    asyncio.run(go())
    first = " ".join(str(m.content) for m in script.seen[0])
    second = " ".join(str(m.content) for m in script.seen[1])
    assert "- greet: Greet someone by name." in first and "fresh" not in first
    assert "- fresh: Added between runs." in second
    assert second.count("The following skills are available") == 1
