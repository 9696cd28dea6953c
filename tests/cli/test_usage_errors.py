"""Every error exit prints one `skillpath: error:` line; usage errors exit 2, others 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from skillpath.cli import main

from ..conftest import Env


def run(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, list(args), prog_name="skillpath", catch_exceptions=False)
    return res.exit_code, res.stdout, res.stderr


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["lst"],
            "no such command 'lst'; did you mean 'list' or 'trust'? (see `skillpath --help`)",
        ),
        (["doctr"], "no such command 'doctr'; did you mean 'doctor'?"),
        (["plugin"], "did you mean 'plugins'"),
        (["frobnicate"], "no such command 'frobnicate' (see `skillpath --help`)"),
        (["show"], "show: Missing argument 'NAME' (see `skillpath show --help`)"),
        (["list", "--bogus"], "list: No such option '--bogus'"),
        (["validate", "--target", "gpt"], "validate: Invalid value for '--target': 'gpt'"),
        (["serve", "--http", "99999"], "serve: Invalid value for '--http'"),
    ],
)
def test_usage_errors_are_one_line_with_status_2(
    isolated_env: Env, args: list[str], expected: str
) -> None:
    code, out, err = run(*args)
    assert code == 2
    assert out == ""
    assert err.startswith("skillpath: error: ") and expected in err
    assert err.count("\n") == 1, err
    assert "Usage:" not in err


@pytest.mark.parametrize("command", ["list", "doctor", "explain x", "prompt", "validate", "serve"])
def test_a_bad_cwd_is_one_line_with_status_1(
    isolated_env: Env, tmp_path: Path, command: str
) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    for cwd, why in ((a_file, "not a directory"), (tmp_path / "missing", "no such directory")):
        code, out, err = run(*command.split(), "--cwd", str(cwd))
        assert (code, out) == (1, "")
        assert err == f"skillpath: error: --cwd {cwd}: {why}\n"


def test_help_and_version_still_work(isolated_env: Env) -> None:
    code, out, _err = run("--help")
    assert code == 0 and "Commands:" in out
    code, out, _err = run("list", "--help")
    assert code == 0 and out.startswith("Usage: skillpath list")
    code, out, _err = run("--version")
    assert code == 0 and out.startswith("skillpath, version")
    code, out, err = run()  # no command: the help, as click does
    assert code == 2 and "Commands:" in out + err


def test_usage_error_from_a_real_process(isolated_env: Env) -> None:
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "skillpath"), "lst"],
        capture_output=True,
        text=True,
        timeout=60,
        env=isolated_env.env,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == (
        "skillpath: error: no such command 'lst'; did you mean 'list' or 'trust'? "
        "(see `skillpath --help`)\n"
    )
