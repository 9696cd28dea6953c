"""In-process reuse: a second ``load_skills()`` in one process is never stale.

Every test loads twice in this process (the second load reuses what the first
one built), changes something, loads again and compares the result with a load
that reuses nothing (``SKILLPATH_NO_REUSE=1``) and with one that uses no index
at all (``SKILLPATH_NO_INDEX=1``). The change kinds are those the discovery
index and the ``list`` replay are tested against, plus the in-process ones: the
environment, the working directory, a plugin registered at run time.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from skillpath import load_skills
from skillpath.cache import notify as _notify
from skillpath.cache import reuse as _reuse
from skillpath.hookspecs import hookimpl
from skillpath.model import LoadResult, Veto
from skillpath.plugins import PluginHost, get_plugin_host
from skillpath.session import SkillSession
from skillpath.watch import SkillAdded, SkillChanged, SkillRemoved

from tests.conftest import SkillTree, skill_md


class Project(SkillTree):
    """A home, a project (a git repository) and a cache in ``tmp_path``."""

    def __init__(self, tmp_path: Path) -> None:
        super().__init__(tmp_path)
        (self.project / "src").mkdir()
        self.env |= {
            # the example plugins installed for the test run: a filter of its own
            # (whose verdicts are never reused) and a skill pack
            "SKILLPATH_DISABLE_PLUGINS": "acme-policy,pack-urls",
        }

    def load(self, cwd: Path | None = None, **env: str) -> LoadResult:
        return load_skills(cwd or self.project, home=self.home, env={**self.env, **env})


def snapshot(res: LoadResult) -> Any:
    """Everything a load gives, including what ``to_json`` leaves out."""

    def skill(s: Any) -> Any:
        return (s.to_json(), s.frontmatter, s.file_id, s.priority, s.source, s.base_dir)

    return (
        [skill(s) for s in res.skills],
        [skill(s) for s in res.conditional],
        [(skill(x.skill), x.by.path, x.reason) for x in res.shadowed],
        [(skill(x.skill), x.reason, x.detail) for x in res.skipped],
        [d.to_json() for d in res.diagnostics],
        list(res.roots),
    )


def check(p: Project, cwd: Path | None = None, **env: str) -> LoadResult:
    """Load (reusing) and compare with loads that reuse nothing."""
    res = p.load(cwd, **env)
    assert snapshot(res) == snapshot(p.load(cwd, SKILLPATH_NO_REUSE="1", **env))
    assert snapshot(res) == snapshot(p.load(cwd, SKILLPATH_NO_INDEX="1", **env))
    return res


@pytest.fixture
def proj(tmp_path: Path) -> Project:
    p = Project(tmp_path)
    p.fill_mixed()
    return p


def warm(p: Project, *, whole: bool = True, **env: str) -> LoadResult:
    """Load twice: the second load reuses what the first built.

    ``whole``: every root is returned whole (no root holds anything but skills).
    """
    p.load(**env)
    before = _reuse.stats.copy()
    res = p.load(**env)
    after = _reuse.stats
    assert after["roots_reused"] > before["roots_reused"]
    if whole:
        assert after["roots_rescanned"] == before["roots_rescanned"]
        assert after["merges_reused"] == before["merges_reused"] + 1
    else:
        assert after["entries_reused"] > before["entries_reused"]
    return res


def test_unchanged_tree_is_reused_and_identical(proj: Project) -> None:
    first = check(proj)
    again = warm(proj)
    assert snapshot(again) == snapshot(first)
    # the same objects: nothing was rebuilt
    assert again.skills == first.skills and all(
        a is b for a, b in zip(again.skills, first.skills, strict=True)
    )
    assert {"claude-0", "agents-5", "user-3"} <= set(again.names)
    assert "frontmatter-yaml-error" in {d.code for d in again.diagnostics}


def _edit_same_size(p: Project) -> None:
    path = p.project / ".claude/skills/claude-1/SKILL.md"
    path.write_text(path.read_text().replace("A test", "B test"))


def _edit_same_mtime_second(p: Project) -> None:
    path = p.project / ".claude/skills/claude-2/SKILL.md"
    before = path.stat()
    path.write_text(path.read_text().replace("A test", "C test"))
    second = before.st_mtime_ns - before.st_mtime_ns % 1_000_000_000
    os.utime(path, ns=(before.st_atime_ns, second + (before.st_mtime_ns + 1) % 1_000_000_000))
    assert path.stat().st_mtime_ns // 10**9 == before.st_mtime_ns // 10**9


def _edit_restoring_mtime(p: Project) -> None:
    path = p.project / ".claude/skills/claude-3/SKILL.md"
    before = path.stat()
    text = path.read_text().replace("A test", "D test")
    path.write_text(text)
    while path.stat().st_ctime_ns == before.st_ctime_ns:  # the ctime clock ticks coarsely
        path.write_text(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_mtime_ns == before.st_mtime_ns


def _replace_same_times(p: Project) -> None:
    path = p.project / ".claude/skills/claude-4/SKILL.md"
    before = path.stat()
    new = path.with_name("SKILL.md.new")
    new.write_text(path.read_text().replace("A test", "E test"))
    os.utime(new, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(new, path)


def _symlink_retarget(p: Project) -> None:
    link = p.project / ".agents/skills/linked"
    tmp = link.with_name(".linked.tmp")
    tmp.symlink_to(p.project / ".claude/skills/claude-2", target_is_directory=True)
    os.replace(tmp, link)


def _chain_retarget(p: Project) -> None:
    store = p.project / "store"
    (store / "v1").mkdir(parents=True)
    (store / "v1" / "SKILL.md").write_text(skill_md("Version one."))
    (store / "v2").mkdir()
    (store / "v2" / "SKILL.md").write_text(skill_md("Version two."))
    (store / "current").symlink_to(store / "v1", target_is_directory=True)
    (p.project / ".agents/skills/tool").symlink_to(store / "current", target_is_directory=True)
    check(p)
    warm(p)
    root = p.project / ".agents/skills"
    mtime = root.stat().st_mtime_ns
    tmp = store / ".current.tmp"
    tmp.symlink_to(store / "v2", target_is_directory=True)
    os.replace(tmp, store / "current")
    assert root.stat().st_mtime_ns == mtime


def _user_chain_retarget(p: Project) -> None:
    store = p.tmp / "store"
    for version in ("v1", "v2"):
        (store / version).mkdir(parents=True)
        (store / version / "SKILL.md").write_text(skill_md(f"User {version}."))
    (store / "current").symlink_to(store / "v1", target_is_directory=True)
    (p.home / ".claude/skills/tool").symlink_to(store / "current", target_is_directory=True)
    check(p)
    warm(p)
    tmp = store / ".current.tmp"
    tmp.symlink_to(store / "v2", target_is_directory=True)
    os.replace(tmp, store / "current")


def _skill_file_retarget(p: Project) -> None:
    folder = p.project / ".claude/skills/claude-5"
    (folder / "a.md").write_text(skill_md("Alpha."))
    (folder / "b.md").write_text(skill_md("Bravo."))
    (folder / "SKILL.md").unlink()
    (folder / "SKILL.md").symlink_to("a.md")
    check(p)
    warm(p)
    (folder / "SKILL.tmp").symlink_to("b.md")
    os.replace(folder / "SKILL.tmp", folder / "SKILL.md")


def _dangling_comes_alive(p: Project) -> None:
    (p.project / ".agents/skills/later").symlink_to(
        p.project / "store" / "later", target_is_directory=True
    )
    check(p)
    warm(p, whole=False)  # a dangling link is looked at again on every load
    folder = p.project / "store" / "later"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(skill_md("Alive now."))


def _link_out_of_the_project_retargeted(p: Project) -> None:
    link = p.project / ".agents/skills/outside"
    link.symlink_to(p.home / ".claude/skills/user-0", target_is_directory=True)
    assert "file-outside-project" in {d.code for d in check(p).diagnostics}
    warm(p)  # the refusal is kept too: it depends only on where the link leads
    middle = p.project / "hop"
    middle.symlink_to(p.home / ".claude/skills/user-1", target_is_directory=True)
    link.unlink()
    link.symlink_to(middle, target_is_directory=True)
    check(p)
    warm(p)
    # the root and the link stay as they are; the link further along moves inside
    mtime = link.parent.stat().st_mtime_ns
    tmp = p.project / ".hop.tmp"
    tmp.symlink_to(p.project / ".claude/skills/claude-3", target_is_directory=True)
    os.replace(tmp, middle)
    assert link.parent.stat().st_mtime_ns == mtime


def _nested_below_a_plain_folder(p: Project) -> None:
    (p.project / ".claude/skills/group").mkdir()
    check(p)
    p.load()
    nested = p.project / ".claude/skills/group/inner"
    nested.mkdir()
    (nested / "SKILL.md").write_text(skill_md("Nested."))


def _shared_target_folder_replaced(p: Project) -> None:
    """Two roots link into one folder (its identity found once a load), then that
    folder is replaced by another holding the same names."""
    store = p.project / "shared"
    for version in ("v1", "v2"):
        for name in ("one", "two"):
            folder = p.project / f"shared-{version}" / name
            folder.mkdir(parents=True)
            (folder / "SKILL.md").write_text(skill_md(f"Shared {name} {version}."))
    (p.project / "shared-v1").rename(store)
    (p.project / ".agents/skills/shared-one").symlink_to(
        "../../shared/one", target_is_directory=True
    )
    (p.project / ".claude/skills/shared-two").symlink_to(
        "../../shared/two", target_is_directory=True
    )
    check(p)
    warm(p)
    store.rename(p.project / "shared-old")
    (p.project / "shared-v2").rename(store)


def _settings(p: Project) -> None:
    (p.home / ".skillpath").mkdir(exist_ok=True)
    (p.home / ".skillpath" / "config.toml").write_text("[skills]\nenable_claude_user = false\n")


def _project_settings(p: Project) -> None:
    (p.project / ".skillpath").mkdir(exist_ok=True)
    (p.project / ".skillpath" / "config.toml").write_text('[skills]\nignored = ["agents-*"]\n')


CHANGES = {
    "added": lambda p: p.skill(".claude/skills", "new-one"),
    "removed": lambda p: shutil.rmtree(p.project / ".claude/skills/claude-3"),
    "edited, same size": _edit_same_size,
    "edited, same size and mtime second": _edit_same_mtime_second,
    "edited, exact mtime restored": _edit_restoring_mtime,
    "replaced, same size and times": _replace_same_times,
    "renamed": lambda p: (p.project / ".agents/skills/agents-1").rename(
        p.project / ".agents/skills/agents-renamed"
    ),
    "folder removed": lambda p: shutil.rmtree(p.project / ".agents/skills"),
    "symlink retargeted": _symlink_retarget,
    "symlink chain retargeted outside the root": _chain_retarget,
    "user symlink chain retargeted": _user_chain_retarget,
    "symlinked SKILL.md retargeted": _skill_file_retarget,
    "dangling symlink comes alive": _dangling_comes_alive,
    "link out of the project retargeted inside": _link_out_of_the_project_retargeted,
    "nested skill below a plain folder": _nested_below_a_plain_folder,
    "a folder two roots link into replaced": _shared_target_folder_replaced,
    "new root created": lambda p: p.skill(".opencode/skills", "fresh-root"),
    "broken file fixed": lambda p: (p.project / ".claude/skills/broken/SKILL.md").write_text(
        skill_md("Fixed now.")
    ),
    "file made a folder": lambda p: (
        (p.project / ".claude/skills/claude-1/SKILL.md").unlink(),
        (p.project / ".claude/skills/claude-1/SKILL.md").mkdir(),
    ),
    "user settings written": _settings,
    "project settings written": _project_settings,
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_every_kind_of_change_is_seen(proj: Project, change: str) -> None:
    before = check(proj)
    warm(proj)
    CHANGES[change](proj)
    after = check(proj)
    assert snapshot(after) != snapshot(before)
    assert snapshot(proj.load()) == snapshot(after)


def test_environment_changes_are_seen(proj: Project, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    (extra / "from-env").mkdir(parents=True)
    (extra / "from-env" / "SKILL.md").write_text(skill_md("From SKILLPATH."))
    check(proj)
    warm(proj)
    with_path = check(proj, SKILLPATH=str(extra))
    assert "from-env" in with_path.names
    assert "from-env" not in check(proj).names
    # SKILLPATH_* switches: the user's skills home moves elsewhere
    other = tmp_path / "other-home"
    (other / "skills" / "elsewhere").mkdir(parents=True)
    (other / "skills" / "elsewhere" / "SKILL.md").write_text(skill_md("Moved."))
    moved = check(proj, SKILLPATH_HOME=str(other))
    assert snapshot(moved) != snapshot(check(proj))


def test_a_different_working_directory_is_seen(proj: Project, tmp_path: Path) -> None:
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    folder = other / ".claude" / "skills" / "other-skill"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(skill_md("Other project."))
    here = check(proj)
    warm(proj)
    there = check(proj, cwd=other)
    assert "other-skill" in there.names and "claude-0" not in there.names
    assert snapshot(check(proj)) == snapshot(here)


class _VetoAgents:
    @hookimpl
    def filter_skill(self, skill: Any, ctx: Any) -> Veto | None:
        return Veto("no agents") if skill.name.startswith("agents-") else None


def test_a_plugin_registered_at_run_time_is_seen(proj: Project) -> None:
    host = PluginHost.create(env=proj.env)
    env = proj.env
    first = load_skills(proj.project, home=proj.home, env=env, host=host)
    again = load_skills(proj.project, home=proj.home, env=env, host=host)
    assert snapshot(again) == snapshot(first)
    host.pm.register(_VetoAgents(), name="veto-agents")
    vetoed = load_skills(proj.project, home=proj.home, env=env, host=host)
    assert not any(n.startswith("agents-") for n in vetoed.names)
    # a plugin filter may depend on anything: its verdicts are never reused
    before = _reuse.stats.copy()
    load_skills(proj.project, home=proj.home, env=env, host=host)
    assert _reuse.stats["merges_reused"] == before["merges_reused"]


def test_recent_changes_are_read_again_until_they_are_old_enough(proj: Project) -> None:
    """With a racy window, an entry modified near the load that recorded it is not reused."""
    env = {"SKILLPATH_INDEX_RACY_MS": "3600000"}  # everything is "recent"
    check(proj, **env)
    proj.load(**env)
    kept = [m for k, m in _reuse._SCANS.items() if k[0].startswith(str(proj.tmp))]
    assert kept and all(m.result is None and not m.entries for m in kept)
    _edit_same_size(proj)
    assert "B test skill." in {s.description for s in check(proj, **env).skills}


def test_the_switches_turn_it_off(proj: Project) -> None:
    for switch in ("SKILLPATH_NO_REUSE", "SKILLPATH_NO_INDEX"):
        proj.load(**{switch: "1"})
        before = _reuse.stats.copy()
        proj.load(**{switch: "1"})
        assert _reuse.stats == before, switch


def test_the_memo_is_bounded(proj: Project, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(_reuse, "MAX_ROOTS", 3)
    proj.load()
    assert len(_reuse._SCANS) <= 3
    assert snapshot(check(proj)) == snapshot(proj.load())


def test_refresh_reports_exactly_what_changed(proj: Project) -> None:
    host = get_plugin_host(proj.env)
    s = SkillSession.open(proj.project, home=proj.home, env=proj.env, host=host)
    assert s.refresh() == ()
    _edit_same_size(proj)
    proj.skill(".claude/skills", "new-one")
    shutil.rmtree(proj.project / ".agents/skills/agents-2")
    events = s.refresh()
    assert [(type(e), e.name) for e in events] == [
        (SkillRemoved, "agents-2"),
        (SkillChanged, "claude-1"),
        (SkillAdded, "new-one"),
    ]
    assert s.get("claude-1") is not None
    assert s.get("claude-1").description == "B test skill."  # type: ignore[union-attr]
    assert snapshot(s.result) == snapshot(proj.load(SKILLPATH_NO_REUSE="1"))
    assert s.refresh() == ()


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"SKILLPATH_NO_REUSE": "1"},
        {"SKILLPATH_NO_WATCH": "1"},
        {"SKILLPATH_NO_INDEX": "1"},
        {"SKILLPATH_INDEX_RACY_MS": "3600000"},  # every file is "recent"
    ],
    ids=["watching", "no reuse", "no watch", "no index", "racy"],
)
def test_refresh_reports_body_only_edits(proj: Project, env: dict[str, str]) -> None:
    """A host that keeps rendered prompts learns of an edit below the frontmatter."""
    s = SkillSession.open(proj.project, home=proj.home, env={**proj.env, **env})
    user_md = proj.home / ".claude/skills/user-1/SKILL.md"
    assert s.get("user-1").body == "Body.\n"  # type: ignore[union-attr]
    assert s.refresh() == ()

    def events() -> list[tuple[type, str]]:
        return [(type(e), e.name) for e in s.refresh()]

    # the body only, same size
    path = proj.project / ".claude/skills/claude-1/SKILL.md"
    path.write_text(path.read_text().replace("Body.", "Bxdy."))
    assert events() == [(SkillChanged, "claude-1")]
    assert s.get("claude-1").body == "Bxdy.\n"  # type: ignore[union-attr]
    assert s.refresh() == ()
    # the body only, longer; with a skill added at the same time
    user_md.write_text(user_md.read_text().replace("Body.", "A longer body."))
    proj.skill(".claude/skills", "new-one")
    assert events() == [(SkillAdded, "new-one"), (SkillChanged, "user-1")]
    assert s.get("user-1").body == "A longer body.\n"  # type: ignore[union-attr]
    assert s.refresh() == ()
    # the frontmatter only
    path = proj.project / ".claude/skills/claude-3/SKILL.md"
    path.write_text(path.read_text().replace("A test", "F test"))
    assert events() == [(SkillChanged, "claude-3")]
    assert s.refresh() == ()
    # the same text written again: the file changed, its skill is reported
    path.write_text(path.read_text())
    assert events() == [(SkillChanged, "claude-3")]
    assert s.refresh() == ()
    same_as_fresh(proj, s)


def patched_after(p: Project, change: Any) -> tuple[bool, LoadResult]:
    """Whether the load after ``change`` (the merge kept warm before it) patched the
    kept merge instead of merging again, and that load's result."""
    warm(p)
    before = _reuse.stats["merges_patched"]
    change()
    res = check(p)
    return _reuse.stats["merges_patched"] > before, res


