"""A skill's description and the frontmatter fields shown beside it carry no invisible
character past load (whoever renders them: an adapter's own skill objects, a
framework's listing), and the findings still report what was written."""

from __future__ import annotations

import attrs
from skillpath.findings import findings_for
from skillpath.session import SkillSession
from skillpath_testing.hostile import HOSTILE_SKILLS, assert_no_invisible, hostile_skills

from ..conftest import Env


def test_fields_are_clean_and_the_findings_report_the_written_text(isolated_env: Env) -> None:
    hostile_skills(isolated_env.project)
    session = SkillSession.open(isolated_env.project, env=isolated_env.env)
    for name in HOSTILE_SKILLS:
        skill = session.get(name)
        assert skill is not None
        fm = skill.frontmatter
        assert_no_invisible([skill.description, fm.when_to_use or ""], name)
        assert skill.description == "Formats tables for reports."
        on_disk = {f.id for f in session.findings(name)}
        assert {"invisible-tag-chars", "zero-width", "bidi-override"} <= on_disk
        # a skill off disk (a plugin's, an MCP server's) is checked on its head only:
        # the description as written, not the cleaned one
        off_disk = attrs.evolve(skill, path=None, base_dir=None, file_findings=None)
        head = {f.id for f in findings_for(off_disk, store=None, env=isolated_env.env)}
        assert {"invisible-tag-chars", "zero-width", "bidi-override"} <= head
