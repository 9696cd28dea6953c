"""``SkillpathBackend`` under deepagents' own ``SkillsMiddleware`` in ``create_deep_agent``."""

from __future__ import annotations

from typing import Any

from deepagents import create_deep_agent
from deepagents.backends import CompositeBackend, StateBackend
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from skillpath_langchain import SkillpathBackend

from .conftest import World, scripted


def read(path: str, call_id: str) -> AIMessage:
    return AIMessage(
        content="", tool_calls=[{"name": "read_file", "args": {"file_path": path}, "id": call_id}]
    )


def run(backend: SkillpathBackend, *replies: AIMessage) -> tuple[dict[str, Any], Any]:
    model = scripted(*replies, AIMessage(content="done"))
    composite = CompositeBackend(default=StateBackend(), routes={"/skills/": backend})
    agent = create_deep_agent(model=model, backend=composite, skills=["/skills/"])
    result = agent.invoke({"messages": [HumanMessage("go")]})
    return result, model


def answers(result: dict[str, Any]) -> dict[str, str]:
    return {
        m.tool_call_id: str(m.content) for m in result["messages"] if isinstance(m, ToolMessage)
    }


def test_deepagents_lists_and_reads_every_skillpath_skill(world: World) -> None:
    (world.project / ".claude" / "skills" / "greet" / "notes.md").write_text("be kind\n")
    result, model = run(
        SkillpathBackend(cwd=world.project),
        read("/skills/greet/SKILL.md", "c1"),
        read("/skills/code-review/SKILL.md", "c2"),
        read("/skills/greet/notes.md", "c3"),
        read("/skills/greet/../../../../etc/passwd", "c4"),
        read("/skills/gret/SKILL.md", "c5"),
    )
    system = str(model.seen[0][0].content)
    # deepagents' own skills prompt, listing skillpath's skills (project and pack)
    assert "greet" in system and "Greet someone by name." in system
    assert "code-review" in system and "release-checklist" in system
    assert "secret" not in system and "deploy" not in system
    out = answers(result)
    assert "Say hello to ." in out["c1"] and "Base directory for this skill" in out["c1"]
    assert "Review the change against" in out["c2"]
    assert "be kind" in out["c3"]
    assert "root:" not in out["c4"] and "Error" in out["c4"]
    assert "Did you mean: greet?" in out["c5"]


def test_backend_index_runs_nothing_and_writes_are_refused(world: World) -> None:
    world.skill("shelly", "Runs a command.", body="Date: !`echo from-shell`\n")
    backend = SkillpathBackend(cwd=world.project)
    listing = backend.ls("/")
    assert listing.entries is not None
    assert [e["path"] for e in listing.entries] == [
        "/code-review/",
        "/greet/",
        "/release-checklist/",
        "/shelly/",
    ]
    (entry,) = backend.download_files(["/shelly/SKILL.md"])
    assert entry.content is not None and b"from-shell" not in entry.content
    assert entry.content.startswith(b"---\nname: shelly\ndescription: Runs a command.\n---\n")
    text = backend.read("/shelly/SKILL.md").file_data
    assert text is not None and "[shell command execution disabled by policy]" in text["content"]
    assert backend.write("/greet/SKILL.md", "x").error
    assert backend.edit("/greet/SKILL.md", "a", "b").error
    assert backend.delete("/greet/SKILL.md").error


def test_skill_added_on_disk_is_seen_by_the_next_run(world: World) -> None:
    backend = SkillpathBackend(cwd=world.project)
    _, first = run(backend)
    assert "fresh" not in str(first.seen[0][0].content)
    world.skill("fresh", "Added while the agent runs.")
    _, second = run(backend)
    assert "Added while the agent runs." in str(second.seen[0][0].content)


#: What a model (or a tool passing on what it sent) may hand over where a string or a
#: number belongs.
BAD_VALUES: list[Any] = [None, 0, 7, -1, 3.5, True, [], ["a"], {}, {"x": 1}, b"/greet", [None]]


