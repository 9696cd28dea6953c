"""``skillpath doctor`` and ``skillpath explain`` on real temp projects."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..conftest import Env
from .conftest import Cli, skill_md, write

EXPECTED = {
    ("alpha", "loaded", ""),
    ("hidden-tool", "hidden", ""),
    ("gated", "conditional", ""),
    ("alpha", "shadowed", "name"),
    ("no-desc", "skipped", "missing-description"),
    ("turned-off", "skipped", "disabled"),
    ("scratch-notes", "skipped", "ignored"),
    ("extra", "skipped", "not-included"),
    ("user-only", "skipped", "source-disabled"),
    ("zz-alpha-link", "skipped", "duplicate-file"),
    ("a/b", "skipped", "invalid-name"),
}


def mine(entries: list[dict[str, Any]], env: Env) -> list[dict[str, Any]]:
    """Entries for files of the fixture (installed packs may add their own)."""
    roots = (str(env.project), str(env.home / ".skillpath"))
    return [e for e in entries if e["path"] and e["path"].startswith(roots)]


def test_doctor_reports_every_skip_reason(cli: Cli, doctor_project: Env) -> None:
    res = cli.run("doctor", "--json")
    assert res.exit_code == 1  # missing description and invalid name are errors
    assert res.stderr.strip() == "skillpath: error: 2 error diagnostic(s)"
    data = json.loads(res.stdout)
    data["skills"] = mine(data["skills"], doctor_project)
    got = {(s["name"], s["status"], s["reason"]) for s in data["skills"]}
    assert got == EXPECTED
    by_reason = {s["reason"]: s for s in data["skills"] if s["status"] == "skipped"}
    root = doctor_project.project / ".skillpath" / "skills"
    assert by_reason["missing-description"]["path"] == str(root / "no-desc" / "SKILL.md")
    assert by_reason["missing-description"]["provider"] == "native"
    assert by_reason["missing-description"]["level"] == "project"
    assert by_reason["missing-description"]["line"] == 1
    assert by_reason["source-disabled"]["level"] == "user"
    assert "enable_native_user" in by_reason["source-disabled"]["detail"]
    assert "scratch-*" in by_reason["ignored"]["detail"]
    dup = by_reason["duplicate-file"]
    assert dup["shadowed_by"]["path"] == str(root / "alpha" / "SKILL.md")
    shadowed = next(s for s in data["skills"] if s["status"] == "shadowed")
    assert shadowed["provider"] == "custom"
    assert shadowed["shadowed_by"]["provider"] == "native"
    assert data["summary"]["errors"] == 2
    roots = {(r["provider"], r["level"], r["path"]): r for r in data["roots"]}
    native_project = roots[("native", "project", str(root))]
    assert native_project["exists"] is True
    assert native_project["count"] == 7  # 9 folders, 2 of them not loadable
    user_root = doctor_project.home / ".skillpath" / "skills"
    assert roots[("native", "user", str(user_root))]["exists"] is True
    # named by the project's own config: a project root
    custom = roots[("custom", "project", str(doctor_project.project / "more-skills"))]
    assert custom["exists"] is True
    codes = {d["code"] for d in data["diagnostics"]}
    assert {"missing-description", "invalid-name", "name-conflict", "duplicate-file"} <= codes


def test_doctor_text_shows_roots_reasons_and_file_lines(
    cli: Cli, doctor_project: Env, terminal: None
) -> None:
    res = cli.run("doctor")
    assert res.exit_code == 1
    out = res.stdout
    for _name, status, reason in EXPECTED:
        assert (f"skipped: {reason}" if status == "skipped" else status) in out
    assert "./.skillpath/skills/no-desc/SKILL.md:1: " in out
    assert "~/.skillpath/skills" in out
    assert "Summary: 1 loaded, 1 hidden, 1 conditional, 1 shadowed, " in out
    assert all(len(line) <= 80 for line in out.splitlines() if not line.startswith("  "))
    # on 80 columns a long root path is wrapped onto the next lines, never clipped
    assert "…" not in out.split("Skills:")[0]


def test_doctor_roots_wrap_whole_paths_at_80_columns(
    cli: Cli, isolated_env: Env, terminal: None
) -> None:
    # outside the project and home (shown whole, not as ./… or ~/…)
    deep = isolated_env.project.parent / "a-rather-deep" / "folder-of-shared" / "team-skills"
    write(deep / "x" / "SKILL.md", "---\ndescription: X.\n---\nBody.\n")
    write(
        isolated_env.project / ".skillpath" / "config.toml",
        f'[skills]\ncustom_directories = ["{deep}"]\n',
    )
    out = cli.run("doctor").stdout
    roots = out.split("Skills:")[0].splitlines()
    assert all(len(line) <= 80 for line in roots)
    start = next(i for i, line in enumerate(roots) if line.startswith("custom"))
    column = next(line for line in roots if line.startswith("PROVIDER")).index("PATH")
    joined = roots[start][column:]
    for line in roots[start + 1 :]:
        if line[:column].strip():
            break
        joined += line[column:]
    assert joined == str(deep)


def test_doctor_is_clean_and_exits_zero_on_a_good_project(cli: Cli, isolated_env: Env) -> None:
    write(isolated_env.project / ".skillpath" / "skills" / "ok" / "SKILL.md", skill_md("Fine."))
    res = cli.run("doctor")
    assert res.exit_code == 0, res.output
    assert "ok" in res.stdout and "loaded" in res.stdout
    assert res.stderr == ""


def test_explain_loaded_hidden_conditional(cli: Cli, doctor_project: Env) -> None:
    res = cli.run("explain", "alpha")
    assert res.exit_code == 0
    assert res.stdout.splitlines()[0].startswith("alpha: loaded from native/project")
    assert "2. shadowed  custom/project" in res.stdout
    data = cli.json("explain", "hidden-tool")
    assert data["available"] is True and data["entries"][0]["status"] == "hidden"
    data = cli.json("explain", "gated")
    assert data["entries"][0]["status"] == "conditional"
    assert "src/**" in data["entries"][0]["detail"]


def test_explain_skipped_names_the_reason_and_exits_one(cli: Cli, doctor_project: Env) -> None:
    res = cli.run("explain", "user-only")
    assert res.exit_code == 1
    assert res.stderr.strip() == "skillpath: error: skill 'user-only' is not loaded"
    assert "skipped: source toggled off" in res.stdout
    assert "enable_native_user is off" in res.stdout
    assert "Looked in" in res.stdout
    data = cli.json("explain", "no-desc")
    assert data["found"] is True and data["available"] is False
    assert data["entries"][0]["reason"] == "missing-description"
    assert any(d["code"] == "missing-description" for d in data["diagnostics"])
    data = cli.json("explain", "bad-name")  # the folder; its frontmatter name is invalid
    assert data["found"] is True  # a folder name is an alias of the skill it holds
    assert [(e["name"], e["reason"]) for e in data["entries"]] == [("a/b", "invalid-name")]
    assert [(f["name"], f["reason"]) for f in data["folders"]] == [("a/b", "invalid-name")]
    assert [d["code"] for d in data["diagnostics"]] == ["invalid-name"]


def test_explain_unknown_name_lists_roots_and_near_misses(cli: Cli, doctor_project: Env) -> None:
    res = cli.run("explain", "alpah")
    assert res.exit_code == 1
    assert "no skill of this name was found" in res.stdout
    assert "Did you mean: alpha?" in res.stdout
    assert "./.skillpath/skills" in res.stdout
    data = cli.json("explain", "Alpha")
    assert data["found"] is False and data["near"][0] == "alpha"
    looked = {r["path"] for r in data["roots"]}
    assert str(doctor_project.project / ".skillpath" / "skills") in looked
    assert str(doctor_project.home / ".skillpath" / "skills") in looked


def test_explain_finds_a_folder_whose_skill_has_another_name(cli: Cli, isolated_env: Env) -> None:
    root = isolated_env.project / ".skillpath" / "skills"
    write(root / "deploy" / "SKILL.md", skill_md("Ship it.", name="release"))
    data = cli.json("explain", "deploy")
    assert data["found"] is True and data["available"] is True  # the folder is an alias
    assert [e["name"] for e in data["entries"]] == ["release"]
    assert [f["name"] for f in data["folders"]] == ["release"]
    assert any(d["code"] == "name-mismatch" for d in data["diagnostics"])


def test_explain_reports_nested_skills_that_are_not_discovered(cli: Cli, isolated_env: Env) -> None:
    root = isolated_env.project / ".skillpath" / "skills"
    write(root / "group" / "inner" / "SKILL.md", skill_md("Too deep."))
    data = cli.json("explain", "inner")
    assert data["found"] is False
    assert [d["code"] for d in data["diagnostics"]] == ["nested-skills-ignored"]


def test_doctor_on_missing_cwd_is_one_line_error(cli: Cli, tmp_path: Path) -> None:
    res = cli.run("doctor", cwd=tmp_path / "nope")
    assert res.exit_code == 1
    assert res.stderr.count("\n") == 1 and "no such directory" in res.stderr


def test_doctor_names_files_that_could_not_be_read(cli: Cli, isolated_env: Env) -> None:
    root = isolated_env.project / ".skillpath" / "skills"
    (root / "folder-file" / "SKILL.md").mkdir(parents=True)
    (root / "dangling").symlink_to(root / "nowhere")
    (root / "lost-file").mkdir()
    (root / "lost-file" / "SKILL.md").symlink_to(root / "gone.md")
    data = cli.json("doctor")
    skipped = {s["name"]: s for s in data["skills"] if s["status"] == "skipped"}
    assert skipped["folder-file"]["reason"] == "unreadable-skill"
    assert "directory" in skipped["folder-file"]["detail"]
    assert skipped["dangling"]["reason"] == "broken-symlink"
    assert skipped["dangling"]["level"] == "project"
    assert skipped["lost-file"]["reason"] == "broken-symlink"
    res = cli.run("explain", "dangling")
    assert "skipped (broken-symlink)" in res.stdout and "dangling symlink" in res.stdout