def test_a_merge_is_patched_only_where_nothing_else_can_change(proj: Project) -> None:
    proj.skill("~/.claude/skills", "claude-0", "Shadowed by the project's claude-0.")
    check(proj)
    warm(proj)

    def patched(change: Any) -> bool:
        return patched_after(proj, change)[0]

    user = proj.home / ".claude/skills"
    claude = proj.project / ".claude/skills"
    assert patched(lambda: _edit_same_size(proj))
    assert patched(lambda: (claude / "claude-4/SKILL.md").write_text(skill_md("Longer.")))
    # the name, the conditional status, a shadowing: merged again
    assert not patched(
        lambda: (claude / "claude-2/SKILL.md").write_text(skill_md("D.", name="renamed"))
    )
    assert not patched(
        lambda: (claude / "claude-3/SKILL.md").write_text(skill_md("D.", paths='"src/**"'))
    )
    assert not patched(lambda: (user / "claude-0/SKILL.md").write_text(skill_md("Loser.")))
    assert not patched(lambda: (claude / "claude-0/SKILL.md").write_text(skill_md("Win.")))
    # a skill the filters now drop
    (proj.project / ".skillpath").mkdir()
    (proj.project / ".skillpath" / "config.toml").write_text('[skills]\nignored = ["agents-1"]\n')
    agents_1 = proj.project / ".agents/skills/agents-1/SKILL.md"
    assert not patched(lambda: agents_1.write_text(skill_md("Still dropped.")))
    assert "agents-1" not in check(proj).names


