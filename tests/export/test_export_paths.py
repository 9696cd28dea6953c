""":func:`skillpath.export.export_skills` called in-process on the paths the command
line tests pass through least: an edited copy replaced, an unchanged export that
writes nothing, a pruned copy kept because it was edited, a name that cannot be a
folder, and a dry run. Pinned as they were before the export was split into steps."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
from skillpath.context import make_context
from skillpath.export import ExportReport, export_skills
from skillpath.model import Skill, SkillSource
from skillpath.scan import load_skill_file

from ..conftest import Env
from .test_export import skill_text


def _skills(root: Path, *names: str) -> list[Skill]:
    out = []
    for name in names:
        folder = root / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(skill_text(f"{name} work."))  # named by its folder
        skill, diags = load_skill_file(folder / "SKILL.md", SkillSource("custom", "user", root))
        assert skill is not None and skill.name == name, diags
        out.append(skill)
    return out


def _actions(report: ExportReport) -> list[tuple[str, str]]:
    return [(a.name, a.action) for a in report.actions]


def _codes(report: ExportReport) -> list[str]:
    return [d.code for d in report.diagnostics]


def test_an_edited_copy_is_replaced_with_a_warning(isolated_env: Env, tmp_path: Path) -> None:
    ctx, _ = make_context(isolated_env.project)
    skills = _skills(tmp_path / "custom", "alpha")
    first = export_skills(skills, ctx, to="agents")
    assert _actions(first) == [("alpha", "write")] and first.ok
    copy = isolated_env.project / ".agents/skills/alpha/SKILL.md"
    original = copy.read_bytes()
    copy.write_text("edited by hand\n")
    again = export_skills(skills, ctx, to="agents")
    assert _actions(again) == [("alpha", "write")]
    assert _codes(again) == ["export-overwrote-edit"]
    assert copy.read_bytes() == original


def test_an_unchanged_export_writes_nothing(isolated_env: Env, tmp_path: Path) -> None:
    ctx, _ = make_context(isolated_env.project)
    skills = _skills(tmp_path / "custom", "alpha", "beta")
    export_skills(skills, ctx, to="claude")
    lock = isolated_env.project / ".skillpath/export-lock.json"
    before = lock.read_bytes()
    lock.write_bytes(before)  # the same bytes, with a known modification time
    stamp = lock.stat().st_mtime_ns
    again = export_skills(skills, ctx, to="claude")
    assert _actions(again) == [("alpha", "unchanged"), ("beta", "unchanged")]
    assert again.diagnostics == ()
    assert lock.read_bytes() == before and lock.stat().st_mtime_ns == stamp
    entry = json.loads(before)["skills"]["alpha"]
    assert entry["sourceType"] == "local"
    assert set(entry["skillpath"]["targets"]) == {"claude"}


def test_prune_keeps_an_edited_copy_and_removes_an_unedited_one(
    isolated_env: Env, tmp_path: Path
) -> None:
    ctx, _ = make_context(isolated_env.project)
    alpha, beta, gamma = _skills(tmp_path / "custom", "alpha", "beta", "gamma")
    export_skills([alpha, beta, gamma], ctx, to="agents")
    folder = isolated_env.project / ".agents/skills"
    (folder / "beta/SKILL.md").write_text("edited\n")
    report = export_skills([alpha], ctx, to="agents", prune=True)
    assert _actions(report) == [
        ("alpha", "unchanged"),
        ("beta", "keep-edited"),
        ("gamma", "prune"),
    ]
    assert (folder / "beta/SKILL.md").read_text() == "edited\n"
    assert not (folder / "gamma").exists()
    lock = json.loads((isolated_env.project / ".skillpath/export-lock.json").read_text())
    assert sorted(lock["skills"]) == ["alpha", "beta"]


def test_a_name_that_cannot_be_a_folder_is_skipped(isolated_env: Env, tmp_path: Path) -> None:
    ctx, _ = make_context(isolated_env.project)
    (alpha,) = _skills(tmp_path / "custom", "alpha")
    odd = attrs.evolve(alpha, name="two words")
    report = export_skills([alpha, odd], ctx, to="agents")
    assert _actions(report) == [("alpha", "write")]
    assert _codes(report) == ["export-name"]
    assert sorted(p.name for p in (isolated_env.project / ".agents/skills").iterdir()) == ["alpha"]


def test_a_dry_run_changes_nothing(isolated_env: Env, tmp_path: Path) -> None:
    ctx, _ = make_context(isolated_env.project)
    skills = _skills(tmp_path / "custom", "alpha")
    report = export_skills(skills, ctx, to="codex", dry_run=True)
    assert _actions(report) == [("alpha", "write")] and report.dry_run
    assert not (isolated_env.project / ".codex").exists()
    assert not (isolated_env.project / ".skillpath/export-lock.json").exists()
