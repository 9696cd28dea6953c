"""``--quiet``, ``--color auto|always|never`` and ``NO_COLOR``: colour only where asked
for and never in JSON; warnings and notes off with ``--quiet``, errors never."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ..conftest import Env
from .conftest import Cli, skill_md, write

ESC = "\x1b["


@pytest.fixture(autouse=True)
def _fresh_options(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The options set variables for the run; each test starts (and ends) without them."""
    for var in ("SKILLPATH_QUIET", "SKILLPATH_COLOR", "NO_COLOR", "TERM"):
        monkeypatch.setenv(var, "")
    yield


@pytest.fixture
def project(isolated_env: Env) -> Env:
    skills = isolated_env.project / ".claude" / "skills"
    write(skills / "good" / "SKILL.md", skill_md("A good skill."))
    # the same skill in another agent's folder: a name-conflict warning
    write(isolated_env.project / ".agents" / "skills" / "good" / "SKILL.md", skill_md("Other."))
    return isolated_env


def test_colour_on_a_terminal_unless_no_color(
    cli: Cli, project: Env, terminal: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "")
    res = cli.run("list")
    header = res.stdout.splitlines()[0]
    assert header.startswith(ESC + "1m") and header.endswith(ESC + "0m")
    assert ESC + "33mwarning" + ESC + "0m: " in res.stderr
    monkeypatch.setenv("NO_COLOR", "1")
    res = cli.run("list")
    assert ESC not in res.stdout and ESC not in res.stderr
    assert "warning: " in res.stderr
    monkeypatch.setenv("NO_COLOR", "")
    res = cli.run("list", "--color", "never")
    assert ESC not in res.stdout and ESC not in res.stderr


def test_no_colour_when_piped_unless_always(cli: Cli, project: Env) -> None:
    res = cli.run("list")
    assert ESC not in res.stdout and ESC not in res.stderr
    res = cli.run("list", "--color", "always")
    assert res.stdout.startswith(ESC + "1mNAME")
    assert ESC + "33mwarning" in res.stderr
    res = cli.run("list", "--json", "--color", "always")
    assert ESC not in res.stdout  # JSON is never coloured
    res = cli.run("show", "nope", "--color", "always")
    assert res.stderr.startswith(ESC + "1;31mskillpath: error:" + ESC + "0m no skill named")


def test_quiet_keeps_errors_only(cli: Cli, project: Env) -> None:
    loud = cli.run("list")
    assert "[name-conflict]" in loud.stderr
    res = cli.run("list", "--quiet")
    assert res.exit_code == 0
    assert res.stderr == ""
    assert res.stdout == loud.stdout
    assert cli.run("list", "-q").stderr == ""
    res = cli.run("show", "nope", "--quiet")
    assert res.exit_code == 1 and "skillpath: error: no skill named 'nope'" in res.stderr
