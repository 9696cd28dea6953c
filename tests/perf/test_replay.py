"""Replaying an unchanged ``skillpath list`` (skillpath.cache.replay).

Every test runs the real console script in a new process over real files,
and checks two things after each change: the run was not replayed (the
snapshot log says why) and its output equals a run with the layer turned off.
"""

from __future__ import annotations

import json
import os
import pty
import shutil
import subprocess
import sys
import textwrap
import time
import zlib
from pathlib import Path
from typing import Any

import pytest
from skillpath.cache import replay as _replay

from tests.conftest import SkillTree, skill_md

SCRIPT = Path(sys.executable).with_name("skillpath")


class Project(SkillTree):
    """A home, a project and a cache in ``tmp_path``, and the command run over them."""

    def __init__(self, tmp_path: Path) -> None:
        super().__init__(tmp_path)
        self.cache = tmp_path / "cache"
        self.log = tmp_path / "snapshot.log"
        self.env |= {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "SKILLPATH_SNAPSHOT_LOG": str(self.log),
            "LC_ALL": "C.UTF-8",
        }

    def plugin(self, module: str, source: str) -> Path:
        """Install plugin ``module`` (entry point of a distribution of the same name) on
        ``PYTHONPATH``; no bytecode is written, so only the source stands for its code."""
        site = self.tmp / "site"
        site.mkdir(exist_ok=True)
        (site / f"{module}.py").write_text(textwrap.dedent(source))
        info = site / f"{module}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n\n")
        (info / "entry_points.txt").write_text(f"[skillpath]\n{module} = {module}\n")
        self.env["PYTHONPATH"] = str(site)
        self.env["PYTHONDONTWRITEBYTECODE"] = "1"
        return site / f"{module}.py"

    def run(self, *args: str, env: dict[str, str] | None = None, **kw: Any) -> Any:
        self.log.unlink(missing_ok=True)
        return subprocess.run(
            [str(SCRIPT), *args],
            cwd=self.project,
            env=env or self.env,
            capture_output=True,
            timeout=120,
            check=False,
            **kw,
        )

    def decisions(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def fresh(self, *args: str) -> bytes:
        """The output with the replay layer off."""
        out = self.run(*args, env=dict(self.env, SKILLPATH_NO_SNAPSHOT="1"))
        assert out.returncode == 0, out.stderr
        return bytes(out.stdout)

    def snapshots(self) -> list[Path]:
        return sorted((self.cache / "skillpath" / "snapshots").glob("*.snap"))


def recorded(p: Project, *args: str) -> bytes:
    for _ in range(RETRIES):
        first = p.run("list", "--json", *args)
        assert first.returncode == 0, first.stderr
        if any(d.startswith("recorded ") for d in p.decisions()):
            return bytes(first.stdout)
        _only_churn(p.decisions())
    raise AssertionError(f"never recorded: {p.decisions()}")


def replayed(p: Project, *args: str) -> bytes:
    for _ in range(RETRIES):
        again = p.run("list", "--json", *args)
        assert again.returncode == 0, again.stderr
        if any(d.startswith("replayed ") for d in p.decisions()):
            return bytes(again.stdout)
        _only_churn(p.decisions())
    raise AssertionError(f"never replayed: {p.decisions()}")


#: How many runs a helper makes before it gives up waiting for the decision it expects.
RETRIES = 20
_SITE = os.sep + "site-packages" + os.sep


def _only_churn(decisions: list[str]) -> None:
    """A run was not recorded or replayed only because an installed module's stat moved.

    Installers hard-link one copy of a module into many environments; linking
    another moves the ``ctime`` of all of them, and a run that saw it move is
    not recorded (or not replayed). Nothing else may stop a run here.
    """
    assert decisions and all(
        _SITE in d or d.startswith("recorded ") or "no snapshot" in d for d in decisions
    ), decisions


def missed(p: Project, *args: str) -> bytes:
    """Run after a change: not replayed, and the same output as a run without the layer."""
    out = p.run("list", "--json", *args)
    assert out.returncode == 0, out.stderr
    decisions = p.decisions()
    assert decisions and decisions[0].startswith("miss: "), decisions
    if not any(d.startswith("recorded ") for d in decisions):
        _only_churn(decisions[1:])
        recorded(p, *args)
    assert out.stdout == p.fresh("list", "--json", *args)
    return bytes(out.stdout)


def names(output: bytes) -> list[str]:
    return [s["name"] for s in json.loads(output)["skills"]]


@pytest.fixture
def proj(tmp_path: Path) -> Project:
    p = Project(tmp_path)
    p.fill_mixed()
    p.fresh("list", "--json")  # bytecode written now cannot make the first run racy
    return p


def test_replay_is_byte_identical_and_imports_nothing_else(proj: Project) -> None:
    first = recorded(proj)
    assert first == proj.fresh("list", "--json")
    assert "frontmatter-yaml-error" in first.decode()
    assert {"claude-0", "agents-5", "user-3"} <= set(names(first))
    second = replayed(proj)
    assert second == first
    # the replay path imports no more than the launcher: no click, no plugins
    # (run twice through one probe: its sys.path, part of the key, is its own)
    probe = [
        sys.executable,
        "-c",
        "import sys; sys.argv = ['skillpath', 'list', '--json']\n"
        "from skillpath.cache import launch as _launch\n"
        "try:\n    _launch.main()\nexcept SystemExit as e:\n"
        "    sys.stderr.write(repr(sorted(m for m in sys.modules if m.startswith(('click', "
        "'skillpath')))))\n",
    ]
    for _ in range(2):
        run = subprocess.run(probe, cwd=proj.project, env=proj.env, capture_output=True)
        assert run.returncode == 0 and run.stdout == first
    assert run.stderr.decode() == repr(
        [
            "skillpath",
            "skillpath._env",
            "skillpath.cache",
            "skillpath.cache.files",
            "skillpath.cache.launch",
            "skillpath.cache.replay",
        ]
    )


def test_table_output_and_other_arguments_have_their_own_snapshot(proj: Project) -> None:
    recorded(proj)
    table = proj.run("list")
    assert any(d.startswith("miss: no snapshot") for d in proj.decisions())
    again = proj.run("list")
    assert any(d.startswith("replayed ") for d in proj.decisions())
    assert again.stdout == table.stdout and again.stderr == table.stderr
    assert b"broken" in again.stderr  # the diagnostics on stderr are replayed too
    recorded(proj, "--all")
    replayed(proj, "--all")
    assert len(proj.snapshots()) == 3


def _edit_same_size(p: Project) -> None:
    path = p.project / ".claude/skills/claude-1/SKILL.md"
    path.write_text(path.read_text().replace("A test", "B test"))


def _symlink_retarget(p: Project) -> None:
    link = p.project / ".agents/skills/linked"
    link.unlink()
    os.symlink(p.project / ".claude/skills/claude-2", link)


def _settings(p: Project) -> None:
    (p.home / ".skillpath").mkdir(exist_ok=True)
    (p.home / ".skillpath" / "config.toml").write_text("[skills]\nenable_claude_user = false\n")


CHANGES = {
    "added": lambda p: p.skill(".claude/skills", "new-one"),
    "removed": lambda p: shutil.rmtree(p.project / ".claude/skills/claude-3"),
    "edited, same size": _edit_same_size,
    "renamed": lambda p: (p.project / ".agents/skills/agents-1").rename(
        p.project / ".agents/skills/agents-renamed"
    ),
    "symlink retargeted": _symlink_retarget,
    "new root created": lambda p: p.skill(".opencode/skills", "fresh-root"),
    "broken file fixed": lambda p: (p.project / ".claude/skills/broken/SKILL.md").write_text(
        skill_md("Fixed now.")
    ),
    "user settings written": _settings,
    # an installer's record next to a skill: its origin in list --json
    "origin record written": lambda p: (
        p.project / ".claude/skills/claude-2/.openskills.json"
    ).write_text('{"source": "someone/skills", "installedAt": "2026-01-01"}'),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_every_kind_of_change_is_seen(proj: Project, change: str) -> None:
    before = recorded(proj)
    replayed(proj)
    CHANGES[change](proj)
    after = missed(proj)
    assert after != before
    assert replayed(proj) == after


def test_environment_and_directory_are_part_of_the_key(proj: Project) -> None:
    recorded(proj)
    other_home = proj.tmp / "other-claude"
    (other_home / "skills" / "elsewhere").mkdir(parents=True)
    (other_home / "skills" / "elsewhere" / "SKILL.md").write_text(skill_md("Elsewhere."))
    env = dict(proj.env, CLAUDE_CONFIG_DIR=str(other_home))
    out = proj.run("list", "--json", env=env)
    assert proj.decisions()[0].startswith("miss: no snapshot")
    assert "elsewhere" in names(out.stdout)
    sub = proj.project / ".claude"
    inner = subprocess.run(
        [str(SCRIPT), "list", "--json"], cwd=sub, env=proj.env, capture_output=True, check=True
    )
    assert proj.decisions()[0].startswith("miss: no snapshot")
    assert inner.stdout != b""


def test_plugin_code_edit_is_seen(proj: Project) -> None:
    module = proj.plugin(
        "clock_filter",
        """
        from skillpath import depends_on, hookimpl

        @hookimpl
        @depends_on("files")
        def filter_skill(skill, ctx):
            return "no claude" if skill.name.startswith("claude-") else None
        """,
    )
    first = recorded(proj)
    assert not [n for n in names(first) if n.startswith("claude-")]
    replayed(proj)
    module.write_text(module.read_text().replace('"claude-"', '"agents-"'))
    after = missed(proj)
    assert [n for n in names(after) if n.startswith("claude-")]
    assert not [n for n in names(after) if n.startswith("agents-")]


PLUGIN_VOLATILE = """
from skillpath import hookimpl
from skillpath.cache.index import volatile

@hookimpl
def discover_skills(ctx):
    volatile("skills of the day")
    return None
"""

PLUGIN_PROCESS = """
import subprocess, sys
from skillpath import hookimpl

@hookimpl
def discover_skills(ctx):
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return None
"""


@pytest.mark.parametrize(
    ("source", "reason"),
    [(PLUGIN_VOLATILE, "skills of the day"), (PLUGIN_PROCESS, "subprocess.Popen")],
)
def test_runs_that_files_cannot_vouch_for_are_not_recorded(
    proj: Project, source: str, reason: str
) -> None:
    proj.plugin("daily", source)
    for _ in range(2):
        out = proj.run("list", "--json")
        assert out.returncode == 0, out.stderr
        assert any(d.startswith("not recorded: ") and reason in d for d in proj.decisions())
    assert proj.snapshots() == []


def test_switches_turn_it_off(proj: Project) -> None:
    for env in ({"SKILLPATH_NO_INDEX": "1"}, {"SKILLPATH_NO_SNAPSHOT": "1"}):
        out = proj.run("list", "--json", env=dict(proj.env, **env))
        assert out.returncode == 0 and proj.decisions() == []
    assert proj.run("list", "--json", "--no-index").returncode == 0
    assert proj.decisions() == [] and proj.snapshots() == []
    (proj.project / ".skillpath").mkdir()
    (proj.project / ".skillpath" / "config.toml").write_text("[index]\nenabled = false\n")
    proj.run("list", "--json")
    assert proj.decisions()[-1] == "not recorded: the load did not use the discovery index"
    assert proj.snapshots() == []


def test_failed_runs_and_terminals_are_not_recorded(proj: Project) -> None:
    bad = proj.run("list", "--json", "--provider", "nope")
    assert bad.returncode != 0
    assert proj.decisions()[-1].startswith("not recorded: exit status")
    proj.log.unlink()
    primary, replica = pty.openpty()
    try:
        tty = subprocess.run(
            [str(SCRIPT), "list"], cwd=proj.project, env=proj.env, stdout=replica, check=False
        )
    finally:
        os.close(replica)
        os.close(primary)
    assert tty.returncode == 0
    assert proj.decisions() == [] and proj.snapshots() == []


def test_recent_changes_are_not_vouched_for(proj: Project) -> None:
    env = dict(proj.env, SKILLPATH_INDEX_RACY_MS="60000")
    out = proj.run("list", "--json", env=env)
    assert out.returncode == 0
    assert "modified too recently" in proj.decisions()[-1]
    assert proj.snapshots() == []


def test_a_recent_observation_stops_the_recording_at_once(tmp_path: Path) -> None:
    """A run that observes a file changed within the racy window cannot be recorded,
    so it stops observing at that observation (a project below a busy ``/tmp``, whose
    listing is observed early, paid the observation of the whole run for nothing)."""
    old = tmp_path / "old.txt"
    old.write_text("old")
    time.sleep(0.4)  # past the racy window of 200 ms
    recent = tmp_path / "recent.txt"
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "SKILLPATH_INDEX_RACY_MS": "200"}
    rec = _replay.Recorder(["list"], env)
    rec.start()
    try:
        old.read_text()
        os.stat(old)
        assert _replay._ACTIVE is rec and not rec.reasons
        recent.write_text("new")
        recent.read_text()
        # abandoned: nothing more is observed, and os.stat is the real one again
        assert _replay._ACTIVE is None
        assert os.stat is _replay._REAL_STAT
        assert rec.reasons == [f"{recent} was modified too recently to vouch for later changes"]
        assert rec.stat == {} and rec.lstat == {}
    finally:
        rec.stop()
    assert rec.save(b"", b"", 0) == rec.reasons[0]
    assert not (tmp_path / "cache" / "skillpath" / "snapshots").exists() or not any(
        (tmp_path / "cache" / "skillpath" / "snapshots").iterdir()
    )


def test_a_project_under_a_busy_sticky_folder_is_replayed(tmp_path: Path) -> None:
    """A project outside any repository and home, below a sticky folder (``/tmp``):
    other users' new files there do not stop the replay (only the entries the
    project area reads from the folder are looked up), and an entry created
    there afterwards is seen."""
    p = Project(tmp_path)
    sticky = tmp_path / "shared-tmp"
    p.project = sticky / "proj"
    p.fill_mixed()
    os.chmod(sticky, 0o1777)
    window_ms = 1000
    p.env["SKILLPATH_INDEX_RACY_MS"] = str(window_ms)
    p.fresh("list", "--json")  # bytecode written now cannot make the first run racy
    time.sleep(window_ms / 1000 + 0.2)  # the tree is older than the racy window
    first = recorded(p)
    assert {"claude-0", "agents-5"} <= set(names(first))
    for i in range(3):
        # someone else's temporary file: the folder's mtime moves, inside the window
        scratch = sticky / f"tmp{i}.XXXX"
        scratch.write_text("scratch\n")
        if os.geteuid() == 0:
            os.chown(scratch, 54321, 54321)
        assert time.time_ns() - sticky.stat().st_mtime_ns < window_ms * 1_000_000
        assert replayed(p) == first
    # a new skills folder in the sticky folder is not served stale
    planted = sticky / ".claude" / "skills" / "planted-x"
    planted.mkdir(parents=True)
    (planted / "SKILL.md").write_text(skill_md("Planted."))
    if os.geteuid() == 0:
        os.chown(sticky / ".claude", 54321, 54321)  # another user's: refused, and said so
    out = p.run("list", "--json")
    assert out.returncode == 0, out.stderr
    assert p.decisions()[0].startswith(f"miss: {sticky / '.claude'}"), p.decisions()
    assert out.stdout == p.fresh("list", "--json")
    if os.geteuid() == 0:
        assert "planted-x" not in names(out.stdout)
        (diag,) = [
            d
            for d in json.loads(out.stdout)["diagnostics"]
            if d["code"] == "unsafe-project-dir" and d["path"] == str(sticky)
        ]
        assert "sticky, and its .claude is owned by uid 54321" in diag["message"]
    else:
        assert "planted-x" in names(out.stdout)  # the user's own: loaded


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[:-10],
        lambda b: b[:40] + bytes([b[40] ^ 0xFF]) + b[41:],
        lambda b: b"SWSNP\x63" + b[6:],
        lambda b: b"",
    ],
)
def test_damaged_snapshot_is_ignored_and_rewritten(proj: Project, damage: Any) -> None:
    first = recorded(proj)
    (snap,) = proj.snapshots()
    snap.write_bytes(damage(snap.read_bytes()))
    out = proj.run("list", "--json")
    assert out.stdout == first
    assert proj.decisions()[0].startswith("miss: ")
    assert replayed(proj) == first


