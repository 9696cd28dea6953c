"""Shell completion: skill names, ``skill://`` URLs, and the scripts for bash, zsh and fish."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import Cli, write

EXE = Path(sys.executable).with_name("skillpath")


def complete(cli: Cli, shell: str, words: str, cword: int | str) -> list[str]:
    env = dict(
        cli.env.env,
        _SKILLPATH_COMPLETE=f"{shell}_complete",
        COMP_WORDS=words,
        COMP_CWORD=str(cword),
        SKILLPATH_NO_INDEX="1",
    )
    done = subprocess.run(
        [str(EXE)], cwd=cli.env.project, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout.splitlines()


@pytest.fixture
def skills(cli: Cli) -> Cli:
    root = cli.env.project / ".claude" / "skills"
    write(root / "pdf-tables" / "SKILL.md", "---\ndescription: Tables from PDFs.\n---\nB\n")
    write(root / "pdf-forms" / "SKILL.md", "---\ndescription: Fill PDF forms.\n---\nB\n")
    write(
        root / "secret" / "SKILL.md",
        "---\ndescription: Hidden \x1b]52;c;aGk=\x07 one.\nhide: true\n---\nB\n",
    )
    return cli


@pytest.mark.parametrize("command", ["show", "explain", "invoke"])
def test_bash_completes_skill_names(skills: Cli, command: str) -> None:
    got = complete(skills, "bash", f"skillpath {command} pdf", 2)
    assert got == ["plain,pdf-forms", "plain,pdf-tables"]


def test_hidden_skills_complete_too(skills: Cli) -> None:
    assert "plain,secret" in complete(skills, "bash", "skillpath invoke s", 2)


def test_fish_shows_descriptions_terminal_safe(skills: Cli) -> None:
    got = complete(skills, "fish", "skillpath show ", "")
    secret = next(line for line in got if line.startswith("plain,secret"))
    assert "\x1b" not in secret and "\\x1b" in secret
    assert "plain,pdf-tables\tTables from PDFs." in got


def test_zsh_completes_skill_urls(skills: Cli) -> None:
    got = complete(skills, "zsh", "skillpath read skill://pdf-t", 2)
    assert got[:3] == ["plain", "skill\\://pdf-tables", "Tables from PDFs."]


def test_completion_honours_cwd(skills: Cli, tmp_path: Path) -> None:
    other = tmp_path / "other"
    write(other / ".claude" / "skills" / "elsewhere" / "SKILL.md", "---\ndescription: x\n---\n")
    (other / ".git").mkdir()
    got = complete(skills, "bash", f"skillpath show --cwd {other} e", 4)
    assert got == ["plain,elsewhere"]


def test_completion_in_a_broken_project_prints_nothing(cli: Cli) -> None:
    write(cli.env.project / ".skillpath" / "config.toml", "[skills\nbroken")
    assert [line for line in complete(cli, "bash", "skillpath show x", 2) if line] == []


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_command_prints_each_script(cli: Cli, shell: str) -> None:
    done = subprocess.run(
        [str(EXE), "completion", shell], env=cli.env.env, capture_output=True, text=True
    )
    assert done.returncode == 0
    assert "_SKILLPATH_COMPLETE" in done.stdout


needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")


def _bash_script() -> str:
    return subprocess.run(
        [str(EXE), "completion", "bash"], capture_output=True, text=True, check=True
    ).stdout


def _run_bash(cli: Cli, driver: str) -> list[str]:
    env = dict(cli.env.env, PATH=f"{EXE.parent}{os.pathsep}{os.environ['PATH']}")
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", driver],
        cwd=cli.env.project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


@needs_bash
@pytest.mark.parametrize(
    ("words", "line", "expected"),
    [
        # bash's own split: ':' is in COMP_WORDBREAKS
        ("skillpath show pdf-t", "skillpath show pdf-t", ["pdf-tables"]),
        ("skillpath read skill : //pdf-t", "skillpath read skill://pdf-t", ["//pdf-tables"]),
        (
            "skillpath read skill : //pdf-",
            "skillpath read skill://pdf-",
            ["//pdf-forms", "//pdf-tables"],
        ),
        ("skillpath read skill : //s", "skillpath read skill://s", ["//secret"]),
    ],
)
def test_the_bash_script_completes_in_a_real_bash(
    skills: Cli, words: str, line: str, expected: list[str]
) -> None:
    """The words as bash splits them, the replies as bash will insert them (only the
    part after the word's last ':' is replaced)."""
    driver = (
        _bash_script()
        + f"\nCOMP_WORDS=({words}); COMP_CWORD={len(words.split()) - 1}\n"
        + f"COMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}\n"
        + "_skillpath_completion skillpath\n"
        + 'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    assert sorted(_run_bash(skills, driver)) == expected


@needs_bash
def test_a_script_without_the_line_still_completes_names(skills: Cli) -> None:
    """What click's protocol alone carries (no COMP_LINE) still completes names."""
    driver = (
        _bash_script()
        + "\nCOMP_WORDS=(skillpath show pdf-t); COMP_CWORD=2\n"
        + "_skillpath_completion skillpath\n"
        + 'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    assert _run_bash(skills, driver) == ["pdf-tables"]
