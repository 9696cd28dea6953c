"""skillpath-adk end to end: ADK's real runner and SkillToolset with a scripted model."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any

import anyio
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.adk.tools.skill_toolset import SkillDiscoveryMode, SkillToolset
from google.genai import types
from pydantic import Field
from skillpath.shell import DISABLED_TEXT
from skillpath_adk import SkillpathSkillToolset, adk_skills, to_adk_skill
from skillpath_testing.adapters import PACK_SKILL, PROJECT_SKILL, AdapterWorld
from skillpath_testing.offline import run_offline

Call = tuple[str, dict[str, Any]]


class ScriptedLlm(BaseLlm):
    """A model that sends each scripted list of tool calls in turn, then says ``done``."""

    model: str = "scripted"
    script: list[list[Call]] = Field(default_factory=list)
    requests: list[LlmRequest] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(llm_request)
        if self.script:
            calls = self.script.pop(0)
            parts = [types.Part.from_function_call(name=n, args=a) for n, a in calls]
        else:
            parts = [types.Part.from_text(text="done")]
        yield LlmResponse(content=types.Content(role="model", parts=parts))

    def instruction(self, i: int = 0) -> str:
        return str(self.requests[i].config.system_instruction or "")

    def tool_names(self, i: int = 0) -> list[str]:
        return sorted(self.requests[i].tools_dict)


def run_turn(toolset: Any, *turns: list[Call], text: str = "go") -> ScriptedLlm:
    llm = ScriptedLlm(script=[list(t) for t in turns])
    agent = LlmAgent(name="dev", model=llm, tools=[toolset], instruction="You are careful.")
    runner = InMemoryRunner(agent=agent, app_name="skills")

    async def main() -> None:
        session = await runner.session_service.create_session(app_name="skills", user_id="u")
        message = types.Content(role="user", parts=[types.Part.from_text(text=text)])
        async for _event in runner.run_async(
            user_id="u", session_id=session.id, new_message=message
        ):
            pass

    anyio.run(main)
    return llm


def test_one_turn_loads_a_project_skill_and_a_pack_skill(world: AdapterWorld) -> None:
    toolset = SkillpathSkillToolset(world.session())
    llm = run_turn(
        toolset,
        [("list_skills", {})],
        [("load_skill", {"skill_name": PROJECT_SKILL}), ("load_skill", {"skill_name": PACK_SKILL})],
        [
            (
                "load_skill_resource",
                {"skill_name": PROJECT_SKILL, "file_path": "references/reference.md"},
            ),
            (
                "load_skill_resource",
                {"skill_name": PACK_SKILL, "file_path": "references/checklist.md"},
            ),
            ("load_skill_resource", {"skill_name": PACK_SKILL, "file_path": "scripts/diffstat.py"}),
        ],
    )
    assert {"list_skills", "load_skill", "load_skill_resource"} <= set(llm.tool_names())
    catalog = _response(llm.requests[1], "list_skills")["result"]
    for name in (PROJECT_SKILL, PACK_SKILL, "release-checklist"):
        assert f"<name>\n{name}\n</name>" in catalog
    for name in ("manual-deploy", "quiet", "py-style"):
        assert name not in catalog

    loads = _responses(llm.requests[2], "load_skill")
    assert [r["skill_name"] for r in loads] == [PROJECT_SKILL, PACK_SKILL]
    notes, review = (r["instructions"] for r in loads)
    assert "Read the PDF  and write notes" in notes
    assert str(world.skills_dir / PROJECT_SKILL) in notes  # the base directory line
    assert "# Code review" in review and "/scripts/diffstat.py" in review
    assert "${SKILL_DIR}" not in review  # skillpath's variables, rendered

    ref, checklist, script = (
        r["content"] for r in _responses(llm.requests[3], "load_skill_resource")
    )
    assert ref == "Notes are bullet points.\n"
    assert checklist.startswith("# ACME code review checklist")
    assert "def " in script or "import" in script
    print(_transcript(llm))


def test_eager_catalog_respects_the_budget(world: AdapterWorld) -> None:
    for i in range(12):
        world.write(f"extra-{i:02d}", f"An extra skill number {i} with a long description. " * 3)
    toolset = SkillpathSkillToolset(
        world.session(listing={"budget": 900}), discovery_mode=SkillDiscoveryMode.EAGER
    )
    llm = run_turn(toolset)
    text = llm.instruction()
    # the skills skillpath's own budgeted listing keeps, and no other (the policy —
    # shorten, names only, drop last, the user's own skills first — is skillpath's)
    report = toolset.agent_skills.listing().report
    assert report.dropped  # tight enough to drop some
    catalog = [s.name for s in toolset.skills]
    assert sorted(catalog) == toolset.agent_skills.listed_names()
    assert catalog and not set(catalog) & set(report.dropped)
    for name in catalog:
        assert f"<name>\n{name}\n</name>" in text
    for name in report.dropped:
        assert f"<name>\n{name}\n</name>" not in text
    assert "list_skills" not in llm.tool_names()
    # the model is told what the catalog leaves out, and where to find it
    assert f"{len(report.dropped)} more skills are not in the skills catalog" in text
    assert "call search_skills with a few words" in text


def test_mistakes_come_back_to_the_model_as_errors(world: AdapterWorld) -> None:
    llm = run_turn(
        SkillpathSkillToolset(world.session()),
        [
            ("load_skill", {"skill_name": "pdf-note"}),
            ("load_skill", {"skill_name": "manual-deploy"}),
            ("load_skill", {"skill_name": "py-style"}),
            (
                "load_skill_resource",
                {"skill_name": PROJECT_SKILL, "file_path": "references/../../../../etc/passwd"},
            ),
            (
                "load_skill_resource",
                {"skill_name": PROJECT_SKILL, "file_path": "assets/missing.txt"},
            ),
        ],
    )
    out = [r for _, r in _all_responses(llm.requests[-1])]
    assert "Unknown skill 'pdf-note'. Did you mean: pdf-notes?" in out[0]["error"]
    assert "cannot be invoked by the model (disable-model-invocation)" in out[1]["error"]
    assert "is conditional (paths: **/*.py) and not active yet" in out[2]["error"]
    assert out[3]["error_code"] == "RESOURCE_NOT_FOUND" and "root:" not in json.dumps(out[3])
    assert out[4]["error_code"].startswith("RESOURCE_NOT_FOUND")


def test_inline_shell_policy_is_the_sessions(world: AdapterWorld) -> None:
    world.write("shelly", "Runs a command.", "Result: !`echo SHELL-$((40+2))`\n")
    off = to_adk_skill(world.session(), "shelly").instructions
    assert DISABLED_TEXT in off and "SHELL-42" not in off
    on = to_adk_skill(world.session(shell={"levels": ["project"]}), "shelly").instructions
    assert "Result: SHELL-42" in on


def test_added_and_edited_skills_are_seen_without_restarting(world: AdapterWorld) -> None:
    toolset = SkillpathSkillToolset(world.session())  # refresh_each_request is the default
    run_turn(toolset, [("load_skill", {"skill_name": PROJECT_SKILL})])
    world.write("late-comer", "Arrived after the agent started.", "Late body.\n")
    world.write(PROJECT_SKILL, "Take notes, edited.", "Edited notes.\n")
    llm = run_turn(
        toolset,
        [("list_skills", {})],
        [
            ("load_skill", {"skill_name": "late-comer"}),
            ("load_skill", {"skill_name": PROJECT_SKILL}),
        ],
    )
    assert "late-comer" in _response(llm.requests[1], "list_skills")["result"]
    late, edited = (r["instructions"] for r in _responses(llm.requests[2], "load_skill"))
    assert "Late body." in late and "Edited notes." in edited

    plain = SkillpathSkillToolset(world.session(), refresh_each_request=False)
    world.write("later-still", "Even later.")
    assert "later-still" not in [s.name for s in plain.skills]
    plain.refresh()
    assert "later-still" in [s.name for s in plain.skills]


def test_plain_skill_toolset_takes_the_skill_objects(world: AdapterWorld) -> None:
    toolset = SkillToolset(skills=adk_skills(world.session()))
    llm = run_turn(toolset, [("load_skill", {"skill_name": PACK_SKILL})])
    (load,) = _responses(llm.requests[-1], "load_skill")
    assert "# Code review" in load["instructions"]


def test_nothing_touches_the_network_at_import_or_construction(world: AdapterWorld) -> None:
    run_offline(
        "from google.adk.agents import LlmAgent\n"
        "from skillpath_adk import SkillpathSkillToolset\n"
        "toolset = SkillpathSkillToolset.open(PROJECT)\n"
        "LlmAgent(name='dev', model='gemini-flash-latest', tools=[toolset])\n"
        "assert 'pdf-notes' in [s.name for s in toolset.skills]\n",
        project=world.project,
        env=world.env,
    )


def _all_responses(request: LlmRequest) -> list[tuple[str, dict[str, Any]]]:
    """The function responses in the request's last content (the latest tool results)."""
    last = request.contents[-1]
    return [
        (p.function_response.name or "", dict(p.function_response.response or {}))
        for p in last.parts or []
        if p.function_response is not None
    ]