def _saved(env: dict[str, str], i: int, payload: bytes = b"out") -> Path:
    """Record a snapshot for the i-th invocation in-process, dated i seconds after 2020."""
    rec = _replay.Recorder(["list", "--json", f"--level=l{i}"], env)
    rec.allowed = True
    assert rec.save(payload, b"", 0) is None
    path = Path(_replay._file_for(rec.directory, rec.key))
    when = 1_577_836_800_000_000_000 + i * 1_000_000_000
    os.utime(path, ns=(when, when))
    return path


def test_snapshots_are_bounded_least_recently_used_first(tmp_path: Path) -> None:
    env = {"SKILLPATH_CACHE_DIR": str(tmp_path / "cache"), "SKILLPATH_INDEX_RACY_MS": "0"}
    if os.isatty(1):
        pytest.skip("stdout is a terminal (pytest -s): list is never replayed to one")
    paths = [_saved(env, i) for i in range(_replay.MAX_SNAPSHOTS)]
    # replaying the oldest makes it the most recently used
    out: list[bytes] = []
    argv = ["list", "--json", "--level=l0"]
    assert _replay.replay(argv, env, write=lambda fd, data: out.append(data)) == 0
    assert out == [b"out", b""]
    paths.append(_saved(env, _replay.MAX_SNAPSHOTS))
    left = set((tmp_path / "cache" / "snapshots").glob("*.snap"))
    assert len(left) == _replay.MAX_SNAPSHOTS
    assert paths[1] not in left  # the least recently used went
    assert paths[0] in left and paths[-1] in left


