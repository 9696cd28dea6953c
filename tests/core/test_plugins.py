"""Plugin loading from really installed distributions, with failures isolated."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import Env

FIXTURE = Path(__file__).parent.parent / "fixtures" / "plugin-dist"


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Install the test plugin distribution (really built and installed) into a target dir."""
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "uv",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            str(FIXTURE),
        ],
        check=True,
        env={**os.environ, "UV_NO_PROGRESS": "1"},
    )
    assert list(target.glob("sw_testplugins-1.2.3.dist-info"))
    return target


def run_list(
    env: Env, site: Path, *args: str, **extra_env: str
) -> subprocess.CompletedProcess[str]:
    good = env.project / "good-skills"
    (good / "from-plugin").mkdir(parents=True, exist_ok=True)
    (good / "from-plugin" / "SKILL.md").write_text("---\ndescription: third party\n---\n")
    full_env = {
        **env.env,
        "PYTHONPATH": str(site),
        "TP_GOOD_ROOT": str(good),
        **extra_env,
    }
    return subprocess.run(
        [sys.executable, "-m", "skillweave", "list", "--json", "--cwd", str(env.project), *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=60,
    )


def test_broken_plugins_are_isolated_and_reported(isolated_env: Env, plugin_site: Path) -> None:
    isolated_env.skill(".skillweave/skills", "native-one", "native")
    proc = run_list(isolated_env, plugin_site)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    names = {s["name"]: s["provider"] for s in data["skills"]}
    assert names["from-plugin"] == "tp-good"
    assert names["native-one"] == "native"
    messages = "\n".join(d["message"] for d in data["diagnostics"])
    assert "'tp-broken'" in messages and "broken on purpose" in messages
    assert "'tp-raising'" in messages and "discover exploded" in messages
    assert "filter exploded" in messages
    assert "'tp-typo'" in messages and "discover_skill" in messages


def test_strict_mode_reraises(isolated_env: Env, plugin_site: Path) -> None:
    proc = run_list(isolated_env, plugin_site, SKILLWEAVE_STRICT="1")
    assert proc.returncode != 0
    assert "tp-" in proc.stderr


def test_block_and_allow_list(isolated_env: Env, plugin_site: Path) -> None:
    proc = run_list(
        isolated_env,
        plugin_site,
        SKILLWEAVE_DISABLE_PLUGINS="tp-broken,tp-raising,tp-typo",
        SKILLWEAVE_STRICT="1",
    )
    assert proc.returncode == 0, proc.stderr
    assert "from-plugin" in {s["name"] for s in json.loads(proc.stdout)["skills"]}
    proc = run_list(isolated_env, plugin_site, SKILLWEAVE_PLUGINS="native", SKILLWEAVE_STRICT="1")
    assert proc.returncode == 0, proc.stderr
    providers = {s["provider"] for s in json.loads(proc.stdout)["skills"]}
    assert "tp-good" not in providers


def test_autoload_off(isolated_env: Env, plugin_site: Path) -> None:
    isolated_env.skill(".skillweave/skills", "native-one", "native")
    proc = run_list(isolated_env, plugin_site, SKILLWEAVE_NO_AUTOLOAD="1")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["skills"] == []


def test_plugin_records_in_process(
    isolated_env: Env, plugin_site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib

    monkeypatch.syspath_prepend(str(plugin_site))
    importlib.invalidate_caches()
    from skillweave import PluginHost

    host = PluginHost.create(env={"SKILLWEAVE_DISABLE_PLUGINS": "tp-typo"})
    records = {r.name: r for r in host.records}
    assert records["tp-good"].status == "loaded"
    assert records["tp-good"].distribution == "sw-testplugins"
    assert records["tp-good"].version == "1.2.3"
    assert records["tp-good"].priority == 42
    assert records["tp-good"].hooks == ("discover_skills",)
    assert records["tp-broken"].status == "failed" and "ImportError" in records["tp-broken"].error
    assert records["tp-typo"].status == "blocked"
    assert records["skillweave.filters"].status == "builtin"
