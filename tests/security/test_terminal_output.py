"""The CLI never prints a stranger's control characters to the terminal.

Skill names, descriptions and folder names in a cloned repository can hold
ANSI escape sequences (recolour, move the cursor, set the window title), bell
characters, bidi overrides and zero-width characters. ``list``, ``doctor``,
``validate`` and ``show`` print them escaped.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ..conftest import Env

RAW = ["\x1b", "\x07", "\x00", "\u202e", "\u200b", "\u2066", "\x9b"]


def _run(env: Env, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "skillpath", *args, "--cwd", str(env.project)],
        capture_output=True,
        env={**env.env, "SKILLPATH_PLUGINS": "native,claude"},
        timeout=60,
    )
    return proc.stdout.decode("utf-8", "replace") + proc.stderr.decode("utf-8", "replace")


@pytest.fixture
def hostile_project(isolated_env: Env) -> Env:
    root = isolated_env.project / ".claude" / "skills"
    evil_dir = root / "title\x1b]0;pwned\x07"
    evil_dir.mkdir(parents=True)
    (evil_dir / "SKILL.md").write_text("---\nname: titled\ndescription: ok\n---\n")
    color = root / "color"
    color.mkdir()
    (color / "SKILL.md").write_text(
        '---\ndescription: "Formats code\\e[2J\\e[31m red \\a bell \\u202eevil\\u200b"\n---\n'
    )
    rtl = root / "rtl"
    rtl.mkdir()
    (rtl / "SKILL.md").write_text('---\nname: "invoice\\u202egpj.exe"\ndescription: x\n---\n')
    nl = root / "newline"
    nl.mkdir()
    (nl / "SKILL.md").write_text('---\nname: "fake\\nerror: everything is fine"\n---\n')
    return isolated_env


@pytest.mark.parametrize(
    "args",
    [
        ("list",),
        ("list", "--all"),
        ("doctor",),
        ("validate", ".claude/skills"),
        ("show", "color"),
        ("explain", "color"),
    ],
    ids=lambda a: " ".join(a),
)
def test_no_raw_control_characters_reach_the_terminal(
    hostile_project: Env, args: tuple[str, ...]
) -> None:
    out = _run(hostile_project, *args)
    assert out.strip()
    for ch in RAW:
        assert ch not in out, (args, repr(ch), out[:2000])
    assert "\nerror: everything is fine" not in out


def test_json_output_keeps_the_exact_text(hostile_project: Env) -> None:
    import json

    data = json.loads(_run(hostile_project, "list", "--json"))
    desc = {s["name"]: s["description"] for s in data["skills"]}
    assert "\x1b[31m" in desc["color"]  # JSON escapes it; the data stays exact
    assert os.sep in data["skills"][0]["path"]
