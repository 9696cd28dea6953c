"""What the CLI prints from a skill never drives the terminal; pipes get the exact bytes.

Skill bodies, resource files, paths and names can hold OSC 52 clipboard writes,
title changes, cursor moves, 8-bit CSI, carriage returns that overwrite a line
and bidi overrides. On a terminal (a pseudo-terminal here) every command shows
them escaped (``\\x1b``); piped, ``invoke`` and ``read`` write the text as it is.
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import tty
from pathlib import Path

import pytest

from ..conftest import Env

LIMIT = 60  # seconds: the longest any one command may take

CLIPBOARD = "\x1b]52;c;cHduZWQ=\x07"
TITLE = "\x1b]0;pwned\x1b\\"
HOSTILE = f"{CLIPBOARD}{TITLE}\x1b[2J\x1b[1A\x9b31m\rfake line\u202eevil\x07\x7f"
#: bytes that must never reach a terminal: ESC, BEL, NUL, DEL, CR, 8-bit CSI, RLO
RAW = [b"\x1b", b"\x07", b"\x00", b"\x7f", b"\r", "\x9b".encode(), "\u202e".encode()]


def _argv(env: Env, *args: str) -> list[str]:
    """The command line, options first: ``invoke`` and ``show`` pass every word after
    the skill's name through to the skill."""
    command, *rest = args
    options: list[str] = []
    words: list[str] = []
    it = iter(rest)
    for word in it:
        if word in ("--json", "--tool", "--body"):
            options.append(word)
        elif word == "--session-id":
            options += [word, next(it)]
        else:
            words.append(word)
    return [sys.executable, "-m", "skillpath", command, "--cwd", str(env.project), *options, *words]


def _environ(env: Env, plugins: str = "native") -> dict[str, str]:
    return {**env.env, "SKILLPATH_PLUGINS": plugins, "COLUMNS": "100"}


def _on_tty(env: Env, *args: str, plugins: str = "native") -> bytes:
    """Run the CLI with stdout and stderr on a pseudo-terminal; all it wrote."""
    master, slave = os.openpty()
    tty.setraw(slave)  # no line-feed translation: the bytes exactly as written
    try:
        proc = subprocess.Popen(
            _argv(env, *args),
            stdin=subprocess.DEVNULL,
            stdout=slave,
            stderr=slave,
            env=_environ(env, plugins),
        )
    finally:
        os.close(slave)
    out = bytearray()
    try:
        while True:
            ready, _, _ = select.select([master], [], [], LIMIT)
            assert ready, f"no output and no exit within {LIMIT}s: {args}"
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every writer closed the terminal
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(master)
        proc.wait(timeout=LIMIT)
    # skillpath's own colour (bold headers, coloured levels) and the erasing of its
    # progress line are the only control sequences allowed
    return re.sub(rb"\x1b\[(?:1;31|33|2|1|0)m|\r\x1b\[K", b"", bytes(out))


def _piped(env: Env, *args: str, plugins: str = "native") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        _argv(env, *args),
        capture_output=True,
        env=_environ(env, plugins),
        timeout=LIMIT,
        check=False,
    )


@pytest.fixture
def hostile(isolated_env: Env) -> Env:
    skills = isolated_env.home / ".skillpath" / "skills"
    evil = skills / "evil"
    evil.mkdir(parents=True)
    (evil / "SKILL.md").write_text(
        f"---\ndescription: Looks harmless.\n---\nStep one.\n{HOSTILE}\nStep two.\n", "utf-8"
    )
    (evil / "notes.txt").write_text(f"notes {HOSTILE}\n", "utf-8")
    cond = isolated_env.project / ".skillpath" / "skills" / "cond"
    cond.mkdir(parents=True)
    (cond / "SKILL.md").write_text(
        f'---\ndescription: Conditional.\npaths: ["src/{TITLE}*.py", "{CLIPBOARD}"]\n---\nBody.\n',
        "utf-8",
    )
    return isolated_env


