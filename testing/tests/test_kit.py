"""The conformance kit catches non-conforming providers (it can fail, and says where).

A deliberately sloppy provider is really built and installed into a target dir
(its entry point is found through ``importlib.metadata`` like any other), and
a generated test module runs the kit against it in a pytest subprocess.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

SLOPPY_PYPROJECT = """\
[project]
name = "sloppy-provider"
version = "0.1.0"
dependencies = []

[project.entry-points.skillpath]
sloppy = "sloppy_provider"
clock-files = "clock_files_provider"
clock-declared = "clock_declared_provider"

[build-system]
requires = ["hatchling>=1.25"]
build-backend = "hatchling.build"

[tool.hatch.build.targets.wheel]
packages = ["sloppy_provider", "clock_files_provider", "clock_declared_provider"]
"""

# Recursive, follows dot dirs, never reports anything, records no roots.
SLOPPY_MODULE = """\
from skillpath import DiscoveryResult, SkillSource, hookimpl
from skillpath.scan import load_skill_file

PROVIDER_ID = "sloppy"
PRIORITY = 42


@hookimpl
def discover_skills(ctx):
    root = ctx.home / ".sloppy" / "skills"
    skills = []
    if root.is_dir():
        for path in sorted(root.rglob("SKILL.md")):
            skill, _ = load_skill_file(
                path, SkillSource(PROVIDER_ID, "user", root), priority=PRIORITY
            )
            if skill is not None:
                skills.append(skill)
    return DiscoveryResult(PROVIDER_ID, PRIORITY, tuple(skills))
"""

# Skills from a root, plus one whose description is the time: it reads the clock,
# which no replay can check. {declared} is what it says it depends on.
CLOCK_MODULE = """\
import time

from skillpath import Discovery, Skill, SkillSource, depends_on, hookimpl

PROVIDER_ID = "{provider_id}"
PRIORITY = 43


@hookimpl
@depends_on({declared})
def discover_skills(ctx):
    d = Discovery(PROVIDER_ID, PRIORITY)
    d.scan(ctx.home / ".clock" / "skills", "user")
    result = d.result()
    now = Skill("now", str(time.time_ns()), None, None, SkillSource(PROVIDER_ID, "user"))
    return type(result)(PROVIDER_ID, PRIORITY, (*result.skills, now), result.diagnostics,
                        result.roots)
"""

TEST_MODULE = """\
from skillpath_testing import ProviderConformance, Root


class TestClockDeclaredFiles(ProviderConformance):
    # reads the clock but says it depends on files only: replayed stale
    provider_id = "clock-files"
    priority = 43

    def skill_roots(self, home, project):
        return [Root(home / ".clock" / "skills", "user")]


class TestClockDeclared(TestClockDeclaredFiles):
    provider_id = "clock-declared"


class TestSloppy(ProviderConformance):
    provider_id = "sloppy"
    priority = 42
    distribution = "sloppy-provider"

    def skill_roots(self, home, project):
        return [Root(home / ".sloppy" / "skills", "user")]


class TestNativeDeclaredWrong(ProviderConformance):
    # a correct provider, declared with the wrong priority and the roots reversed
    provider_id = "native"
    priority = 99
    distribution = "skillpath-native"
    requires_description = True

    def skill_roots(self, home, project):
        return [
            Root(home / ".skillpath" / "skills", "user"),
            Root(project / ".skillpath" / "skills", "project"),
        ]


class TestNativeDeclaredRight(TestNativeDeclaredWrong):
    priority = 100

    def skill_roots(self, home, project):
        return list(reversed(super().skill_roots(home, project)))