def _responses(request: LlmRequest, name: str) -> list[dict[str, Any]]:
    return [r for n, r in _all_responses(request) if n == name]


def _response(request: LlmRequest, name: str) -> dict[str, Any]:
    (only,) = _responses(request, name)
    return only


def _transcript(llm: ScriptedLlm) -> str:
    lines: list[str] = []
    for content in llm.requests[-1].contents:
        for part in content.parts or []:
            if part.text:
                lines.append(f"{content.role}: {part.text!r}")
            if part.function_call:
                lines.append(
                    f"{content.role}: call {part.function_call.name}({part.function_call.args})"
                )
            if part.function_response:
                body = json.dumps(part.function_response.response, ensure_ascii=False)
                lines.append(f"{content.role}: {part.function_response.name} -> {body}")
    return "\n".join(lines)


#: What a model may send where a string belongs (JSON can carry each of these).
BAD_VALUES: list[Any] = [None, 0, 7, -1, 3.5, True, False, [], ["a"], {}, {"x": 1}, [None]]


def test_arguments_of_the_wrong_type_come_back_as_tool_errors(world: AdapterWorld) -> None:
    """Before: ``load_skill_resource`` with a number, a list or an object as ``file_path``
    raised ``AttributeError`` out of ADK's runner. Every bad value of every string
    argument of the skill tools is now a tool error the model reads."""
    cases: list[Call] = []
    for value in BAD_VALUES:
        cases += [
            ("load_skill", {"skill_name": value}),
            ("load_skill_resource", {"skill_name": value, "file_path": "references/x.md"}),
            ("load_skill_resource", {"skill_name": PROJECT_SKILL, "file_path": value}),
        ]
    llm = run_turn(SkillpathSkillToolset(world.session()), cases)  # raises nothing
    out = _all_responses(llm.requests[-1])
    assert len(out) == len(cases)
    for (tool, args), (name, response) in zip(cases, out, strict=True):
        assert name == tool
        assert response.get("error_code") == "INVALID_ARGUMENTS", (args, response)
        assert "instructions" not in response and "content" not in response


