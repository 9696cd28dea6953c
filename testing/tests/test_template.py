"""``skillpath new-provider`` makes a provider that installs, registers and passes the kit.

The template is package data of the core, so the command runs outside this repository;
the provider tutorial's commands and edits run as written (in a virtual environment of
their own, never a global install).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TUTORIAL = REPO / "docs" / "tutorials" / "provider.md"
PLACEHOLDER = re.compile(r"__(PROVIDER_ID|PACKAGE|DISTRIBUTION|PRIORITY|DESCRIPTION)__")


def run(*args: str | Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    """Run a command, capturing text output."""
    return subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, timeout=600, **kwargs
    )  # type: ignore[call-overload, no-any-return]


def new_provider(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``skillpath new-provider ARGS`` from ``cwd``."""
    return run(sys.executable, "-m", "skillpath", "new-provider", *args, cwd=cwd)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A provider made by the command, run from a directory outside the repository."""
    outside = tmp_path_factory.mktemp("tpl")
    proc = new_provider(
        "acme-tools", "--priority", "42", "--description", "Acme skills", cwd=outside
    )
    assert proc.returncode == 0, proc.stderr
    assert "pip install " in proc.stdout and " -e " in proc.stdout and sys.executable in proc.stdout
    return outside / "skillpath-acme-tools"


def test_shape_and_no_placeholder_left(generated: Path) -> None:
    files = sorted(str(p.relative_to(generated)) for p in generated.rglob("*") if p.is_file())
    assert files == [
        "README.md",
        "pyproject.toml",
        "src/skillpath_acme_tools/__init__.py",
        "src/skillpath_acme_tools/py.typed",
        "tests/test_conformance.py",
        "tests/test_skillpath_acme_tools.py",
    ]
    for path in generated.rglob("*"):
        if path.is_file():
            assert not PLACEHOLDER.search(path.read_text()), path
    meta = tomllib.loads((generated / "pyproject.toml").read_text())
    assert meta["project"]["name"] == "skillpath-acme-tools"
    assert meta["project"]["entry-points"]["skillpath"] == {"acme-tools": "skillpath_acme_tools"}
    assert meta["project"]["dependencies"] == ["skillpath-core>=0.1,<0.2"]
    assert "PRIORITY = 42" in (generated / "src/skillpath_acme_tools/__init__.py").read_text()


def test_json_output(tmp_path: Path) -> None:
    proc = run(
        sys.executable, "-m", "skillpath", "new-provider", "x-y", "--dest", "p", "--json",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    import json

    data = json.loads(proc.stdout)
    assert data["distribution"] == "skillpath-x-y" and data["package"] == "skillpath_x_y"
    assert data["path"] == str(tmp_path / "p") and "pyproject.toml" in data["files"]


def test_generated_code_is_ruff_clean(generated: Path) -> None:
    proc = run(
        sys.executable, "-m", "ruff", "check", "--no-cache", "--config", REPO / "pyproject.toml",
        generated,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_generated_provider_passes_the_kit(generated: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    proc = run(
        sys.executable, "-m", "uv", "pip", "install", "-q", "--no-deps", "--target", site,
        generated,
        env={**os.environ, "UV_NO_PROGRESS": "1", "UV_LINK_MODE": "copy"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    pythonpath = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p)
    proc = run(
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--tb=short",
        "--import-mode=importlib", "-o", "addopts=", generated / "tests",
        cwd=generated, env={**os.environ, "PYTHONPATH": pythonpath},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    counts = dict((k, int(n)) for n, k in re.findall(r"(\d+) (passed|skipped|failed)", proc.stdout))
    assert counts.get("passed", 0) + counts.get("skipped", 0) == 18, proc.stdout
    assert counts.get("skipped", 0) <= 1, proc.stdout  # only the chmod test, when run as root


def test_bad_id_bad_description_and_existing_dest_are_refused(
    generated: Path, tmp_path: Path
) -> None:
    proc = new_provider("Bad_Id", "--dest", tmp_path / "x", cwd=tmp_path)
    assert proc.returncode != 0 and "invalid provider id" in proc.stderr
    proc = new_provider("ok", "--description", 'say "hi"', "--dest", tmp_path / "y", cwd=tmp_path)
    assert proc.returncode != 0 and "invalid description" in proc.stderr
    proc = new_provider("acme-tools", "--dest", generated, cwd=tmp_path)
    assert proc.returncode != 0 and "already exists" in proc.stderr
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


# -- the tutorial, as written ---------------------------------------------------
def blocks(language: str) -> list[str]:
    """The tutorial's fenced code blocks in ``language``."""
    text = TUTORIAL.read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.S | re.M)


def shell_lines(tmp: Path) -> list[list[str]]:
    """The tutorial's commands that make, install and test the distribution, as argv
    lists, with ``../skillpath-team`` moved to ``tmp`` and ``python3`` this interpreter
    (``uv run`` is the repository's own environment, which this test runs in)."""
    out = []
    for block in blocks("sh"):
        for line in block.splitlines():
            line = line.split("  #", 1)[0].strip()
            if "skillpath-team" not in line or line.startswith("pip "):
                continue  # (step 4's install: tests/docs/test_tutorials.py runs it)
            line = line.replace("../skillpath-team", str(tmp / "skillpath-team"))
            argv = shlex.split(line)
            if argv[:4] == ["python3", "-m", "uv", "run"]:
                argv = [sys.executable, "-m", *argv[4:]]
            elif argv[0] == "python3":
                argv[0] = sys.executable
            out.append(argv)
    return out


def test_the_provider_tutorial_runs_as_written(tmp_path: Path) -> None:
    steps = shell_lines(tmp_path)
    kinds = [" ".join(a[1:4]) for a in steps]
    assert kinds == [
        "-m skillpath new-provider",
        "-m uv venv",
        "-m uv pip",
        "-m pytest -q",
        "-m pytest -q",
    ], steps
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["UV_NO_PROGRESS"] = "1"
    # copies, not hard links into the shared package cache: a new link changes the ctime
    # of every installed copy of that file, which other environments' checks observe
    env["UV_LINK_MODE"] = "copy"
    dest = tmp_path / "skillpath-team"
    make, venv, install, test_generated, test_edited = steps
    for argv in (make, venv, install, test_generated):
        proc = run(*argv, cwd=REPO, env=env)
        assert proc.returncode == 0, (argv, proc.stdout, proc.stderr)
    assert re.search(r"\d+ passed", proc.stdout), proc.stdout

    # the tutorial's edits: its provider module, conformance class and own rules
    source = (REPO / "docs" / "examples" / "team_provider.py").read_text(encoding="utf-8")
    assert "docs-test: file=docs/examples/team_provider.py " in TUTORIAL.read_text(encoding="utf-8")
    (dest / "src" / "skillpath_team" / "__init__.py").write_text(source, encoding="utf-8")
    python = blocks("python")
    (conformance,) = [b for b in python if "class TestTeamConformance" in b]
    (rules,) = [b for b in python if "def test_config_roots_then_the_environment" in b]
    (dest / "tests" / "test_conformance.py").write_text(conformance, encoding="utf-8")
    (dest / "tests" / "test_skillpath_team.py").write_text(rules, encoding="utf-8")
    proc = run(*test_edited, cwd=REPO, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"\d+ passed", proc.stdout) and "failed" not in proc.stdout, proc.stdout