def test_a_file_found_twice_is_patched_and_never_stale(proj: Project) -> None:
    """One file under two folders (``duplicate-file``): an edit patches the merge, the
    loser's record names the new winner; a retarget or a new clash merges again."""
    claude = proj.project / ".claude/skills"
    twin = proj.project / ".agents/skills/twin-4"
    twin.symlink_to(claude / "claude-4", target_is_directory=True)
    path = claude / "claude-4/SKILL.md"
    check(proj)
    warm(proj)

    def patched(change: Any) -> bool:
        done, res = patched_after(proj, change)
        assert [x.reason for x in res.shadowed if x.skill.file_id == x.by.file_id] == [
            "duplicate-file"
        ] * 2  # this pair and the fixture's `linked`
        return done

    assert patched(lambda: path.write_text(skill_md("Edited once.")))
    assert patched(lambda: path.write_text(skill_md("Edited twice, longer.")))
    # the records of the clash hold the skills just read, not the ones they replaced
    res = check(proj)
    (pair,) = [x for x in res.shadowed if "4" in x.by.name]
    assert pair.by.description == pair.skill.description == "Edited twice, longer."
    # the link retargeted: another file, merged again
    twin.unlink()
    twin.symlink_to(claude / "claude-5", target_is_directory=True)
    check(proj)
    # a watching session: an edit, a retarget, a name clash with the link's target
    s = open_session(proj)
    assert s.refresh() == ()
    (claude / "claude-5/SKILL.md").write_text(skill_md("Seen twice."))
    s.refresh()
    same_as_fresh(proj, s)
    assert s.get("claude-5").description == "Seen twice."  # type: ignore[union-attr]
    twin.unlink()
    twin.symlink_to(claude / "claude-4", target_is_directory=True)
    s.refresh()
    same_as_fresh(proj, s)
    proj.skill("~/.claude/skills", "claude-4", "A clash of names with the twin's target.")
    s.refresh()
    same_as_fresh(proj, s)
    path.write_text(skill_md("Edited in a clash."))
    s.refresh()
    same_as_fresh(proj, s)


