"""Claude Code plugin names: ``plugin:skill`` reachable by its bare name while that is
unambiguous, and ``${CLAUDE_PLUGIN_ROOT}`` substituted from the skill's source."""

from __future__ import annotations

from pathlib import Path

from skillpath import Skill, SkillSource, skill_from_text
from skillpath.suggest import by_qualified
from skillpath.transforms import substitute_variables


def _skill(name: str) -> Skill:
    skill, _ = skill_from_text(
        "---\ndescription: d\n---\nbody\n", name=name, source=SkillSource("test", "user")
    )
    assert skill is not None
    return skill


def test_a_bare_name_resolves_only_while_unambiguous() -> None:
    one, two, user = _skill("toolbox:deploy"), _skill("kit:deploy"), _skill("lint")
    assert by_qualified("deploy", [one, user]) is one
    assert by_qualified("deploy", [one, two, user]) is None
    assert by_qualified("toolbox:deploy", [one]) is None  # already qualified
    assert by_qualified("lint", [user]) is None


def test_plugin_root_is_substituted_and_missing_stays_literal(tmp_path: Path) -> None:
    text = "run ${CLAUDE_PLUGIN_ROOT}/scripts/x.sh and \\${CLAUDE_PLUGIN_ROOT}"
    done = substitute_variables(text, {"plugin_root": str(tmp_path)})
    assert done == f"run {tmp_path}/scripts/x.sh and ${{CLAUDE_PLUGIN_ROOT}}"
    assert "run ${CLAUDE_PLUGIN_ROOT}/scripts/x.sh" in substitute_variables(text, {})
