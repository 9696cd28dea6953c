"""``skillpath new`` and ``skillpath new-pack``: scaffolds that load and validate."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from skillpath.lint import has_errors, lint_paths, lint_skill_dir

from ..conftest import Env
from .conftest import Cli


def test_new_creates_a_valid_native_skill_that_loads(cli: Cli, isolated_env: Env) -> None:
    sub = isolated_env.project / "src" / "pkg"
    sub.mkdir(parents=True)
    res = cli.run("new", "pdf-tables", "--description", 'Extract tables: "quoted" too.', cwd=sub)
    assert res.exit_code == 0, res.output
    # the repo root's .agents/skills, which other agents read too
    folder = isolated_env.project / ".agents" / "skills" / "pdf-tables"
    assert res.stdout.startswith(f"Created {folder / 'SKILL.md'}")
    for target in ("agentskills", "claude", "codex", "opencode", "copilot"):
        assert lint_skill_dir(folder, target) == [], target
    data = cli.json("list")
    (s,) = [s for s in data["skills"] if s["name"] == "pdf-tables"]
    assert s["provider"] == "agents" and s["level"] == "project"
    assert s["description"] == 'Extract tables: "quoted" too.'


@pytest.mark.parametrize(
    ("agent", "folder", "provider"),
    [
        ("claude", ".claude/skills", "claude"),
        ("codex", ".codex/skills", "codex"),
        ("opencode", ".opencode/skills", "opencode"),
        ("github", ".github/skills", "github"),
        ("agents", ".agents/skills", "agents"),
        ("skillpath", ".skillpath/skills", "native"),
    ],
)
def test_new_agent_writes_that_agents_folder(
    cli: Cli, isolated_env: Env, agent: str, folder: str, provider: str
) -> None:
    data = cli.json("new", "helper", "--agent", agent, "--description", "Help. Use when asked.")
    assert data["path"] == str(isolated_env.project / folder / "helper")
    (s,) = [s for s in cli.json("list")["skills"] if s["name"] == "helper"]
    assert s["provider"] == provider


def test_new_agent_names_and_export_agree(cli: Cli, isolated_env: Env) -> None:
    from skillpath.cli.scaffold import _NEW_AGENTS
    from skillpath.export import AGENTS

    assert sorted(_NEW_AGENTS) == sorted(AGENTS)
    res = cli.run("new", "x", "--agent", "claude", "--dir", "somewhere")
    assert res.exit_code == 2 and "--dir and --agent" in res.stderr


def test_new_with_dir_and_json(cli: Cli, isolated_env: Env) -> None:
    data = cli.json("new", "helper", "--dir", ".claude/skills")
    folder = isolated_env.project / ".claude" / "skills" / "helper"
    # without --description the scaffold's placeholder is flagged until it is replaced
    findings = data.pop("findings")
    assert [(f["code"], f["level"], f["line"]) for f in findings] == [
        ("placeholder-description", "warning", 3)
    ]
    assert data == {
        "name": "helper",
        "path": str(folder),
        "skill_file": str(folder / "SKILL.md"),
    }
    assert "helper" in {s["name"] for s in cli.json("list")["skills"]}


def test_new_refuses_invalid_names_and_existing_folders(cli: Cli, isolated_env: Env) -> None:
    for bad in ("Bad", "a--b", "-a", "x" * 65, "a/b", "../up", "ünï"):
        res = cli.run("new", "--", bad)
        assert res.exit_code == 1, bad
        assert res.stderr.startswith(f"skillpath: error: invalid skill name {bad!r}")
        assert res.stderr.count("\n") == 1
    assert not (isolated_env.project / ".agents").exists()
    assert cli.run("new", "twice").exit_code == 0
    skill_file = isolated_env.project / ".agents" / "skills" / "twice" / "SKILL.md"
    skill_file.write_text("---\ndescription: mine\n---\nkeep me\n")
    res = cli.run("new", "twice")
    assert res.exit_code == 1 and "already exists" in res.stderr
    assert skill_file.read_text().endswith("keep me\n")


def test_new_pack_scaffold_is_consistent(cli: Cli, isolated_env: Env, tmp_path: Path) -> None:
    data = cli.json("new-pack", "Acme.Extra-Skills", "--skill", "triage", "--dir", str(tmp_path))
    target = tmp_path / "Acme.Extra-Skills"
    assert data["package"] == "acme_extra_skills" and data["pack"] == "acme-extra-skills"
    pyproject = tomllib.loads((target / "pyproject.toml").read_text())
    assert pyproject["project"]["name"] == "Acme.Extra-Skills"
    eps = pyproject["project"]["entry-points"]["skillpath.packs"]
    assert eps == {"acme-extra-skills": "acme_extra_skills.skills"}
    skills = target / "src" / "acme_extra_skills" / "skills"
    assert (skills / "triage" / "SKILL.md").is_file()
    assert not has_errors(lint_paths([skills], ["agentskills", "claude", "codex"]))
    assert sorted(data["files"]) == data["files"]
    assert cli.run("new-pack", "Acme.Extra-Skills", "--dir", str(tmp_path)).exit_code == 1
    assert cli.run("new-pack", "bad name!", "--dir", str(tmp_path)).exit_code == 1
    assert cli.run("new-pack", "ok-pack", "--skill", "Bad", "--dir", str(tmp_path)).exit_code == 1


def test_new_pack_installs_and_its_skills_load(cli: Cli, isolated_env: Env, tmp_path: Path) -> None:
    """Build and install the scaffold for real; the packs provider lists its skill."""
    assert cli.run("new-pack", "team-pack", "--dir", str(tmp_path)).exit_code == 0
    site = tmp_path / "site"
    install = [sys.executable, "-m", "uv", "pip", "install", "-q", "--no-deps"]
    subprocess.run(
        [*install, "--target", str(site), str(tmp_path / "team-pack")],
        check=True,
        env={**os.environ, "UV_NO_PROGRESS": "1"},
        timeout=300,
    )
    argv = ["list", "--json", "--provider", "packs", "--cwd", str(isolated_env.project)]
    proc = subprocess.run(
        [sys.executable, "-m", "skillpath", *argv],
        capture_output=True,
        text=True,
        env={**isolated_env.env, "PYTHONPATH": str(site)},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    skills = {s["name"]: s for s in json.loads(proc.stdout)["skills"]}
    assert skills["example"]["level"] == "package"
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=tmp_path / "team-pack",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert tests.returncode == 0, tests.stdout + tests.stderr


def test_the_new_provider_install_hint_works_without_pip(
    cli: Cli, isolated_env: Env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An environment uv made has no pip: the hint then installs with uv, naming this
    environment (``uv pip install`` alone would pick the system's Python)."""
    import importlib.util
    import shlex

    res = cli.run("new-provider", "team", "--dest", str(tmp_path / "p"))
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    (install,) = [ln.strip() for ln in lines if ln.startswith("  ") and " -e " in ln]
    words = shlex.split(install)
    if importlib.util.find_spec("pip") is None:
        assert words[:5] == ["python3", "-m", "uv", "pip", "install"]
        assert words[words.index("--python") + 1] == sys.executable
    else:
        assert words[:4] == [sys.executable, "-m", "pip", "install"]
    assert words[-2:] == ["-e", str(tmp_path / "p")]
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "pip" else real(name, *a)
    )
    res = cli.run("new-provider", "other", "--dest", str(tmp_path / "q"))
    assert "python3 -m uv pip install --python" in res.stdout
