"""skillpath-pydantic-ai end to end: pydantic-ai's real agent loop with a scripted model."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from skillpath.agent import AgentSkills
from skillpath_pydantic_ai import (
    READ_TOOL_NAME,
    SkillpathCapability,
    SkillpathToolset,
    skill_capabilities,
)
from skillpath_testing.adapters import PACK_SKILL, PROJECT_SKILL, AdapterWorld
from skillpath_testing.offline import run_offline

Call = tuple[str, dict[str, Any]]


class Script:
    """A scripted model: each turn sends ``calls`` once, then answers ``done``.

    ``seen`` records what the model received on every request: the
    instructions, the tool definitions and the tool results.
    """

    def __init__(self, *turns: Sequence[Call]) -> None:
        self.turns = list(turns)
        self.seen: list[dict[str, Any]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        returns = [
            (p.tool_name, p.content)
            for p in (last.parts if isinstance(last, ModelRequest) else [])
            if isinstance(p, ToolReturnPart)
        ]
        self.seen.append(
            {
                "instructions": info.instructions or "",
                "tools": {t.name: t for t in info.function_tools},
                "returns": returns,
                "history": "\n".join(
                    str(getattr(p, "content", "")) for m in messages for p in m.parts
                ),
            }
        )
        if returns or not self.turns:
            return ModelResponse(parts=[TextPart("done")])
        calls = self.turns.pop(0)
        return ModelResponse(
            parts=[
                ToolCallPart(name, json.dumps(args), tool_call_id=f"call-{i}")
                for i, (name, args) in enumerate(calls)
            ]
        )

    @property
    def results(self) -> dict[str, str]:
        """The tool results of the last tool-answering request, by call order."""
        last = next(s for s in reversed(self.seen) if s["returns"])
        return {f"{i}:{name}": content for i, (name, content) in enumerate(last["returns"])}


def agent_with(toolset: Any, script: Script, **kw: Any) -> Agent[None, str]:
    return Agent(FunctionModel(script), toolsets=[toolset], **kw)


def transcript(messages: list[ModelMessage]) -> str:
    """The run's messages, one line each (what the report quotes)."""
    lines: list[str] = []
    for msg in messages:
        for part in msg.parts:
            kind = type(part).__name__
            if isinstance(part, ToolCallPart):
                lines.append(f"{kind}: {part.tool_name}({part.args})")
            elif isinstance(part, ToolReturnPart):
                lines.append(f"{kind}: {part.tool_name} -> {part.content!r}")
            else:
                lines.append(f"{kind}: {getattr(part, 'content', '')!r}")
    return "\n".join(lines)


def test_one_turn_calls_a_project_skill_and_a_pack_skill(world: AdapterWorld) -> None:
    toolset = SkillpathToolset(world.session())
    script = Script(
        [
            ("Skill", {"skill": PROJECT_SKILL, "args": "report.pdf"}),
            ("Skill", {"skill": PACK_SKILL, "args": "v1.2"}),
        ]
    )
    result = agent_with(toolset, script).run_sync("Take notes from report.pdf, then review.")
    assert result.output == "done"

    first = script.seen[0]
    assert first["instructions"] == toolset.instructions()
    for name in (PROJECT_SKILL, PACK_SKILL, "release-checklist"):
        assert f"- {name}:" in first["instructions"]
    for name in ("manual-deploy", "quiet", "py-style"):
        assert name not in first["instructions"]  # user-only, hidden, conditional
    skill_tool = first["tools"]["Skill"]
    assert skill_tool.parameters_json_schema["properties"]["skill"]["enum"] == [
        PACK_SKILL,
        PROJECT_SKILL,
        "release-checklist",
    ]
    assert set(first["tools"]) == {"Skill", READ_TOOL_NAME, "search_skills"}
    assert first["instructions"].startswith(
        "The following skills are available for use with the Skill tool:"
    )  # the listing points at the tool that fills in arguments, not at read_skill

    results = script.results
    project = results["0:Skill"]
    assert "Read the PDF report.pdf and write notes" in project
    assert str(world.skills_dir / PROJECT_SKILL) in project  # base directory line
    review = results["1:Skill"]
    assert "# Code review" in review and "against `v1.2`" in review  # the pack's $base
    print(transcript(result.all_messages()))


def test_the_listing_respects_the_budget(world: AdapterWorld) -> None:
    for i in range(40):
        world.write(f"extra-{i:02d}", "An extra skill with a long description. " * 4)
    session = world.session(listing={"budget": 600})
    toolset = SkillpathToolset(session)
    script = Script()
    agent_with(toolset, script).run_sync("hi")
    text = script.seen[0]["instructions"]
    listing = toolset.skills.listing()
    assert text == listing.text and 0 < len(text) <= 600
    assert listing.report.dropped or listing.report.shortened
    assert "Call search_skills with a few words of the task" in text
    budgeted = SkillpathToolset(world.session(), budget=300).instructions()
    assert len(budgeted) <= 300


