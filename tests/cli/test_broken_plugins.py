"""Every command works, in a real subprocess, when installed plugins are broken;
``providers``/``plugins`` shows each plugin's origin and status."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import Env

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "plugin-dist"


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test plugin distribution (good, broken, raising, misspelled), really installed."""
    target = tmp_path_factory.mktemp("site")
    install = [sys.executable, "-m", "uv", "pip", "install", "-q", "--no-deps"]
    subprocess.run(
        [*install, "--target", str(target), str(FIXTURE)],
        check=True,
        env={**os.environ, "UV_NO_PROGRESS": "1"},
        timeout=300,
    )
    return target


def run(env: Env, site: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    """``python -m skillpath <args> --cwd <project>`` with the plugins on the path."""
    return subprocess.run(
        [sys.executable, "-m", "skillpath", args[0], "--cwd", str(env.project), *args[1:]],
        capture_output=True,
        text=True,
        env={**env.env, "PYTHONPATH": str(site), **extra},
        timeout=120,
    )


def test_every_command_survives_broken_plugins(isolated_env: Env, plugin_site: Path) -> None:
    isolated_env.skill(".skillpath/skills", "native-one", "A native skill.")
    expected = {
        ("list",): 0,
        ("list", "--all"): 0,
        # tp-raising's filter raises on every skill: filters fail closed, so the
        # skill is not loaded: show and explain say why and exit 1 (no traceback)
        ("show", "native-one"): 1,
        ("explain", "native-one"): 1,
        ("doctor",): 1,  # the failed plugins are error diagnostics
        ("validate", ".skillpath/skills", "--target", "claude"): 0,
        ("providers",): 0,
        ("plugins",): 0,
        ("new", "fresh-skill"): 0,
    }
    for args, code in expected.items():
        proc = run(isolated_env, plugin_site, *args)
        assert proc.returncode == code, (args, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr, args
    shown = run(isolated_env, plugin_site, "show", "native-one")
    assert "plugin 'tp-raising': filter_skill raised" in shown.stderr
    assert shown.stderr.strip().count("\n") == 0
    explained = run(isolated_env, plugin_site, "explain", "native-one")
    assert "filter-error" in explained.stdout or "filter failed" in explained.stdout
    doctor = run(isolated_env, plugin_site, "doctor", "--json")
    data = json.loads(doctor.stdout)
    failed = [d["message"] for d in data["diagnostics"] if d["code"] == "plugin-failed"]
    assert any("tp-broken" in m and "broken on purpose" in m for m in failed)
    assert doctor.stderr.strip().count("\n") == 0


def test_providers_lists_origin_hooks_and_failures(isolated_env: Env, plugin_site: Path) -> None:
    proc = run(
        isolated_env, plugin_site, "providers", "--json", SKILLPATH_DISABLE_PLUGINS="tp-raising"
    )
    assert proc.returncode == 0, proc.stderr
    records = {r["name"]: r for r in json.loads(proc.stdout)["plugins"]}
    good = records["tp-good"]
    assert good == {
        "name": "tp-good",
        "status": "loaded",
        "distribution": "sw-testplugins",
        "version": "1.2.3",
        "value": "sw_testplugins.good",
        "hooks": ["discover_skills"],
        "priority": 42,
        "provider": "tp-good",
        "error": None,
    }
    assert records["tp-broken"]["status"] == "failed"
    assert "broken on purpose" in records["tp-broken"]["error"]
    assert records["tp-typo"]["status"] == "failed"
    assert "discover_skill" in records["tp-typo"]["error"]
    assert records["tp-raising"]["status"] == "blocked"
    assert records["skillpath.filters"]["status"] == "builtin"
    assert records["native"]["priority"] == 100
    text = run(isolated_env, plugin_site, "plugins").stdout
    assert "Failed:" in text and "tp-broken: import failed" in text
    assert "sw_testplugins.good: discover_skills" in text
    table_lines = text.split("\n\n")[0].splitlines()
    assert all(len(line) <= 80 for line in table_lines)


def test_strict_mode_fails_with_one_line(isolated_env: Env, plugin_site: Path) -> None:
    proc = run(isolated_env, plugin_site, "list", SKILLPATH_STRICT="1")
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("skillpath: error: plugin 'tp-")
