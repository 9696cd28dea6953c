"""Skills installed by ``gh skill install`` show where they came from."""

from __future__ import annotations

import json
from typing import Any

from click.testing import CliRunner
from skillpath.cli import main

from tests.conftest import Env

GH_SKILL = """---
name: pdf
description: PDF work.
metadata:
  github-repo: https://github.com/acme/skills
  github-path: skills/pdf
  github-ref: v1.2.0
  github-tree-sha: 3b18e512dba79e4c8300dd08aeb37f8e728b8dad
---
Use it.
"""


def run(env: Env, *args: str) -> Any:
    command, *rest = args
    done = CliRunner().invoke(main, [command, "--cwd", str(env.project), "--json", *rest])
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


def test_gh_skill_metadata_is_an_origin(isolated_env: Env) -> None:
    folder = isolated_env.project / ".claude" / "skills" / "pdf"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(GH_SKILL)
    expected = {
        "kind": "gh-skill",
        "source": "https://github.com/acme/skills",
        "ref": "v1.2.0",
        "installed_at": None,
        "record": str(folder / "SKILL.md"),
        "hash": "3b18e512dba79e4c8300dd08aeb37f8e728b8dad",
        "drift": None,
        "detail": {"path": "skills/pdf", "tree_sha": "3b18e512dba79e4c8300dd08aeb37f8e728b8dad"},
    }
    listed = {s["name"]: s for s in run(isolated_env, "list")["skills"]}
    assert listed["pdf"]["origin"] == expected
    shown = run(isolated_env, "show", "pdf")
    assert shown["origin"] == expected
    human = CliRunner().invoke(main, ["show", "--cwd", str(isolated_env.project), "pdf"])
    assert "https://github.com/acme/skills v1.2.0 (gh-skill)" in human.stdout
