"""``skillpath list`` (default contract, --all, filters) and ``skillpath show``."""

from __future__ import annotations

from ..conftest import Env
from .conftest import Cli, skill_md, write

CONTRACT_KEYS = {"skills", "shadowed", "diagnostics"}


def test_list_json_contract_is_unchanged_without_all(cli: Cli, doctor_project: Env) -> None:
    data = cli.json("list")
    assert set(data) == CONTRACT_KEYS
    names = [s["name"] for s in data["skills"] if s["provider"] == "native"]
    assert names == ["alpha", "hidden-tool"]
    assert set(data["skills"][0]) == {
        "name",
        "description",
        "path",
        "base_dir",
        "provider",
        "level",
        "hidden",
        "findings",
    }
    assert data["skills"][0]["findings"] == []
    hidden = next(s for s in data["skills"] if s["name"] == "hidden-tool")
    assert hidden["hidden"] is True


def test_list_all_adds_conditional_and_skipped(cli: Cli, doctor_project: Env) -> None:
    data = cli.json("list", "--all", "--provider", "native")
    assert set(data) == CONTRACT_KEYS | {"conditional", "skipped"}
    assert [s["name"] for s in data["conditional"]] == ["gated"]
    reasons = {s["name"]: s["reason"] for s in data["skipped"]}
    assert reasons == {
        "a/b": "invalid-name",
        "extra": "not-included",
        "no-desc": "missing-description",
        "scratch-notes": "ignored",
        "turned-off": "disabled",
        "user-only": "source-disabled",
        "zz-alpha-link": "duplicate-file",
    }


def test_list_filters_by_provider_and_level(cli: Cli, doctor_project: Env) -> None:
    data = cli.json("list", "--all", "--level", "user")
    assert {s["name"] for s in data["skills"]} == set()
    assert data["shadowed"] == []  # the custom directory is the project's: level project
    assert [s["name"] for s in data["skipped"]] == ["user-only"]
    data = cli.json("list", "--all", "--level", "project")
    assert ("alpha", "custom") in {(s["name"], s["provider"]) for s in data["shadowed"]}
    data = cli.json("list", "--provider", "custom")
    assert data["skills"] == [] and [s["provider"] for s in data["shadowed"]] == ["custom"]
    res = cli.run("list", "--provider", "nope")  # a typo is an error, not an empty list
    assert res.exit_code == 1 and "unknown provider 'nope'" in res.stderr


def test_list_text_fits_80_columns_and_reports_errors_on_stderr(
    cli: Cli, doctor_project: Env, terminal: None
) -> None:
    res = cli.run("list", "--all", "--provider", "native", "--provider", "custom")
    assert res.exit_code == 0
    lines = res.stdout.splitlines()
    assert lines[0].split() == ["NAME", "STATUS", "SOURCE", "DETAIL"]
    assert all(len(line) <= 80 for line in lines)
    assert any(line.startswith("user-only") and "skipped:source-disabled" in line for line in lines)
    assert "[missing-description]" in res.stderr
    plain = cli.run("list", "--provider", "native")
    assert "hidden-tool (hidden)" in plain.stdout
    assert "1 conditional" in plain.stdout and "(`skillpath list --all`)" in plain.stdout


def test_piped_list_output_is_never_cut(cli: Cli, isolated_env: Env) -> None:
    """``list | grep`` finds a long name and the end of a long description: only a
    terminal's output is fitted to its width."""
    name = "a-skill-whose-name-is-much-longer-than-the-name-column-would-allow-x"
    description = "Starts here and goes on " + "and on " * 20 + "to the very end."
    write(isolated_env.project / ".claude" / "skills" / name / "SKILL.md", skill_md(description))
    res = cli.run("list")
    assert res.exit_code == 0
    (line,) = [line for line in res.stdout.splitlines() if line.startswith(name)]
    assert line.endswith("to the very end.") and "…" not in line
    res = cli.run("list", "--all")
    (line,) = [line for line in res.stdout.splitlines() if line.startswith(name)]
    assert line.endswith("to the very end.")


def test_show_every_field_resources_and_shadowed_copies(cli: Cli, doctor_project: Env) -> None:
    data = cli.json("show", "alpha")
    root = doctor_project.project / ".skillpath" / "skills"
    assert data["name"] == "alpha" and data["status"] == "loaded"
    assert data["provider"] == "native" and data["level"] == "project"
    assert data["priority"] == 100
    assert data["path"] == str(root / "alpha" / "SKILL.md")
    assert data["root"] == str(root)
    assert data["size"] == (root / "alpha" / "SKILL.md").stat().st_size
    assert data["frontmatter"] == {"description": "Alpha skill."}
    assert [r["path"] for r in data["resources"]] == ["SKILL.md", "references/notes.md"]
    assert data["resources"][1]["size"] == len("notes\n")
    copies = {(c["provider"], c["reason"]) for c in data["shadowed"]}
    assert copies == {("custom", "name"), ("native", "duplicate-file")}
    assert "body" not in data
    assert cli.json("show", "--body", "alpha")["body"] == "Body.\n"


def test_show_text_and_conditional(cli: Cli, doctor_project: Env) -> None:
    res = cli.run("show", "gated")
    assert res.exit_code == 0
    assert "status:      conditional" in res.stdout
    assert "paths:       src/**" in res.stdout
    res = cli.run("show", "--body", "alpha")
    assert "resources (2):" in res.stdout and res.stdout.rstrip().endswith("Body.")


def test_show_unknown_or_skipped_name_fails_with_one_line(cli: Cli, doctor_project: Env) -> None:
    res = cli.run("show", "alpah")
    assert res.exit_code == 1 and res.stdout == ""
    assert res.stderr.count("\n") == 1
    assert "no skill named 'alpah'; did you mean 'alpha'?" in res.stderr
    res = cli.run("show", "turned-off")
    assert res.exit_code == 1
    assert "is not loaded: skipped: disabled by skills.disabled_extensions" in res.stderr


def test_show_skill_without_frontmatter_name_and_long_description(
    cli: Cli, isolated_env: Env
) -> None:
    long = "word " * 60
    write(isolated_env.project / ".claude" / "skills" / "wide" / "SKILL.md", skill_md(long))
    res = cli.run("show", "wide")
    assert res.exit_code == 0
    assert all(len(line) <= 80 for line in res.stdout.splitlines() if "/" not in line)