COMMANDS = [
    ("invoke", "evil", f"arg{CLIPBOARD}"),
    ("invoke", "evil", "--tool"),
    ("read", "skill://evil"),
    ("read", "skill://evil/notes.txt"),
    ("read", "skill://cond"),
    ("show", "cond"),
    ("show", "evil", "--body"),
    ("show", f"missing{TITLE}"),
    ("explain", f"missing{TITLE}"),
    ("explain", "cond"),
    ("read", f"skill://evil/{CLIPBOARD}"),
    ("invoke", f"nope{CLIPBOARD}"),
    ("list", "--all"),
    ("doctor",),
]


@pytest.mark.parametrize(
    "args", COMMANDS, ids=lambda a: " ".join(a).encode("unicode_escape").decode()
)
def test_a_terminal_gets_no_control_sequence(hostile: Env, args: tuple[str, ...]) -> None:
    out = _on_tty(hostile, *args)
    assert out.strip(), args
    for raw in RAW:
        assert raw not in out, (args, raw, out[:3000])


def test_the_sequences_are_shown_visibly(hostile: Env) -> None:
    out = _on_tty(hostile, "invoke", "evil").decode()
    assert "Step one.\n\\x1b]52;c;cHduZWQ=\\x07\\x1b]0;pwned\\x1b\\" in out
    # the bidi override never reaches a model: invoke removes it (and says so) before the
    # terminal escaping shows the other controls visibly
    assert "\\x9b31m\\x0dfake lineevil" in out
    assert "invisible-characters-removed" in out
    assert "Step two.\n" in out  # line feeds and the text around stay as they are


@pytest.mark.parametrize(
    "args",
    [("invoke", "evil"), ("invoke", "evil", "--tool"), ("read", "skill://evil")],
)
def test_piped_output_is_byte_exact(hostile: Env, args: tuple[str, ...]) -> None:
    proc = _piped(hostile, *args)
    assert proc.returncode == 0, proc.stderr
    # byte-exact but for the invisible characters a model must never get (the bidi override)
    visible = HOSTILE.replace("\u202e", "")
    assert f"Step one.\n{visible}\nStep two.".encode() in proc.stdout


def test_a_piped_resource_is_the_file(hostile: Env) -> None:
    proc = _piped(hostile, "read", "skill://evil/notes.txt")
    path = hostile.home / ".skillpath" / "skills" / "evil" / "notes.txt"
    # the file's bytes, but for the invisible characters a model must never get
    assert proc.stdout == Path(path).read_bytes().decode().replace("\u202e", "").encode()


@pytest.mark.parametrize(
    "args", [("invoke", "evil", "--json", "--session-id", "s1"), ("show", "cond", "--json")]
)
def test_json_on_a_terminal_is_the_same_data(hostile: Env, args: tuple[str, ...]) -> None:
    shown = _on_tty(hostile, *args)
    for raw in RAW:
        assert raw not in shown
    piped = _piped(hostile, *args).stdout
    assert json.loads(shown) == json.loads(piped)


def test_mcp_content_is_neutralised_on_a_terminal(isolated_env: Env) -> None:
    pytest.importorskip("mcp")
    server = Path(__file__).parents[2] / "providers/mcp/tests/fixtures/prompt_server.py"
    config = isolated_env.home / ".skillpath" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        '[mcp]\ntimeout = 30\n[[mcp.servers]]\nname = "fx"\n'
        f"command = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(server))}]\n",
        "utf-8",
    )
    env = isolated_env
    args = ("invoke", "greet", f"'x{CLIPBOARD}'", "--tool")
    shown = _on_tty(env, *args, plugins="native,mcp")
    assert b"Say hello to x\\x1b]52;c;cHduZWQ=\\x07 in a warm tone." in shown, shown
    for raw in RAW:
        assert raw not in shown
    piped = _piped(env, *args, plugins="native,mcp")
    assert f"Say hello to x{CLIPBOARD} in a warm tone.".encode() in piped.stdout, piped
