"""The cross-agent lint (``skillpath.lint``) and ``skillpath validate``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from skillpath.lint import CODES, TARGETS, Finding, lint_paths, lint_skill_dir

from ..conftest import Env
from .conftest import Cli, write

REPO = Path(__file__).resolve().parents[2]


def skill(root: Path, folder: str, frontmatter: str, body: str = "Do it.\n") -> Path:
    """Write ``<root>/<folder>/SKILL.md`` with the raw frontmatter text."""
    write(root / folder / "SKILL.md", f"---\n{frontmatter}---\n{body}")
    return root / folder


def codes(findings: list[Finding]) -> dict[str, tuple[str, int | None]]:
    return {f.code: (f.level, f.line) for f in findings}


def test_a_good_skill_is_clean_for_every_target(tmp_path: Path) -> None:
    d = skill(tmp_path, "pdf-tables", "name: pdf-tables\ndescription: Extract tables.\n")
    for target in TARGETS:
        assert lint_skill_dir(d, target) == [], target


def test_name_rules_with_the_line_of_the_key(tmp_path: Path) -> None:
    d = skill(tmp_path, "x", "description: ok\nlicense: MIT\nname: -Bad--Name_\n")
    got = codes(lint_skill_dir(d))
    assert got["name-charset"] == ("error", 4)
    assert got["name-hyphen"] == ("error", 4)
    assert got["name-dir-mismatch"] == ("error", 4)
    d = skill(tmp_path, "a" * 65, f"name: {'a' * 65}\ndescription: ok\n")
    assert codes(lint_skill_dir(d))["name-length"] == ("error", 2)
    d = skill(tmp_path, "no-name", "description: ok\n")
    assert codes(lint_skill_dir(d, "agentskills"))["name-missing"][0] == "error"
    assert "name-missing" not in codes(lint_skill_dir(d, "claude"))
    assert codes(lint_skill_dir(d, "codex"))["name-missing"][0] == "info"


def test_unicode_names_follow_the_reference_validator_only_for_agentskills(
    tmp_path: Path,
) -> None:
    d = skill(tmp_path, "café", "name: café\ndescription: ok\n")
    assert "name-charset" not in codes(lint_skill_dir(d, "agentskills"))
    # OpenCode loads any string name (a warning: other agents are stricter)
    assert codes(lint_skill_dir(d, "opencode"))["name-charset"][0] == "warning"


def test_claude_name_mismatch_states_both_names(tmp_path: Path) -> None:
    d = skill(tmp_path, "deploy", "name: release\ndescription: Ship.\n")
    (f,) = [f for f in lint_skill_dir(d, "claude") if f.code == "name-dir-mismatch"]
    assert f.level == "warning"
    assert f.message == (
        "Claude Code will call this skill /deploy (its folder); skillpath and other agents "
        "use the frontmatter name 'release' — rename the folder or drop `name`"
    )


def test_description_rules_per_target(tmp_path: Path) -> None:
    d = skill(tmp_path, "long", f"name: long\ndescription: {'x' * 1025}\n")
    # Codex 0.171 loads it and cuts the description (checked against the real agent)
    assert codes(lint_skill_dir(d, "codex"))["description-length"] == ("warning", 3)
    assert codes(lint_skill_dir(d, "claude"))["description-length"][0] == "warning"
    assert "Codex cuts it" in next(
        f.message for f in lint_skill_dir(d, "codex") if f.code == "description-length"
    )
    d = skill(tmp_path, "nodesc", "name: nodesc\n")
    assert codes(lint_skill_dir(d, "codex"))["agent-skips"][0] == "error"
    assert codes(lint_skill_dir(d, "claude"))["description-missing"][0] == "warning"
    d = skill(tmp_path, "listdesc", "name: listdesc\ndescription: [a, b]\n")
    assert codes(lint_skill_dir(d))["description-type"] == ("error", 3)


def test_claude_listing_entry_cap(tmp_path: Path) -> None:
    d = skill(
        tmp_path,
        "wordy",
        f"name: wordy\ndescription: {'d' * 1000}\nwhen_to_use: {'w' * 600}\n",
    )
    assert codes(lint_skill_dir(d, "claude"))["listing-entry-length"][0] == "warning"
    assert "listing-entry-length" not in codes(lint_skill_dir(d, "agentskills"))


def test_optional_fields_and_metadata_lines(tmp_path: Path) -> None:
    d = skill(
        tmp_path,
        "opt",
        "name: opt\ndescription: ok\n"
        f"compatibility: {'c' * 501}\n"
        "license: 3\n"
        "metadata:\n  author: me\n  version: 1.0\n"
        "allowed-tools: [Read, Grep]\n",
    )
    got = lint_skill_dir(d, "agentskills")
    c = codes(got)
    assert c["compatibility-length"] == ("error", 4)
    assert c["license-type"] == ("error", 5)
    meta = [f for f in got if f.code == "metadata-type"]
    assert [(f.line, "version" in f.message) for f in meta] == [(8, True)]
    assert c["allowed-tools-type"] == ("warning", 9)
    d = skill(tmp_path, "meta2", "name: meta2\ndescription: ok\nmetadata: nope\n")
    assert codes(lint_skill_dir(d, "agentskills"))["metadata-type"] == ("error", 4)


def test_unknown_fields_and_spellings(tmp_path: Path) -> None:
    d = skill(
        tmp_path,
        "tool",
        "name: tool\ndescription: ok\nuser-invocable: false\nargument-hint: '[x]'\nfoo: 1\n",
    )
    std = codes(lint_skill_dir(d, "agentskills"))
    assert std["unknown-field"][0] == "error"
    claude = [f for f in lint_skill_dir(d, "claude") if f.code == "unknown-field"]
    assert [(f.level, f.line) for f in claude] == [("info", 6)]
    copilot = codes(lint_skill_dir(d, "copilot"))
    assert copilot["field-spelling"] == ("warning", 4)
    assert lint_skill_dir(d, "codex") == []
    d = skill(tmp_path, "tool2", "name: tool2\ndescription: ok\nuser-invokable: false\n")
    assert codes(lint_skill_dir(d, "claude"))["field-spelling"] == ("warning", 4)
    assert "field-spelling" not in codes(lint_skill_dir(d, "copilot"))


def test_claude_values_and_booleans(tmp_path: Path) -> None:
    d = skill(
        tmp_path,
        "vals",
        "name: vals\ndescription: ok\nshell: zsh\ncontext: main\ndisable-model-invocation: maybe\n",
    )
    got = [(f.code, f.line) for f in lint_skill_dir(d, "claude")]
    assert ("bad-value", 4) in got and ("bad-value", 5) in got and ("bad-boolean", 6) in got


def test_file_level_problems(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert codes(lint_skill_dir(tmp_path / "empty"))["no-skill-file"][0] == "error"
    write(tmp_path / "lower" / "skill.md", "---\nname: lower\ndescription: ok\n---\nx\n")
    assert codes(lint_skill_dir(tmp_path / "lower"))["skill-file-case"][0] == "error"
    write(tmp_path / "plain" / "SKILL.md", "# Just markdown\n")
    assert codes(lint_skill_dir(tmp_path / "plain"))["no-frontmatter"] == ("error", 1)
    write(tmp_path / "open" / "SKILL.md", "---\nname: open\n")
    assert codes(lint_skill_dir(tmp_path / "open"))["frontmatter-invalid"] == ("error", 1)
    write(tmp_path / "yaml" / "SKILL.md", "---\nname: yaml\ndescription: ok\nbad: [unclosed\n---\n")
    c = codes(lint_skill_dir(tmp_path / "yaml"))
    assert c["frontmatter-invalid"][0] == "error" and c["empty-body"][0] == "warning"
    (tmp_path / "bom").mkdir()
    (tmp_path / "bom" / "SKILL.md").write_bytes(
        b"\xef\xbb\xbf---\nname: bom\ndescription: ok\n---\nx\n"
    )
    assert codes(lint_skill_dir(tmp_path / "bom"))["bom"] == ("warning", 1)
    assert lint_skill_dir(tmp_path / "bom", "claude") == []


def test_every_code_has_a_level_per_target() -> None:
    for code, (meaning, levels) in CODES.items():
        assert meaning and len(levels) == len(TARGETS), code
        assert all(lv in ("error", "warning", "info", None) for lv in levels)


def test_lint_paths_roots_files_and_merged_targets(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill(root, "good", "name: good\ndescription: ok\n")
    skill(root, "bad", "name: other\ndescription: ok\n")
    (root / ".hidden").mkdir()
    found = lint_paths([root], ["agentskills", "copilot"])
    (f,) = found
    assert f.code == "name-dir-mismatch" and f.targets == ("agentskills", "copilot")
    assert lint_paths([root / "bad" / "SKILL.md", root / "bad"]) == lint_paths([root / "bad"])
    (nothing,) = lint_paths([tmp_path / "missing"])
    assert nothing.code == "no-skills"
    with pytest.raises(ValueError, match="unknown target"):
        lint_skill_dir(root / "good", "emacs")


def test_validate_cli_exit_codes_and_json(cli: Cli, isolated_env: Env) -> None:
    root = isolated_env.project / "skills"
    skill(root, "good", "name: good\ndescription: ok\n")
    res = cli.run("validate", "skills")
    assert res.exit_code == 0, res.output
    assert "1 skill(s) checked for agents: 0 error(s)" in res.stdout
    skill(root, "bad", f"name: bad\ndescription: {'x' * 1100}\n")
    res = cli.run("validate", "skills", "--target", "agentskills")
    assert res.exit_code == 1
    assert res.stderr == "skillpath: error: validation failed: 1 error(s)\n"
    assert res.stdout.startswith("skills/bad/SKILL.md:3: error: `description` is 1100")
    data = json.loads(cli.run("validate", "skills", "--json", "--target", "claude").stdout)
    assert data["summary"] == {"errors": 0, "warnings": 1, "infos": 0, "skills": 2}
    assert data["targets"] == ["claude"]
    (f,) = data["findings"]
    assert set(f) == {"code", "level", "message", "path", "line", "targets"}
    strict = cli.run("validate", "skills", "--target", "claude", "--strict")
    assert strict.exit_code == 1


def test_pre_commit_hook_definition_runs_validate() -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    (hook,) = [h for h in hooks if h["id"] == "skillpath-validate"]
    assert hook["entry"].split()[:2] == ["skillpath", "validate"]
    # the command on PATH: installing the repository root needs unpublished siblings
    assert hook["language"] == "system"
    assert re.search(hook["files"], "a/.claude/skills/x/SKILL.md")
    assert not re.search(hook["files"], "README.md")


def test_validate_as_a_subprocess_like_pre_commit(tmp_path: Path) -> None:
    d = skill(tmp_path, "Bad_Name", "name: Bad_Name\ndescription: ok\n")
    proc = subprocess.run(
        [sys.executable, "-m", "skillpath", "validate", str(d / "SKILL.md")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert proc.returncode == 1
    assert "[name-charset]" in proc.stdout
    assert proc.stderr.strip().splitlines() == ["skillpath: error: validation failed: 1 error(s)"]


def test_an_unquoted_colon_is_flagged_for_strict_parsers(tmp_path: Path) -> None:
    d = skill(tmp_path, "broken-yaml", "name: broken-yaml\ndescription: Use when: things break\n")
    # strict YAML (what skills-ref and Codex use) really rejects it
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load("description: Use when: things break")
    findings = lint_paths([d], ["agentskills", "claude", "codex"])
    got = {(f.code, f.level, f.line, f.targets) for f in findings}
    # Claude Code and Codex read the value anyway (checked against the real agents)
    assert got == {
        ("unquoted-colon", "error", 3, ("agentskills",)),
        ("unquoted-colon", "warning", 3, ("codex",)),
        ("unquoted-colon", "warning", 3, ("claude",)),
    }
    assert all("`description`" in f.message and "quote the value" in f.message for f in findings)
    quoted = skill(tmp_path, "quoted", "name: quoted\ndescription: 'Use when: it works'\n")
    assert lint_paths([quoted], TARGETS) == []


def test_the_scaffold_placeholder_description_is_flagged(cli: Cli, isolated_env: Env) -> None:
    assert cli.run("new", "draft").exit_code == 0
    folder = isolated_env.project / ".skillpath" / "skills" / "draft"
    for target in TARGETS:
        assert codes(lint_skill_dir(folder, target)) == {
            "placeholder-description": ("warning", 3)
        }, target
    todo = skill(isolated_env.project / "x", "todo-skill", "name: todo-skill\ndescription: TODO\n")
    assert "placeholder-description" in codes(lint_skill_dir(todo))
    real = skill(
        isolated_env.project / "x", "todo-list", "name: todo-list\ndescription: Todo list help.\n"
    )
    assert "placeholder-description" not in codes(lint_skill_dir(real))


def test_no_skills_finding_names_only_the_requested_targets(cli: Cli, tmp_path: Path) -> None:
    empty = tmp_path / "nothing-here"
    empty.mkdir()
    data = cli.json("validate", str(empty), "--target", "codex")
    (f,) = data["findings"]
    assert f["code"] == "no-skills" and f["targets"] == ["codex"]
    assert data["targets"] == ["codex"]
    text = cli.run("validate", str(empty), "--target", "codex").stdout
    assert "(agentskills" not in text and "opencode" not in text


def test_bare_validate_lints_every_project_skill(cli: Cli, isolated_env: Env) -> None:
    p = isolated_env.project
    skill(p / ".skillpath" / "skills", "pdf-tables", "name: pdf-tables\ndescription: PDFs.\n")
    skill(p / ".claude" / "skills", "Bad_Name", "name: Bad_Name\ndescription: ok\n")
    skill(p / ".agents" / "skills", "agent-one", "name: agent-one\ndescription: ok\n")
    skill(p / "elsewhere" / "skills", "not-a-root", "name: Not_Linted\ndescription: ok\n")
    sub = p / "packages" / "api"
    sub.mkdir(parents=True)
    for where in (p, sub):  # from the root or from below it, the same project roots
        res = cli.run("validate", "--json", cwd=where)
        data = json.loads(res.stdout)
        assert res.exit_code == 1
        assert data["summary"]["skills"] == 3
        paths = {Path(f["path"]).parent.name for f in data["findings"]}
        assert paths == {"Bad_Name"}  # the only broken one; elsewhere/ is no skills root
    # a project without any skill: the message says what was looked at, not "no SKILL.md here"
    (p / ".skillpath").rename(p / "moved-away")
    for folder in (p / ".claude", p / ".agents"):
        for child in folder.rglob("SKILL.md"):
            child.unlink()
    res = cli.run("validate", "--target", "codex")
    assert res.exit_code == 1
    assert "no skills in this project" in res.stdout and "[no-skills]" in res.stdout
    assert "no SKILL.md here or in its sub-folders" not in res.stdout


def test_bare_validate_never_starts_mcp_servers(cli: Cli, isolated_env: Env) -> None:
    marker = isolated_env.project / "mcp-ran"
    write(
        isolated_env.home / ".skillpath" / "config.toml",
        f'[[mcp.servers]]\nname = "x"\ncommand = "sh"\nargs = ["-c", "echo ran > {marker}"]\n',
    )
    skill(
        isolated_env.project / ".claude" / "skills", "ok-skill", "name: ok-skill\ndescription: ok\n"
    )
    res = cli.run("validate")
    assert res.exit_code == 0, res.output
    assert not marker.exists()


# -- the default target: what the agents skillpath supports would load --------------


def test_default_accepts_every_field_some_agent_reads(tmp_path: Path) -> None:
    d = skill(
        tmp_path,
        "fields",
        "name: fields\ndescription: ok\nallowed-tools: Read Grep\nlicense: MIT\n"
        "disable-model-invocation: true\nargument-hint: '[issue]'\nuser-invocable: true\n"
        "user-invokable: true\nwhen_to_use: always\npaths: src/**\nhide: false\n"
        "metadata:\n  version: '1'\n",
    )
    assert lint_skill_dir(d) == []
    strict = {f.code for f in lint_skill_dir(d, "agentskills")}
    assert "unknown-field" in strict


def test_default_warns_on_vendor_fields_and_errors_on_what_fails_somewhere(
    tmp_path: Path,
) -> None:
    d = skill(tmp_path, "vendor", "name: vendor\ndescription: ok\nversion: 1.0\nauthor: me\n")
    found = [(f.code, f.level, f.line) for f in lint_skill_dir(d)]
    assert found == [("unknown-field", "warning", 4), ("unknown-field", "warning", 5)]
    # OpenCode and the standard refuse a name that is not the folder's
    d = skill(tmp_path, "ahrefs-automation", "name: Ahrefs Automation\ndescription: ok\n")
    levels = {f.code: f.level for f in lint_skill_dir(d)}
    assert levels["name-dir-mismatch"] == "error" and levels["name-charset"] == "error"
    # Codex rejects a description over 1,024 characters
    d = skill(tmp_path, "long", f"name: long\ndescription: {'x' * 1100}\n")
    assert codes(lint_skill_dir(d))["description-length"][0] == "error"


def test_flow_collections_are_flagged_for_the_standard_only(tmp_path: Path) -> None:
    d = skill(tmp_path, "flow", "name: flow\ndescription: ok\nallowed-tools: [Read, Grep]\n")
    assert lint_skill_dir(d) == []
    strict = codes(lint_skill_dir(d, "agentskills"))
    assert strict["flow-collection"] == ("error", 4)


def test_symlinked_skill_files_are_judged_as_the_loader_judges_them(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    (root / "gone").mkdir(parents=True)
    (root / "gone" / "SKILL.md").symlink_to(tmp_path / "nowhere.md")
    secret = tmp_path / "secret.md"
    secret.write_text("---\nname: leaked-secret-name\ndescription: private\n---\n")
    (root / "outside").mkdir()
    (root / "outside" / "SKILL.md").symlink_to(secret)
    found = lint_paths([root])
    by_code = {f.code: f for f in found}
    assert by_code["dangling-symlink"].level == "error"
    assert by_code["dangling-symlink"].path == root / "gone" / "SKILL.md"
    assert by_code["skill-file-outside"].level == "error"
    # refused without being read: nothing from the file reaches the findings
    assert not any("leaked-secret-name" in f.message for f in found)
    assert {f.code for f in found} == {"dangling-symlink", "skill-file-outside"}


def test_real_published_skills_pass_the_default(tmp_path: Path) -> None:
    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "realworld"
    roots = sorted({p.parent.parent for p in fixtures.rglob("SKILL.md")})
    findings = lint_paths(roots)
    assert not [f for f in findings if f.level == "error"], findings
    strict = lint_paths(roots, ["agentskills"])
    assert any(f.code == "unknown-field" and f.level == "error" for f in strict)
