"""Real published skills, copied into ``.claude/skills`` as their authors lay them out.

``tests/fixtures/realworld`` holds real ``SKILL.md`` files from four public
repositories (see its ``SOURCES.md``) in their published layouts: flat
(``skills/<name>``), category folders (``skills/<category>/<name>``) and a
Claude plugin marketplace (``plugins/<plugin>/skills/<name>``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from skillpath import survey
from skillpath.model import SkillSource
from skillpath.scan import scan_skills_dir

from ..conftest import Env, skill_md
from .conftest import Cli, write

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "realworld"
REPOS = ("getsentry-skills", "mattpocock-skills", "obra-superpowers", "secondsky-claude-skills")
# CI places a copy of the shared sample beside the clone (``../shared/realworld``);
# REALWORLD_SAMPLE names another copy
SHARED = Path(
    os.environ.get("REALWORLD_SAMPLE")
    or Path(__file__).resolve().parents[3] / "shared" / "realworld"
)


def _copy_as_published(source: Path, project: Path) -> tuple[Path, list[Path]]:
    """Copy every repository folder of ``source`` into ``.claude/skills``; the SKILL.md files."""
    root = project / ".claude" / "skills"
    root.mkdir(parents=True, exist_ok=True)
    for repo in sorted(p for p in source.iterdir() if p.is_dir()):
        shutil.copytree(repo, root / repo.name)
    return root, sorted(root.rglob("SKILL.md"))


def _nested(data: dict) -> dict[str, str]:
    return {
        d["path"]: d["message"] for d in data["diagnostics"] if d["code"] == "nested-skills-ignored"
    }


def _config(env: Env, line: str) -> None:
    write(env.project / ".skillpath" / "config.toml", f"[skills]\n{line}\n")


def test_every_file_of_a_published_layout_is_named_with_its_fix(
    cli: Cli, isolated_env: Env
) -> None:
    root, files = _copy_as_published(FIXTURES, isolated_env.project)
    assert len(files) == 14
    data = cli.json("list", "--all")
    loaded = {s["path"] for s in data["skills"]}
    nested = _nested(data)
    # nothing loads from the copied repositories, and nothing is lost silently
    assert not any(str(root) in p for p in loaded)
    assert set(nested) == {str(f) for f in files}
    fixes = {
        "getsentry-skills": root / "getsentry-skills" / "skills",
        "mattpocock-skills": root / "mattpocock-skills" / "skills" / "*",
        "obra-superpowers": root / "obra-superpowers" / "skills",
        "secondsky-claude-skills": root / "secondsky-claude-skills" / "plugins" / "*" / "skills",
    }
    for path, message in nested.items():
        repo = Path(path).relative_to(root).parts[0]
        assert message.startswith("not loaded: skill folder")
        assert "skills are found one level deep" in message
        assert message.endswith(f'fix: add "{fixes[repo]}" to skills.custom_directories')
    groups = {
        d["path"]: d["message"] for d in data["diagnostics"] if d["code"] == "nested-skills-group"
    }
    assert groups.keys() == {str(p) for p in fixes.values()}
    assert groups[str(fixes["mattpocock-skills"])].startswith("4 skill folder(s) here")
    assert groups[str(fixes["getsentry-skills"])].startswith("5 skill folder(s) here")


def test_one_config_line_loads_every_published_layout(cli: Cli, isolated_env: Env) -> None:
    _root, files = _copy_as_published(FIXTURES, isolated_env.project)
    _config(
        isolated_env,
        'custom_directories = [".claude/skills/*/skills", ".claude/skills/*/skills/*", '
        '".claude/skills/*/plugins/*/skills"]',
    )
    data = cli.json("list", "--all")
    found = {s["path"] for s in data["skills"]} | {s["path"] for s in data["shadowed"]}
    assert {str(f) for f in files} <= found
    # what the patterns load is not reported as missing by the .claude/skills scan
    codes = {d["code"] for d in data["diagnostics"]}
    assert not codes & {"nested-skills-ignored", "nested-skills-group"}


def test_the_fix_each_entry_names_is_the_fix_that_works(cli: Cli, isolated_env: Env) -> None:
    """Pasting the patterns of the group entries into the config loads every file."""
    _root, files = _copy_as_published(FIXTURES, isolated_env.project)
    data = cli.json("list", "--all")
    patterns = sorted(
        {d["path"] for d in data["diagnostics"] if d["code"] == "nested-skills-group"}
    )
    _config(isolated_env, "custom_directories = [" + ", ".join(f'"{p}"' for p in patterns) + "]")
    data = cli.json("list", "--all")
    found = {s["path"] for s in data["skills"]} | {s["path"] for s in data["shadowed"]}
    assert {str(f) for f in files} <= found
    assert not _nested(data)


def test_doctor_sums_up_nested_files_by_group(cli: Cli, isolated_env: Env) -> None:
    _copy_as_published(FIXTURES, isolated_env.project)
    res = cli.run("doctor")
    out = " ".join(res.stdout.split())
    assert out.count("[nested-skills-group]") == 4
    assert "5 skill folder(s) here are not loaded" in out
    assert "(14 nested-skills-ignored entries, one per SKILL.md" in out
    assert out.count("[nested-skills-ignored]") == 0


def test_explain_finds_nested_skills_by_folder_and_by_frontmatter_name(
    cli: Cli, isolated_env: Env
) -> None:
    _copy_as_published(FIXTURES, isolated_env.project)
    root = isolated_env.project / ".claude" / "skills"
    write(
        root / "composio" / "skills" / "ahrefs-automation" / "SKILL.md",
        skill_md("Automate Ahrefs.", name="Ahrefs Automation"),
    )
    for name in ("tdd", "api-pagination", "ahrefs-automation", "Ahrefs Automation"):
        data = cli.json("explain", name)
        codes = [d["code"] for d in data["diagnostics"]]
        assert codes == ["nested-skills-ignored"], name
    # a group of more than five: the last of them is found too
    for i in range(7):
        write(root / "big-group" / f"member-{i}" / "SKILL.md", skill_md(f"Member {i}."))
    data = cli.json("explain", "member-6")
    assert [d["code"] for d in data["diagnostics"]] == ["nested-skills-ignored"]
    assert data["diagnostics"][0]["path"].endswith("big-group/member-6/SKILL.md")


def test_dot_folder_groups_are_reported(cli: Cli, isolated_env: Env) -> None:
    root = isolated_env.project / ".claude" / "skills"
    curated = write(root / ".curated" / "pdf" / "SKILL.md", skill_md("Work with PDFs."))
    hidden = write(root / ".draft" / "SKILL.md", skill_md("A draft."))
    write(root / ".git" / "x" / "SKILL.md", skill_md("Not a skill folder at all."))
    nested = _nested(cli.json("list", "--all"))
    assert set(nested) == {str(curated), str(hidden)}
    assert nested[str(curated)].endswith(
        f'fix: add "{root / ".curated"}" to skills.custom_directories'
    )
    assert "rename the folder without the leading dot" in nested[str(hidden)]


def test_a_dangling_or_looping_tree_is_walked_once_and_bounded(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    deep = root / "a" / "b" / "c" / "d" / "e"
    write(deep / "six" / "SKILL.md", skill_md("Six levels down."))
    write(deep / "f" / "seven" / "SKILL.md", skill_md("Seven levels down."))
    (root / "a" / "loop").symlink_to(root / "a")
    res = scan_skills_dir(root, SkillSource("test", "project"))
    paths = {d.path for d in res.diagnostics if d.code == "nested-skills-ignored"}
    assert paths == {deep / "six" / "SKILL.md"}
    assert any(d.code == "survey-loop" for d in res.diagnostics)


def test_the_walk_stops_after_its_budget_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(survey, "SURVEY_MAX_DIRS", 5)
    root = tmp_path / "skills"
    for i in range(10):
        write(root / "group" / f"g{i}" / "inner" / "SKILL.md", skill_md("Deep."))
    res = scan_skills_dir(root, SkillSource("test", "project"))
    assert len([d for d in res.diagnostics if d.code == "nested-skills-ignored"]) < 10
    (cut,) = [d for d in res.diagnostics if d.code == "survey-truncated"]
    assert cut.level == "warning" and "after 5 folders" in cut.message


@pytest.mark.skipif(not SHARED.is_dir(), reason="no shared/realworld beside the repository")
def test_the_shared_sample_is_accounted_for(cli: Cli, isolated_env: Env) -> None:
    _root, files = _copy_as_published(SHARED, isolated_env.project)
    data = cli.json("list", "--all")
    assert set(_nested(data)) == {str(f) for f in files}
    _config(
        isolated_env,
        'custom_directories = [".claude/skills/*/skills", ".claude/skills/*/skills/*", '
        '".claude/skills/*/plugins/*/skills"]',
    )
    data = cli.json("list", "--all")
    found = {s["path"] for s in data["skills"]} | {s["path"] for s in data["shadowed"]}
    assert {str(f) for f in files} <= found


def test_fixture_licences_travel_with_the_files() -> None:
    for repo in REPOS:
        assert (FIXTURES / repo / "LICENSE").is_file()
    assert "Apache" in (FIXTURES / "getsentry-skills" / "LICENSE").read_text()
    assert os.path.isfile(FIXTURES / "SOURCES.md")