def test_model_mistakes_come_back_as_helpful_errors(world: AdapterWorld) -> None:
    script = Script(
        [
            ("Skill", {"skill": "manual-deploy"}),
            ("Skill", {"skill": "pdf-note"}),
            ("Skill", {"skill": "py-style"}),
            (READ_TOOL_NAME, {"url": f"skill://{PROJECT_SKILL}/reference.md"}),
            (READ_TOOL_NAME, {"url": f"skill://{PROJECT_SKILL}/../../../../etc/passwd"}),
            (READ_TOOL_NAME, {"url": "/etc/passwd"}),
        ]
    )
    result = agent_with(SkillpathToolset(world.session()), script).run_sync("go")
    assert result.output == "done"
    out = list(script.results.values())
    assert "cannot be invoked by the model (disable-model-invocation)" in out[0]
    assert out[1].startswith("Error: Unknown skill 'pdf-note'. Did you mean: pdf-notes?")
    assert "is conditional (paths: **/*.py) and not active yet" in out[2]
    assert out[3] == "Notes are bullet points.\n"
    assert out[4].startswith("Error: ") and "root:" not in out[4]
    assert out[5].startswith("Error: ") and "root:" not in out[5]


def test_inline_shell_policy_is_the_sessions(world: AdapterWorld) -> None:
    world.write("shelly", "Runs a command.", "Result: !`echo SHELL-$((40+2))`\n")
    session = world.session()
    script = Script([("Skill", {"skill": "shelly"})])
    agent_with(SkillpathToolset(session), script).run_sync("go")
    (got,) = script.results.values()
    expected = world.session().invoke("shelly", trigger="tool").content
    hint = "Its files are at skill://shelly/<path>: read them with the read_skill tool."
    assert got == expected.replace("\n", f"\n{hint}\n", 1)
    assert "SHELL-42" not in got  # project skills run no shell by default
    on = world.session(shell={"levels": ["project"]})
    script = Script([("Skill", {"skill": "shelly"})])
    agent_with(SkillpathToolset(on), script).run_sync("go")
    assert "Result: SHELL-42" in next(iter(script.results.values()))


def test_added_and_edited_skills_are_seen_without_restarting(world: AdapterWorld) -> None:
    toolset = SkillpathToolset(world.session())  # refresh_each_run is the default
    script = Script([("Skill", {"skill": PROJECT_SKILL, "args": "a.pdf"})])
    agent = agent_with(toolset, script)
    agent.run_sync("first")
    assert "Read the PDF a.pdf" in next(iter(script.results.values()))

    world.write("late-comer", "Arrived after the agent started.", "Late body.\n")
    world.write(PROJECT_SKILL, "Take notes, edited.", "Edited: $ARGUMENTS.\n")
    script.turns = [
        [("Skill", {"skill": "late-comer"}), ("Skill", {"skill": PROJECT_SKILL, "args": "a.pdf"})]
    ]
    agent.run_sync("second")
    request = script.seen[-2]
    assert "- late-comer: Arrived after the agent started." in request["instructions"]
    assert (
        "late-comer"
        in request["tools"]["Skill"].parameters_json_schema["properties"]["skill"]["enum"]
    )
    late, edited = script.results.values()
    assert "Late body." in late and "Edited: a.pdf." in edited

    plain = SkillpathToolset(world.session(), refresh_each_run=False)
    world.write("later-still", "Even later.")
    assert "later-still" not in plain.instructions()
    plain.refresh()
    assert "- later-still: Even later." in plain.instructions()


def test_capability_and_deferred_skill_capabilities(world: AdapterWorld) -> None:
    session = world.session()
    script = Script([("Skill", {"skill": PACK_SKILL})])
    agent = Agent(
        FunctionModel(script), capabilities=[SkillpathCapability(SkillpathToolset(session))]
    )
    agent.run_sync("go")
    assert "# Code review" in next(iter(script.results.values()))

    caps = skill_capabilities(world.session())
    assert [c.id for c in caps] == [
        f"skill-{PACK_SKILL}",
        f"skill-{PROJECT_SKILL}",
        "skill-release-checklist",
    ]
    script = Script([("load_capability", {"id": f"skill-{PROJECT_SKILL}"})])
    agent = Agent(FunctionModel(script), capabilities=caps)
    agent.run_sync("go")
    before, after = script.seen[0]["instructions"], script.seen[-1]["instructions"]
    assert f"skill-{PROJECT_SKILL}: Take notes from a PDF file." in before
    assert "Read the PDF" not in before + script.seen[0]["history"]
    assert "Read the PDF" not in after  # the catalog instructions stay byte-stable
    loaded = script.seen[-1]["history"]
    assert '<pyai:context id="capability:skill-pdf-notes">' in loaded
    assert "Read the PDF  and write notes; see reference.md" in loaded  # no arguments

    for budget in (250, 300):  # what the budgeted listing keeps, and nothing else
        few = skill_capabilities(world.session(), budget=budget)
        kept = AgentSkills(world.session(), budget=budget).listed_names()
        assert [c.id for c in few] == [f"skill-{name}" for name in kept]
    assert not skill_capabilities(world.session(), budget=250)


def test_nothing_touches_the_network_at_import_or_construction(world: AdapterWorld) -> None:
    run_offline(
        "from pydantic_ai import Agent\n"
        "from pydantic_ai.models.test import TestModel\n"
        "from skillpath_pydantic_ai import SkillpathToolset, skill_capabilities\n"
        "toolset = SkillpathToolset.open(PROJECT)\n"
        "Agent(TestModel(), toolsets=[toolset])\n"
        "assert 'pdf-notes' in toolset.instructions()\n",
        project=world.project,
        env=world.env,
    )
