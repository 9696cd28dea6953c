"""Arguments and variables reach inline shell only as data.

Every placement of a placeholder inside a command (bare, ``"…"``, ``'…'``, a
here-document with a plain or a quoted delimiter, ``$(…)``, backticks) is tried
against payloads that would run a command if they became command text. The
marker file must never appear, and the command must receive the exact text
(each command echoes the value back between ``<`` and ``>``).
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from skillpath import PromptError
from skillpath.session import SkillSession

from ..conftest import Env

#: ``{P}`` is the placeholder; each command prints ``<value>``.
PLACEMENTS = {
    "bare": "!`printf '<%s>' {P}`\n",
    "double-quotes": "!`printf '%s' \"<{P}>\"`\n",
    "single-quotes": "!`printf '%s' '<{P}>'`\n",
    "mixed-quotes": "!`printf '%s' '<'\"{P}\"'>'`\n",
    "heredoc": "```!\ncat <<EOF\n<{P}>\nEOF\n```\n",
    "heredoc-quoted": "```!\ncat <<'EOF'\n<{P}>\nEOF\n```\n",
    "heredoc-dquoted-dash": '```!\ncat <<-"EOF"\n\t<{P}>\n\tEOF\n```\n',
    "command-substitution": "!`printf '%s' \"$(printf '<%s>' {P})\"`\n",
    "command-substitution-quoted": "!`printf '%s' \"$(printf '%s' \"<{P}>\")\"`\n",
    "backticks": "```!\nx=`printf '<%s>' {P}`; printf '%s' \"$x\"\n```\n",
    "backticks-in-quotes": "```!\nprintf '%s' \"`printf '%s' '<{P}>'`\"\n```\n",
}

#: ``{m}`` is the marker path.
PAYLOADS = {
    "dollar-paren": "$(touch {m})",
    "backtick": "`touch {m}`",
    "semicolon": "x; touch {m}",
    "and": "x && touch {m}",
    "pipe": "x | touch {m}",
    "newline": "x\ntouch {m}",
    "single-quote": "x'; touch {m}; '",
    "double-quote": 'x"; touch {m}; "',
    "both-quotes": "'\"$(touch {m})\"'",
    "ifs": "x$IFS;touch$IFS{m}",
    "heredoc-terminator": "x\nEOF\ntouch {m}\nEOF\n",
    "variable": "${{PATH}} $HOME",
    "backslashes": "a\\\\b\\n\\'\\\"c\\",
    "close-brace": "}}; touch {m}; {{",
}


def _write(folder: Path, body: str, extra: str = "") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\ndescription: A skill.\n{extra}---\n{body}", "utf-8")


def _session(env: Env, settings: dict[str, Any] | None = None, **kw: Any) -> SkillSession:
    environ = {**env.env, "SKILLPATH_PLUGINS": "native"}
    return SkillSession.open(env.project, home=env.home, env=environ, settings=settings, **kw)


def _run(env: Env, body: str, args: str, extra: str = "", **kw: Any) -> str:
    _write(env.home / ".skillpath" / "skills" / "s", body, extra)
    return (
        _session(env, {"shell": {"max_output": 4_000_000}}, **kw)
        .invoke("s", args, trigger="tool", force=True)
        .text
    )


def _every_placement(*placeholders: str) -> str:
    """One body with a command in every placement for each placeholder, each
    output on the line after its label ``<placeholder without $> <placement>:``."""
    return "".join(
        f"{p[1:]} {name}:\n" + PLACEMENTS[name].replace("{P}", p)
        for p in placeholders
        for name in sorted(PLACEMENTS)
    )


def _check_every_placement(out: str, value: str, *placeholders: str) -> None:
    for p in placeholders:
        for name in sorted(PLACEMENTS):
            assert f"{p[1:]} {name}:\n<{value}>" in out, (p, name, out[-600:])


@pytest.mark.parametrize("payload", sorted(PAYLOADS))
def test_arguments_placeholder_gets_the_literal_text(isolated_env: Env, payload: str) -> None:
    marker = isolated_env.home / "PWNED"
    value = PAYLOADS[payload].format(m=marker)
    out = _run(isolated_env, _every_placement("$ARGUMENTS"), value)
    assert not marker.exists()
    _check_every_placement(out, value, "$ARGUMENTS")


@pytest.mark.parametrize("payload", sorted(PAYLOADS))
def test_positional_and_named_placeholders_get_the_literal_word(
    isolated_env: Env, payload: str
) -> None:
    marker = isolated_env.home / "PWNED"
    value = PAYLOADS[payload].format(m=marker)
    args = f"first {shlex.quote(value)} {shlex.quote(value)}"
    placeholders = ("$1", "$ARGUMENTS[1]", "$target")
    body = _every_placement(*placeholders)
    out = _run(isolated_env, body, args, "arguments: [zero, one, target]\n")
    assert not marker.exists()
    _check_every_placement(out, value, *placeholders)


def test_a_missing_named_argument_is_empty(isolated_env: Env) -> None:
    body = "!`printf '<%s>' \"$target\" '$target'`\n"
    assert "<><>" in _run(isolated_env, body, "only", "arguments: [first, target]\n")


@pytest.mark.parametrize("placement", sorted(PLACEMENTS))
def test_a_one_megabyte_argument(isolated_env: Env, placement: str) -> None:
    marker = isolated_env.home / "PWNED"
    unit = f"A$(touch {marker})'\"`\n"
    value = (unit * (2**20 // len(unit) + 1))[: 2**20]
    assert len(value) == 2**20
    out = _run(isolated_env, PLACEMENTS[placement].replace("{P}", "$ARGUMENTS"), value)
    assert not marker.exists()
    assert f"<{value}>" in out


@pytest.mark.parametrize("placement", ["bare", "single-quotes", "heredoc"])
def test_a_nul_character_is_refused_inside_commands(isolated_env: Env, placement: str) -> None:
    marker = isolated_env.home / "PWNED"
    body = PLACEMENTS[placement].replace("{P}", "$ARGUMENTS")
    with pytest.raises(PromptError, match="NUL"):
        _run(isolated_env, body, f"a\0; touch {marker}")
    assert not marker.exists()


def test_arguments_in_the_body_text_stay_text(isolated_env: Env) -> None:
    value = "$(id) `id` 'x' \"y\" ${HOME} \0"
    out = _run(isolated_env, "Body: $ARGUMENTS and $0\n!`printf ok`\n", value)
    assert f"Body: {value} and $(id)" in out
    assert "\nok" in out


# -- ${…} variables ------------------------------------------------------------

HOSTILE_DIR = "d $(touch PWNED) `touch PWNED` ' \" ; | & EOF"


@pytest.mark.parametrize("placement", sorted(PLACEMENTS))
@pytest.mark.parametrize("variable", ["SKILL_DIR", "CLAUDE_SKILL_DIR"])
def test_a_hostile_skill_directory(isolated_env: Env, placement: str, variable: str) -> None:
    folder = isolated_env.home / ".skillpath" / "skills" / HOSTILE_DIR
    body = PLACEMENTS[placement].replace("{P}", "${" + variable + "}")
    _write(folder, body)
    session = _session(isolated_env)
    out = session.invoke(HOSTILE_DIR, trigger="tool", force=True).text
    assert not (isolated_env.project / "PWNED").exists()
    assert f"<{folder}>" in out, (placement, out[-400:])


@pytest.mark.parametrize("placement", sorted(PLACEMENTS))
def test_a_hostile_session_id(isolated_env: Env, placement: str) -> None:
    marker = isolated_env.home / "PWNED"
    sid = f"s'\"; touch {marker}; $(touch {marker}) `touch {marker}`\nEOF"
    body = PLACEMENTS[placement].replace("{P}", "${SESSION_ID}")
    out = _run(isolated_env, body, "", session_id=sid)
    assert not marker.exists()
    assert f"<{sid}>" in out, (placement, out[-400:])


def test_the_issue_example(isolated_env: Env) -> None:
    # ``git log --grep="$ARGUMENTS"`` with ``$(id > /tmp/x)``: the argument is a pattern
    marker = isolated_env.home / "x"
    body = '!`printf "grep=%s" --grep="$ARGUMENTS" | head -5`\n'
    out = _run(isolated_env, body, f"$(id > {marker})")
    assert not marker.exists()
    assert f"grep=--grep=$(id > {marker})" in out


# -- every entry point reaches the same builder ---------------------------------

ENTRY_BODY = (
    "---\ndescription: A skill.\narguments: [target]\n---\n"
    "A !`printf '<%s>' \"$ARGUMENTS\"` B !`printf '[%s]' '$target'`\n"
)


def _entry_skill(env: Env) -> tuple[Path, str]:
    folder = env.home / ".skillpath" / "skills" / "entry"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(ENTRY_BODY, "utf-8")
    marker = env.home / "PWNED"
    return marker, f"'$(touch {marker})'\"`touch {marker}`\""


def test_cli_invoke(isolated_env: Env) -> None:
    marker, args = _entry_skill(isolated_env)
    proc = subprocess.run(
        [sys.executable, "-m", "skillpath", "invoke", "--tool", "entry", args],
        cwd=isolated_env.project,
        env={**isolated_env.env, "SKILLPATH_PLUGINS": "native"},
        capture_output=True,
        timeout=60,
    )
    out = proc.stdout.decode()
    assert proc.returncode == 0, proc.stderr.decode()
    assert not marker.exists()
    assert f"A <{args}> B [$(touch {marker})`touch {marker}`]" in out


def test_mcp_prompts_and_load_skill(isolated_env: Env) -> None:
    pytest.importorskip("mcp")
    from mcp import ClientSession, StdioServerParameters, stdio_client

    marker, args = _entry_skill(isolated_env)
    word = f"$(touch {marker})"

    async def scenario() -> tuple[str, str]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "skillpath", "serve", "--cwd", str(isolated_env.project)],
            env=isolated_env.env,
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            prompt = await s.get_prompt("entry", {"target": word})
            tool = await s.call_tool("load_skill", {"name": "entry", "args": args})
            return prompt.messages[0].content.text, tool.content[0].text  # type: ignore[union-attr]

    async def bounded() -> tuple[str, str]:
        return await asyncio.wait_for(scenario(), 60)

    prompt, tool = asyncio.run(bounded())
    assert not marker.exists()
    assert f"B [{word}]" in prompt
    assert f"A <{args}> B [$(touch {marker})`touch {marker}`]" in tool


def test_mcp_over_http_with_allow_shell(isolated_env: Env) -> None:
    pytest.importorskip("mcp")
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    marker, args = _entry_skill(isolated_env)
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "skillpath", "serve", "--cwd", str(isolated_env.project)),
            *("--http", "0", "--poll", "0", "--allow-shell"),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=isolated_env.env,
    )
    try:
        assert proc.stderr is not None
        url = None
        for line in proc.stderr:  # ends when the server exits
            found = re.search(r"listening on (http://127\.0\.0\.1:\d+/mcp)", line)
            if found:
                url = found.group(1)
                break
        assert url is not None, "the server did not report its URL"

        async def scenario() -> str:
            async with (
                streamable_http_client(url) as (read, write, *_),
                ClientSession(read, write) as s,
            ):
                await s.initialize()
                tool = await s.call_tool("load_skill", {"name": "entry", "args": args})
                return str(tool.content[0].text)  # type: ignore[union-attr]

        async def bounded() -> str:
            return await asyncio.wait_for(scenario(), 60)

        text = asyncio.run(bounded())
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
    assert not marker.exists()
    assert f"A <{args}> B [$(touch {marker})`touch {marker}`]" in text


# -- any text, any placement ------------------------------------------------------

FUZZ_TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=80
)


@given(value=FUZZ_TEXT, placement=st.sampled_from(sorted(PLACEMENTS)))
def test_any_argument_reaches_the_command_as_written(
    tmp_path_factory: pytest.TempPathFactory, value: str, placement: str
) -> None:
    from skillpath.shell import ShellPolicy, render_inline_shell
    from skillpath.transforms import substitute_arguments

    work = tmp_path_factory.mktemp("fuzz")
    text = substitute_arguments(PLACEMENTS[placement].replace("{P}", "$ARGUMENTS"), value)
    assert "$ARGUMENTS" not in text  # a reference took its place
    out = render_inline_shell(
        text,
        allowed=True,
        cwd=work,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        policy=ShellPolicy(),
        data={"SKILLPATH_ARGUMENTS": value},
    )
    assert f"<{value}>" in out
    assert list(work.iterdir()) == []


def test_a_hostile_project_directory(isolated_env: Env) -> None:
    project = isolated_env.project.parent / HOSTILE_DIR
    (project / ".git").mkdir(parents=True)
    body = _every_placement("${PROJECT_DIR}", "${CLAUDE_PROJECT_DIR}")
    _write(isolated_env.home / ".skillpath" / "skills" / "s", body)
    environ = {**isolated_env.env, "SKILLPATH_PLUGINS": "native"}
    session = SkillSession.open(project, home=isolated_env.home, env=environ)
    out = session.invoke("s", trigger="tool", force=True).text
    assert not (project / "PWNED").exists()
    assert not (isolated_env.project / "PWNED").exists()
    _check_every_placement(out, str(session.ctx.project_root), "${PROJECT_DIR}")
    _check_every_placement(out, str(project), "${CLAUDE_PROJECT_DIR}")
