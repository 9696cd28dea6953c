"""Timing-dependent findings never change what ``list``, ``show``, ``prompt`` or ``invoke`` print.

A plugin slower than ``SKILLPATH_SLOW_HOOK_SECONDS`` is a ``plugin-slow`` warning
of ``skillpath doctor`` only: the listing with it is the same bytes as without it.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.perf.test_replay import Project

SLEEPER = """
import time
from skillpath import depends_on, hookimpl

@hookimpl
@depends_on("files")
def discover_skills(ctx):
    time.sleep(0.05)
    return None

@hookimpl
@depends_on("files")
def filter_skill(skill, ctx):
    if skill.name == "claude-0":
        time.sleep(0.05)
    return None
"""


def test_a_slow_plugin_leaves_list_show_prompt_and_invoke_bytes_alone(tmp_path: Path) -> None:
    p = Project(tmp_path)
    p.fill_mixed()
    p.env |= {"SKILLPATH_NO_SNAPSHOT": "1", "SKILLPATH_SLOW_HOOK_SECONDS": "0.001"}
    commands = [
        ("list", "--json"),
        ("list",),
        ("show", "claude-0"),
        ("prompt",),
        ("invoke", "claude-0"),
    ]
    without = [p.run(*c) for c in commands]
    p.plugin("sleeper", SLEEPER)
    with_it = [p.run(*c) for c in commands]
    for command, a, b in zip(commands, without, with_it, strict=True):
        assert a.returncode == b.returncode == 0, (command, a.stderr, b.stderr)
        assert (a.stdout, a.stderr) == (b.stdout, b.stderr), command
    assert b"plugin-slow" not in b"".join(r.stdout + r.stderr for r in with_it)
    # doctor reports it, with the threshold
    doctor = p.run("doctor", "--json")
    assert doctor.returncode == 0, doctor.stderr
    slow = [d for d in json.loads(doctor.stdout)["diagnostics"] if d["code"] == "plugin-slow"]
    # (any other plugin's import or hook may pass 1 ms too, under load)
    messages = [d["message"] for d in slow if d["message"].startswith("plugin 'sleeper': ")]
    hooks = sorted(m.split(": ")[1].split(" took ")[0] for m in messages)
    assert hooks == ["discover_skills", "filter_skill"], slow
    assert all("(over 0.001s, SKILLPATH_SLOW_HOOK_SECONDS)" in m for m in messages)