def test_backend_arguments_of_the_wrong_type_are_error_results(world: World) -> None:
    """Before: the backend's ``ls``, ``read``, ``glob``, ``download_files`` and
    ``upload_files`` raised ``AttributeError``/``TypeError`` for a number, a list or an
    object; each is now the error result deepagents hands to the model."""
    backend = SkillpathBackend(cwd=world.project)
    for value in BAD_VALUES:
        if not isinstance(value, str):
            assert backend.ls(value).error, value
            assert backend.read(value).error, value
            assert backend.glob(value).error, value
            assert backend.glob("*", value).error if value is not None else True
            (item,) = backend.download_files([value])
            assert item.error == "invalid_path", value
        if not isinstance(value, int) or isinstance(value, bool):
            assert backend.read("/greet/SKILL.md", value).error, value
            assert backend.read("/greet/SKILL.md", 0, value).error, value
        if not isinstance(value, (list, tuple)):
            (whole,) = backend.download_files(value)
            assert whole.error == "invalid_path", value
            assert backend.upload_files(value)[0].error == "permission_denied"
        assert all(r.error for r in backend.upload_files([value]))
    assert "Say hello" in (backend.read("/greet/SKILL.md").file_data or {})["content"]


def test_the_agent_loop_answers_arguments_of_the_wrong_type(world: World) -> None:
    """Through ``create_deep_agent``: each bad value is an error message, and the run ends."""
    calls = []
    for i, value in enumerate(BAD_VALUES):
        if isinstance(value, bytes):
            continue
        calls += [
            {"name": "read_file", "args": {"file_path": value}, "id": f"r{i}"},
            {"name": "ls", "args": {"path": value}, "id": f"l{i}"},
            {"name": "glob", "args": {"pattern": value}, "id": f"g{i}"},
        ]
    result, _model = run(
        SkillpathBackend(cwd=world.project), AIMessage(content="", tool_calls=calls)
    )
    out = answers(result)
    assert len(out) == len(calls)
    assert all("rror" in text for text in out.values()), out


def ls(path: str, call_id: str) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": "ls", "args": {"path": path}, "id": call_id}])


def glob(pattern: str, path: str, call_id: str) -> AIMessage:
    return AIMessage(
        content="",
        tool_calls=[{"name": "glob", "args": {"pattern": pattern, "path": path}, "id": call_id}],
    )


def test_pinned_skills_pin_the_rendered_skill(world: World) -> None:
    """Before: ``pinned_skills`` pinned "Read this SKILL.md with the read_file tool…"."""
    model = scripted(AIMessage(content="done"))
    backend = CompositeBackend(
        default=StateBackend(), routes={"/skills/": SkillpathBackend(cwd=world.project)}
    )
    agent = create_deep_agent(model=model, backend=backend, skills=["/skills/"])
    agent.invoke({"messages": [HumanMessage("go")], "pinned_skills": ["greet"]})
    pinned = [
        m
        for m in model.seen[0]
        if isinstance(m, HumanMessage) and m.additional_kwargs.get("lc_source") == "pinned_skill"
    ]
    (message,) = pinned
    text = str(message.content)
    assert text.startswith('<skill name="greet" path="/skills/greet/SKILL.md">')
    assert "Say hello to ." in text and "read_file tool" not in text
    assert "Base directory for this skill: /skills/greet\n" in text
    assert str(world.project) not in text