# -- a session watches the roots it keeps ---------------------------------------------


def open_session(p: Project) -> SkillSession:
    before = _reuse.stats["roots_armed"]
    s = SkillSession.open(p.project, home=p.home, env=p.env)
    if _notify.notifier() is not None:
        assert _reuse.stats["roots_armed"] > before
    return s


def same_as_fresh(p: Project, s: SkillSession) -> None:
    assert snapshot(s.result) == snapshot(p.load(SKILLPATH_NO_REUSE="1"))
    assert snapshot(s.result) == snapshot(p.load(SKILLPATH_NO_INDEX="1"))


@pytest.mark.parametrize("change", list(CHANGES))
def test_every_kind_of_change_is_seen_by_a_watching_session(proj: Project, change: str) -> None:
    s = open_session(proj)
    assert s.refresh() == ()
    before = snapshot(s.result)
    CHANGES[change](proj)
    s.refresh()
    assert snapshot(s.result) != before
    same_as_fresh(proj, s)
    assert s.refresh() == ()
    same_as_fresh(proj, s)


def test_a_refresh_reads_the_config_files_again(proj: Project) -> None:
    s = open_session(proj)
    assert s.settings_arg is None
    user = proj.home / ".skillpath" / "config.toml"
    user.parent.mkdir()
    user.write_text("[skills]\nenable_claude_user = false\n")
    events = s.refresh()
    assert [(type(e), e.name) for e in events] == [(SkillRemoved, f"user-{i}") for i in range(6)]
    assert not any(n.startswith("user-") for n in s.result.names)
    project = proj.project / ".skillpath" / "config.toml"
    project.parent.mkdir()
    project.write_text('[skills]\nignored = ["agents-*"]\n')
    s.refresh()
    assert not any(n.startswith(("user-", "agents-")) for n in s.result.names)
    assert s.get("agents-1") is None and tuple(s.ctx.settings.skills["ignored"]) == ("agents-*",)
    same_as_fresh(proj, s)
    user.unlink()
    project.unlink()
    s.refresh()
    assert {"user-0", "agents-1", "claude-0"} <= set(s.result.names)
    assert s.get("agents-1") is not None
    same_as_fresh(proj, s)


