"""Plugin loading from really installed distributions, with failures isolated."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import attrs
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
        [sys.executable, "-m", "skillpath", "list", "--json", "--cwd", str(env.project), *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=60,
    )


def test_broken_plugins_are_isolated_and_reported(isolated_env: Env, plugin_site: Path) -> None:
    isolated_env.skill(".skillpath/skills", "native-one", "native")
    # tp-raising's filter raises on every skill: filters fail closed, so every
    # skill is dropped (and named), while its failing discovery is only reported
    proc = run_list(isolated_env, plugin_site, "--all")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["skills"] == []
    skipped = {s["name"]: s for s in data["skipped"]}
    assert skipped["from-plugin"]["provider"] == "tp-good"
    assert skipped["native-one"]["provider"] == "native"
    for entry in skipped.values():
        assert entry["reason"] == "filter-error"
        assert "'tp-raising'" in entry["detail"] and "filter exploded" in entry["detail"]
    messages = "\n".join(d["message"] for d in data["diagnostics"])
    assert "'tp-broken'" in messages and "broken on purpose" in messages
    assert "'tp-raising'" in messages and "discover exploded" in messages
    assert messages.count("filter exploded") == 1  # one diagnostic, however many skills
    assert "'tp-typo'" in messages and "discover_skill" in messages
    # without the raising filter, the good provider's and the native skills load
    proc = run_list(isolated_env, plugin_site, SKILLPATH_DISABLE_PLUGINS="tp-raising")
    assert proc.returncode == 0, proc.stderr
    names = {s["name"]: s["provider"] for s in json.loads(proc.stdout)["skills"]}
    assert names["from-plugin"] == "tp-good"
    assert names["native-one"] == "native"


def test_strict_mode_reraises(isolated_env: Env, plugin_site: Path) -> None:
    proc = run_list(isolated_env, plugin_site, SKILLPATH_STRICT="1")
    assert proc.returncode != 0
    assert "tp-" in proc.stderr


def test_block_and_allow_list(isolated_env: Env, plugin_site: Path) -> None:
    proc = run_list(
        isolated_env,
        plugin_site,
        SKILLPATH_DISABLE_PLUGINS="tp-broken,tp-raising,tp-typo",
        SKILLPATH_STRICT="1",
    )
    assert proc.returncode == 0, proc.stderr
    assert "from-plugin" in {s["name"] for s in json.loads(proc.stdout)["skills"]}
    proc = run_list(isolated_env, plugin_site, SKILLPATH_PLUGINS="native", SKILLPATH_STRICT="1")
    assert proc.returncode == 0, proc.stderr
    providers = {s["provider"] for s in json.loads(proc.stdout)["skills"]}
    assert "tp-good" not in providers


def test_autoload_off(isolated_env: Env, plugin_site: Path) -> None:
    isolated_env.skill(".skillpath/skills", "native-one", "native")
    proc = run_list(isolated_env, plugin_site, SKILLPATH_NO_AUTOLOAD="1")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["skills"] == []


def test_plugin_records_in_process(
    isolated_env: Env, plugin_site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib

    monkeypatch.syspath_prepend(str(plugin_site))
    importlib.invalidate_caches()
    from skillpath import PluginHost

    host = PluginHost.create(env={"SKILLPATH_DISABLE_PLUGINS": "tp-typo"})
    records = {r.name: r for r in host.records}
    assert records["tp-good"].status == "loaded"
    assert records["tp-good"].distribution == "sw-testplugins"
    assert records["tp-good"].version == "1.2.3"
    assert records["tp-good"].priority == 42
    assert records["tp-good"].hooks == ("discover_skills",)
    assert records["tp-broken"].status == "failed" and "ImportError" in records["tp-broken"].error
    assert records["tp-typo"].status == "blocked"
    assert records["skillpath.filters"].status == "builtin"


def test_a_failing_filter_drops_the_skill_and_is_reported_once(isolated_env: Env) -> None:
    from skillpath import PluginHost, hookimpl, load_skills, make_context

    class Judge:
        @hookimpl
        def filter_skill(self, skill: Any) -> None:
            if skill.name.startswith("bad-"):
                raise ValueError(f"cannot judge {skill.name}")

    for name in ("bad-a", "bad-b", "bad-c", "good"):
        isolated_env.skill(".skillpath/skills", name, "a skill")
    host = PluginHost.create(env=isolated_env.env)
    assert host.add(Judge(), "judge")
    res = load_skills(isolated_env.project, home=isolated_env.home, host=host)
    assert "good" in res.names and not [n for n in res.names if n.startswith("bad-")]
    skipped = {s.skill.name: (s.reason, s.detail) for s in res.skipped}
    assert skipped["bad-b"] == (
        "filter-error",
        "plugin 'judge': filter_skill raised ValueError('cannot judge bad-b')",
    )
    failed = [d for d in res.diagnostics if "'judge'" in d.message]
    assert len(failed) == 1 and failed[0].code == "plugin-hook-failed"
    assert "first on skill 'bad-a'" in failed[0].message
    # without a per-load set, the diagnostics list itself de-duplicates
    ctx, _ = make_context(isolated_env.project, home=isolated_env.home)
    diags: list[Any] = []
    for name in ("bad-a", "bad-b"):
        skill = attrs.evolve(res.get("good"), name=name)
        assert host.filter(skill, ctx, diags) == (
            "filter-error",
            f"plugin 'judge': filter_skill raised ValueError('cannot judge {name}')",
        )
    assert len(diags) == 1


def test_filter_chain_follows_registration_wrappers_slowness_and_strict(
    isolated_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    import types

    import skillpath.plugins as sw_plugins
    from skillpath import PluginError, PluginHost, Veto, hookimpl, load_skills, make_context

    isolated_env.skill(".skillpath/skills", "alpha", "a skill")
    base = load_skills(isolated_env.project, home=isolated_env.home).get("alpha")
    ctx, _ = make_context(isolated_env.project, home=isolated_env.home)
    host = PluginHost.create(env=isolated_env.env)
    assert host.filter(base, ctx, []) is None

    class Deny:
        @hookimpl
        def filter_skill(self, ctx: Any, skill: Any) -> Veto | None:  # argnames reversed
            return Veto("no alpha") if skill.name == "alpha" and ctx is not None else None

    # a filter registered after the chain was first used takes part at once
    assert host.add(Deny(), "deny")
    assert host.filter(base, ctx, []) == ("vetoed", "no alpha (plugin 'deny')")
    host.pm.unregister(name="deny")
    assert host.filter(base, ctx, []) is None

    class Wrap:
        @hookimpl(wrapper=True)
        def filter_skill(self, skill: Any) -> Any:
            raise AssertionError("a wrapper is never called")
            yield  # a generator, as pluggy requires of a wrapper

    # hook time is measured on a clock only the slow plugin moves: under any load,
    # the slow one is reported and no other is
    clock = [0.0]
    monkeypatch.setattr(sw_plugins, "time", types.SimpleNamespace(perf_counter=lambda: clock[0]))

    class Slow:
        @hookimpl
        def filter_skill(self, skill: Any) -> bool:
            clock[0] += 0.06
            return True

    host.pm.register(Wrap(), name="wrap")
    host.pm.register(Slow(), name="slow")
    host.slow_seconds = 0.05
    diags: list[Any] = []
    assert host.filter(base, ctx, diags) is None
    # the slow call is kept for doctor, apart from the load's diagnostics
    assert [(d.level, d.code) for d in diags] == [("warning", "plugin-wrapper-ignored")]
    assert "plugin 'wrap': wrappers are not supported for filter_skill" in diags[0].message
    slow = host.slow_findings()
    assert [(d.level, d.code) for d in slow] == [("warning", "plugin-slow")]
    assert "plugin 'slow': filter_skill took 0.06s" in slow[0].message

    class Odd:
        @hookimpl
        def filter_skill(self, skill: Any) -> str:
            return "maybe"

    host.pm.unregister(name="slow")
    host.pm.register(Odd(), name="odd")
    diags = []
    assert host.filter(base, ctx, diags) == (
        "filter-error",
        "plugin 'odd': filter_skill returned str, not a Veto, a bool or None",
    )
    assert [d.code for d in diags] == ["plugin-bad-return"]  # "odd" runs before "wrap"
    host.strict = True
    with pytest.raises(PluginError):
        host.filter(base, ctx, [])


def _hooks_found(pm: Any) -> dict[str, list[tuple[str, Any, tuple[Any, ...]]]]:
    return {
        name: [
            (i.plugin_name, i.function, tuple(sorted(i.opts.items())))
            for i in getattr(pm.hook, name).get_hookimpls()
        ]
        for name in dir(pm.hook)
        if not name.startswith("_")
    }


def test_module_hooks_found_as_pluggy_finds_them() -> None:
    """The host's manager reads a module plugin's functions from its ``__dict__``:
    the hooks found are pluggy's own, for every installed plugin and for the corner
    cases (wrapped methods, a name only ``__getattr__`` gives, a marker that is not a
    dict, a property-like object, names the module type defines)."""
    import types

    import pluggy
    from skillpath import hookimpl, hookspecs
    from skillpath.plugins import PluginHost

    odd = types.ModuleType("odd_plugin")
    exec(  # a module written here, for the test
        textwrap.dedent(
            """
            from skillpath import hookimpl

            @hookimpl
            def _schema():
                return {}

            settings_schema = staticmethod(_schema)  # a wrapped function in the module

            @hookimpl(tryfirst=True)
            def discover_skills(ctx):
                return None

            def rank_skills(ctx, skills):  # not marked
                return None

            def filter_skill(skill, ctx):
                return None

            filter_skill.skillpath_impl = "not a dict"
            __annotations__ = {"x": int}

            def __getattr__(name):
                raise AttributeError(name)
            """
        ),
        odd.__dict__,
    )
    assert hookimpl  # the marker the module uses
    host = PluginHost.create(env={"PATH": os.environ.get("PATH", "")})
    plugins = [(n, p) for n, p in host.pm.list_name_plugin() if p is not None]
    plugins.append(("odd", odd))
    found = []
    for manager in (type(host.pm), pluggy.PluginManager):
        pm = manager(hookspecs.PROJECT_NAME)
        pm.add_hookspecs(hookspecs)
        for name, plugin in plugins:
            pm.register(plugin, name=name)
        found.append(_hooks_found(pm))
    assert type(host.pm) is not pluggy.PluginManager
    assert found[0] == found[1]
    assert [i[0] for i in found[0]["discover_skills"]].count("odd") == 1
    assert "odd" not in [i[0] for i in found[0].get("filter_skill", [])]
    assert "odd" not in [i[0] for i in found[0].get("rank_skills", [])]
    assert [i[0] for i in found[0]["settings_schema"]].count("odd") == 1
    assert len(plugins) > 10  # the built-ins and the installed providers
