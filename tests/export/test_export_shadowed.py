"""A library's skill shadowed by the person's own same-name skill is not exported.

The attack: a library ships ``webkit``; the user has their own
``~/.agents/skills/webkit``, which wins today. ``export --to agents`` would write
the library's copy into the project's ``.agents/skills``, where it would beat the
user's own skill. It is reported and left out instead.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..conftest import Env
from .test_export import run, site, skill_text

__all__ = ["site"]  # the installed-wheels fixture, shared with test_export


def test_a_library_skill_shadowed_by_the_users_own_is_not_exported(
    isolated_env: Env, site: Path
) -> None:
    env = isolated_env
    own = env.home / ".agents" / "skills" / "webkit"
    own.mkdir(parents=True)
    (own / "SKILL.md").write_text(skill_text("My own webkit notes."))
    done = run(env, site, "export", "--to", "agents", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    actions = {a["name"]: a["action"] for a in data["actions"]}
    assert actions["webkit"] == "skip"
    assert actions["team-review"] == "write"  # nothing of the user's has that name
    (diag,) = [d for d in data["diagnostics"] if d["code"] == "export-shadowed"]
    assert str(own / "SKILL.md") in diag["message"] and "libraries" in diag["message"]
    assert not (env.project / ".agents" / "skills" / "webkit").exists()
    assert "My own webkit notes." in (own / "SKILL.md").read_text()
    # the user's skill still wins
    shown = json.loads(run(env, site, "show", "--json", "webkit").stdout)
    assert shown["path"] == str(own / "SKILL.md")
    # once the user's own is gone, the library's skill is exported as usual
    (own / "SKILL.md").unlink()
    own.rmdir()
    again = json.loads(run(env, site, "export", "--to", "agents", "--json").stdout)
    assert {a["name"]: a["action"] for a in again["actions"]}["webkit"] == "write"