def _expected_catalog(toolset: SkillpathSkillToolset) -> str:
    """The EAGER catalog as ADK formats it, from entries built afresh (no cache)."""
    from google.adk.skills import Frontmatter
    from google.adk.skills.prompt import format_skills_as_xml
    from skillpath.listing import shorten

    return format_skills_as_xml(
        [
            Frontmatter(name=s.name, description=shorten(s.description, 1024) or s.name)
            for s in toolset.agent_skills.listed_skills()
        ]
    )


def test_eager_catalog_is_built_once_per_catalog_state_with_the_same_bytes(
    world: AdapterWorld,
) -> None:
    toolset = SkillpathSkillToolset(world.session(), discovery_mode=SkillDiscoveryMode.EAGER)
    first, second = run_turn(toolset), run_turn(toolset)
    expected = _expected_catalog(toolset)
    assert "<available_skills>" in expected and f"<name>\n{PROJECT_SKILL}\n</name>" in expected
    assert expected in first.instruction() and expected in second.instruction()
    assert first.instruction() == second.instruction()  # the kept catalog: the same bytes
    entries = toolset._list_skills()
    assert entries == toolset._list_skills() and entries[0] is toolset._list_skills()[0]

    world.write("late-comer", "Arrived after the agent started.", "Late body.\n")
    third = run_turn(toolset)
    fresh = _expected_catalog(toolset)
    assert "<name>\nlate-comer\n</name>" in fresh and fresh in third.instruction()
    assert toolset._list_skills()[0] is not entries[0]  # rebuilt once the skills changed
