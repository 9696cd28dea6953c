"""The ``SKILLPATH`` environment variable: extra skills roots, as ``PYTHONPATH`` is for modules."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from skillpath import PluginHost, load_skills
from skillpath.doctor import build_report

from ..conftest import Env

SEP = os.pathsep


def host() -> PluginHost:
    return PluginHost.create(autoload=False, env={})


def load(env: Env, skillpath: str | None, **settings: Any) -> Any:
    environ = dict(env.env)
    if skillpath is not None:
        environ["SKILLPATH"] = skillpath
    return load_skills(env.project, home=env.home, env=environ, host=host(), settings=settings)


def codes(res: Any) -> list[str]:
    return [d.code for d in res.diagnostics]


def test_entries_are_searched_in_order_first_wins(isolated_env: Env) -> None:
    a, b = isolated_env.project / "a", isolated_env.project / "b"
    isolated_env.skill(a, "shared", "from a")
    isolated_env.skill(b, "shared", "from b")
    isolated_env.skill(b, "only-b", "only in b")
    res = load(isolated_env, f"{a}{SEP}{b}")
    assert res.names == ["only-b", "shared"]
    assert res.get("shared").description == "from a"
    assert res.get("shared").source.provider == "custom"
    assert res.get("shared").source.level == "user"
    assert res.get("shared").source.detail["via"] == "SKILLPATH"
    (loser,) = res.shadowed
    assert loser.skill.description == "from b"
    # reversed order: the other copy wins
    res = load(isolated_env, f"{b}{SEP}{a}")
    assert res.get("shared").description == "from b"


def test_skillpath_comes_before_custom_directories(isolated_env: Env) -> None:
    isolated_env.skill("env", "twin", "from SKILLPATH")
    isolated_env.skill("conf", "twin", "from config")
    res = load(
        isolated_env,
        str(isolated_env.project / "env"),
        **{"skills.custom_directories": ["conf"]},
    )
    assert res.get("twin").description == "from SKILLPATH"
    vias = [r.via for r in res.roots if r.provider == "custom"]
    assert vias == ["SKILLPATH", "custom_directories"]


def test_relative_entries_resolve_against_home_with_a_warning(isolated_env: Env) -> None:
    # the attack: a relative entry taken against the working directory loads every
    # repository's own rel/ at level user (where its inline shell may run)
    sub = isolated_env.project / "sub"
    sub.mkdir()
    isolated_env.skill(sub / "rel", "repo-one", "the repository's, not the user's")
    isolated_env.skill(isolated_env.home / "rel", "relative-one", "relative to home")
    isolated_env.skill(isolated_env.home / "mine", "home-one", "under home")
    environ = dict(isolated_env.env, SKILLPATH=f"rel{SEP}~/mine")
    res = load_skills(sub, home=isolated_env.home, env=environ, host=host())
    assert res.names == ["home-one", "relative-one"]
    assert res.get("relative-one").path == isolated_env.home / "rel" / "relative-one" / "SKILL.md"
    (warning,) = [d for d in res.diagnostics if d.code == "skillpath-relative-entry"]
    assert warning.level == "warning"
    assert "SKILLPATH entry 1 ('rel')" in warning.message
    assert warning.path == isolated_env.home / "rel"


def test_empty_and_missing_entries_are_diagnostics_not_errors(isolated_env: Env) -> None:
    isolated_env.skill("good", "fine", "still loads")
    (isolated_env.project / "a-file").write_text("not a directory")
    good, missing, a_file = (str(isolated_env.project / n) for n in ("good", "missing", "a-file"))
    value = SEP.join(["", good, "", missing, a_file, ""])
    res = load(isolated_env, value)
    assert res.names == ["fine"]
    empty = [d for d in res.diagnostics if d.code == "skillpath-empty-entry"]
    missing = [d for d in res.diagnostics if d.code == "skillpath-missing-entry"]
    assert [d.message.split(" is ")[0] for d in empty] == [
        "SKILLPATH entry 1",
        "SKILLPATH entry 3",
        "SKILLPATH entry 6",
    ]
    assert {d.path for d in missing} == {
        isolated_env.project / "missing",
        isolated_env.project / "a-file",
    }
    assert any("does not exist" in d.message for d in missing)
    assert any("is not a directory" in d.message for d in missing)
    assert all(d.level == "warning" for d in empty + missing)


def test_unset_or_empty_variable_adds_nothing(isolated_env: Env) -> None:
    for value in (None, ""):
        res = load(isolated_env, value)
        assert not [r for r in res.roots if r.via == "SKILLPATH"]
        assert not [c for c in codes(res) if c.startswith("skillpath-")]


def test_skillpath_skills_need_a_description_like_custom_directories(isolated_env: Env) -> None:
    isolated_env.skill("env", "bare", None)
    res = load(isolated_env, str(isolated_env.project / "env"))
    assert res.names == []
    assert "missing-description" in codes(res)


def test_doctor_shows_the_roots_as_skillpath(isolated_env: Env) -> None:
    isolated_env.skill("env", "one", "a skill")
    res = load(
        isolated_env, f"{isolated_env.project / 'env'}{SEP}{isolated_env.project / 'nowhere'}"
    )
    report = build_report(res).to_json()
    rows = [r for r in report["roots"] if r["via"] == "SKILLPATH"]
    assert [(Path(r["path"]).name, r["exists"], r["count"]) for r in rows] == [
        ("env", True, 1),
        ("nowhere", False, 0),
    ]


def test_cli_doctor_and_explain_name_skillpath(isolated_env: Env) -> None:
    isolated_env.skill("env", "one", "a skill")
    environ = dict(
        isolated_env.env, SKILLPATH=str(isolated_env.project / "env"), SKILLPATH_NO_INDEX="1"
    )
    exe = [sys.executable, "-m", "skillpath"]
    cwd = str(isolated_env.project)
    out = subprocess.run(
        [*exe, "doctor"], cwd=cwd, env=environ, capture_output=True, text=True, check=False
    ).stdout
    assert "custom (SKILLPATH)" in out
    out = subprocess.run(
        [*exe, "explain", "one"], cwd=cwd, env=environ, capture_output=True, text=True, check=False
    ).stdout
    assert "SKILLPATH environment variable" in " ".join(out.split())
    listed = subprocess.run(
        [*exe, "list", "--json"], cwd=cwd, env=environ, capture_output=True, text=True, check=True
    ).stdout
    custom = [s["name"] for s in json.loads(listed)["skills"] if s["provider"] == "custom"]
    assert custom == ["one"]
