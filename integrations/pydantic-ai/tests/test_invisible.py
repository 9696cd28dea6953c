"""No invisible character reaches the model through the toolset (instructions, tool
definitions, ``Skill``, ``read_skill`` and ``search_skills`` results) or through the
deferred skill capabilities (their catalog and loaded instructions)."""

from __future__ import annotations

import json

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from skillpath_pydantic_ai import SkillpathToolset, skill_capabilities
from skillpath_testing.adapters import AdapterWorld
from skillpath_testing.hostile import (
    HOSTILE_BODY,
    HOSTILE_DESCRIPTION,
    HOSTILE_REFERENCE,
    HOSTILE_SKILLS,
    assert_no_invisible,
    hostile_skills,
)


class Seen:
    """A scripted model sending one list of calls per request; keeps all it was given."""

    def __init__(self, *turns: list[tuple[str, dict[str, str]]]) -> None:
        self.turns = list(turns)
        self.texts: list[str] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.texts.append(info.instructions or "")
        self.texts += [
            json.dumps([t.name, t.description, t.parameters_json_schema], ensure_ascii=False)
            for t in info.function_tools
        ]
        # the text of every part (a repr would escape the characters looked for)
        self.texts += [str(getattr(p, "content", "")) for m in messages for p in m.parts]
        if not self.turns:
            return ModelResponse(parts=[TextPart("done")])
        calls = self.turns.pop(0)
        return ModelResponse(
            parts=[
                ToolCallPart(name, json.dumps(args), tool_call_id=f"{len(self.turns)}-{i}")
                for i, (name, args) in enumerate(calls)
            ]
        )


def test_the_toolset_gives_the_model_no_invisible_character(world: AdapterWorld) -> None:
    hostile_skills(world.project)
    calls = [("search_skills", {"query": "format tables"})]
    for name in HOSTILE_SKILLS:
        calls += [
            ("Skill", {"skill": name}),
            ("read_skill", {"url": f"skill://{name}/references/guide.md"}),
            # folder listings: the files refused by their names are left out
            ("read_skill", {"url": f"skill://{name}/."}),
            ("read_skill", {"url": f"skill://{name}/references"}),
            ("read_skill", {"url": f"skill://{name}/scripts"}),
        ]
    model = Seen(calls)
    Agent(FunctionModel(model), toolsets=[SkillpathToolset(world.session())]).run_sync("go")
    seen = "\n".join(model.texts)
    assert HOSTILE_DESCRIPTION in model.texts[0]
    assert HOSTILE_BODY in seen and HOSTILE_REFERENCE in seen
    assert "r\u00e9sum\u00e9.md" in seen and "run.sh" in seen
    assert_no_invisible(model.texts, "toolset")


def test_deferred_skill_capabilities_give_the_model_no_invisible_character(
    world: AdapterWorld,
) -> None:
    hostile_skills(world.project)
    caps = skill_capabilities(world.session())
    assert {f"skill-{n}" for n in HOSTILE_SKILLS} <= {c.id for c in caps}
    model = Seen([("load_capability", {"id": f"skill-{n}"}) for n in HOSTILE_SKILLS])
    Agent(FunctionModel(model), capabilities=caps).run_sync("go")
    seen = "\n".join(model.texts)
    assert HOSTILE_DESCRIPTION in seen and HOSTILE_BODY in seen
    assert_no_invisible(model.texts, "capabilities")
    assert_no_invisible([c.description or "" for c in caps] + [c.render() for c in caps])


def test_a_pinned_skill_in_a_tight_listing_holds_no_invisible_character(
    world: AdapterWorld,
) -> None:
    """``[listing] pinned`` lists a skill first and in full, whatever the budget."""
    hostile_skills(world.project)
    pinned = HOSTILE_SKILLS[1]
    session = world.session(listing={"pinned": [pinned], "budget": 200})
    model = Seen([("Skill", {"skill": pinned})])
    Agent(FunctionModel(model), toolsets=[SkillpathToolset(session)]).run_sync("go")
    assert f"{pinned}: {HOSTILE_DESCRIPTION}" in model.texts[0]
    assert HOSTILE_BODY in "\n".join(model.texts)
    assert_no_invisible(model.texts, "pinned")