def test_settings_given_to_open_still_win_over_the_files(proj: Project) -> None:
    given = {"skills": {"enable_claude_user": True, "ignored": ["claude-1"]}}
    s = SkillSession.open(proj.project, home=proj.home, env=proj.env, settings=given)
    assert "claude-1" not in s.result.names and "user-0" in s.result.names
    (proj.home / ".skillpath").mkdir()
    (proj.home / ".skillpath" / "config.toml").write_text(
        '[skills]\nenable_claude_user = false\nignored = ["claude-2"]\n[listing]\nbudget = 1234\n'
    )
    s.refresh()
    assert "user-0" in s.result.names  # the given value wins
    assert "claude-1" not in s.result.names and "claude-2" in s.result.names
    assert s.ctx.settings.get("listing", "budget") == 1234  # the file is read again
    s.refresh()
    assert "user-0" in s.result.names and "claude-1" not in s.result.names


def _first_arguments(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[str]:
    """The paths ``owner.name`` is called on from now on (its first argument)."""
    seen: list[str] = []
    real = getattr(owner, name)

    def counting(path: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(os.fspath(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return seen


@pytest.fixture
def file_keys(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ``SKILL.md`` paths whose ``stat`` the scanner takes."""
    from skillpath.cache import memo

    return _first_arguments(monkeypatch, memo, "file_key")


@pytest.mark.skipif(_notify.notifier() is None, reason="no inotify here")
def test_a_watched_refresh_looks_only_at_what_had_an_event(
    proj: Project, file_keys: list[str]
) -> None:
    s = open_session(proj)
    s.refresh()
    file_keys.clear()
    assert s.refresh() == ()
    # only the folder link (a link can change with no event) is stat'ed again
    assert all("/.agents/skills/" in f for f in file_keys), file_keys
    file_keys.clear()
    _edit_same_size(proj)
    (events,) = s.refresh()
    assert isinstance(events, SkillChanged) and events.name == "claude-1"
    assert [f for f in file_keys if "/.claude/skills/" in f] == [
        str(proj.project / ".claude/skills/claude-1/SKILL.md")
    ]
    same_as_fresh(proj, s)


def test_a_hard_link_written_elsewhere_is_seen(proj: Project) -> None:
    path = proj.project / ".claude/skills/claude-2/SKILL.md"
    other = proj.tmp / "elsewhere.md"
    os.link(path, other)
    s = open_session(proj)
    assert s.refresh() == ()
    with open(other, "r+", encoding="utf-8") as f:
        text = f.read().replace("A test", "Z test")
        f.seek(0)
        f.write(text)
    (event,) = s.refresh()
    assert event.name == "claude-2" and "Z test" in event.skill.description
    same_as_fresh(proj, s)


def test_lost_events_or_no_watch_fall_back_to_stat(
    proj: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = open_session(proj)
    n = _notify.notifier()
    if n is not None:
        monkeypatch.setattr(n, "read", lambda: None)  # the queue overflowed
    _edit_same_size(proj)
    s.refresh()
    same_as_fresh(proj, s)
    monkeypatch.setattr(_notify, "local", lambda path: False)  # a network file system
    proj.skill(".claude/skills", "new-one")
    s2 = SkillSession.open(proj.project, home=proj.home, env=proj.env)
    assert all(not m.armed for k, m in _reuse._SCANS.items() if k[0].startswith(str(proj.tmp)))
    _edit_restoring_mtime(proj)
    s2.refresh()
    same_as_fresh(proj, s2)


def test_no_watch_switch(proj: Project) -> None:
    env = {**proj.env, "SKILLPATH_NO_WATCH": "1"}
    before = _reuse.stats["roots_armed"]
    s = SkillSession.open(proj.project, home=proj.home, env=env)
    assert _reuse.stats["roots_armed"] == before
    _edit_same_size(proj)
    s.refresh()
    same_as_fresh(proj, s)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_does_not_take_the_parents_events(proj: Project) -> None:
    s = open_session(proj)
    _edit_same_size(proj)  # an event is queued for the parent's watch
    pid = os.fork()
    if pid == 0:  # the child loads with a session of its own, then leaves at once
        code = 0
        try:
            child = SkillSession.open(proj.project, home=proj.home, env=proj.env)
            child.refresh()
        except BaseException:
            code = 1
        os._exit(code)
    _pid, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    (event,) = s.refresh()
    assert event.name == "claude-1" and event.skill.description == "B test skill."
    same_as_fresh(proj, s)


def test_the_cached_realpath_is_realpath(tmp_path: Path) -> None:
    from skillpath.cache.memo import realpath_cached as _realpath_cached

    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "l1").symlink_to(tmp_path / "a")
    (tmp_path / "a" / "l2").symlink_to("b")
    (tmp_path / "a" / "up").symlink_to("../a/b")
    (tmp_path / "loop").symlink_to("loop")
    (tmp_path / "rel").symlink_to("l1/l2")
    (tmp_path / "dangling").symlink_to("nowhere/x")
    cache: dict[str, str] = {}
    for rel in ("l1", "l1/l2", "a/up", "loop", "rel", "dangling", "missing", "l1/x", "a/../l1"):
        path = str(tmp_path / rel)
        assert _realpath_cached(path, cache) == os.path.realpath(path), rel


def test_the_same_file_in_two_folders_of_a_root(proj: Project) -> None:
    """Hard links: one watch stands for two folders; a write through either is seen in both."""
    first = proj.project / ".claude/skills/claude-3/SKILL.md"
    twin = proj.project / ".claude/skills/twin/SKILL.md"
    twin.parent.mkdir()
    os.link(first, twin)
    s = open_session(proj)
    assert s.refresh() == ()
    with open(twin, "r+", encoding="utf-8") as f:
        text = f.read().replace("A test", "T test")
        f.seek(0)
        f.write(text)
    s.refresh()
    same_as_fresh(proj, s)
    assert s.get("claude-3").description == "T test skill."  # type: ignore[union-attr]


def test_loads_in_several_threads_while_files_change(proj: Project) -> None:
    """No lost change and no error when sessions in several threads refresh at once."""
    import threading

    sessions = [open_session(proj)]
    sessions += [SkillSession.open(proj.project, home=proj.home, env=proj.env) for _ in "ab"]
    errors: list[BaseException] = []
    stop = threading.Event()

    def churn(s: SkillSession) -> None:
        try:
            while not stop.is_set():
                s.refresh()
                proj.load()
        except BaseException as exc:  # reported below
            errors.append(exc)
            stop.set()

    threads = [threading.Thread(target=churn, args=(s,)) for s in sessions]
    for t in threads:
        t.start()
    try:
        for i in range(12):
            path = proj.project / ".claude/skills" / f"claude-{i % 6}" / "SKILL.md"
            path.write_text(skill_md(f"Edit number {i}."))
            if i % 4 == 0:
                proj.skill(".agents/skills", f"added-{i}")
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert errors == []
    for s in sessions:
        s.refresh()
        same_as_fresh(proj, s)


# -- an agent's check before each turn --------------------------------------------

TURN_ENVS = {
    "watching": {},
    "no watch": {"SKILLPATH_NO_WATCH": "1"},
    "no reuse": {"SKILLPATH_NO_REUSE": "1"},
}


@pytest.mark.parametrize("how", list(TURN_ENVS))
@pytest.mark.parametrize("change", list(CHANGES))
def test_every_kind_of_change_is_seen_at_the_next_turn(
    proj: Project, change: str, how: str
) -> None:
    from skillpath.agent import AgentSkills

    env = {**proj.env, **TURN_ENVS[how]}
    skills = AgentSkills(SkillSession.open(proj.project, home=proj.home, env=env))
    assert skills.begin_turn() is False
    before = snapshot(skills.session.result)
    CHANGES[change](proj)
    skills.begin_turn()  # True when the active skills changed (not a shadowed one)
    assert snapshot(skills.session.result) != before
    same_as_fresh(proj, skills.session)
    assert skills.begin_turn() is False


@pytest.fixture
def stats_taken(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths ``os.stat`` is called on."""
    return _first_arguments(monkeypatch, os, "stat")


@pytest.mark.skipif(_notify.notifier() is None, reason="no inotify here")
def test_a_turn_reads_the_events_of_the_watched_roots_instead_of_a_stat_each(
    proj: Project, stats_taken: list[str]
) -> None:
    from skillpath.agent import AgentSkills

    skills = AgentSkills(open_session(proj))
    stats_taken.clear()
    assert skills.begin_turn() is False
    # the roots, the entries through a symlink and the config files: no SKILL.md else
    # (of this tree: the unpacked tree of a plugin's skill pack, in this test's cache, is
    # no watched root)
    packs = str(proj.tmp / "cache" / "skillpath" / "packs")
    skill_files = [
        p
        for p in stats_taken
        if p.endswith("SKILL.md") and str(proj.tmp) in p and not p.startswith(packs)
    ]
    assert skill_files == [str(proj.project / ".agents/skills/linked/SKILL.md")], skill_files
    _edit_same_size(proj)
    assert skills.begin_turn() is True
    assert skills.session.get("claude-1").description == "B test skill."  # type: ignore[union-attr]
    # a write through a link's target is seen by its stat
    (proj.project / ".claude/skills/claude-0/SKILL.md").write_text(skill_md("Via the link."))
    assert skills.begin_turn() is True
    same_as_fresh(proj, skills.session)
    assert skills.begin_turn() is False


@pytest.mark.skipif(_notify.notifier() is None, reason="no inotify here")
def test_a_turn_falls_back_to_stat_where_nothing_is_watched(
    proj: Project, stats_taken: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillpath.agent import AgentSkills

    monkeypatch.setattr(_notify, "local", lambda path: False)  # a network file system
    skills = AgentSkills(SkillSession.open(proj.project, home=proj.home, env=proj.env))
    stats_taken.clear()
    assert skills.begin_turn() is False
    assert str(proj.project / ".claude/skills/claude-3/SKILL.md") in stats_taken
    _edit_restoring_mtime(proj)
    assert skills.begin_turn() is True
    same_as_fresh(proj, skills.session)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_checks_its_turns_itself(proj: Project) -> None:
    from skillpath.agent import AgentSkills

    skills = AgentSkills(open_session(proj))
    pid = os.fork()
    if pid == 0:  # the child: its first turn loads again, then sees its own changes
        code = 1
        try:
            skills.begin_turn()
            _edit_same_size(proj)
            if skills.begin_turn() is True and not skills.begin_turn():
                code = 0
        except BaseException:
            code = 2
        os._exit(code)
    _pid, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert skills.begin_turn() is True  # the child's edit, seen by the parent's watch
    assert skills.session.get("claude-1").description == "B test skill."  # type: ignore[union-attr]
    same_as_fresh(proj, skills.session)


@pytest.mark.parametrize(
    "switch", ["SKILLPATH_NO_WATCH", "SKILLPATH_NO_REUSE", "SKILLPATH_NO_INDEX"]
)
def test_a_turn_stats_every_file_with_a_switch_even_where_another_session_watches(
    proj: Project, stats_taken: list[str], switch: str
) -> None:
    from skillpath.agent import AgentSkills

    open_session(proj)  # watches the roots
    skills = AgentSkills(
        SkillSession.open(proj.project, home=proj.home, env={**proj.env, switch: "1"})
    )
    stats_taken.clear()
    assert skills.begin_turn() is False
    assert str(proj.project / ".claude/skills/claude-3/SKILL.md") in stats_taken
    _edit_restoring_mtime(proj)
    assert skills.begin_turn() is True
    same_as_fresh(proj, skills.session)


def test_an_entry_the_index_lost_is_read_again(proj: Project) -> None:
    """What a scan keeps in the process does not hold the index records (the index
    file does): when the index lost them, a root scanned again reads those files."""
    check(proj)
    warm(proj)
    index_dir = Path(proj.env["XDG_CACHE_HOME"]) / "skillpath" / "index"
    assert any(index_dir.iterdir())
    shutil.rmtree(index_dir)
    proj.skill(".claude/skills", "claude-new", "Joins the root.")  # the root is scanned again
    res = check(proj)
    assert "claude-new" in res.names and "claude-3" in res.names
    assert any(index_dir.iterdir())  # written again, whole
    assert snapshot(warm(proj)) == snapshot(res)


# -- folder links vouched for by the folder holding their targets ------------------


def _store(p: Project, base: Path, names: tuple[str, ...], text: str) -> None:
    for name in names:
        (base / name).mkdir(parents=True, exist_ok=True)
        (base / name / "SKILL.md").write_text(skill_md(f"{text} {name}."))


def _linked_store(p: Project) -> tuple[Path, Path]:
    """A project store and a user store, each linked into a root as ``npx skills``
    links (relative links in the project, absolute ones in the home folder)."""
    store = p.project / ".store" / "skills"
    _store(p, store, ("s-a", "s-b"), "Stored")
    root = p.project / ".agents/skills"
    for name in ("s-a", "s-b"):
        (root / name).symlink_to(os.path.relpath(store / name, root), True)
    ustore = p.tmp / "ustore" / "skills"
    _store(p, ustore, ("u-a", "u-b"), "User stored")
    for name in ("u-a", "u-b"):
        (p.home / ".claude/skills" / name).symlink_to(ustore / name, True)
    return store, ustore


def _swap_store_parent(store: Path, a: str, b: str) -> None:
    """The store's parent renamed and a new one, same path, other skills put in place:
    no watched folder has an event."""
    parent = store.parent
    parent.rename(parent.with_name(parent.name + "-old"))
    for name in (a, b):
        (store / name).mkdir(parents=True, exist_ok=True)
        (store / name / "SKILL.md").write_text(skill_md(f"Swapped {name}."))


def _store_made_a_link(store: Path) -> None:
    """The store's parent made a symlink to a copy elsewhere (same skills, new real path)."""
    parent = store.parent
    other = parent.with_name(parent.name + "-v2")
    shutil.copytree(parent, other, symlinks=True)
    for md in other.glob("skills/*/SKILL.md"):
        md.write_text(md.read_text().replace("tored", "tored v2"))
    shutil.rmtree(parent)
    parent.symlink_to(other, True)


def _target_replaced(store: Path, a: str, _b: str) -> None:
    """The target folder renamed away and another folder put in its place."""
    (store / a).rename(store / f".{a}.old")
    (store / a).mkdir()
    (store / a / "SKILL.md").write_text(skill_md(f"Replaced {a}."))


LINK_CHANGES = {
    "target edited": lambda store, a, _b: (store / a / "SKILL.md").write_text(
        skill_md("Edited through the link.")
    ),
    "target deleted": lambda store, _a, b: shutil.rmtree(store / b),
    "target renamed and another put in place": _target_replaced,
    "store parent swapped": lambda store, a, b: _swap_store_parent(store, a, b),
    "store parent made a symlink": lambda store, _a, _b: _store_made_a_link(store),
}


@pytest.mark.parametrize("where", ["project", "user"])
@pytest.mark.parametrize("change", list(LINK_CHANGES))
def test_links_vouched_for_by_their_target_folder_are_never_stale(
    proj: Project, change: str, where: str
) -> None:
    store, ustore = _linked_store(proj)
    s = open_session(proj)
    assert s.refresh() == ()
    same_as_fresh(proj, s)
    if _notify.notifier() is not None:
        grouped = {n for m in list(_reuse._SCANS.values()) for g in m.link_groups for n in g[3]}
        assert {"s-a", "s-b", "u-a", "u-b"} <= grouped
    before = snapshot(s.result)
    if where == "project":
        LINK_CHANGES[change](store, "s-a", "s-b")
    else:
        LINK_CHANGES[change](ustore, "u-a", "u-b")
    assert s.refresh() != ()
    assert snapshot(s.result) != before
    same_as_fresh(proj, s)
    assert s.refresh() == ()
    same_as_fresh(proj, s)


def test_a_link_retargeted_in_its_root_is_seen_by_a_watching_session(proj: Project) -> None:
    store, _ustore = _linked_store(proj)
    _store(proj, store, ("s-c",), "Third")
    s = open_session(proj)
    assert s.refresh() == ()
    link = proj.project / ".agents/skills/s-a"
    tmp = link.with_name(".s-a.tmp")
    tmp.symlink_to(os.path.relpath(store / "s-c", link.parent), True)
    os.replace(tmp, link)
    assert s.refresh() != ()
    same_as_fresh(proj, s)
    assert s.refresh() == ()


# -- a value kept by stat is vouched for by watches in a watching session ----------


def _nested_walk_kept(p: Project) -> tuple[Any, ...] | None:
    """What :func:`skillpath.cache.reuse.kept_by_stat` keeps for Codex's nested walk of
    ``~/.codex/skills`` (``None``: nothing kept)."""
    kept = _reuse._BY_STAT.get(("codex", "nested", str(p.home / ".codex" / "skills")))
    return kept


def test_the_nested_walk_is_watched_and_never_stale(proj: Project) -> None:
    codex = proj.home / ".codex" / "skills"
    for i in range(3):
        proj.skill("~/.codex/skills", f"codex-{i}")
    proj.skill("~/.codex/skills/group", "inner-a")
    proj.skill("~/.codex/skills/group/deeper", "inner-b")
    store = proj.tmp / "store"
    for version in ("v1", "v2"):
        (store / version).mkdir(parents=True)
        (store / version / "SKILL.md").write_text(skill_md(f"Stored {version}."))
    (codex / "group" / "linked").symlink_to(store / "v1", target_is_directory=True)
    s = open_session(proj)
    assert s.refresh() == ()
    assert {"inner-a", "inner-b"} <= set(s.result.names)
    same_as_fresh(proj, s)
    watched = _notify.notifier() is not None
    kept = _nested_walk_kept(proj)
    assert kept is not None and kept[3] is watched
    if watched:  # only the links and the folder above the root are left to a stat
        assert str(codex / "group" / "linked") in kept[1]
        assert str(codex / "group") not in kept[1]

    def after(change: Any, *, reused: bool = False) -> None:
        before = _reuse.stats["values_reused"]
        change()
        s.refresh()
        same_as_fresh(proj, s)
        if reused:
            assert _reuse.stats["values_reused"] > before
        assert s.refresh() == ()
        same_as_fresh(proj, s)

    # a write to a file of a watched folder: the walk is not done again
    after(lambda: (codex / "group" / "notes.txt").write_text("notes\n"), reused=True)
    after(lambda: (codex / "group" / "inner-a" / "SKILL.md").write_text(skill_md("Edited.")))
    assert s.get("inner-a") is not None and s.get("inner-a").description == "Edited."
    after(lambda: proj.skill("~/.codex/skills/group/deeper", "inner-c"))  # an add
    assert s.get("inner-c") is not None
    after(lambda: shutil.rmtree(codex / "group" / "deeper" / "inner-b"))  # a delete
    assert s.get("inner-b") is None

    def retarget() -> None:
        tmp = codex / "group" / ".linked.tmp"
        tmp.symlink_to(store / "v2", target_is_directory=True)
        os.replace(tmp, codex / "group" / "linked")

    after(retarget)
    # a nested skill shadowing a skill of another root, then the clash undone
    after(lambda: proj.skill("~/.codex/skills/group", "user-1"))
    after(lambda: shutil.rmtree(codex / "group" / "user-1"))
    # a folder on the way renamed; the folder above the root replaced
    after(lambda: (codex / "group").rename(codex / "group-renamed"))
    assert s.get("inner-a") is not None

    after(lambda: (codex / "group-renamed" / "linked").unlink())
    kept = _nested_walk_kept(proj)
    assert kept is not None
    if watched:  # nothing but the folder above the root is left to a stat
        assert kept[1] == (str(proj.home / ".codex"),)

    def replace_above() -> None:
        (proj.home / ".codex").rename(proj.home / ".codex-old")
        proj.skill("~/.codex/skills/other", "inner-z")

    after(replace_above)
    assert s.get("inner-z") is not None and s.get("inner-a") is None


def test_a_walk_kept_by_a_plain_load_is_watched_once_a_session_reuses_it(
    proj: Project,
) -> None:
    # a host that lists once (``load_skills``) and then opens a session: the walk
    # the plain load kept (by stat only) is watched from the session's first load
    codex = proj.home / ".codex" / "skills"
    proj.skill("~/.codex/skills", "codex-0")
    proj.skill("~/.codex/skills/group", "inner-a")
    proj.skill("~/.codex/skills/group/deeper", "inner-b")
    proj.load()
    proj.load()  # reused by a load that does not watch either
    kept = _nested_walk_kept(proj)
    assert kept is not None and kept[3] is False
    assert str(codex / "group" / "deeper") in kept[1]
    before = _reuse.stats["values_reused"]
    s = open_session(proj)
    assert _reuse.stats["values_reused"] > before  # not walked again, only watched
    same_as_fresh(proj, s)
    watched = _notify.notifier() is not None
    kept = _nested_walk_kept(proj)
    assert kept is not None and kept[3] is watched
    if watched:
        assert str(codex / "group" / "deeper") not in kept[1]
    proj.skill("~/.codex/skills/group/deeper", "inner-c")  # an add below a watched folder
    assert s.refresh() != ()
    assert s.get("inner-c") is not None
    same_as_fresh(proj, s)
    shutil.rmtree(codex / "group" / "deeper" / "inner-b")
    assert s.refresh() != ()
    assert s.get("inner-b") is None
    same_as_fresh(proj, s)
    assert s.refresh() == ()


def test_a_walk_changed_after_a_plain_load_is_walked_again_by_a_session(
    proj: Project,
) -> None:
    proj.skill("~/.codex/skills/group", "inner-a")
    proj.load()
    proj.skill("~/.codex/skills/group/deeper", "inner-b")  # before the session opens
    s = open_session(proj)
    assert s.get("inner-b") is not None
    same_as_fresh(proj, s)
    kept = _nested_walk_kept(proj)
    assert kept is not None and kept[3] is (_notify.notifier() is not None)


# -- one folder watched by two layers: a later watch never weakens an earlier one ---


def _events_for(wd: int) -> int:
    """The event bits queued for watch ``wd`` (read straight from the notifier)."""
    n = _notify.notifier()
    assert n is not None
    got = n.read() or []
    mask = 0
    for w, m in got:
        if w == wd:
            mask |= m
    return mask


@pytest.mark.skipif(_notify.notifier() is None, reason="no inotify here")
def test_a_watch_for_entries_does_not_weaken_a_watch_for_writes(tmp_path: Path) -> None:
    # a skill folder watched for what is written in it (a root's scan), then the same
    # folder watched again for its entries alone (a value kept while watched, a walk
    # of plain folders): a write to a file in it must still give an event
    root = tmp_path / "skills"
    folder = root / "alpha"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(skill_md("Alpha."))
    (folder / "notes.md").write_text("notes\n")
    with _reuse._LOCK:
        _reuse._drain()
        routes = _reuse.arm(str(root), ["alpha"])
        assert routes is not None
        folder_wd = next(wd for wd, name in routes if name == "alpha")
        more = _reuse._watch_folders([str(folder)], _notify.DIR_MASK)
        assert more is not None and more[0][0] == folder_wd  # the same watch
        try:
            (folder / "notes.md").write_text("edited\n")
            assert _events_for(folder_wd) & _notify.IN_MODIFY
        finally:
            _reuse.release(list(routes) + more)


def test_a_walk_nothing_of_which_can_be_watched_is_tried_once(
    proj: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a network file system (no events): the session's first load finds nothing to
    # watch and leaves the walk to its stat checks; later loads do not try again
    proj.skill("~/.codex/skills/group", "inner-a")
    proj.skill("~/.codex/skills/other", "inner-b")
    proj.load()
    monkeypatch.setattr(_notify, "local", lambda path: False)
    tried: list[tuple[str, ...]] = []
    real = _reuse._watch_plain_folders

    def counting(paths: tuple[str, ...]) -> Any:
        tried.append(paths)
        return real(paths)

    monkeypatch.setattr(_reuse, "_watch_plain_folders", counting)
    s = SkillSession.open(proj.project, home=proj.home, env=proj.env)
    kept = _nested_walk_kept(proj)
    assert kept is not None and kept[3] is False
    assert s.refresh() == ()
    assert s.refresh() == ()
    assert len(tried) == len(set(tried))  # each kept value tried once, not on every load
    walk = [p for p in tried if str(proj.home / ".codex" / "skills" / "group") in p]
    assert len(walk) == (1 if _notify.notifier() is not None else 0)
    proj.skill("~/.codex/skills/group", "inner-c")  # still seen, by stat
    assert s.refresh() != ()
    assert s.get("inner-c") is not None
    same_as_fresh(proj, s)
