"""Plugins declare their own config sections (the ``settings_schema`` hook)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skillpath import PluginHost, SettingSpec, SkillContext, hookimpl, load_skills, make_context

from ..conftest import Env


class AcmePlugin:
    """Declares ``[acme]`` and records the section it saw during discovery."""

    seen: dict[str, Any]

    def __init__(self) -> None:
        self.seen = {}

    @hookimpl
    def settings_schema(self) -> dict[str, dict[str, SettingSpec]]:
        return {
            "acme": {
                "blocked_words": SettingSpec(list, (), "Words that drop a skill.", scope="trusted"),
                "strict": SettingSpec(bool, False, "Also drop unowned skills."),
            }
        }

    @hookimpl
    def discover_skills(self, ctx: SkillContext) -> None:
        self.seen = dict(ctx.settings.section("acme"))


class Squatter:
    @hookimpl
    def settings_schema(self) -> dict[str, dict[str, SettingSpec]]:
        return {"skills": {"x": SettingSpec(bool, False, "no")}, "acme": {}}


class Broken:
    @hookimpl
    def settings_schema(self) -> object:
        return ["not", "a", "mapping"]


def host_with(*plugins: object) -> PluginHost:
    host = PluginHost.create(autoload=False, env={})
    for i, p in enumerate(plugins):
        assert host.add(p, f"plugin-{i}")
    return host


def write_config(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def codes(diags: Any) -> list[str]:
    return [d.code for d in diags]


def test_a_declared_section_is_not_reported_unknown(isolated_env: Env) -> None:
    write_config(isolated_env.home / ".skillpath" / "config.toml", "[acme]\nstrict = true\n")
    plugin = AcmePlugin()
    res = load_skills(isolated_env.project, env=isolated_env.env, host=host_with(plugin))
    assert "settings-unknown-section" not in codes(res.diagnostics)
    assert plugin.seen == {"blocked_words": (), "strict": True}


def test_an_undeclared_section_is_still_reported(isolated_env: Env) -> None:
    write_config(isolated_env.home / ".skillpath" / "config.toml", "[other]\nx = 1\n")
    res = load_skills(isolated_env.project, env=isolated_env.env, host=host_with(AcmePlugin()))
    (d,) = [d for d in res.diagnostics if d.code == "settings-unknown-section"]
    assert "[other]" in d.message and "no installed plugin declares it" in d.message


def test_declared_keys_are_validated_with_file_and_line(isolated_env: Env) -> None:
    config = isolated_env.home / ".skillpath" / "config.toml"
    write_config(config, "[acme]\nstrict = 'yes'\ntypo = 1\n")
    plugin = AcmePlugin()
    res = load_skills(isolated_env.project, env=isolated_env.env, host=host_with(plugin))
    bad = {d.code: d for d in res.diagnostics if d.path == config}
    assert bad["settings-bad-value"].line == 2
    assert bad["settings-unknown-key"].line == 3
    assert plugin.seen == {"blocked_words": (), "strict": False}


def test_an_untrusted_project_cannot_set_a_trusted_plugin_key(isolated_env: Env) -> None:
    write_config(
        isolated_env.home / ".skillpath" / "config.toml", '[acme]\nblocked_words = ["evil"]\n'
    )
    write_config(
        isolated_env.project / ".skillpath" / "config.toml",
        "[acme]\nblocked_words = []\nstrict = true\n",
    )
    plugin = AcmePlugin()
    res = load_skills(isolated_env.project, env=isolated_env.env, host=host_with(plugin))
    # the project may loosen nothing the user set for a trusted key; an "any" key applies
    assert plugin.seen == {"blocked_words": ("evil",), "strict": True}
    (warn,) = [d for d in res.diagnostics if d.code == "settings-untrusted"]
    assert "[acme] blocked_words" in warn.message


def test_a_trusted_project_may_set_it(isolated_env: Env) -> None:
    write_config(
        isolated_env.home / ".skillpath" / "config.toml",
        f'[trust]\nprojects = ["{isolated_env.project}"]\n[acme]\nblocked_words = ["evil"]\n',
    )
    write_config(
        isolated_env.project / ".skillpath" / "config.toml", "[acme]\nblocked_words = []\n"
    )
    plugin = AcmePlugin()
    load_skills(isolated_env.project, env=isolated_env.env, host=host_with(plugin))
    assert plugin.seen["blocked_words"] == ()


def test_core_sections_and_taken_sections_cannot_be_redeclared(isolated_env: Env) -> None:
    write_config(isolated_env.home / ".skillpath" / "config.toml", "[acme]\nstrict = true\n")
    host = host_with(AcmePlugin(), Squatter(), Broken())
    ctx, diags = make_context(isolated_env.project, env=isolated_env.env, host=host)
    conflicts = [d for d in diags if d.code == "plugin-settings-conflict"]
    assert len(conflicts) == 2  # [skills] is skillpath's; [acme] was declared first
    assert "plugin-bad-return" in codes(diags)
    assert ctx.settings.section("acme")["strict"] is True
    assert "x" not in ctx.settings.skills


def test_the_hook_is_not_called_without_an_unknown_section(isolated_env: Env) -> None:
    calls: list[int] = []

    class Counting:
        @hookimpl
        def settings_schema(self) -> None:
            calls.append(1)

    make_context(isolated_env.project, env=isolated_env.env, host=host_with(Counting()))
    assert calls == []


def test_a_section_declared_without_keys_is_the_plugins_to_validate(isolated_env: Env) -> None:
    class FreeForm:
        @hookimpl
        def settings_schema(self) -> dict[str, dict[str, SettingSpec]]:
            return {"policy": {}}

    write_config(
        isolated_env.home / ".skillpath" / "config.toml", '[policy]\ndeny = ["x-*"]\nodd = 3\n'
    )
    ctx, diags = make_context(
        isolated_env.project, env=isolated_env.env, host=host_with(FreeForm())
    )
    assert [d.code for d in diags if d.code.startswith("settings-")] == []
    assert dict(ctx.settings.section("policy")) == {"deny": ["x-*"], "odd": 3}
