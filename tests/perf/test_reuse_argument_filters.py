"""The in-process merge reuse with a plugin's own ``filter_skill``.

A plugin filter that declared ``depends_on("arguments")`` (its verdict depends on
nothing but the skill and the context) lets a load reuse or patch the last merge
when the context is equal; any other declaration keeps the merge running again.
Every reused merge is compared with the same load with the reuse off.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from skillpath import SkillSession, depends_on, load_skills
from skillpath.cache import reuse as _reuse
from skillpath.hookspecs import hookimpl
from skillpath.model import LoadResult, Veto
from skillpath.plugins import PluginHost

from tests.conftest import skill_md
from tests.perf.test_reuse import Project, snapshot


def _prefix(ctx: Any) -> str | None:
    section = ctx.settings.data.get("veto_test", {})
    return ctx.env.get("VETO_PREFIX") or section.get("prefix")


class _ArgumentFilter:
    """Vetoes the names that start with ``VETO_PREFIX`` (env) or ``[veto_test] prefix``."""

    calls = 0

    @hookimpl
    @depends_on("arguments")
    def filter_skill(self, skill: Any, ctx: Any) -> Veto | None:
        type(self).calls += 1
        prefix = _prefix(ctx)
        return Veto("prefix") if prefix and skill.name.startswith(prefix) else None


class _FilesFilter(_ArgumentFilter):
    @hookimpl
    @depends_on("files")
    def filter_skill(self, skill: Any, ctx: Any) -> Veto | None:
        return super().filter_skill(skill, ctx)


@pytest.fixture
def proj(tmp_path: Path) -> Project:
    p = Project(tmp_path)
    p.fill_mixed()
    return p


def host_with(p: Project, plugin: Any) -> PluginHost:
    host = PluginHost.create(env=p.env)
    host.pm.register(plugin, name="veto-test")
    return host


def load(p: Project, host: PluginHost, **env: str) -> LoadResult:
    return load_skills(p.project, home=p.home, env={**p.env, **env}, host=host)


def same_as_without_reuse(p: Project, host: PluginHost, **env: str) -> LoadResult:
    res = load(p, host, **env)
    assert snapshot(res) == snapshot(load(p, host, SKILLPATH_NO_REUSE="1", **env))
    assert snapshot(res) == snapshot(load(p, host, SKILLPATH_NO_INDEX="1", **env))
    return res


def test_an_argument_filter_lets_the_merge_be_reused(proj: Project) -> None:
    host = host_with(proj, _ArgumentFilter())
    first = same_as_without_reuse(proj, host)
    load(proj, host)
    before = _reuse.stats.copy()
    calls = _ArgumentFilter.calls
    again = load(proj, host)
    assert _reuse.stats["merges_reused"] == before["merges_reused"] + 1
    assert _ArgumentFilter.calls == calls  # no skill was offered to the filter again
    assert snapshot(again) == snapshot(first)


def test_what_the_filter_reads_from_its_arguments_is_seen(proj: Project) -> None:
    host = host_with(proj, _ArgumentFilter())
    load(proj, host)
    load(proj, host)
    # the environment
    vetoed = same_as_without_reuse(proj, host, VETO_PREFIX="agents-")
    assert not any(n.startswith("agents-") for n in vetoed.names)
    assert "claude-1" in vetoed.names
    assert any(n.startswith("agents-") for n in same_as_without_reuse(proj, host).names)
    # a settings section of its own, in a config file
    cfg = proj.project / ".skillpath" / "config.toml"
    cfg.parent.mkdir(exist_ok=True)
    cfg.write_text('[veto_test]\nprefix = "claude-"\n')
    load(proj, host)
    res = same_as_without_reuse(proj, host)
    user_cfg = proj.home / ".skillpath" / "config.toml"
    user_cfg.parent.mkdir(exist_ok=True)
    user_cfg.write_text('[veto_test]\nprefix = "user-"\n')
    assert snapshot(same_as_without_reuse(proj, host)) != snapshot(res)


def test_a_file_edited_under_an_argument_filter_patches_the_merge(proj: Project) -> None:
    host = host_with(proj, _ArgumentFilter())
    load(proj, host)
    load(proj, host)
    before = _reuse.stats["merges_patched"]
    path = proj.project / ".claude/skills/claude-4/SKILL.md"
    path.write_text(skill_md("Edited, longer than before."))
    res = same_as_without_reuse(proj, host)
    assert _reuse.stats["merges_patched"] > before
    assert res.get("claude-4").description == "Edited, longer than before."
    # a rebuilt skill the filter now vetoes: merged again, and dropped
    path.write_text(skill_md("Edited again."))
    dropped = same_as_without_reuse(proj, host, VETO_PREFIX="claude-4")
    assert "claude-4" not in dropped.names


def test_a_session_refresh_under_an_argument_filter_matches_a_fresh_load(
    proj: Project,
) -> None:
    host = host_with(proj, _ArgumentFilter())
    s = SkillSession.open(proj.project, home=proj.home, env=proj.env, host=host)
    (proj.project / ".agents/skills/agents-2/SKILL.md").write_text(skill_md("Changed."))
    events = s.refresh()
    assert [e.name for e in events] == ["agents-2"]
    assert snapshot(s.result) == snapshot(load(proj, host, SKILLPATH_NO_REUSE="1"))
    os.unlink(proj.project / ".agents/skills/agents-3/SKILL.md")
    assert [e.name for e in s.refresh()] == ["agents-3"]
    assert snapshot(s.result) == snapshot(load(proj, host, SKILLPATH_NO_REUSE="1"))


def test_a_filter_declaring_files_merges_again_every_load(proj: Project) -> None:
    host = host_with(proj, _FilesFilter())
    load(proj, host)
    load(proj, host)
    before = _reuse.stats.copy()
    same_as_without_reuse(proj, host)
    assert _reuse.stats["merges_reused"] == before["merges_reused"]
    assert _reuse.stats["merges_patched"] == before["merges_patched"]


def test_arguments_alone_does_not_turn_the_replay_off(proj: Project) -> None:
    host = host_with(proj, _ArgumentFilter())
    assert not [u for u in host.replay_blockers() if u.plugin == "veto-test"]
