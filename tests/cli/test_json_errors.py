"""``--json`` on any failure: one JSON error object on stdout, the same exit status."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from skillpath.cli import main

from .conftest import Cli, write


def run(*argv: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, list(argv), catch_exceptions=False)
    return res.exit_code, res.stdout, res.stderr


def error_of(stdout: str) -> dict[str, object]:
    doc = json.loads(stdout)  # exactly one document
    assert set(doc) == {"error"}
    err = doc["error"]
    assert set(err) == {"code", "message", "path"}
    return err


@pytest.mark.parametrize(
    ("argv", "code", "status"),
    [
        (["show", "no-such-skill"], "not-found", 1),
        (["explain", "--bogus-option", "x"], "usage", 2),
        (["list", "--provider", "nowhere"], "bad-option", 1),
        (["read", "skill://no-such-skill/x.md"], "resolve-error", 1),
        (["invoke", "no-such-skill"], "prompt-error", 1),
        (["new", "Bad Name!"], "invalid-name", 1),
    ],
)
def test_failures_print_one_json_error(cli: Cli, argv: list[str], code: str, status: int) -> None:
    # options go before a skill name (invoke and show pass what follows it through)
    command, *rest = argv
    exit_code, stdout, stderr = run(command, "--cwd", str(cli.env.project), "--json", *rest)
    assert exit_code == status
    err = error_of(stdout)
    assert err["code"] == code
    assert err["message"]
    # the one-line human message stays on stderr, the same as without --json
    assert stderr.startswith("skillpath: error: ")
    plain_code, plain_out, plain_err = run(command, "--cwd", str(cli.env.project), *rest)
    assert plain_code == status
    assert plain_out == "" or not plain_out.lstrip().startswith("{")
    assert plain_err == stderr


def test_bad_cwd_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    exit_code, stdout, _ = run("list", "--cwd", str(missing), "--json")
    assert exit_code == 1
    err = error_of(stdout)
    assert (err["code"], err["path"]) == ("bad-cwd", str(missing))


def test_unknown_command_with_json_is_a_usage_error_object() -> None:
    exit_code, stdout, _ = run("lsit", "--json")
    assert exit_code == 2
    assert error_of(stdout)["code"] == "usage"


def test_a_json_after_double_dash_is_not_a_request_for_json(cli: Cli) -> None:
    exit_code, stdout, _ = run("list", "--bogus", "--", "--json")
    assert exit_code == 2
    assert stdout == ""


def test_existing_target_names_its_path(cli: Cli) -> None:
    folder = cli.env.project / ".skillpath" / "skills" / "taken"
    write(folder / "SKILL.md", "---\ndescription: x\n---\n")
    exit_code, stdout, _ = run(
        "new", "taken", "--cwd", str(cli.env.project), "--dir", str(folder.parent), "--json"
    )
    assert exit_code == 1
    err = error_of(stdout)
    assert err["code"] == "exists"
    assert err["path"] == str(folder)


def test_a_command_that_wrote_its_document_does_not_add_a_second(cli: Cli) -> None:
    write(cli.env.project / ".skillpath" / "config.toml", "[skills]\nenabled = 3\n")
    exit_code, stdout, _ = run("doctor", "--cwd", str(cli.env.project), "--json")
    assert exit_code == 1
    doc = json.loads(stdout)  # the report, one document, its errors counted
    assert doc["summary"]["errors"] >= 1
    exit_code, stdout, _ = run("explain", "--cwd", str(cli.env.project), "--json", "nothing-here")
    assert exit_code == 1
    assert "error" not in json.loads(stdout)
