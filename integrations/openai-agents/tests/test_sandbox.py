"""``SkillpathLazySkillSource`` through a real ``SandboxAgent`` run on the local sandbox."""

from __future__ import annotations

import asyncio
import gc

from agents import Runner
from agents.run_config import RunConfig, SandboxRunConfig
from agents.sandbox import SandboxAgent
from agents.sandbox.capabilities import Shell, Skills
from agents.sandbox.sandboxes.unix_local import UnixLocalSandboxClient
from skillpath.agent import AgentSkills
from skillpath_openai_agents import SkillpathLazySkillSource
from skillpath_openai_agents.sandbox import registered

from .conftest import ScriptedModel, World, tool_call


def run(source: SkillpathLazySkillSource, model: ScriptedModel) -> None:
    agent = SandboxAgent(
        name="dev",
        instructions="You help.",
        model=model,
        capabilities=[Skills(lazy_from=source), Shell()],
    )
    config = RunConfig(sandbox=SandboxRunConfig(client=UnixLocalSandboxClient()))
    asyncio.run(Runner.run(agent, "go", run_config=config))


def test_load_skill_stages_skillpaths_rendering_in_the_sandbox(world: World) -> None:
    world.skill("greet", "Greet someone by name.", body="Files: ${SKILL_DIR}/notes.md\n")
    folder = world.project / ".claude" / "skills" / "greet"
    (folder / "notes.md").write_text("be kind\n")
    (world.home / "token.txt").write_text("TOPSECRET\n")
    (folder / "leak.md").symlink_to(world.home / "token.txt")  # out of the skill's folder
    model = ScriptedModel(
        [
            tool_call("load_skill", "c1", skill_name="greet"),
            tool_call("load_skill", "c2", skill_name="code-review"),
            tool_call("load_skill", "c3", skill_name="gret"),
            tool_call("load_skill", "c4", skill_name="deploy"),
        ],
        [
            tool_call(
                "exec_command",
                "c5",
                cmd="cat .agents/greet/SKILL.md .agents/greet/notes.md; "
                "ls .agents/code-review .agents/code-review/references",
            )
        ],
    )
    run(SkillpathLazySkillSource.open(world.project), model)
    system = model.turns[0].system or ""
    assert "- greet: Greet someone by name. (file: .agents/greet)" in system
    assert "- code-review: " in system and "- release-checklist: " in system  # the pack
    assert "secret" not in system and "deploy" not in system
    out = model.tool_outputs()
    assert "'status': 'loaded'" in out["c1"] and "'path': '.agents/greet'" in out["c1"]
    assert "'status': 'loaded'" in out["c2"]
    assert "Did you mean: greet?" in out["c3"] and "'status': 'error'" in out["c3"]
    assert "disable-model-invocation" in out["c4"]
    shell = out["c5"]
    assert "Base directory for this skill: " in shell and "/.agents/greet\n" in shell
    assert str(world.project) not in shell  # host paths became sandbox paths
    assert "be kind" in shell
    assert "TOPSECRET" not in shell and "'skipped': 'leak.md'" in out["c1"]  # containment
    assert "SKILL.md" in shell and "checklist.md" in shell and "scripts" in shell


def test_the_source_registry_is_bounded(world: World) -> None:
    """Before: every source built added an entry, kept for the life of the process."""
    gc.collect()  # the sources of earlier tests
    before = registered()
    skills = AgentSkills.open(world.project, tool_name="load_skill")
    sources = [SkillpathLazySkillSource(skills) for _ in range(300)]
    assert registered() == before + 1  # one entry per live AgentSkills, not per build
    assert {s.key for s in sources} == {sources[0].key}
    # the SDK's per-run copy and a source rebuilt from its fields serve the same skills
    clone = Skills(lazy_from=sources[0]).clone()
    assert clone.lazy_from.skills is skills  # type: ignore[union-attr]
    again = SkillpathLazySkillSource.model_validate(sources[0].model_dump())
    assert again.skills is skills
    for _ in range(20):  # sources over AgentSkills nobody keeps
        SkillpathLazySkillSource.open(world.project)
    del sources, clone, again, skills
    gc.collect()
    assert registered() == before