def test_snapshots_are_bounded_in_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"SKILLPATH_CACHE_DIR": str(tmp_path / "cache"), "SKILLPATH_INDEX_RACY_MS": "0"}
    monkeypatch.setattr(_replay, "MAX_BYTES", 10_000)
    for i in range(12):
        newest = _saved(env, i, payload=b"x" * 3_000)
    left = list((tmp_path / "cache" / "snapshots").glob("*.snap"))
    assert newest in left and 1 <= len(left) <= 3
    assert sum(p.stat().st_size for p in left) <= 10_000
    # a snapshot larger than the bound alone is still kept when it is the newest
    big = _saved(env, 99, payload=b"y" * 20_000)
    assert list((tmp_path / "cache" / "snapshots").glob("*.snap")) == [big]


def test_a_large_rebuild_is_not_recorded_but_the_next_run_is(tmp_path: Path) -> None:
    p = Project(tmp_path)
    for i in range(_replay.REBUILD_LIMIT + 20):
        p.skill(".agents/skills", f"many-{i:04d}")
    # bytecode written now cannot make the first run racy; the index stays empty
    p.run("list", env=dict(p.env, SKILLPATH_NO_INDEX="1"))
    first = p.run("list", "--json")
    assert first.returncode == 0
    # the reasons are joined with "; " (so many misses in one root also fork a reader)
    decision = p.decisions()[-1]
    assert decision.startswith("not recorded: ")
    assert f"more than {_replay.REBUILD_LIMIT} index entries were rebuilt" in decision
    assert recorded(p) == first.stdout
    assert replayed(p) == first.stdout


