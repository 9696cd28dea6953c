"""Plugins that fail at import (raise or sys.exit), raise in each hook, return
wrong types or are slow: isolated, reported with the plugin's name, the rest of
the load intact; strict mode re-raises.

The plugins are a really installed distribution
(``fixtures/hostile-plugins``), loaded through their entry points.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from skillpath import PluginError, PluginHost, PromptError, ResolveError
from skillpath.session import SkillSession

from ..conftest import Env

FIXTURE = Path(__file__).parent / "fixtures" / "hostile-plugins"
UV_INSTALL = [sys.executable, "-m", "uv", "pip", "install", "-q", "--no-deps"]
ALL = "hp-exits,hp-exit-hook,hp-good,hp-raising,hp-slow,hp-wrong"


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build and install the hostile plugin distribution into a target dir."""
    target = tmp_path_factory.mktemp("hostile-site")
    subprocess.run(
        [*UV_INSTALL, "--target", str(target), str(FIXTURE)],
        check=True,
        env={**os.environ, "UV_NO_PROGRESS": "1"},
        timeout=120,
    )
    assert list(target.glob("sw_hostile_plugins-0.0.1.dist-info"))
    return target


@pytest.fixture
def plugins_on_path(hostile_site: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The hostile distribution importable in this process (fresh imports each test)."""
    monkeypatch.syspath_prepend(str(hostile_site))
    importlib.invalidate_caches()
    for mod in [m for m in sys.modules if m.startswith("sw_hostile")]:
        del sys.modules[mod]
    yield hostile_site
    for mod in [m for m in sys.modules if m.startswith("sw_hostile")]:
        del sys.modules[mod]


def _world(env: Env) -> dict[str, str]:
    root = env.project / "hp-skills"
    env.skill(root, "from-good", "from the good plugin", body="Good body.\n")
    env.skill(".skillpath/skills", "native-one", "a native skill", body="Native body.\n")
    return {**env.env, "HP_ROOT": str(root), "SKILLPATH_PLUGINS": f"native,{ALL}"}


def _messages(diags: object) -> str:
    return "\n".join(f"{d.code}: {d.message}" for d in diags)  # type: ignore[attr-defined]


def test_every_misbehaviour_is_isolated_and_named(isolated_env: Env, plugins_on_path: Path) -> None:
    env = _world(isolated_env)
    host = PluginHost.create(env=env)
    status = {r.name: r.status for r in host.records}
    assert status["hp-exits"] == "failed"  # sys.exit(3) at import did not end the process
    assert all(status[n] == "loaded" for n in ("hp-good", "hp-raising", "hp-wrong", "hp-slow"))
    session = SkillSession.open(isolated_env.project, home=isolated_env.home, env=env, host=host)
    res = session.result
    text = _messages(res.diagnostics)
    # discover_skills: the failures are reported, the other providers still ran ...
    assert "'hp-exits'" in text and "SystemExit(3)" in text
    assert "'hp-exit-hook'" in text and "SystemExit(4)" in text
    assert "'hp-raising': discover_skills raised" in text and "hp discover exploded" in text
    assert "'hp-wrong': discover_skills returned DiscoveryResult" in text  # holds a str
    assert "'hp-wrong': discover_skills returned dict" in text
    # ... but hp-raising's filter raises on every skill: filters fail closed, so
    # every skill found (by the good provider and by native) is dropped
    skipped = {s.skill.name: s for s in res.skipped}
    assert {"from-good", "native-one"} <= set(skipped)
    assert not {"from-good", "native-one"} & set(res.names)
    for entry in skipped.values():
        assert entry.reason == "filter-error"
        assert "plugin 'hp-raising'" in entry.detail and "hp filter exploded" in entry.detail
    # one diagnostic for the failing filter, however many skills it dropped
    assert text.count("'hp-raising': filter_skill raised") == 1
    codes = {d.code for d in res.diagnostics}
    assert {"plugin-failed", "plugin-hook-failed", "plugin-bad-return"} <= codes


def test_a_filter_with_a_wrong_return_drops_every_skill_once_reported(
    isolated_env: Env, plugins_on_path: Path
) -> None:
    env = {**_world(isolated_env), "SKILLPATH_PLUGINS": "native,hp-good,hp-wrong"}
    host = PluginHost.create(env=env)
    res = SkillSession.open(isolated_env.project, home=isolated_env.home, env=env, host=host).result
    assert not {"from-good", "native-one"} & set(res.names)
    details = {s.skill.name: (s.reason, s.detail) for s in res.skipped}
    assert details["native-one"] == (
        "filter-error",
        "plugin 'hp-wrong': filter_skill returned str, not a Veto, a bool or None",
    )
    wrong = [d for d in res.diagnostics if "'hp-wrong': filter_skill" in d.message]
    assert [d.code for d in wrong] == ["plugin-bad-return"]


def test_transform_failures_abort_and_resolvers_stay_isolated(
    isolated_env: Env, plugins_on_path: Path
) -> None:
    env = {**_world(isolated_env), "SKILLPATH_PLUGINS": "native,hp-good"}
    host = PluginHost.create(env=env)
    session = SkillSession.open(isolated_env.project, home=isolated_env.home, env=env, host=host)
    rendered = session.invoke("native-one")
    assert "Native body." in rendered.text
    assert "---" not in rendered.text  # the built-in frontmatter step ran
    assert rendered.text.rstrip().endswith("[good-transform]")
    from sw_hostile import raising, wrong

    # the skills are loaded; the misbehaving plugins join for the later hooks
    # (under other names: the allow-list blocks their entry-point names)
    assert host.add(raising, "hp-raising-late") and host.add(wrong, "hp-wrong-late")
    # transform_prompt fails closed: a raising step (hp-raising sorts first) aborts
    with pytest.raises(PromptError, match="'hp-raising-late': transform_prompt raised") as info:
        session.invoke("native-one", force=True)
    assert "hp transform exploded" in str(info.value)
    host.pm.unregister(name="hp-raising-late")
    with pytest.raises(PromptError, match="'hp-wrong-late': transform_prompt returned int"):
        session.invoke("native-one", force=True)

    # resolve_url: a raising and a wrong resolver do not hide the good ones
    assert host.add(raising, "hp-raising-late")
    assert session.resolve("hp://x").content == "good resolver content"
    assert "Native body." in session.resolve("skill://native-one").content
    text = _messages(session.diagnostics)
    assert "'hp-raising-late': resolve_url raised" in text
    assert "'hp-wrong-late': resolve_url returned str" in text
    with pytest.raises(ResolveError):
        session.resolve("nobody://handles-this")


@pytest.mark.parametrize(
    ("allow", "needle"),
    [
        ("hp-exits", "hp-exits"),
        ("hp-exit-hook", "hp-exit-hook"),
        ("hp-raising", "hp-raising"),
        ("hp-wrong", "hp-wrong"),
    ],
)
def test_strict_mode_reraises_with_the_plugin_name(
    isolated_env: Env, plugins_on_path: Path, allow: str, needle: str
) -> None:
    env = {**_world(isolated_env), "SKILLPATH_PLUGINS": f"native,{allow}"}
    with pytest.raises(PluginError) as info:
        host = PluginHost.create(env=env, strict=True)
        SkillSession.open(isolated_env.project, home=isolated_env.home, env=env, host=host)
    assert info.value.plugin == needle


def test_strict_mode_reraises_in_transform_and_resolve(
    isolated_env: Env, plugins_on_path: Path
) -> None:
    env = {**_world(isolated_env), "SKILLPATH_PLUGINS": "native,hp-good"}
    host = PluginHost.create(env=env, strict=True)
    session = SkillSession.open(isolated_env.project, home=isolated_env.home, env=env, host=host)
    from sw_hostile import raising, wrong

    assert host.add(raising, "hp-raising-late")
    with pytest.raises(PluginError, match="hp-raising-late"):
        session.invoke("native-one")
    host.pm.unregister(name="hp-raising-late")
    assert host.add(wrong, "hp-wrong-late")
    with pytest.raises(PluginError, match="hp-wrong-late"):
        session.resolve("hp://x")


def test_slow_plugins_are_reported_not_waited_for_twice(
    isolated_env: Env, plugins_on_path: Path
) -> None:
    env = {
        **_world(isolated_env),
        "SKILLPATH_PLUGINS": "native,hp-slow,hp-good",
        "SKILLPATH_SLOW_HOOK_SECONDS": "0.05",
        "HP_HOOK_SLEEP": "0.1",
    }
    os.environ["HP_IMPORT_SLEEP"] = "0.1"
    try:
        host = PluginHost.create(env=env)
    finally:
        del os.environ["HP_IMPORT_SLEEP"]
    assert host.slow_seconds == 0.05
    session = SkillSession.open(isolated_env.project, home=isolated_env.home, env=env, host=host)
    # timing-dependent: kept for doctor, never part of the load's diagnostics
    assert not [d for d in session.result.diagnostics if d.code == "plugin-slow"]
    slow = host.slow_findings()
    assert {(d.level, d.code) for d in slow} == {("warning", "plugin-slow")}
    text = _messages(slow)
    assert "'hp-slow' (sw-hostile-plugins): import took" in text
    assert "'hp-slow': discover_skills took" in text
    assert "from-good" in session.result.names  # still loaded, nothing dropped
    # the default threshold does not report a 0.1 s hook
    quiet = {**env, "SKILLPATH_SLOW_HOOK_SECONDS": "not a number"}
    host = PluginHost.create(env=quiet)
    assert host.slow_seconds == 2.0
    session = SkillSession.open(isolated_env.project, home=isolated_env.home, env=quiet, host=host)
    assert host.slow_findings() == []


def test_cli_survives_a_plugin_that_exits(isolated_env: Env, hostile_site: Path) -> None:
    env = {
        **_world(isolated_env),
        "PYTHONPATH": str(hostile_site),
        "SKILLPATH_PLUGINS": "native,hp-exits,hp-exit-hook,hp-good",
    }
    argv = [sys.executable, "-m", "skillpath", "list", "--json"]
    argv += ["--cwd", str(isolated_env.project)]
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)  # nothing a plugin printed corrupts the JSON
    assert {"from-good", "native-one"} <= {s["name"] for s in data["skills"]}
    assert any("'hp-exits'" in d["message"] for d in data["diagnostics"])
    proc = subprocess.run(
        argv, capture_output=True, text=True, env={**env, "SKILLPATH_STRICT": "1"}, timeout=60
    )
    assert proc.returncode == 1
    assert "hp-" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
