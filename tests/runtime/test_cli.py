"""``skillpath prompt``, ``read``, ``invoke`` and ``context`` on real projects."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner, Result
from skillpath.cli import main

from .conftest import Runtime, skill_text


@pytest.fixture
def proj(rt: Runtime) -> Runtime:
    rt.project_skill("pdf", skill_text("Work with PDFs. Tables and forms.", body="Read $0 now.\n"))
    (rt.project / ".skillpath" / "skills" / "pdf" / "ref.md").write_text("# Reference\n")
    rt.project_skill("quiet", skill_text("Hidden.", body="Quiet.\n", hide="true"))
    (rt.project / "AGENTS.md").write_text("Project rules.\n")
    return rt


def run(rt: Runtime, *args: str) -> Result:
    command, *rest = args
    argv = [command, "--cwd", str(rt.project), *rest]
    return CliRunner().invoke(main, argv, env=rt.environ, catch_exceptions=False)


def test_prompt_prints_the_listing(proj: Runtime) -> None:
    res = run(proj, "prompt")
    assert res.exit_code == 0
    assert res.stdout == proj.session().listing().text + "\n"
    assert "- pdf: Work with PDFs. Tables and forms." in res.stdout and "quiet" not in res.stdout
    xml = run(proj, "prompt", "--format", "agentskills")
    assert xml.stdout.startswith("<available_skills>\n<skill>\n<name>\npdf\n")
    assert run(proj, "prompt", "--no-read-tool").stdout == ""


def test_prompt_budget_note_and_json(proj: Runtime) -> None:
    for i in range(30):
        proj.project_skill(f"extra-{i:02}", description=f"Extra skill {i}. " + "Words. " * 20)
    res = run(proj, "prompt", "--budget", "900")
    assert res.exit_code == 0 and len(res.stdout) <= 901
    assert res.stderr.startswith("skillpath: note: listing over its 900-character budget")
    assert res.stderr.count("\n") == 1 and "listed by name only" in res.stderr
    data = json.loads(run(proj, "prompt", "--budget", "900", "--json").stdout)
    assert set(data) == {"text", "report"}
    rep = data["report"]
    assert rep["budget"] == 900 and rep["names_only"] and rep["length"] == len(data["text"])
    assert rep["listed"] + len(rep["dropped"]) == rep["total"] == 31
    assert run(proj, "prompt", "--budget", "0").stderr == ""


def test_prompt_caps_each_entry_and_lists_when_to_use(proj: Runtime) -> None:
    long = "Very long description sentence number. " * 80
    proj.project_skill("huge", skill_text(long.strip()))
    proj.project_skill("when", skill_text("Main desc.", when_to_use="Use when the user says when."))
    res = run(proj, "prompt", "--format", "claude", "--budget", "0")
    assert res.exit_code == 0
    assert max(len(line) for line in res.stdout.splitlines()) <= len("- huge: ") + 1536
    assert "- when: Main desc. - Use when the user says when.\n" in res.stdout
    assert res.stderr == "skillpath: note: cut 1 to the 1536-character entry cap: huge\n"
    rep = json.loads(run(proj, "prompt", "--json").stdout)["report"]
    assert rep["capped"] == ["huge"] and rep["entry_cap"] == 1536 and "huge" in rep["shortened"]


def test_prompt_tool_schema(proj: Runtime) -> None:
    data = json.loads(run(proj, "prompt", "--tool-schema", "openai").stdout)
    assert data["name"] == "Skill" and data["parameters"]["properties"]["skill"]["enum"] == ["pdf"]


def test_read_writes_content_exactly(proj: Runtime) -> None:
    res = run(proj, "read", "skill://pdf/ref.md")
    assert res.exit_code == 0 and res.stdout == "# Reference\n" and res.stderr == ""
    data = json.loads(run(proj, "read", "skill://pdf", "--json").stdout)
    assert data["mime_type"] == "text/markdown" and data["skill"] == "pdf"
    assert data["content"].startswith("---\ndescription: Work with PDFs.")
    assert run(proj, "read", "skill://quiet").stdout.endswith("Quiet.\n")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("skill://nope", "Unknown skill 'nope'. Available skills: pdf, quiet"),
        ("skill://pdf/../../x", "path traversal"),
        ("skill://pdf/missing.md", "File not found: "),
        ("ftp://x/y", "no resolver handles"),
    ],
)
def test_read_errors_go_to_stderr_with_exit_1(proj: Runtime, url: str, message: str) -> None:
    res = run(proj, "read", url)
    assert res.exit_code == 1 and res.stdout == ""
    assert res.stderr.startswith("skillpath: error: ") and message in res.stderr
    assert res.stderr.count("\n") == 1


def test_read_error_in_a_real_subprocess(proj: Runtime) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "skillpath", "read", "skill://pdf/%2e%2e/%2e%2e/x"],
        cwd=os.fspath(proj.project),
        env=proj.environ,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith("skillpath: error: path traversal")
    ok = subprocess.run(
        [sys.executable, "-m", "skillpath", "read", "skill://pdf/ref.md"],
        cwd=os.fspath(proj.project),
        env=proj.environ,
        capture_output=True,
        text=True,
        check=True,
    )
    assert ok.stdout == "# Reference\n"


def test_invoke_command_and_tool(proj: Runtime) -> None:
    base = proj.project.resolve() / ".skillpath" / "skills" / "pdf"
    res = run(proj, "invoke", "pdf", "a.pdf", "b.pdf")
    assert res.exit_code == 0
    assert res.stdout == (
        f"Base directory for this skill: {base}\n\nRead a.pdf now.\n\n---\n\n"
        f"Skill: {base / 'SKILL.md'}\nUser: a.pdf b.pdf\n"
    )
    tool = run(proj, "invoke", "--tool", "pdf", "x.pdf")
    assert tool.stdout == f"Base directory for this skill: {base}\n\nRead x.pdf now.\n"
    data = json.loads(run(proj, "invoke", "--json", "--session-id", "s9", "pdf", "q").stdout)
    assert data["trigger"] == "command" and data["args"] == "q" and data["session_id"] == "s9"
    assert data["line_count"] == data["content"].count("\n") + 1
    missing = run(proj, "invoke", "nope")
    assert missing.exit_code == 1 and "Unknown skill 'nope'" in missing.stderr


def test_invoke_and_show_pass_everything_after_name_verbatim(proj: Runtime) -> None:
    res = run(proj, "invoke", "--json", "pdf", "--max", "3", "-v", "--json", "--cwd", "x")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["args"] == "--max 3 -v --json --cwd x"
    assert "Read --max now." in data["content"]
    # invoke says so when a word after NAME spells one of its own options
    assert "'--json' comes after the skill name" in res.stderr
    assert "'--cwd' comes after the skill name" in res.stderr
    assert "--max" not in res.stderr  # not one of invoke's options
    quiet = run(proj, "invoke", "--quiet", "pdf", "--json")
    assert quiet.stderr == "" and "Read --json now." in quiet.stdout
    # show takes its options anywhere; words for the skill that start with - go after --
    shown = run(proj, "show", "--json", "pdf", "--", "--max", "3")
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.stdout)["args"] == "--max 3"
    text = run(proj, "show", "pdf", "--", "-x")
    assert text.exit_code == 0 and "arguments:   -x" in text.stdout


def test_show_takes_its_options_after_the_name(proj: Runtime) -> None:
    after = run(proj, "show", "pdf", "--json")
    assert after.exit_code == 0, after.output
    data = json.loads(after.stdout)
    assert data == json.loads(run(proj, "show", "--json", "pdf").stdout)
    assert "args" not in data
    body = json.loads(run(proj, "show", "pdf", "--body", "--json").stdout)
    assert body["body"] == "Read $0 now.\n"
    text = run(proj, "show", "pdf", "--body").stdout
    assert text.splitlines()[-1] == "Read $0 now."
    unknown = run(proj, "show", "pdf", "--max", "3")
    assert unknown.exit_code == 2 and "--max" in unknown.stderr


def test_context_command(proj: Runtime) -> None:
    res = run(proj, "context")
    assert res.exit_code == 0
    assert res.stdout == f"{proj.project.resolve() / 'AGENTS.md'}  (depth 0, 1 line)\n"
    data = json.loads(run(proj, "context", "--json").stdout)
    assert data["files"][0]["depth"] == 0 and data["files"][0]["content"] == "Project rules.\n"
    assert data["diagnostics"] == []
    (proj.project / "AGENTS.md").unlink()
    assert "No context files found." in run(proj, "context").stdout


def test_inline_shell_replaced_by_the_placeholder_is_reported(proj: Runtime) -> None:
    proj.project_skill("status", skill_text("Show status.", body="Branch: !`git branch`\n"))
    res = run(proj, "invoke", "--json", "status")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert "[shell command execution disabled by policy]" in data["content"]
    (d,) = [d for d in data["diagnostics"] if d["code"] == "shell-disabled"]
    assert d["level"] == "warning"
    assert "1 inline shell command(s) replaced" in d["message"]
    assert "add 'project' to [shell] levels" in d["message"]
    text = run(proj, "invoke", "status")
    notes = [line for line in text.stderr.splitlines() if "shell" in line]
    assert len(notes) == 1 and "[shell] levels" in notes[0]
    # a skill without inline shell gets no note
    plain = json.loads(run(proj, "invoke", "--json", "pdf", "a.pdf").stdout)
    assert not [d for d in plain["diagnostics"] if d["code"] == "shell-disabled"]
