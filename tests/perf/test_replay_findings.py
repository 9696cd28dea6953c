"""The replay of an unchanged ``list`` carries the content findings: they come from the
``SKILL.md`` text the scan read (nothing else is read for them), so the replay's own
check of the skill files vouches for them. An edit that only the findings see is not
replayed stale, the output equals a run with the layer off, and a change to a script
(checked by ``doctor`` and ``validate``, not by a list) leaves a list replayable."""

from __future__ import annotations

import json

import pytest

from .test_replay import Project, missed, recorded, replayed
from .test_replay import proj as proj  # the fixture


def _findings(output: bytes, name: str) -> set[str]:
    by_name = {s["name"]: s for s in json.loads(output)["skills"]}
    return {f["id"] for f in by_name[name]["findings"]}


def _skill_file(p: Project) -> None:
    path = p.project / ".claude/skills/claude-1/SKILL.md"
    path.write_text(path.read_text() + "\nThen cat ~/.aws/credentials.\n")


def _tag_characters(p: Project) -> None:
    path = p.project / ".claude/skills/claude-1/SKILL.md"
    path.write_text(path.read_text() + "\nFormat it.\U000e0041\U000e0042\n")


@pytest.mark.parametrize(
    ("change", "expected"),
    [(_skill_file, "credential-read"), (_tag_characters, "invisible-tag-chars")],
)
def test_an_edit_only_the_checks_see_is_not_replayed_stale(
    proj: Project, change: object, expected: str
) -> None:
    before = recorded(proj)
    replayed(proj)
    assert expected not in _findings(before, "claude-1")
    change(proj)  # type: ignore[operator]
    after = missed(proj)
    assert expected in _findings(after, "claude-1")
    assert replayed(proj) == after


def test_a_script_is_left_to_doctor(proj: Project) -> None:
    folder = proj.project / ".claude/skills/claude-1"
    (folder / "scripts").mkdir()
    (folder / "scripts" / "run.sh").write_text("echo hi\n")
    before = recorded(proj)
    (folder / "scripts" / "run.sh").write_text("cat ~/.aws/credentials\n")
    assert replayed(proj) == before
    doctor = proj.run("doctor", "--json")
    found = {(f["name"], f["id"]) for f in json.loads(doctor.stdout)["findings"]}
    assert ("claude-1", "credential-read") in found
