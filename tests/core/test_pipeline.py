"""load_skills(): passes, priority, dedup, conflicts, filters, toggles, custom dirs."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from skillpath import (
    Discovery,
    DiscoveryResult,
    PluginHost,
    SkillContext,
    Veto,
    hookimpl,
    load_skills,
)
from skillpath.loader import order_results

from ..conftest import Env


class DirProvider:
    """A provider that scans fixed roots (one per level) — the shape of a real provider."""

    def __init__(
        self,
        pid: str,
        priority: int,
        roots: list[tuple[Path, str]],
        *,
        late: bool = False,
        require_description: bool = False,
    ) -> None:
        self.PROVIDER_ID = pid
        self.PRIORITY = priority
        self.roots = roots
        self.late = late
        self.require_description = require_description

    @hookimpl
    def discover_skills(self, ctx: SkillContext) -> DiscoveryResult:
        d = Discovery(self.PROVIDER_ID, self.PRIORITY, late=self.late)
        for root, level in self.roots:
            d.scan(root, level, require_description=self.require_description)
        return d.result()


def host_with(*providers: object) -> PluginHost:
    host = PluginHost.create(autoload=False, env={})
    for i, p in enumerate(providers):
        assert host.add(p, f"test-provider-{i}")
    return host


def load(env: Env, host: PluginHost, **settings: Any) -> Any:
    return load_skills(env.project, home=env.home, env=env.env, host=host, settings=settings)


def test_enabled_false_gives_empty_result(isolated_env: Env) -> None:
    isolated_env.skill("a", "x")
    host = host_with(DirProvider("p", 10, [(isolated_env.project / "a", "project")]))
    res = load(isolated_env, host, **{"skills.enabled": False})
    assert res.skills == () and res.shadowed == ()
    assert [d.code for d in res.diagnostics] == ["skills-disabled"]


def test_priority_first_wins_and_conflict_is_reported(isolated_env: Env) -> None:
    hi = isolated_env.skill("hi", "same", "from hi")
    lo = isolated_env.skill("lo", "same", "from lo")
    isolated_env.skill("lo", "only-lo", "lo only")
    host = host_with(
        DirProvider("low", 10, [(isolated_env.project / "lo", "project")]),
        DirProvider("high", 90, [(isolated_env.project / "hi", "project")]),
    )
    res = load(isolated_env, host)
    assert res.names == ["only-lo", "same"]
    assert res.get("same").path == hi
    (sh,) = res.shadowed
    assert sh.skill.path == lo and sh.by.path == hi and sh.reason == "name"
    conflict = [d for d in res.diagnostics if d.code == "name-conflict"]
    assert len(conflict) == 1 and str(hi) in conflict[0].message and conflict[0].path == lo


def test_tie_order_is_fixed(isolated_env: Env) -> None:
    results = [
        DiscoveryResult("codex", 70),
        DiscoveryResult("zzz-third-party", 70),
        DiscoveryResult("agents", 70),
        DiscoveryResult("claude-plugins", 70),
        DiscoveryResult("native", 100),
    ]
    assert [r.provider for r in order_results(results)] == [
        "native",
        "claude-plugins",
        "agents",
        "codex",
        "zzz-third-party",
    ]


def test_realpath_dedup_through_symlink(isolated_env: Env) -> None:
    real = isolated_env.skill("a", "shared", "one file")
    (isolated_env.project / "b").mkdir()
    os.symlink(real.parent, isolated_env.project / "b" / "shared")
    host = host_with(
        DirProvider("first", 50, [(isolated_env.project / "a", "project")]),
        DirProvider("second", 40, [(isolated_env.project / "b", "project")]),
    )
    res = load(isolated_env, host)
    assert res.names == ["shared"]
    (sh,) = res.shadowed
    assert sh.reason == "duplicate-file"
    assert not [d for d in res.diagnostics if d.code == "name-conflict"]


def test_custom_directories_pass_two(isolated_env: Env) -> None:
    isolated_env.skill("custom", "c1", "custom one")
    isolated_env.skill("custom", "nodesc", None)
    isolated_env.skill("prov", "c1", "provider copy")
    host = host_with(DirProvider("p", 1, [(isolated_env.project / "prov", "project")]))
    res = load(
        isolated_env,
        host,
        **{
            "skills.custom_directories": ["custom"],
            "skills.enable_native_user": False,
            "skills.enable_native_project": False,
            "skills.enable_claude_user": False,
            "skills.enable_claude_project": False,
            "skills.enable_codex_user": False,
        },
    )
    # provider 'p' has no toggle of its own: with every named toggle off it is disabled,
    # so the custom copy (exempt from toggles) is the one loaded
    assert res.get("c1").source.provider == "custom"
    assert any(s.skill.source.provider == "p" for s in res.skipped)
    res = load(isolated_env, host, **{"skills.custom_directories": ["custom"]})
    assert res.get("c1").source.provider == "p"
    assert res.shadowed[0].skill.source.provider == "custom"
    assert any(d.code == "missing-description" for d in res.diagnostics)


def test_custom_dir_skills_are_exempt_from_toggles(isolated_env: Env) -> None:
    isolated_env.skill("custom", "c1", "custom one")
    off = {
        f"skills.enable_{k}": False
        for k in (
            "native_user",
            "native_project",
            "claude_user",
            "claude_project",
            "codex_user",
            "agents_user",
            "agents_project",
        )
    }
    res = load(isolated_env, host_with(), **off, **{"skills.custom_directories": ["custom"]})
    (skill,) = res.skills
    assert (skill.source.provider, skill.source.level) == ("custom", "user")


def test_custom_dir_tilde_expands_to_home(isolated_env: Env) -> None:
    isolated_env.skill(isolated_env.home / "my-skills", "mine", "home custom")
    res = load(isolated_env, host_with(), **{"skills.custom_directories": ["~/my-skills"]})
    assert res.names == ["mine"]


def test_late_results_lose_to_custom_and_everything_else(isolated_env: Env) -> None:
    isolated_env.skill("managed", "learned", "auto")
    isolated_env.skill("managed", "only-managed", "auto")
    isolated_env.skill("custom", "learned", "hand written")
    host = host_with(
        DirProvider("managed", 1000, [(isolated_env.project / "managed", "user")], late=True)
    )
    res = load(isolated_env, host, **{"skills.custom_directories": ["custom"]})
    assert res.get("learned").source.provider == "custom"
    assert res.get("only-managed").source.provider == "managed"


def _toggle_host(env: Env) -> PluginHost:
    providers = []
    for pid in ("native", "claude", "codex", "agents", "opencode"):
        providers.append(
            DirProvider(
                pid,
                50,
                [(env.project / pid / "user", "user"), (env.project / pid / "project", "project")],
            )
        )
        env.skill(f"{pid}/user", f"{pid}-u", "x")
        env.skill(f"{pid}/project", f"{pid}-p", "x")
    return host_with(*providers)


def test_source_toggles(isolated_env: Env) -> None:
    host = _toggle_host(isolated_env)
    res = load(isolated_env, host, **{"skills.enable_claude_project": False})
    assert "claude-p" not in res.names and "claude-u" in res.names
    skipped = {s.skill.name: s for s in res.skipped}
    assert skipped["claude-p"].reason == "source-disabled"
    assert "enable_claude_project" in skipped["claude-p"].detail
    res = load(isolated_env, host, **{"skills.enable_codex_user": False})
    assert "codex-u" not in res.names and "codex-p" not in res.names
    res = load(isolated_env, host, **{"skills.enable_agents_user": False})
    assert "agents-u" not in res.names and "agents-p" in res.names


def test_toggle_fallback_rule(isolated_env: Env) -> None:
    host = _toggle_host(isolated_env)
    all_named_off = {
        "skills.enable_native_user": False,
        "skills.enable_native_project": False,
        "skills.enable_claude_user": False,
        "skills.enable_claude_project": False,
        "skills.enable_codex_user": False,
    }
    res = load(isolated_env, host, **all_named_off)
    # opencode has no toggle: off when every named toggle is off ...
    assert "opencode-u" not in res.names
    # ... but agents keeps its own switches
    assert {"agents-u", "agents-p"} <= set(res.names)
    one_on = dict(all_named_off, **{"skills.enable_native_user": True})
    res = load(isolated_env, host, **one_on)
    assert {"opencode-u", "opencode-p", "native-u"} <= set(res.names)
    only_agents = {
        **all_named_off,
        "skills.enable_agents_user": True,
        "skills.enable_agents_project": True,
    }
    res = load(isolated_env, host, **only_agents)
    assert "opencode-u" not in res.names  # agents toggles do not count


def test_filters_in_seed_order(isolated_env: Env) -> None:
    for name in ("alpha", "beta", "gamma", "delta"):
        isolated_env.skill("s", name, "x")
    host = host_with(DirProvider("native", 100, [(isolated_env.project / "s", "project")]))
    res = load(
        isolated_env,
        host,
        **{
            "skills.disabled_extensions": ["skill:alpha"],
            "skills.ignored": ["b*", "alpha"],
            "skills.include": ["alpha", "beta", "gamma"],
        },
    )
    assert res.names == ["gamma"]
    reasons = {s.skill.name: (s.reason, s.detail) for s in res.skipped}
    assert reasons["alpha"][0] == "disabled"  # disabled wins over ignored
    assert reasons["beta"] == ("ignored", "matches ignored pattern 'b*'")
    assert reasons["delta"][0] == "not-included"


def test_plugin_filter_veto_is_recorded(isolated_env: Env) -> None:
    isolated_env.skill("s", "keep", "x")
    isolated_env.skill("s", "drop", "x")
    isolated_env.skill("s", "drop2", "x")

    class Policy:
        @hookimpl
        def filter_skill(self, skill: Any) -> Any:
            if skill.name == "drop":
                return Veto("not on the allow-list")
            if skill.name == "drop2":
                return False
            return None

    host = host_with(
        DirProvider("native", 100, [(isolated_env.project / "s", "project")]), Policy()
    )
    res = load(isolated_env, host)
    assert res.names == ["keep"]
    reasons = {s.skill.name: (s.reason, s.detail) for s in res.skipped}
    assert reasons["drop"][0] == "vetoed" and "allow-list" in reasons["drop"][1]
    assert reasons["drop2"][0] == "vetoed" and "test-provider-1" in reasons["drop2"][1]


_SOURCE_SWITCHES = (
    "enable_codex_user",
    "enable_libraries",
    "enable_claude_user",
    "enable_claude_project",
    "enable_native_user",
    "enable_native_project",
    "enable_agents_user",
    "enable_agents_project",
)


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"skills.ignored": ["b*"]},
        {"skills.include": ["alpha*"]},
        {"skills.disabled_extensions": ["skill:alpha-native-u"]},
        *({f"skills.{key}": False} for key in _SOURCE_SWITCHES),
    ],
)
def test_core_filter_leaves_the_chain_only_when_it_vetoes_nothing(
    isolated_env: Env, settings: dict[str, Any]
) -> None:
    """Under the defaults the core filter is left out of a load's chain, a plugin's
    filter still sees every skill, and the result is the one of the whole chain."""
    from skillpath import filters
    from skillpath.context import make_context
    from skillpath.loader import merge_results

    seen: list[str] = []

    class Watcher:
        @hookimpl
        def filter_skill(self, skill: Any) -> Any:
            seen.append(skill.name)
            return None

    providers = [
        DirProvider(
            pid,
            50,
            [
                (isolated_env.project / pid / "u", "user"),
                (isolated_env.project / pid / "p", "project"),
            ],
        )
        for pid in ("native", "claude", "codex", "agents", "opencode", "libraries")
    ]
    names = []
    for pid in ("native", "claude", "codex", "agents", "opencode", "libraries"):
        for lvl in ("u", "p"):
            for base in ("alpha", "beta"):
                names.append(f"{base}-{pid}-{lvl}")
                isolated_env.skill(f"{pid}/{lvl}", names[-1], "x")
    host = host_with(*providers, Watcher())
    ctx, _ = make_context(
        isolated_env.project, home=isolated_env.home, env=isolated_env.env, settings=settings
    )
    chain = host.filter_chain(ctx)
    functions = [entry[1] for entry in chain]
    assert (filters.filter_skill in functions) is not filters.idle(ctx)
    assert filters.idle(ctx) is (not settings)
    assert len(functions) == len(host.pm.hook.filter_skill.get_hookimpls()) - (not settings)
    results, _ = host.discover(ctx)
    merged = merge_results(results, ctx, host)
    # the plugin's filter saw every skill the core's filter (run first) let through
    vetoed = {s.skill.name for s in merged.skipped}
    assert sorted(seen) == sorted(n for n in names if n not in vetoed)
    # the same verdicts as the whole chain, skill by skill
    for result in results:
        for skill in result.skills:
            assert host.filter(skill, ctx, [], chain=chain) == host.filter(skill, ctx, [])
    if settings:
        assert merged.skipped
    else:
        assert not merged.skipped and sorted(merged.names) == sorted(names)


def test_disabling_a_source_lets_the_next_copy_through(isolated_env: Env) -> None:
    isolated_env.skill("hi", "same", "hi copy")
    isolated_env.skill("lo", "same", "lo copy")
    host = host_with(
        DirProvider("native", 100, [(isolated_env.project / "hi", "project")]),
        DirProvider("agents", 70, [(isolated_env.project / "lo", "project")]),
    )
    res = load(isolated_env, host, **{"skills.enable_native_project": False})
    assert res.get("same").source.provider == "agents"


def test_output_order_is_deterministic(isolated_env: Env) -> None:
    for name in ("b", "B", "a", "C"):
        isolated_env.skill("s", name, "x")
    host = host_with(DirProvider("native", 100, [(isolated_env.project / "s", "project")]))
    res = load(isolated_env, host)
    if len(res.names) == 4:  # case-sensitive file system
        assert res.names == ["a", "B", "b", "C"]


def test_hidden_and_conditional(isolated_env: Env) -> None:
    isolated_env.skill("s", "hidden", "x", hide="true")
    isolated_env.skill("s", "nomodel", "x", disable_model_invocation="yes")
    isolated_env.skill("s", "cond", "x", paths="src/**")
    host = host_with(DirProvider("native", 100, [(isolated_env.project / "s", "project")]))
    res = load(isolated_env, host)
    assert res.names == ["hidden", "nomodel"]
    assert all(s.hidden for s in res.skills)
    assert [s.name for s in res.conditional] == ["cond"]
    assert res.get("cond") is not None


def test_settings_files_user_then_project(isolated_env: Env) -> None:
    for name in ("a", "b", "c"):
        isolated_env.skill("s", name, "x")
    sw = isolated_env.home / ".skillpath"
    sw.mkdir()
    (sw / "config.toml").write_text('[skills]\nignored = ["a"]\n')
    host = host_with(DirProvider("native", 100, [(isolated_env.project / "s", "project")]))
    assert load(isolated_env, host).names == ["b", "c"]
    (isolated_env.project / ".skillpath").mkdir()
    (isolated_env.project / ".skillpath" / "config.toml").write_text('[skills]\nignored = ["b"]\n')
    assert load(isolated_env, host).names == ["a", "c"]
    # explicit arguments win over both files
    assert load(isolated_env, host, **{"skills.ignored": []}).names == ["a", "b", "c"]


def test_skillpath_home_moves_user_config(isolated_env: Env, tmp_path: Path) -> None:
    isolated_env.skill("s", "a", "x")
    alt = tmp_path / "alt-home"
    alt.mkdir()
    (alt / "config.toml").write_text("[skills]\nenabled = false\n")
    host = host_with(DirProvider("native", 100, [(isolated_env.project / "s", "project")]))
    env = dict(isolated_env.env, SKILLPATH_HOME=str(alt))
    res = load_skills(isolated_env.project, home=isolated_env.home, env=env, host=host)
    assert res.skills == ()


def test_bad_settings_are_diagnostics(isolated_env: Env) -> None:
    sw = isolated_env.home / ".skillpath"
    sw.mkdir()
    (sw / "config.toml").write_text(
        '[skills]\nenabled = "yes"\nignored = "a"\ntypo_key = 1\n[acme]\nx = 1\n'
    )
    res = load(isolated_env, host_with())
    by_code = {d.code: d for d in res.diagnostics}
    assert (
        "settings-bad-value" in by_code and by_code["settings-bad-value"].path == sw / "config.toml"
    )
    assert (
        "settings-unknown-key" in by_code and "typo_key" in by_code["settings-unknown-key"].message
    )
    assert "settings-unknown-section" in by_code
    (sw / "config.toml").write_text("[skills\n")
    res = load(isolated_env, host_with())
    assert any(d.code == "settings-invalid" for d in res.diagnostics)


@pytest.mark.parametrize("bad", [123, [1, 2], "text"])
def test_discover_returning_garbage_is_reported(isolated_env: Env, bad: Any) -> None:
    class Bad:
        @hookimpl
        def discover_skills(self) -> Any:
            return bad

    isolated_env.skill("s", "ok", "x")
    host = host_with(Bad(), DirProvider("native", 100, [(isolated_env.project / "s", "project")]))
    res = load(isolated_env, host)
    assert res.names == ["ok"]
    assert any(d.code == "plugin-bad-return" for d in res.diagnostics)
