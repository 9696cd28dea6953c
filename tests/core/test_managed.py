"""Managed-skill writes: the autolearn gate, name and description rules, safe writes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from skillpath import load_skills
from skillpath.frontmatter import parse_frontmatter
from skillpath.managed import (
    MAX_BODY_BYTES,
    MAX_DESCRIPTION,
    AutolearnDisabledError,
    ManagedSkillError,
    sanitize_description,
    write_managed_skill,
)

from ..conftest import Env

ON = {"autolearn": {"enabled": True}}


def write(env: Env, name: str, description: str = "Learned.", body: str = "Do it.\n", **kw):  # type: ignore[no-untyped-def]
    kw.setdefault("settings", ON)
    return write_managed_skill(
        name, description, body, cwd=env.project, home=env.home, env=env.env, **kw
    )


def managed(env: Env) -> Path:
    return env.home / ".skillpath" / "managed-skills"


def test_the_gate_is_off_by_default(isolated_env: Env) -> None:
    with pytest.raises(AutolearnDisabledError, match=r"\[autolearn\] enabled = true"):
        write(isolated_env, "learned", settings=None)
    assert not managed(isolated_env).exists()
    with pytest.raises(AutolearnDisabledError):
        write(isolated_env, "learned", settings={"autolearn": {"enabled": False}})


def test_the_gate_reads_the_config_file(isolated_env: Env) -> None:
    cfg = isolated_env.home / ".skillpath" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text("[autolearn]\nenabled = true\n")
    path = write(isolated_env, "from-config", settings=None)
    assert path == managed(isolated_env) / "from-config" / "SKILL.md"
    assert path.is_file()


def test_skillpath_home_moves_the_managed_dir(isolated_env: Env, tmp_path: Path) -> None:
    env = Env(isolated_env.home, isolated_env.project, {**isolated_env.env})
    env.env["SKILLPATH_HOME"] = str(tmp_path / "swhome")
    path = write(env, "moved")
    assert path == tmp_path / "swhome" / "managed-skills" / "moved" / "SKILL.md"


def test_written_file_parses_back(isolated_env: Env) -> None:
    path = write(isolated_env, "fix-flaky", "Fix a flaky test: rerun, isolate, pin.", "Steps.\n")
    parsed = parse_frontmatter(path.read_text())
    assert dict(parsed.data) == {
        "name": "fix-flaky",
        "description": "Fix a flaky test: rerun, isolate, pin.",
    }
    assert parsed.body == "Steps.\n"
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700
    leftovers = [p.name for p in path.parent.iterdir() if p.name != "SKILL.md"]
    assert leftovers == []


@pytest.mark.parametrize(
    "name",
    ["", "Upper", "-lead", "a_b", "a/b", "../x", "a.b", "x" * 65, "é", "a b", "name\n"],
)
def test_bad_names_are_refused(isolated_env: Env, name: str) -> None:
    with pytest.raises(ManagedSkillError, match="invalid managed skill name"):
        write(isolated_env, name)
    assert not managed(isolated_env).exists() or not any(
        p.name != ".locks" for p in managed(isolated_env).iterdir()
    )


@pytest.mark.parametrize("name", ["a", "0", "a-b-c", "x" * 64, "v2-release"])
def test_good_names_are_accepted(isolated_env: Env, name: str) -> None:
    assert write(isolated_env, name).is_file()


def test_description_is_sanitised_and_capped(isolated_env: Env) -> None:
    raw = "Use <b>this</b> `rm -rf`\x07 bell\ttab\u202eend\nnext"
    assert sanitize_description(raw) == "Use bthis/b rm -rf bell tabend next"
    path = write(isolated_env, "clean", raw)
    assert parse_frontmatter(path.read_text()).data["description"] == sanitize_description(raw)
    long = sanitize_description("word " * 1000)
    assert len(long) == MAX_DESCRIPTION and long.endswith("…")
    with pytest.raises(ManagedSkillError, match="description is empty"):
        write(isolated_env, "empty", "<>``\x00\n")


def test_body_size_is_capped(isolated_env: Env) -> None:
    write(isolated_env, "big", body="x" * MAX_BODY_BYTES)
    with pytest.raises(ManagedSkillError, match="larger than"):
        write(isolated_env, "too-big", body="x" * (MAX_BODY_BYTES + 1))
    assert not (managed(isolated_env) / "too-big" / "SKILL.md").exists()


def test_a_symlink_at_the_target_is_refused(isolated_env: Env, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    folder = managed(isolated_env) / "linked"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").symlink_to(victim)
    with pytest.raises(ManagedSkillError, match="symbolic link"):
        write(isolated_env, "linked")
    assert victim.read_text() == "precious\n"
    assert (folder / "SKILL.md").is_symlink()


def test_a_symlinked_skill_dir_or_managed_dir_is_refused(isolated_env: Env, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    managed(isolated_env).mkdir(parents=True)
    (managed(isolated_env) / "redirected").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(ManagedSkillError, match="symbolic link"):
        write(isolated_env, "redirected")
    assert list(elsewhere.iterdir()) == []
    managed(isolated_env).rename(tmp_path / "moved")
    managed(isolated_env).symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(ManagedSkillError, match="symbolic link"):
        write(isolated_env, "anything")
    assert list(elsewhere.iterdir()) == []


def test_a_hard_linked_target_is_refused(isolated_env: Env, tmp_path: Path) -> None:
    path = write(isolated_env, "linked", body="v1\n")
    other = tmp_path / "other-link"
    os.link(path, other)
    with pytest.raises(ManagedSkillError, match="2 hard links"):
        write(isolated_env, "linked", body="v2\n")
    assert other.read_text().endswith("v1\n")
    assert path.read_text().endswith("v1\n")


def test_a_directory_at_the_target_is_refused(isolated_env: Env) -> None:
    (managed(isolated_env) / "odd" / "SKILL.md").mkdir(parents=True)
    with pytest.raises(ManagedSkillError, match="non-regular"):
        write(isolated_env, "odd")


def test_concurrent_writers_leave_one_whole_file(isolated_env: Env) -> None:
    code = (
        "import sys\n"
        "from skillpath.managed import write_managed_skill\n"
        "for i in range(20):\n"
        "    write_managed_skill('shared', 'Writer ' + sys.argv[1], sys.argv[1] * 20000 + '\\n',"
        " cwd=sys.argv[2], settings={'autolearn': {'enabled': True}})\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(i), str(isolated_env.project)],
            env=isolated_env.env,
        )
        for i in range(6)
    ]
    assert [p.wait(timeout=60) for p in procs] == [0] * 6
    folder = managed(isolated_env) / "shared"
    assert sorted(p.name for p in folder.iterdir()) == ["SKILL.md"]
    parsed = parse_frontmatter((folder / "SKILL.md").read_text())
    writer = parsed.data["description"].removeprefix("Writer ")
    assert parsed.body == writer * 20000 + "\n"


def test_a_hand_written_skill_always_wins(isolated_env: Env) -> None:
    """End to end, with the installed providers: managed merges last."""
    write(isolated_env, "deploy", "Learned deploy.")
    write(isolated_env, "only-learned", "Learned only.")
    isolated_env.skill(isolated_env.home / ".skillpath" / "skills", "deploy", "Hand-written.")
    res = load_skills(isolated_env.project, home=isolated_env.home, env=isolated_env.env)
    deploy = res.get("deploy")
    assert deploy is not None and deploy.description == "Hand-written."
    assert deploy.source.provider == "native"
    (lost,) = [s for s in res.shadowed if s.skill.name == "deploy"]
    assert lost.skill.source.provider == "managed" and lost.reason == "name"
    assert res.get("only-learned").source.provider == "managed"
