"""Inline shell against hostile input, with a real ``/bin/sh``.

The runtime suite covers the policy switches, timeouts, output caps and the
scoped environment; this file covers what an attacker controls: arguments and
paths substituted around commands, skills a model wrote, skills from MCP
servers, and commands that wait for input or never stop writing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from skillpath import PromptError, SkillSource, skill_from_text
from skillpath.session import SkillSession
from skillpath.shell import DISABLED_TEXT

from ..conftest import Env


def _write(folder: Path, body: str, description: str = "A skill.") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(f"---\ndescription: {description}\n---\n{body}", encoding="utf-8")
    return path


def _session(
    env: Env, settings: dict[str, Any] | None = None, extra_env: dict[str, str] | None = None
) -> SkillSession:
    environ = {**env.env, "SKILLPATH_PLUGINS": "native,managed", **(extra_env or {})}
    return SkillSession.open(env.project, home=env.home, env=environ, settings=settings)


def _user_skill(env: Env, name: str, body: str) -> Path:
    return _write(env.home / ".skillpath" / "skills" / name, body)


# -- arguments and variables can never become (part of) a command ------------

INJECTIONS = {
    # body around the placeholder, arguments chosen by the attacker
    "bang-then-argument": ("Do it: !$ARGUMENTS\n", "`touch {m}`"),
    "unclosed-command": ("List: !`ls $ARGUMENTS\n", "x; touch {m}`"),
    "fence-language": ("Snippet:\n```$0\n$1\n```\n", '! "touch {m}"'),
    "adjacent-placeholders": ("Run $0$1 now\n", '! "`touch {m}`"'),
    # one word: commands run in the project, so a redirection makes the marker
    "named-argument": ("Go !$target\n", "`:>PWNED`"),
}


@pytest.mark.parametrize("case", sorted(INJECTIONS))
def test_arguments_cannot_form_a_command(isolated_env: Env, case: str) -> None:
    body, args = INJECTIONS[case]
    marker = isolated_env.project / "PWNED"
    text = f"---\ndescription: x\narguments: target\n---\n{body}"
    folder = isolated_env.home / ".skillpath" / "skills" / "inj"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(text)
    session = _session(isolated_env)
    for trigger in ("command", "tool"):
        with pytest.raises(PromptError, match="inline shell command"):
            session.invoke("inj", args.format(m=marker), trigger=trigger, force=True)
    assert not marker.exists()


def test_a_skill_directory_name_cannot_form_a_command(isolated_env: Env) -> None:
    # a folder name may hold spaces, ';' and backticks; ${SKILL_DIR} after an
    # unclosed command would close it with the attacker's command inside
    name = "notes; touch PWNED`"
    folder = isolated_env.home / ".skillpath" / "skills" / name
    _write(folder, "Read !`cat ${SKILL_DIR}/notes.md\n")
    session = _session(isolated_env)
    assert session.get(name) is not None
    with pytest.raises(PromptError, match="inline shell command"):
        session.invoke(name, trigger="tool")
    assert not (isolated_env.project / "PWNED").exists()


def test_values_inside_commands_stay_one_word(isolated_env: Env) -> None:
    marker = isolated_env.project / "PWNED"
    _user_skill(isolated_env, "q", "!`printf '<%s>' $ARGUMENTS`\n")
    out = _session(isolated_env).invoke("q", f"$(touch {marker}); '\"", trigger="tool").text
    assert f"<$(touch {marker}); '\">" in out
    assert not marker.exists()


# -- who may run commands at all ---------------------------------------------


def test_auto_learned_skills_do_not_run_shell_unless_listed(isolated_env: Env) -> None:
    marker = isolated_env.project / "learned-ran"
    managed = isolated_env.home / ".skillpath" / "managed-skills" / "learned"
    _write(managed, f"!`touch {marker}; echo ran`\n", "Learned while working.")
    session = _session(isolated_env)
    skill = session.get("learned")
    assert skill is not None and skill.source.provider == "managed"
    assert session.invoke("learned", trigger="tool").text.endswith(f"{DISABLED_TEXT}\n")
    assert not marker.exists()
    allowed = _session(isolated_env, {"shell": {"levels": ["user", "learned"]}})
    assert allowed.invoke("learned", trigger="tool").text.endswith("\nran\n")
    assert marker.exists()


@pytest.mark.parametrize("trigger", ["tool", "command", "mcp"])
def test_mcp_skills_never_run_shell(isolated_env: Env, trigger: str) -> None:
    marker = isolated_env.project / "mcp-ran"
    text = f"---\ndescription: from a server\n---\nA !`touch {marker}`\n```!\ntouch {marker}\n```\n"
    levels = ["user", "managed", "project", "package", "remote", "learned"]
    session = _session(isolated_env, {"shell": {"levels": levels}})
    # even a server that claims a trusted level is not trusted with the shell
    for level in ("remote", "user"):
        skill, diags = skill_from_text(
            text, name=f"srv-{level}", source=SkillSource("mcp", level, None, "mcp")
        )
        assert skill is not None, diags
        session.add_skills([skill])
        out = session.invoke(f"srv-{level}", trigger=trigger).text
        assert f"!`touch {marker}`" in out  # left as text, not run
    assert not marker.exists()


# -- commands that wait or never stop ----------------------------------------


def test_a_command_reading_stdin_does_not_wait(isolated_env: Env) -> None:
    _user_skill(isolated_env, "stdin", "in= !`cat` | !`read x; echo got-$x`\n")
    # a command left waiting on stdin would end in the timeout (an error)
    out = _session(isolated_env, {"shell": {"timeout": 20}}).invoke("stdin", trigger="tool").text
    assert "in=  | got-\n" in out


def test_endless_output_is_cut_and_stopped(isolated_env: Env) -> None:
    _user_skill(isolated_env, "yes", "!`yes`\n")
    with pytest.raises(PromptError, match="timed out"):
        _session(isolated_env, {"shell": {"timeout": 1, "max_output": 50}}).invoke(
            "yes", trigger="tool"
        )


def test_credentials_in_the_environment_are_not_passed(isolated_env: Env) -> None:
    dump = isolated_env.project / "env.txt"
    _user_skill(isolated_env, "envdump", f"!`env > {dump}; echo done`\n")
    secrets = {
        "AWS_SECRET_ACCESS_KEY": "aws-secret-value",
        "GITHUB_TOKEN": "gh-token-value",
        "ANTHROPIC_API_KEY": "sk-ant-value",
        "OPENAI_API_KEY": "sk-openai-value",
        "SSH_AUTH_SOCK": "/tmp/agent.sock",
        "DATABASE_URL": "postgres://user:pw@db/x",
        "LD_PRELOAD": "/tmp/evil.so",
        "BASH_ENV": "/tmp/evil.sh",
        "ENV": "/tmp/evil.sh",
    }
    session = _session(isolated_env, extra_env=secrets)
    assert session.invoke("envdump", trigger="tool").text.endswith("\ndone\n")
    seen = dump.read_text()
    for key, value in secrets.items():
        assert value not in seen and f"{key}=" not in seen, key
