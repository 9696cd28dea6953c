"""providers/_template makes a provider that installs, registers and passes the kit."""

from __future__ import annotations

import filecmp
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "providers" / "_template"
SCRIPT = TEMPLATE / "new_provider.py"
PLACEHOLDER = re.compile(r"__(PROVIDER_ID|PACKAGE|DISTRIBUTION|PRIORITY|DESCRIPTION)__")


def run(*args: str | Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    """Run a command, capturing text output."""
    return subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, timeout=300, **kwargs
    )  # type: ignore[call-overload, no-any-return]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A provider made by the script."""
    dest = tmp_path_factory.mktemp("tpl") / "acme-tools"
    proc = run(
        sys.executable, SCRIPT, "acme-tools", "--priority", "42", "--description", "Acme skills",
        "--dest", dest,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "skillpath-acme-tools>=0.1,<0.2" in proc.stdout
    return dest


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
        env={**os.environ, "UV_NO_PROGRESS": "1"},
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
    assert counts.get("passed", 0) + counts.get("skipped", 0) == 16, proc.stdout
    assert counts.get("skipped", 0) <= 1, proc.stdout  # only the chmod test, when run as root


def test_sed_recipe_makes_the_same_tree(generated: Path, tmp_path: Path) -> None:
    readme = (TEMPLATE / "README.md").read_text()
    (line,) = [ln for ln in readme.splitlines() if ln.startswith("id=acme-tools ")]
    dest = tmp_path / "acme-tools"
    line = line.replace('desc="Acme agent skills"', 'desc="Acme skills"').replace(
        "prio=40", "prio=42"
    )
    line = line.replace("dest=providers/acme-tools", f"dest={dest}")
    proc = run("bash", "-c", line, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    cmp = filecmp.dircmp(generated, dest)

    def same(c: filecmp.dircmp[str]) -> bool:
        _, mismatch, errors = filecmp.cmpfiles(c.left, c.right, c.common_files, shallow=False)
        return not (c.left_only or c.right_only or mismatch or errors) and all(
            same(sub) for sub in c.subdirs.values()
        )

    assert same(cmp)


def test_bad_id_and_existing_dest_are_refused(generated: Path) -> None:
    proc = run(sys.executable, SCRIPT, "Bad_Id", "--dest", generated.parent / "x")
    assert proc.returncode != 0 and "invalid provider id" in proc.stderr
    proc = run(sys.executable, SCRIPT, "acme-tools", "--dest", generated)
    assert proc.returncode != 0 and "already exists" in proc.stderr
