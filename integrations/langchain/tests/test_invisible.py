"""No invisible character reaches the model through ``SkillsMiddleware`` (listing, tool
definitions, the ``Skill``, ``read_skill_file`` and ``search_skills`` results) or through
``SkillpathBackend`` (deepagents' skills prompt, ``read_file``, ``ls``, ``glob`` and the
index deepagents downloads)."""

from __future__ import annotations

import json
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from skillpath_langchain import SkillpathBackend, SkillsMiddleware
from skillpath_testing.hostile import (
    HOSTILE_BODY,
    HOSTILE_DESCRIPTION,
    HOSTILE_REFERENCE,
    HOSTILE_SKILLS,
    assert_no_invisible,
    hostile_skills,
)

from .conftest import World, scripted
from .test_deepagents import answers, read, run


def _call(name: str, call_id: str, **args: Any) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id}])


def _tools(model: Any) -> list[str]:
    out = []
    for tools in model.tools_seen:
        for t in tools:
            schema = t if isinstance(t, dict) else getattr(t, "args_schema", None)
            out.append(json.dumps([getattr(t, "description", ""), str(schema)], ensure_ascii=False))
    return out


def test_the_middleware_gives_the_model_no_invisible_character(world: World) -> None:
    hostile_skills(world.project)
    replies = []
    for i, name in enumerate(HOSTILE_SKILLS):
        replies.append(_call("Skill", f"s{i}", skill=name, args=""))
        replies.append(_call("read_skill_file", f"r{i}", skill=name, path="references/guide.md"))
    replies += [_call("search_skills", "q", query="format tables"), AIMessage(content="done")]
    model = scripted(*replies)
    agent = create_agent(model, tools=[], middleware=[SkillsMiddleware(cwd=world.project)])
    result = agent.invoke({"messages": [HumanMessage("go")]})
    system = str(model.seen[0][0].content)
    assert HOSTILE_DESCRIPTION in system
    assert_no_invisible([str(m.content) for m in model.seen[-1]], "messages")
    assert_no_invisible(_tools(model), "tool definitions")
    out = {m.tool_call_id: str(m.content) for m in result["messages"] if isinstance(m, ToolMessage)}
    assert HOSTILE_BODY in out["s0"] and HOSTILE_REFERENCE in out["r1"]
    assert HOSTILE_DESCRIPTION in out["q"]
    assert_no_invisible(list(out.values()), "tool results")


def test_the_deepagents_backend_gives_the_model_no_invisible_character(world: World) -> None:
    hostile_skills(world.project)
    backend = SkillpathBackend(cwd=world.project)
    name = HOSTILE_SKILLS[0]
    result, model = run(
        backend,
        read(f"/skills/{name}/SKILL.md", "c1"),
        read(f"/skills/{name}/references/guide.md", "c2"),
        _call("ls", "c3", path=f"/skills/{name}/"),
        _call("glob", "c4", pattern="**/*.md", path="/skills/"),
    )
    system = str(model.seen[0][0].content)
    assert HOSTILE_DESCRIPTION in system  # deepagents' own skills prompt
    assert_no_invisible([str(m.content) for m in model.seen[-1]], "messages")
    out = answers(result)
    assert HOSTILE_BODY in out["c1"] and HOSTILE_REFERENCE in out["c2"]
    assert_no_invisible(list(out.values()), "tool results")
    # the files deepagents reads on its own: the index and the backend's file view
    paths = [f"/{n}/SKILL.md" for n in HOSTILE_SKILLS] + [f"/{name}/references/guide.md"]
    downloaded = [r.content.decode() for r in backend.download_files(paths) if r.content]
    assert len(downloaded) == len(paths)
    assert_no_invisible(downloaded, "download_files")
    read_back = backend.read(f"/{name}/references/guide.md")
    assert read_back.file_data is not None
    assert HOSTILE_REFERENCE in str(read_back.file_data["content"])
    assert_no_invisible(str(read_back.file_data["content"]), "read")
    views = [backend.ls(f"/{name}/").entries, backend.glob("**").matches]
    assert_no_invisible(json.dumps(views, ensure_ascii=False, default=str), "ls/glob")
