"""A name clash with no lock to consult does not load :mod:`skillpath.export`: the merge
reads the install and export locks through :mod:`skillpath.locks` and imports the
export module only for a skill a lock names (a cold ``list`` of a tree with clashes
and no locks pays nothing for it). The listing is the same either way."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import Env

_PROBE = """
import json, sys
from skillpath import load_skills, make_context
ctx, _ = make_context(sys.argv[1])
result = load_skills(ctx=ctx)
print(json.dumps({
    "codes": sorted({d.code for d in result.diagnostics}),
    "names": sorted(s.name for s in result.skills),
    "export": "skillpath.export" in sys.modules,
}))
"""


def _probe(env: Env) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, str(env.project)],
        env=env.env,
        cwd=env.project,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, object] = json.loads(out.stdout)
    return result


def test_a_clash_without_locks_does_not_load_the_export_module(isolated_env: Env) -> None:
    isolated_env.skill(".claude/skills", "beta", description="One.")
    isolated_env.skill(".agents/skills", "beta", description="Two.")
    isolated_env.skill(".claude/skills", "alpha")
    seen = _probe(isolated_env)
    names = seen["names"]
    assert isinstance(names, list) and "alpha" in names and names.count("beta") == 1
    assert "name-conflict" in seen["codes"]  # a clash, reported as before
    assert seen["export"] is False


def test_a_clash_the_install_lock_names_is_still_one_install(isolated_env: Env) -> None:
    body = "Same files.\n"
    isolated_env.skill(".claude/skills", "beta", body=body)
    isolated_env.skill(".agents/skills", "beta", body=body)
    lock = {"version": 1, "skills": {"beta": {"source": "o/r", "sourceType": "github"}}}
    (isolated_env.project / "skills-lock.json").write_text(json.dumps(lock))
    seen = _probe(isolated_env)
    names = seen["names"]
    assert isinstance(names, list) and names.count("beta") == 1
    assert "installed-copy" in seen["codes"]
    assert "name-conflict" not in seen["codes"]
    assert seen["export"] is True  # the lock names it: the folders are compared
