"""The acme-skills example pack: valid skills, working scripts, install and uninstall."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from skillpath.frontmatter import parse_frontmatter

ROOT = Path(__file__).resolve().parents[3]
PACK = resources.files("acme_skills")
SKILLS = ["code-review", "release-checklist"]


def run(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize("name", SKILLS)
def test_skills_follow_the_agent_skills_rules(name: str) -> None:
    text = (PACK / name / "SKILL.md").read_text(encoding="utf-8")
    parsed = parse_frontmatter(text)
    assert not parsed.diagnostics
    assert parsed.data["name"] == name
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name) and len(name) <= 64
    assert 20 <= len(parsed.data["description"]) <= 1024
    # every relative link and ${SKILL_DIR} path in the body exists in the pack
    refs = re.findall(r"\]\(([^)#]+)\)", parsed.body or "")
    refs += re.findall(r"\$\{SKILL_DIR\}/(\S+)", parsed.body or "")
    assert refs
    for ref in refs:
        assert (PACK / name / ref).is_file(), ref


def git(repo: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    proc = run("git", "-C", repo, *args, env=env)
    assert proc.returncode == 0, proc.stderr


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "1.2.3"\n')
    (repo / "CHANGELOG.md").write_text("# Changes\n\n## 1.2.3 - 2026-01-01\n- first\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "init")
    return repo


def script(skill: str, name: str) -> Path:
    return Path(str(PACK / skill / "scripts" / name))


def test_check_release_passes_and_reports_problems(repo: Path) -> None:
    check = script("release-checklist", "check_release.py")
    ok = run(sys.executable, check, "1.2.3", repo)
    assert ok.returncode == 0 and "Ready to release 1.2.3." in ok.stdout
    git(repo, "tag", "v1.2.3")
    (repo / "dirty.txt").write_text("x")
    bad = run(sys.executable, check, "1.3.0", repo)
    assert bad.returncode == 1
    assert "working tree is not clean" in bad.stdout
    assert "project version is 1.2.3, expected 1.3.0" in bad.stdout
    assert "CHANGELOG.md has no section for 1.3.0" in bad.stdout
    tagged = run(sys.executable, check, "1.2.3", repo)
    assert "tag v1.2.3 already exists" in tagged.stdout


def test_diffstat_flags_risky_paths(repo: Path) -> None:
    (repo / "migrations").mkdir()
    (repo / "migrations" / "0001.sql").write_text("create table t (id int);\n")
    (repo / "big.py").write_text("x = 1\n" * 500)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "change")
    proc = run(sys.executable, script("code-review", "diffstat.py"), "HEAD~1", cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("2 files, +501 -0")
    assert "migrations/0001.sql  <- database migration" in proc.stdout
    assert "big.py  <- large diff: consider splitting" in proc.stdout


def test_pip_uninstall_removes_the_skills(tmp_path: Path) -> None:
    """A real venv: install core + packs provider + this pack, list, uninstall, list."""
    venv = tmp_path / "venv"
    uv_env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    uv_env["UV_NO_PROGRESS"] = "1"
    proc = run(
        sys.executable, "-m", "uv", "venv", "-q", "--python", sys.executable, venv, env=uv_env
    )
    assert proc.returncode == 0, proc.stderr
    python = venv / "bin" / "python"
    proc = run(
        sys.executable, "-m", "uv", "pip", "install", "-q", "--python", python,
        ROOT / "core", ROOT / "providers" / "packs", ROOT / "plugins" / "acme-skills",
        env=uv_env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    (project / ".git").mkdir(parents=True)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "SKILLPATH_CACHE_DIR": str(tmp_path / "cache"),
    }

    def listed() -> dict[str, str]:
        out = run(venv / "bin" / "skillpath", "list", "--json", "--cwd", project, env=env)
        assert out.returncode == 0, out.stderr
        return {s["name"]: s["provider"] for s in json.loads(out.stdout)["skills"]}

    assert listed() == {"code-review": "packs", "release-checklist": "packs"}
    proc = run(sys.executable, "-m", "uv", "pip", "uninstall", "-q", "--python", python,
               "acme-skills", env=uv_env)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert listed() == {}
    assert not (tmp_path / "cache" / "packs").exists()
