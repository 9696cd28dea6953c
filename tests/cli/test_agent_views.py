"""``--agent`` on list, prompt, explain and validate."""

from __future__ import annotations

import json
from pathlib import Path

from ..conftest import Env
from .conftest import Cli


def put(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_agent_option(cli: Cli, isolated_env: Env) -> None:
    project = isolated_env.project
    put(
        project / ".agents/skills/bom/SKILL.md",
        b"\xef\xbb\xbf---\nname: bom\ndescription: x\n---\nB.\n",
    )
    put(project / ".agents/skills/ok/SKILL.md", b"---\nname: ok\ndescription: Fine.\n---\nB.\n")
    run = cli.run
    res = run("explain", "bom", "--agent", "codex")
    assert res.exit_code == 1
    assert res.stdout.startswith("Codex skips it: a UTF-8 BOM before the frontmatter")
    res = run("list", "--agent", "codex", "--json")
    data = json.loads(res.stdout)
    assert [s["name"] for s in data["skills"]] == ["ok"]
    assert data["dropped"][0]["reason"] == "a UTF-8 BOM before the frontmatter"
    res = run("prompt", "--agent", "opencode")
    assert "<name>bom</name>" in res.stdout and "<name>ok</name>" in res.stdout
    res = run("validate", "--agent", "codex", ".agents/skills")
    assert res.exit_code == 1 and "[agent-skips]" in res.stdout


def test_doctor_names_skills_an_agent_shows_differently(cli: Cli, isolated_env: Env) -> None:
    project = isolated_env.project
    put(
        project / ".agents/skills/bom/SKILL.md",
        b"\xef\xbb\xbf---\nname: bom\ndescription: x\n---\nB.\n",
    )
    put(
        project / ".claude/skills/deploy/SKILL.md",
        b"---\nname: release\ndescription: Go.\n---\nB.\n",
    )
    put(
        project / ".skillpath/skills/own/SKILL.md", b"---\nname: own\ndescription: Mine.\n---\nB.\n"
    )
    data = json.loads(cli.run("doctor", "--json").stdout)
    got = {(d["name"], d["agent"]): d["how"] for d in data["agents"]}
    assert got[("bom", "codex")] == "Codex skips it: a UTF-8 BOM before the frontmatter"
    assert got[("release", "claude-code")] == "Claude Code lists it as 'deploy (release)'"
    assert "bom" not in {n for n, a in got if a == "opencode"}
    assert all(name != "own" for name, _a in got)  # no agent reads .skillpath/skills
    put(project / ".agent/skills/solo/SKILL.md", b"---\nname: solo\ndescription: S.\n---\nB.\n")
    data = json.loads(cli.run("doctor", "--json").stdout)
    solo = [d["how"] for d in data["agents"] if d["name"] == "solo"]
    assert solo == [
        f"{label} does not read {project / '.agent' / 'skills'}"
        for label in ("Claude Code", "Codex", "OpenCode")
    ]
    text = cli.run("doctor").stdout
    assert "Agents: " in text and "bom: Codex skips it: a UTF-8 BOM" in text
