"""``skillpath add`` and ``update``'s less travelled paths, pinned as they were before
their steps were split apart: a source with no skill, names not in the source; for
update, lock entries it cannot fetch, names it does not know, a skill gone from its
source or from every agent folder, a source that cannot be fetched, and the user
scope's global lock."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from skillpath.context import make_context
from skillpath.errors import SkillpathError
from skillpath.export import folder_hash
from skillpath.install import Change, add_skills, update_skills

from tests.conftest import Env
from tests.gitserve import Upstream, git_daemon, skill_text


def _source(root: Path, name: str = "alpha", description: str = "Alpha work.") -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(skill_text(name, description), encoding="utf-8")
    return folder


def _lock(env: Env) -> dict:
    return json.loads((env.project / "skills-lock.json").read_text())


def test_add_refuses_a_source_without_skills_and_names_not_in_it(
    isolated_env: Env, tmp_path: Path
) -> None:
    ctx, _ = make_context(isolated_env.project)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "README.md").write_text("no skill here\n")
    with pytest.raises(SkillpathError, match="no skills found"):
        add_skills(str(empty), ctx)
    source = _source(tmp_path / "src")
    with pytest.raises(SkillpathError, match=r"no skill named 'beta', 'gamma' \(found: alpha\)"):
        add_skills(str(source), ctx, skills=["beta", "gamma"])
    assert not (isolated_env.project / ".agents").exists()
    assert not (isolated_env.project / "skills-lock.json").exists()


def test_entries_it_cannot_fetch_are_named_and_unknown_names_refused(
    isolated_env: Env, tmp_path: Path
) -> None:
    env = isolated_env
    ctx, _ = make_context(env.project)
    add_skills(str(_source(tmp_path / "src")), ctx)
    lock = _lock(env)
    lock["skills"]["pkg"] = {"source": "some-pack", "sourceType": "node_modules"}
    lock["skills"]["odd"] = "not an entry"
    (env.project / "skills-lock.json").write_text(json.dumps(lock))

    report = update_skills(ctx)
    assert [(d.level, d.code) for d in report.diagnostics] == [("info", "update-not-fetchable")]
    assert "'pkg'" in report.diagnostics[0].message
    assert "'node_modules'" in report.diagnostics[0].message
    assert {(c.name, c.action) for c in report.changes} == {("alpha", "unchanged")}
    assert len(report.changes) == 2  # the canonical copy and Claude Code's

    narrowed = update_skills(ctx, ["alpha"])
    assert narrowed.diagnostics == ()  # pkg is not asked about
    with pytest.raises(SkillpathError, match="can fetch: pkg"):
        update_skills(ctx, ["pkg"])
    with pytest.raises(SkillpathError, match="can fetch: nothing-here"):
        update_skills(ctx, ["alpha", "nothing-here"])


def test_a_skill_gone_from_every_agent_folder_is_missing(isolated_env: Env, tmp_path: Path) -> None:
    env = isolated_env
    ctx, _ = make_context(env.project)
    add_skills(str(_source(tmp_path / "src")), ctx)
    for rel in (".agents/skills/alpha", ".claude/skills/alpha"):
        shutil.rmtree(env.project / rel)
    report = update_skills(ctx)
    assert report.changes == (
        Change(
            "alpha",
            "missing",
            env.project / ".agents/skills/alpha",
            detail="not installed in any agent folder",
        ),
    )
    assert report.dry_run is False


def test_a_source_that_cannot_be_fetched_is_an_error_and_nothing_changes(
    isolated_env: Env, tmp_path: Path
) -> None:
    env = isolated_env
    ctx, _ = make_context(env.project)
    source = _source(tmp_path / "src")
    add_skills(str(source), ctx)
    before = folder_hash(env.project / ".agents/skills/alpha")
    shutil.rmtree(source)
    report = update_skills(ctx)
    assert [(d.level, d.code) for d in report.diagnostics] == [("error", "update-fetch")]
    assert report.changes == ()
    assert not report.ok
    assert folder_hash(env.project / ".agents/skills/alpha") == before


def test_a_skill_renamed_in_its_source_is_missing_there(isolated_env: Env, tmp_path: Path) -> None:
    env = isolated_env
    ctx, _ = make_context(env.project)
    source = _source(tmp_path / "src")
    add_skills(str(source), ctx)
    (source / "SKILL.md").write_text(skill_text("renamed", "Now another skill."))
    report = update_skills(ctx)
    assert report.changes == (Change("alpha", "missing", source, detail="no longer in the source"),)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Upstream]]:
    upstream = Upstream(tmp_path / "upstream", {"skills/beta/SKILL.md": skill_text("beta", "B.")})
    with git_daemon(upstream.bare.parent) as base:
        yield f"{base}/pack.git", upstream


def test_the_user_scope_refreshes_the_global_locks_hash_and_stamp(
    isolated_env: Env, served: tuple[str, Upstream]
) -> None:
    env = isolated_env
    url, upstream = served
    ctx, _ = make_context(env.project)
    add_skills(url, ctx, user=True, agents=["agents"])
    global_lock = env.home / ".agents/.skill-lock.json"
    was = json.loads(global_lock.read_text())["skills"]["beta"]
    upstream.commit({"skills/beta/notes.md": "more\n"})

    report = update_skills(ctx, user=True)
    assert [(c.action, c.files) for c in report.changes] == [("replace", ("+ notes.md",))]
    now = json.loads(global_lock.read_text())["skills"]["beta"]
    assert now["skillFolderHash"] == folder_hash(env.home / ".agents/skills/beta")
    assert now["skillFolderHash"] != was["skillFolderHash"]
    assert now["installedAt"] == was["installedAt"]
    assert now["updatedAt"] >= was["updatedAt"]
    assert {k for k in now if k not in ("skillFolderHash", "updatedAt")} == {
        k for k in was if k not in ("skillFolderHash", "updatedAt")
    }
