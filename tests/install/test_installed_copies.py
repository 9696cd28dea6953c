"""One install in two agents' folders is one skill: ``skillpath add`` (and ``npx skills
add``) put the canonical copy in ``.agents/skills`` and another in ``.claude/skills``;
the second shadows the first, quietly (an ``installed-copy`` note, not a
``name-conflict`` warning on every ``list``), while the lock entry names the skill and the
two folders hold the same files. A copy edited since, or a same-named skill the lock
does not know, still warns."""

from __future__ import annotations

import json
from typing import Any

from skillpath import load_skills, make_context

from tests.conftest import Env
from tests.gitserve import Upstream
from tests.install.test_install import cli, upstream  # noqa: F401 - the fixture


def _codes(env: Env, name: str) -> dict[str, str]:
    ctx, _ = make_context(env.project, env=env.env, home=env.home)
    result = load_skills(ctx=ctx)
    return {d.code: d.level for d in result.diagnostics if repr(name) in d.message}


def _add(env: Env, upstream: Upstream, *extra: str) -> Any:  # noqa: F811
    return cli(env, "add", str(upstream.work), "--skill", "beta", *extra)


def test_both_folders_of_one_install_do_not_warn(isolated_env: Env, upstream: Upstream) -> None:  # noqa: F811
    _add(isolated_env, upstream)
    assert (isolated_env.project / ".claude" / "skills" / "beta").is_dir()
    assert _codes(isolated_env, "beta") == {"installed-copy": "info"}


def test_an_edited_copy_still_warns(isolated_env: Env, upstream: Upstream) -> None:  # noqa: F811
    _add(isolated_env, upstream)
    skill = isolated_env.project / ".claude" / "skills" / "beta" / "SKILL.md"
    skill.write_text(skill.read_text() + "Edited here.\n")
    assert _codes(isolated_env, "beta").get("name-conflict") == "warning"


def test_a_skill_the_lock_does_not_name_still_warns(
    isolated_env: Env,
    upstream: Upstream,  # noqa: F811
) -> None:
    _add(isolated_env, upstream)
    lock_file = isolated_env.project / "skills-lock.json"
    data = json.loads(lock_file.read_text())
    data["skills"] = {}
    lock_file.write_text(json.dumps(data))
    assert _codes(isolated_env, "beta") == {"name-conflict": "warning"}


def test_a_linked_install_does_not_warn(isolated_env: Env, upstream: Upstream) -> None:  # noqa: F811
    _add(isolated_env, upstream, "--link")
    assert (isolated_env.project / ".claude" / "skills" / "beta").is_symlink()
    assert "name-conflict" not in _codes(isolated_env, "beta")