def test_a_reader_that_goes_away_ends_it_quietly(proj: Project) -> None:
    recorded(proj)
    for expected in ("replayed ", "miss: "):
        if expected == "miss: ":
            proj.skill(".claude/skills", "one-more")  # the recording path this time
        proj.log.unlink(missing_ok=True)
        child = subprocess.Popen(
            [str(SCRIPT), "list", "--json"],
            cwd=proj.project,
            env=proj.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert child.stdout is not None and child.stderr is not None
        child.stdout.close()  # before the command writes anything
        err = child.stderr.read()
        assert child.wait(timeout=120) == 1
        assert err == b""
        assert proj.decisions()[0].startswith(expected)


def test_a_snapshot_whose_checks_do_not_fit_is_a_miss(tmp_path: Path) -> None:
    if os.isatty(1):
        pytest.skip("stdout is a terminal (pytest -s): list is never replayed to one")
    import marshal

    from skillpath.cache import files as _cachefile

    env = {"SKILLPATH_CACHE_DIR": str(tmp_path / "cache"), "SKILLPATH_INDEX_RACY_MS": "0"}
    argv = ["list", "--json"]
    rec = _replay.Recorder(argv, env)
    path = Path(_replay._file_for(rec.directory, rec.key))
    path.parent.mkdir(parents=True)
    out: list[Any] = []
    for checks in (
        (["/a", "/b"], [2], [], []),  # two paths, one expected result
        ([str(tmp_path)], [("not", "a", "stat", "tuple", "x")], [], []),
        ([str(tmp_path)], [None], [], []),
    ):
        meta = marshal.dumps((_replay.FORMAT, rec.key, checks, (3, 0), zlib.crc32(b"out"), 0, None))
        path.write_bytes(_cachefile.seal(_replay._MAGIC, meta) + b"out")
        assert _replay.replay(argv, env, write=lambda fd, data: out.append(data)) is None
    assert out == []


def test_a_snapshot_is_not_replayed_after_its_deadline(tmp_path: Path) -> None:
    """A run whose output holds until a time (an MCP listing reused until its TTL
    ends, :func:`skillpath.cache.replay.expires`) is replayed before it, never after."""
    if os.isatty(1):
        pytest.skip("stdout is a terminal (pytest -s): list is never replayed to one")
    import marshal
    import time

    from skillpath.cache import files as _cachefile

    env = {"SKILLPATH_CACHE_DIR": str(tmp_path / "cache"), "SKILLPATH_INDEX_RACY_MS": "0"}
    argv = ["list", "--json"]
    rec = _replay.Recorder(argv, env)
    path = Path(_replay._file_for(rec.directory, rec.key))
    path.parent.mkdir(parents=True)
    out: list[bytes] = []
    now = time.time_ns()
    for deadline, expected in ((now + 3600 * 10**9, 0), (now - 1, None), ("soon", None)):
        meta = marshal.dumps(
            (_replay.FORMAT, rec.key, ([], [], [], []), (3, 0), zlib.crc32(b"out"), 0, deadline)
        )
        path.write_bytes(_cachefile.seal(_replay._MAGIC, meta) + b"out")
        out.clear()
        got = _replay.replay(argv, env, write=lambda fd, data: out.append(bytes(data)))
        assert got == expected
        assert out == ([b"out", b""] if expected == 0 else [])
    # the recorder keeps the earliest deadline it is told
    rec.expires(now + 50)
    rec.expires(now + 10)
    rec.expires(now + 90)
    assert rec.deadline == now + 10
