"""A folder of a built-in provider that is not installed is named with its distribution."""

from __future__ import annotations

import tomllib
from pathlib import Path

from skillpath import load_skills
from skillpath.context import make_context
from skillpath.doctor import build_report, explain
from skillpath.known import KNOWN_PROVIDERS, missing_provider_diagnostics
from skillpath.loader import BUILTIN_ORDER

from ..conftest import Env

REPO = Path(__file__).resolve().parents[2]


def test_the_table_names_every_built_in_provider_and_its_distribution() -> None:
    dists = {}
    for folder in (REPO / "providers").iterdir():
        if folder.name.startswith("_") or (folder / "uv.lock").exists():
            continue  # a project of its own (the Cisco scanner): it finds no skills
        meta = tomllib.loads((folder / "pyproject.toml").read_text())["project"]
        (provider_id,) = meta["entry-points"]["skillpath"]
        dists[provider_id] = meta["name"]
    assert {k.provider: k.distribution for k in KNOWN_PROVIDERS} == dists
    assert [k.provider for k in KNOWN_PROVIDERS] == [p for p in BUILTIN_ORDER if p != "bundled"]


def hints(env: Env, installed: set[str], **kwargs: object) -> dict[str | None, str]:
    ctx, _ = make_context(env.project, home=env.home, env=env.env, **kwargs)  # type: ignore[arg-type]
    return {
        str(d.path) if d.path else None: d.message
        for d in missing_provider_diagnostics(ctx, installed, ["acme"])
    }


def test_only_folders_holding_skills_of_a_missing_provider_are_named(isolated_env: Env) -> None:
    env = isolated_env
    env.skill(".claude/skills", "code-review", "Ours.")
    (env.project / ".codex" / "skills").mkdir(parents=True)  # empty: nothing to say
    (env.project / ".claude" / "commands").mkdir(parents=True)
    (env.project / ".claude" / "commands" / "ship.md").write_text("Ship it.\n")
    env.skill(env.home / ".agents" / "skills", "mine", "Mine.")
    everything = {k.provider for k in KNOWN_PROVIDERS}
    assert hints(env, everything) == {}
    got = hints(env, everything - {"claude", "codex", "agents", "packs"})
    claude = env.project / ".claude"
    assert set(got) == {
        str(claude / "skills"),
        str(claude / "commands"),
        str(env.home / ".agents" / "skills"),
        None,
    }
    assert got[str(claude / "skills")].endswith(
        "holds skills for Claude Code, but the provider 'claude' is not installed: "
        "install skillpath-claude (pip install skillpath-claude)"
    )
    assert "skillpath-agents" in got[str(env.home / ".agents" / "skills")]
    assert "skill packs are installed (acme)" in got[None] and "skillpath-packs" in got[None]


def test_mcp_servers_without_the_mcp_provider(isolated_env: Env) -> None:
    env = isolated_env
    settings = {"mcp": {"servers": [{"name": "s", "command": "x"}]}}
    ctx, _ = make_context(env.project, home=env.home, env=env.env, settings=settings)
    (hint,) = missing_provider_diagnostics(ctx, {"native"})
    assert hint.path is None and hint.message == (
        "[mcp] servers is set, but the provider 'mcp' is not installed: "
        "install skillpath-mcp (pip install skillpath-mcp)"
    )


def test_explain_names_the_distribution(isolated_env: Env) -> None:
    env = isolated_env
    env.skill(".claude/skills", "code-review", "Ours.")
    ctx, _ = make_context(env.project, home=env.home, env=env.env)
    result = load_skills(ctx=ctx)
    report = build_report(result)
    # installed here: nothing to say
    assert "provider-not-installed" not in {d.code for d in result.diagnostics}
    from skillpath.model import LoadResult

    missing = missing_provider_diagnostics(ctx, {"native"})
    bare = LoadResult(diagnostics=tuple(missing))
    ex = explain(build_report(bare), "code-review", ctx)
    assert ex.verdict() == (
        f"code-review: found in {env.project / '.claude' / 'skills'}, which no provider reads: "
        f"{env.project / '.claude' / 'skills'} holds skills for Claude Code, but the provider "
        "'claude' is not installed: install skillpath-claude (pip install skillpath-claude)"
    )
    assert report.skills  # the installed claude provider loads it
