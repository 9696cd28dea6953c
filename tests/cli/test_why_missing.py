"""`doctor`, `explain` and `list` answer "why is my skill missing?" for the common mistakes."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from ..conftest import Env
from .conftest import Cli, skill_md, write


def width(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in line)


@pytest.fixture
def mistakes(isolated_env: Env) -> Env:
    """A project with one good skill and the usual ways of getting a skill wrong."""
    p = isolated_env.project
    skills = p / ".claude" / "skills"
    write(skills / "good" / "SKILL.md", skill_md("Good one."))
    write(skills / "lowercase-file" / "skill.md", skill_md("lower", name="lowercase-file"))
    (skills / "empty-dir").mkdir(parents=True)
    write(skills / "just-md.md", skill_md("flat", name="just-md"))
    write(p / ".agent" / "skill" / "typo-root" / "SKILL.md", skill_md("singular dir"))
    return isolated_env


def test_doctor_shows_every_near_miss(cli: Cli, mistakes: Env) -> None:
    data = cli.json("doctor")
    notes = {
        (d["code"], Path(d["path"]).relative_to(mistakes.project).as_posix())
        for d in data["diagnostics"]
        if d["code"] in ("not-a-skill", "near-miss-root")
    }
    assert notes == {
        ("not-a-skill", ".claude/skills/lowercase-file/skill.md"),
        ("not-a-skill", ".claude/skills/empty-dir"),
        ("not-a-skill", ".claude/skills/just-md.md"),
        ("near-miss-root", ".agent/skill"),
    }
    assert all(d["level"] == "info" for d in data["diagnostics"] if d["code"] == "not-a-skill")
    text = cli.run("doctor").stdout
    for needle in ("lowercase-file/skill.md", "empty-dir", "just-md.md", ".agent/skill"):
        assert needle in text


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("lowercase-file", "found skill.md, not SKILL.md"),
        ("empty-dir", "folder has no SKILL.md (it is empty)"),
        ("just-md", "move it to just-md/SKILL.md"),
        ("typo-root", "which no provider reads: 'skill' is not a skills root"),
    ],
)
def test_explain_names_the_mistake(cli: Cli, mistakes: Env, name: str, expected: str) -> None:
    res = cli.run("explain", name)
    assert res.exit_code == 1
    verdict = " ".join(res.stdout.split("\n\n")[0].split())
    assert verdict.startswith(f"{name}: ") and expected in verdict
    assert cli.json("explain", name)["verdict"].startswith(f"{name}: ")


def test_skills_turned_off_is_said_by_list_and_explain(cli: Cli, isolated_env: Env) -> None:
    write(isolated_env.project / ".skillpath" / "config.toml", "[skills]\nenabled = false\n")
    write(isolated_env.project / ".claude" / "skills" / "a" / "SKILL.md", skill_md("A."))
    res = cli.run("list")
    assert res.exit_code == 0
    assert res.stdout == "No skills found.\n"
    assert "skills.enabled is false" in res.stderr and "[skills-disabled]" in res.stderr
    res = cli.run("explain", "a")
    assert res.exit_code == 1
    assert res.stdout.startswith("a: not loaded: skills are turned off ([skills] enabled = false)")
    assert "Looked in 0 root(s)" not in res.stdout
    assert "skills are turned off" in res.stderr
    assert cli.json("explain", "a")["disabled"] is True


def test_explain_finds_skills_below_cwd_that_load_on_touch(cli: Cli, isolated_env: Env) -> None:
    p = isolated_env.project
    write(p / "packages" / "web" / ".claude" / "skills" / "web-skill" / "SKILL.md", skill_md("W"))
    for hidden in ("node_modules/dep", ".cache/x", "build/out"):
        write(p / hidden / ".claude" / "skills" / "web-skill" / "SKILL.md", skill_md("no"))
    write(p / ".gitignore", "build/\n")
    res = cli.run("explain", "web-skill")
    assert res.exit_code == 1
    verdict = " ".join(res.stdout.split("\n\n")[0].split())
    assert verdict == (
        "web-skill: not loaded at start; found below the working directory, it loads when "
        "a file under ./packages/web is touched (discover_dirs_for_paths)"
    )
    data = cli.json("explain", "web-skill")
    assert data["below"] == [
        {
            "path": str(p / "packages/web/.claude/skills/web-skill/SKILL.md"),
            "touch": str(p / "packages/web"),
        }
    ]
    # the hint is right: touching a file there loads it
    from skillpath import SkillSession

    # (nested folders are quarantined until approved: skillpath.trust; approved by rule here)
    session = SkillSession.open(p, settings={"trust": {"approve": ["nested:*"]}})
    assert session.get("web-skill") is None
    session.discover_dirs_for_paths(["packages/web/src/app.ts"])
    assert session.get("web-skill") is not None


def test_list_footer_counts_like_doctor(cli: Cli, isolated_env: Env) -> None:
    p = isolated_env.project
    native = p / ".skillpath" / "skills"
    write(native / "a" / "SKILL.md", skill_md("Native A."))
    write(native / "no-desc-1" / "SKILL.md", skill_md(None, body="Body.\n"))
    write(native / "no-desc-2" / "SKILL.md", skill_md(None, body="Body.\n"))
    (native / "a-link").symlink_to(native / "a", target_is_directory=True)  # duplicate-file
    write(p / ".claude" / "skills" / "a" / "SKILL.md", skill_md("Claude A."))  # shadowed
    write(p / ".claude" / "skills" / "g" / "SKILL.md", skill_md("Gated.", paths='"src/**"'))
    doctor = cli.json("doctor")["summary"]
    assert (doctor["conditional"], doctor["shadowed"], doctor["skipped"]) == (1, 1, 3)
    res = cli.run("list")
    footer = " ".join(res.stdout.rstrip().split("\n\n")[-1].split())
    assert footer == (
        "1 conditional, 1 shadowed, 3 skipped (2 with errors) (`skillpath list --all`)."
    )
    only_claude = cli.run("list", "--provider", "claude").stdout.rstrip().split("\n\n")[-1]
    assert only_claude == "1 conditional, 1 shadowed, 0 skipped (`skillpath list --all`)."


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--provider", "nosuch"], "--provider: unknown provider 'nosuch' (known: agents, "),
        (["--provider", "Claude"], "did you mean 'claude'?"),
        (["--level", "bogus"], "--level: unknown level 'bogus' (known: managed, package, "),
        (["--level", "projcet"], "did you mean 'project'?"),
    ],
)
def test_unknown_filter_values_are_errors(
    cli: Cli, isolated_env: Env, args: list[str], message: str
) -> None:
    res = cli.run("list", *args)
    assert res.exit_code == 1
    assert res.stdout == ""
    assert res.stderr.startswith("skillpath: error: ") and message in res.stderr
    assert res.stderr.count("\n") == 1


def test_filters_accept_custom_and_installed_providers(cli: Cli, isolated_env: Env) -> None:
    write(
        isolated_env.project / ".skillpath" / "config.toml",
        '[skills]\ncustom_directories = ["x"]\n',
    )
    write(isolated_env.project / "x" / "c" / "SKILL.md", skill_md("Custom."))
    for provider in ("custom", "packs", "github", "mcp"):
        assert cli.run("list", "--provider", provider).exit_code == 0, provider
    assert cli.run("list", "--level", "package").exit_code == 0


def test_explain_says_why_a_same_priority_copy_lost(cli: Cli, isolated_env: Env) -> None:
    home, p = isolated_env.home, isolated_env.project
    write(home / ".claude" / "skills" / "kdup" / "SKILL.md", skill_md("user copy"))
    write(p / ".claude" / "skills" / "kdup" / "SKILL.md", skill_md("project copy"))
    write(p / ".claude" / "commands" / "kdup.md", skill_md("command copy"))
    write(home / ".skillpath" / "skills" / "dup" / "SKILL.md", skill_md("user copy"))
    write(p / ".skillpath" / "skills" / "dup" / "SKILL.md", skill_md("project copy"))
    write(p / ".agents" / "skills" / "xdup" / "SKILL.md", skill_md("agents copy"))
    write(p / ".codex" / "skills" / "xdup" / "SKILL.md", skill_md("codex copy"))

    def reasons(name: str) -> list[str]:
        return [e["detail"] for e in cli.json("explain", name)["entries"][1:]]

    kdup = reasons("kdup")
    assert any(
        "(same priority 80; within claude, the user dir is scanned before project dirs)" in r
        for r in kdup
    )
    assert any("the user dir is scanned before legacy command files" in r for r in kdup)
    (dup,) = reasons("dup")
    assert "(same priority 100; within native, the project dir is scanned before user dirs)" in dup
    (xdup,) = reasons("xdup")
    assert "same priority 70; at equal priority agents comes before codex" in xdup
    text = " ".join(cli.run("explain", "kdup").stdout.split())
    assert "within claude, the user dir is scanned before project dirs" in text


def test_doctor_and_explain_fit_80_columns(cli: Cli, isolated_env: Env, terminal: None) -> None:
    deep = isolated_env.project / "a-rather-long-directory-name" / "and-another-one-below-it"
    write(
        isolated_env.project / ".skillpath" / "config.toml",
        f'[skills]\ncustom_directories = ["{deep.relative_to(isolated_env.project)}"]\n',
    )
    long_name = "x" * 64
    write(deep / long_name / "SKILL.md", skill_md("Long name.", name=long_name))
    write(deep / "日本語スキル" / "SKILL.md", skill_md("CJK", name="日本語スキル"))
    write(deep / "broken" / "SKILL.md", "---\nname: broken\ndescription: [unclosed\n---\nBody\n")
    write(isolated_env.project / ".claude" / "skills" / long_name / "SKILL.md", skill_md("dup"))
    outputs = {
        "doctor": cli.run("doctor").stdout,
        "explain": cli.run("explain", long_name).stdout,
        "explain-missing": cli.run("explain", "broken-thing").stdout,
        "list": cli.run("list").stdout,
        "list --all": cli.run("list", "--all").stdout,
    }
    for what, out in outputs.items():
        too_wide = [line for line in out.splitlines() if width(line) > 80]
        assert not too_wide, (what, too_wide)
    assert "日本語スキル" in outputs["doctor"] and "日本語スキル" in outputs["list"]
    # the CJK row lines up with the others: its SOURCE column starts where theirs does
    source = re.compile(r"  (claude|custom|packs)/(project|package)  ")
    rows = [line for line in outputs["list"].splitlines() if source.search(line)]
    starts = {width(line[: source.search(line).start()]) for line in rows}  # type: ignore[union-attr]
    assert len(rows) >= 2 and len(starts) == 1, rows
    assert re.search(r"broken.*frontmatter-yaml-error", " ".join(outputs["doctor"].split()))
