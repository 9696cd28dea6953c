"""The example rank_skills plugin, through the public search API."""

from __future__ import annotations

from pathlib import Path

import search_rerank
from skillpath import PluginHost, load_skills, search_skills
from skillpath.context import make_context


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    for name, desc in (
        ("deploy-docs", "Publish the documentation site; deploy it."),
        ("deploy-release", "Deploy a release: deploy steps, deploy checks, deploy rollback."),
    ):
        folder = project / ".agents" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {desc}\n---\nBody.\n")
    return project


def _host() -> PluginHost:
    """The installed providers, and this plugin (registered once, whether or not the
    environment already installed it)."""
    host = PluginHost.create(env={"SKILLPATH_DISABLE_PLUGINS": "search-rerank"})
    host.add(search_rerank, "search-rerank-under-test")
    return host


def _ours(hits: list) -> list[str]:
    return [h.name for h in hits if h.name in ("deploy-docs", "deploy-release")]


def test_off_until_configured(tmp_path: Path) -> None:
    project = _project(tmp_path)
    host = _host()
    ctx, _ = make_context(project, home=tmp_path, env={}, host=host)
    result = load_skills(ctx=ctx, host=host)
    plain = _ours(search_skills(result, "deploy", 10))
    hooked = _ours(search_skills(result, "deploy", 10, ctx=ctx, host=host))
    assert plain == hooked == ["deploy-release", "deploy-docs"]


def test_preferred_skills_move_up_when_configured(tmp_path: Path) -> None:
    project = _project(tmp_path)
    host = _host()
    settings = {"search-rerank": {"prefer": ["deploy-docs"]}}
    ctx, diags = make_context(project, home=tmp_path, env={}, settings=settings, host=host)
    assert not [d for d in diags if d.level == "error"]
    result = load_skills(ctx=ctx, host=host)
    hits = search_skills(result, "deploy", 10, ctx=ctx, host=host)
    assert _ours(hits) == ["deploy-docs", "deploy-release"]