"""


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    """Run the kit against the sloppy provider; ``{class: {test: outcome}}``."""
    base = tmp_path_factory.mktemp("kit")
    src = base / "sloppy-src"
    (src / "sloppy_provider").mkdir(parents=True)
    (src / "pyproject.toml").write_text(SLOPPY_PYPROJECT)
    (src / "sloppy_provider" / "__init__.py").write_text(SLOPPY_MODULE)
    for module, provider_id, declared in (
        ("clock_files_provider", "clock-files", '"files"'),
        ("clock_declared_provider", "clock-declared", '"files", "clock"'),
    ):
        (src / module).mkdir()
        text = CLOCK_MODULE.format(provider_id=provider_id, declared=declared)
        (src / module / "__init__.py").write_text(text)
    site = base / "site"
    subprocess.run(
        [
            *(sys.executable, "-m", "uv", "pip", "install", "-q", "--no-deps"),
            *("--target", str(site), str(src)),
        ],
        check=True,
        env={**os.environ, "UV_NO_PROGRESS": "1"},
        timeout=120,
    )
    run = base / "run"
    run.mkdir()
    (run / "test_sloppy_conformance.py").write_text(TEST_MODULE)
    report = base / "report.xml"
    pythonpath = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": pythonpath}
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--tb=line"),
            *("--import-mode=importlib", f"--junitxml={report}", "-o", "addopts=", str(run)),
        ],
        cwd=run,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr  # 1 = some tests failed
    result: dict[str, dict[str, str]] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        cls = case.get("classname", "").rsplit(".", 1)[-1]
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[child.tag]
        result.setdefault(cls, {})[case.get("name", "")] = outcome
    return result


def test_sloppy_provider_fails_the_layout_rules(outcomes: dict[str, dict[str, str]]) -> None:
    sloppy = outcomes["TestSloppy"]
    failed = {name for name, outcome in sloppy.items() if outcome == "failed"}
    assert failed == {
        "test_roots_levels_order_and_priority",  # no RootScan recorded
        "test_one_level_only",  # recursive
        "test_dot_entries_skipped",  # walks into dot dirs
        "test_symlinked_skill_dirs_followed",  # rglob does not follow symlinked dirs
        "test_dangling_symlink_is_a_diagnostic",  # silent
        "test_root_that_is_a_file_is_a_diagnostic",  # silent
        "test_a_broken_root_does_not_stop_the_others",  # silent
        "test_hooks_declare_what_they_depend_on",  # no depends_on
    }
    # what it does get right still passes: the kit is not failing blindly
    assert sloppy["test_entry_point_is_installed"] == "passed"
    assert sloppy["test_loads_through_load_skills"] == "passed"
    assert sloppy["test_missing_roots_are_silent"] == "passed"
    assert sloppy["test_description_requirement"] == "passed"
    # undeclared, it is never replayed: not stale
    assert sloppy["test_a_replayed_list_is_never_stale"] == "passed"


def test_a_provider_reading_the_clock_is_not_replayed_stale(
    outcomes: dict[str, dict[str, str]],
) -> None:
    """A provider that reads what no replay can check fails the kit when it declares
    files only (its list was replayed stale), and passes when it declares the clock."""
    assert outcomes["TestClockDeclaredFiles"]["test_a_replayed_list_is_never_stale"] == "failed"
    assert outcomes["TestClockDeclaredFiles"]["test_hooks_declare_what_they_depend_on"] == "passed"
    assert outcomes["TestClockDeclared"]["test_a_replayed_list_is_never_stale"] == "passed"
    assert outcomes["TestClockDeclared"]["test_hooks_declare_what_they_depend_on"] == "passed"


def test_wrong_declarations_fail(outcomes: dict[str, dict[str, str]]) -> None:
    wrong = outcomes["TestNativeDeclaredWrong"]
    assert wrong["test_entry_point_is_installed"] == "failed"  # priority 99 != 100
    assert wrong["test_roots_levels_order_and_priority"] == "failed"
    assert wrong["test_first_root_wins_a_name"] == "failed"


def test_right_declarations_pass(outcomes: dict[str, dict[str, str]]) -> None:
    right = outcomes["TestNativeDeclaredRight"]
    assert len(right) == 17
    assert set(right.values()) <= {"passed", "skipped"}
