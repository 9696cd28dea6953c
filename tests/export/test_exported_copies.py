"""An exported copy is its source in another place, not a clash: no ``name-conflict``
warning on every ``list`` after ``export`` (an ``exported-copy`` note instead), while a
same-named skill the lock does not vouch for is still reported."""

from __future__ import annotations

import json
from typing import Any

from skillpath import load_skills, make_context
from skillpath.export import export_skills

from ..conftest import Env


def _load(env: Env) -> Any:
    ctx, _ = make_context(env.project, env=env.env)
    return ctx, load_skills(ctx=ctx)


def _codes(result: Any, name: str) -> dict[str, str]:
    return {d.code: d.level for d in result.diagnostics if repr(name) in d.message}


def _world(env: Env) -> Any:
    root = env.project / "tools" / "skills"
    env.skill(root, "deploy", "Deploy the service.")
    config = env.project / ".skillpath" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[skills]\ncustom_directories = ["tools/skills"]\n')
    return _load(env)


def test_an_exported_copy_does_not_warn(isolated_env: Env) -> None:
    ctx, result = _world(isolated_env)
    export_skills(result.skills, ctx, to="claude", providers=["custom"])
    _ctx, after = _load(isolated_env)
    assert _codes(after, "deploy") == {"exported-copy": "info"}
    (shadow,) = [s for s in after.shadowed if s.skill.name == "deploy"]
    assert shadow.skill.source.provider == "custom"  # still listed as shadowed, quietly


def test_a_copy_the_lock_does_not_vouch_for_still_warns(isolated_env: Env) -> None:
    ctx, result = _world(isolated_env)
    report = export_skills(result.skills, ctx, to="claude", providers=["custom"])
    lock = json.loads(report.lock.read_text())
    lock["skills"]["deploy"]["source"] = "/somewhere/else"  # not where the source lives
    report.lock.write_text(json.dumps(lock))
    _ctx, after = _load(isolated_env)
    assert _codes(after, "deploy") == {"name-conflict": "warning"}


def test_a_same_named_skill_written_by_hand_still_warns(isolated_env: Env) -> None:
    ctx, result = _world(isolated_env)
    export_skills(result.skills, ctx, to="claude", providers=["custom"])
    isolated_env.skill(isolated_env.project / ".agents" / "skills", "deploy", "Someone else's.")
    _ctx, after = _load(isolated_env)
    conflicts = [d for d in after.diagnostics if d.code == "name-conflict"]
    assert len(conflicts) == 1 and ".agents/skills/deploy" in conflicts[0].message
    assert any(d.code == "exported-copy" for d in after.diagnostics)
