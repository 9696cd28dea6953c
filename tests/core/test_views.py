"""skillpath.views without the real agents: each rule on a small tree (the
differential tests in tests/counterparts check the same rules against the agents)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from skillpath.cli._agentview import AGENT_NAMES
from skillpath.views import AGENTS, claude_budget, skip_reason, view


def put(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def skill(root: Path, folder: str, desc: str = "Does it.", name: str | None = None) -> Path:
    return put(
        root / folder / "SKILL.md",
        f"---\nname: {name or folder.rsplit('/', 1)[-1]}\ndescription: {desc}\n---\nB.\n",
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    subprocess.run(["git", "init", "-q", str(r)], check=True)
    return r


def env_for(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {"HOME": str(home)}


def test_the_cli_spells_the_same_agents() -> None:
    assert AGENT_NAMES == AGENTS


def test_codex_drops_with_a_one_line_reason(repo: Path, tmp_path: Path) -> None:
    root = repo / ".agents/skills"
    skill(root, "ok")
    put(root / "bom/SKILL.md", b"\xef\xbb\xbf---\nname: bom\ndescription: x\n---\n")
    put(root / "blank/SKILL.md", "\n---\nname: blank\ndescription: x\n---\n")
    put(root / "nodesc/SKILL.md", "---\nname: nodesc\n---\n")
    put(root / "listdesc/SKILL.md", "---\nname: listdesc\ndescription: [a, b]\n---\n")
    skill(root, "long", name="n" * 65)
    v = view("codex", repo, env=env_for(tmp_path))
    assert [s.name for s in v.shown] == ["ok"]
    assert v.explain("bom").startswith("Codex skips it: a UTF-8 BOM before the frontmatter")
    assert "blank line before the opening ---" in v.explain("blank")
    assert "no description" in v.explain("nodesc")
    assert "list, not a string" in v.explain("listdesc")
    assert "65 characters" in v.explain("long")
    assert all("\n" not in v.explain(n) for n in ("bom", "ok", "missing"))


def test_codex_lists_both_copies_and_warns(repo: Path, tmp_path: Path) -> None:
    skill(repo / ".agents/skills", "twin", "root copy")
    skill(repo / "a/.agents/skills", "twin", "nested copy")
    v = view("codex", repo / "a", env=env_for(tmp_path))
    assert [s.description for s in v.shown] == ["root copy", "nested copy"]
    assert v.listing.count("- twin: ") == 2
    (w,) = v.warnings
    assert "$twin then pastes neither copy" in w


def test_codex_switches_hide_but_keep_loaded(repo: Path, tmp_path: Path) -> None:
    env = env_for(tmp_path)
    root = repo / ".agents/skills"
    skill(root, "quiet")
    put(root / "quiet/agents/openai.yaml", "policy:\n  allow_implicit_invocation: false\n")
    off = skill(root, "off")
    put(
        Path(env["HOME"]) / ".codex/config.toml",
        f'[[skills.config]]\npath = "{off}"\nenabled = false\n',
    )
    v = view("codex", repo, env=env)
    assert v.shown == ()
    assert "allow_implicit_invocation" in v.explain("quiet")
    assert "enabled = false" in v.explain("off")
    assert v.listing == ""


def test_codex_depth_nesting_dots_and_the_no_git_rule(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    top = tmp_path / "plain"
    skill(top / ".agents/skills", "g1/g2/g3/g4/g5/six")
    skill(top / ".agents/skills", "g1/g2/g3/g4/g5/g6/seven")
    skill(top / ".agents/skills", ".dot/hidden")
    skill(top / ".agents/skills", "six-outer")
    skill(top / ".agents/skills", "six-outer/inner")
    skill(top / ".codex/skills", "codexed")
    skill(top / "x/.agents/skills", "below")
    names = {s.name for s in view("codex", top / "x", env=env).shown}
    assert names == {"below"}  # outside git: cwd's folders only
    names = {s.name for s in view("codex", top, env=env).shown}
    assert names == {"six", "six-outer", "inner", "codexed"}


def test_codex_cuts_descriptions_at_1024(repo: Path, tmp_path: Path) -> None:
    skill(repo / ".agents/skills", "wordy", "w" * 1100)
    (s,) = view("codex", repo, env=env_for(tmp_path)).shown
    assert s.description == "w" * 1021 + "..."


def test_opencode_rules(repo: Path, tmp_path: Path) -> None:
    env = env_for(tmp_path)
    skill(repo / ".agents/skills", "Beta")
    skill(repo / ".agents/skills", "alpha", "agents copy")
    skill(repo / ".opencode/skills", "alpha", "opencode copy")
    skill(repo / ".agents/skills", "deep/er/still")
    skill(repo / ".agents/skills", "denied")
    put(repo / ".agents/skills/intname/SKILL.md", "---\nname: 1\ndescription: x\n---\n")
    put(repo / ".agents/skills/noname/SKILL.md", "---\ndescription: x\n---\n")
    put(repo / "opencode.json", json.dumps({"permission": {"skill": {"denied": "deny"}}}))
    v = view("opencode", repo, env=env)
    assert [s.name for s in v.shown] == ["alpha", "Beta", "still"]
    assert any("not stable between runs" in w for w in v.warnings)
    assert "permission.skill" in v.explain("denied")
    assert "number, not a string" in v.explain("intname")
    assert "no name" in v.explain("noname")
    assert v.listing.startswith("<available_skills>\n  <skill>\n    <name>alpha</name>")


def test_claude_listing_rules(repo: Path, tmp_path: Path) -> None:
    env = env_for(tmp_path)
    root = repo / ".claude/skills"
    skill(root, "deploy", name="release")
    put(root / "plain/SKILL.md", "# Title here\n\nMore.\n")
    put(root / "hidden/SKILL.md", "---\ndescription: x\ndisable-model-invocation: true\n---\n")
    skill(root, "huge", "h" * 2000)
    skill(Path(env["HOME"]) / ".claude/skills", "mine")
    v = view("claude-code", repo, env=env)
    lines = v.listing.split("\n")
    assert lines[0] == "- mine: Does it."  # the user's group first
    assert "- deploy (release): Does it." in lines
    assert "- plain: Title here" in lines
    assert "- huge: " + "h" * 1535 + "…" in lines
    assert not any(line.startswith("- hidden") for line in lines)


def test_claude_managed_skills_come_first_and_win(repo: Path, tmp_path: Path) -> None:
    managed = tmp_path / "etc-claude-code"
    env = {**env_for(tmp_path), "SKILLPATH_CLAUDE_MANAGED_DIR": str(managed)}
    skill(managed / ".claude/skills", "zpolicy", "Managed.")
    skill(managed / ".claude/skills", "clash", "The managed one.")
    put(managed / ".claude/commands/mcmd.md", "---\ndescription: Managed command.\n---\nC.\n")
    skill(Path(env["HOME"]) / ".claude/skills", "clash", "The user's.")
    skill(Path(env["HOME"]) / ".claude/skills", "mine")
    skill(repo / ".claude/skills", "proj")
    v = view("claude-code", repo, env=env)
    assert v.listing.split("\n") == [
        "- clash: The managed one.",
        "- zpolicy: Managed.",
        "- mine: Does it.",
        "- proj: Does it.",
        "- mcmd: Managed command.",
    ]
    assert [s.scope for s in v.shown][:2] == ["managed", "managed"]
    assert any("clash" in str(d.path) and "managed" in d.reason for d in v.dropped)
    # CLAUDE_CODE_DISABLE_POLICY_SKILLS drops the managed skills, not the managed commands
    off = view("claude-code", repo, env={**env, "CLAUDE_CODE_DISABLE_POLICY_SKILLS": "1"})
    assert off.listing.split("\n") == [
        "- clash: The user's.",
        "- mine: Does it.",
        "- proj: Does it.",
        "- mcmd: Managed command.",
    ]


def test_claude_budget_rule_and_greedy_fill(repo: Path, tmp_path: Path) -> None:
    assert claude_budget({}) == 40_000
    assert claude_budget({}, 200_000) == 8_000
    assert claude_budget({"SLASH_COMMAND_TOOL_CHAR_BUDGET": "123"}) == 123
    for i in range(10):
        skill(repo / ".claude/skills", f"s{i}", "d" * 50)
    env = {**env_for(tmp_path), "SLASH_COMMAND_TOOL_CHAR_BUDGET": "200"}
    v = view("claude-code", repo, env=env)
    lines = v.listing.split("\n")
    assert lines[0].startswith("- s0: d") and lines[-1] == "- s9"
    assert "listed by name only" in v.warnings[0]


def test_skip_reason_is_the_validate_rule(tmp_path: Path) -> None:
    bom = put(tmp_path / "bom/SKILL.md", b"\xef\xbb\xbf---\nname: bom\ndescription: x\n---\n")
    assert skip_reason("codex", bom) == "a UTF-8 BOM before the frontmatter"
    assert skip_reason("opencode", bom) is None
    assert skip_reason("claude-code", bom) is None
    with pytest.raises(ValueError, match="unknown agent"):
        skip_reason("emacs", bom)