def test_base_dir_names_the_agents_view_and_nested_folders_are_reachable(world: World) -> None:
    """Before: the base-directory line gave the host path; ``ls`` of a skill's subfolder and
    a nested ``glob`` failed."""
    folder = world.skill(
        "styled", "Write in house style.", body="See ${SKILL_DIR}/references/style.md.\n"
    ).parent
    (folder / "references" / "deep").mkdir(parents=True)
    (folder / "references" / "style.md").write_text("Short sentences.\n", encoding="utf-8")
    (folder / "references" / "deep" / "more.md").write_text("More.\n", encoding="utf-8")
    result, _model = run(
        SkillpathBackend(cwd=world.project),
        read("/skills/styled/SKILL.md", "c1"),
        ls("/skills/styled/references", "c2"),
        read("/skills/styled/references/style.md", "c3"),
        glob("**/*.md", "/skills/styled", "c4"),
        glob("/skills/*/references/deep/*.md", "/", "c5"),
        ls("/skills/styled/references/deep/", "c6"),
    )
    out = answers(result)
    assert "Base directory for this skill: /skills/styled\n" in out["c1"]
    assert "See /skills/styled/references/style.md." in out["c1"]
    assert str(world.project) not in out["c1"]
    assert "/skills/styled/references/style.md" in out["c2"]
    assert "/skills/styled/references/deep" in out["c2"]
    assert "Short sentences." in out["c3"]
    for path in ("SKILL.md", "references/style.md", "references/deep/more.md"):
        assert f"/skills/styled/{path}" in out["c4"], out["c4"]
    assert "/skills/styled/references/deep/more.md" in out["c5"]
    assert "/skills/styled/references/style.md" not in out["c5"]
    assert "/skills/styled/references/deep/more.md" in out["c6"]


def test_license_allowed_tools_and_skill_tools_reach_deepagents(world: World) -> None:
    """Before: ``allowed-tools``, ``license`` and ``metadata.include_tools`` were dropped."""
    from deepagents.middleware import FilesystemMiddleware
    from deepagents.middleware.skills import SkillsMiddleware as DeepSkills
    from langchain.agents import create_agent
    from langchain_core.tools import tool

    @tool
    def lookup_customer(customer: str) -> str:
        """Look a customer up."""
        return f"customer {customer}: gold"

    world.skill(
        "support",
        "Answer support tickets.",
        body="Look the customer up first.\n",
        license="MIT",
        allowed_tools="Read Grep",
        metadata="\n  include_tools: lookup_customer",
    )
    model = scripted(
        read("/skills/support/SKILL.md", "c1"),
        AIMessage(
            content="",
            tool_calls=[{"name": "lookup_customer", "args": {"customer": "ada"}, "id": "c2"}],
        ),
        AIMessage(content="done"),
    )
    composite = CompositeBackend(
        default=StateBackend(), routes={"/skills/": SkillpathBackend(cwd=world.project)}
    )
    skills_mw = DeepSkills(backend=composite, sources=["/skills/"], tools=[lookup_customer])
    fs = FilesystemMiddleware(backend=composite)
    agent = create_agent(model, tools=[], middleware=[fs, skills_mw])
    result = agent.invoke({"messages": [HumanMessage("help ada")]})
    system = str(model.seen[0][0].content)
    assert "License: MIT" in system and "Allowed tools: Read, Grep" in system
    assert answers(result)["c2"] == "customer ada: gold"

    def names(tools: list[Any]) -> set[str]:
        return {t["function"]["name"] if isinstance(t, dict) else t.name for t in tools}

    assert "lookup_customer" not in names(model.tools_seen[0])  # a skill tool: not yet
    assert "lookup_customer" in names(model.tools_seen[-1])  # the skill read: disclosed


def test_a_skill_that_would_run_commands_is_indexed_as_a_pointer(world: World) -> None:
    """The index is downloaded for every new conversation: nothing may run there."""
    world.skill("shelly", "Runs a command.", body="Date: !`echo from-shell`\n")
    backend = SkillpathBackend(
        cwd=world.project, settings={"shell": {"levels": ["user", "managed", "project"]}}
    )
    assert backend.skills.runs_commands("shelly") and not backend.skills.runs_commands("greet")
    (entry,) = backend.download_files(["/shelly/SKILL.md"])
    assert entry.content is not None and b"from-shell" not in entry.content
    assert b"read /skills/shelly/SKILL.md with the read_file tool" in entry.content
