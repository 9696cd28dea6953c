"""No invisible character reaches the model through the toolset: the catalog
(``list_skills`` and the ``EAGER`` system instruction), the tool declarations, and
``load_skill``, ``load_skill_resource`` and ``search_skills`` results."""

from __future__ import annotations

import json

from google.adk.tools.skill_toolset import SkillDiscoveryMode
from skillpath_adk import SkillpathSkillToolset, adk_skills
from skillpath_testing.adapters import AdapterWorld
from skillpath_testing.hostile import (
    HOSTILE_BODY,
    HOSTILE_DESCRIPTION,
    HOSTILE_REFERENCE,
    HOSTILE_SKILLS,
    assert_no_invisible,
    hostile_skills,
)

from .test_adk import ScriptedLlm, run_turn


def _seen(llm: ScriptedLlm) -> list[str]:
    """Every text the model was given: instructions, tool declarations and contents."""
    out = []
    for req in llm.requests:
        out.append(str(req.config.system_instruction or ""))
        out += [
            json.dumps(t.model_dump(mode="json"), ensure_ascii=False)
            for t in req.config.tools or []
        ]
        out += [json.dumps(c.model_dump(mode="json"), ensure_ascii=False) for c in req.contents]
    return out


def test_the_toolset_gives_the_model_no_invisible_character(world: AdapterWorld) -> None:
    hostile_skills(world.project)
    name = HOSTILE_SKILLS[0]
    llm = run_turn(
        SkillpathSkillToolset(world.session()),
        [("list_skills", {}), ("search_skills", {"query": "format tables"})],
        [("load_skill", {"skill_name": n}) for n in HOSTILE_SKILLS],
        [("load_skill_resource", {"skill_name": name, "file_path": "references/guide.md"})],
    )
    seen = _seen(llm)
    text = "\n".join(seen)
    assert HOSTILE_DESCRIPTION in text and HOSTILE_BODY in text and HOSTILE_REFERENCE in text
    assert_no_invisible(seen, "ADK toolset")


def test_the_eager_catalog_and_adk_skills_hold_no_invisible_character(
    world: AdapterWorld,
) -> None:
    hostile_skills(world.project)
    llm = run_turn(SkillpathSkillToolset(world.session(), discovery_mode=SkillDiscoveryMode.EAGER))
    assert HOSTILE_DESCRIPTION in llm.instruction()
    assert_no_invisible(_seen(llm), "EAGER catalog")
    skills = {s.name: s for s in adk_skills(world.session())}
    for n in HOSTILE_SKILLS:
        skill = skills[n]
        assert_no_invisible([skill.frontmatter.description, skill.instructions], f"adk_skills {n}")
        refs = skill.resources.list_references()
        assert "r\u00e9sum\u00e9.md" in refs and "run.sh" in skill.resources.list_scripts()
        assert_no_invisible([*refs, *skill.resources.list_scripts()], f"{n} resources")
        for ref in refs:
            assert_no_invisible(skill.resources.get_reference(ref) or "", f"{n}/{ref}")
