"""Caches that must not lie: the discovery index, ``list`` snapshots, the entry-point cache.

An attacker who shares ``XDG_CACHE_HOME`` (or creates the cache directory
first) writes files that check out; a special file stands where a cache file
should be; an outcome that depends on who asks is cached; the code that
derives records changes without its size or mtime changing. Each test runs
the real command (or the real index) and compares with a run without caches.

The tests that hand files to another user need root (they run as root here
and in CI) and are skipped otherwise.
"""

from __future__ import annotations

import marshal
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from skillpath.cache import entrypoints as _entrypoints
from skillpath.cache import files as _cachefile
from skillpath.cache import index
from skillpath.cache import replay as _replay

from tests.perf.test_replay import Project

OTHER = 12345  # a user id that is not the one running the tests
ROOT_ONLY = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="giving files to another user needs root",
)
HONEST = "Honest."
FORGED = "Forged!"  # the same length: a forged record keeps every length intact


@pytest.fixture
def proj(tmp_path: Path) -> Project:
    p = Project(tmp_path)
    p.skill(".claude/skills", "target", HONEST)
    p.skill(".claude/skills", "other")
    return p


def _cache(p: Project) -> Path:
    return p.cache / "skillpath"


def _forge_index(p: Project) -> list[Path]:
    """Rewrite every index file so the record of ``target`` says FORGED (valid CRC)."""
    files = sorted((_cache(p) / "index").glob("*.idx"))
    forged = []
    for f in files:
        parts = _cachefile.unseal(index._MAGIC, f.read_bytes())
        assert parts is not None
        body = bytes(parts[0])
        if HONEST.encode() in body:
            f.write_bytes(
                _cachefile.seal(index._MAGIC, body.replace(HONEST.encode(), FORGED.encode()))
            )
            forged.append(f)
    assert forged
    return forged


def _index_only(p: Project) -> dict[str, str]:
    return dict(p.env, SKILLPATH_NO_SNAPSHOT="1")


def _listing(p: Project, env: dict[str, str] | None = None, *args: str) -> str:
    out = p.run("list", "--json", *args, env=env)
    assert out.returncode == 0, out.stderr
    return out.stdout.decode()


def _recorded(p: Project) -> str:
    """The output of ``list --json`` once a run of it has been recorded.

    A run is not recorded when a file it depends on changed while it ran (the
    racy rule): an installed module's ``ctime`` moves when another environment
    hard-links the same file. Runs are repeated until one is recorded (the
    event waited for), a bounded number of times.
    """
    out = _listing(p)
    for _ in range(20):
        if p.snapshots():
            return out
        assert _listing(p) == out
    raise AssertionError(f"never recorded: {p.decisions()}")


# ----------------------------------------------------------------- the index


def test_a_forged_index_of_ones_own_is_believed(proj: Project) -> None:
    # the baseline the next tests depend on: a valid index file is used as it is
    _listing(proj, _index_only(proj))
    _forge_index(proj)
    assert FORGED in _listing(proj, _index_only(proj))


def _give_away(path: Path, how: str) -> None:
    if how == "owner":
        os.chown(path, OTHER, OTHER)
    elif how == "group-writable":
        os.chmod(path, path.stat().st_mode | 0o020)
    elif how == "other-writable":
        os.chmod(path, path.stat().st_mode | 0o002)
    else:
        raise AssertionError(how)


WAYS = ["owner", "group-writable", "other-writable"]


#: What is given away, and how: the file and its folder every way; the cache root
#: to another owner (a root others may write is fine: see the symlink tests).
CASES = [(w, h) for w in ("file", "dir") for h in WAYS] + [("cache-dir", "owner")]


@ROOT_ONLY
@pytest.mark.parametrize(("what", "how"), CASES)
def test_an_index_another_user_could_write_is_not_used(proj: Project, what: str, how: str) -> None:
    honest = _listing(proj, _index_only(proj))
    forged = _forge_index(proj)
    target = {"file": forged[0], "dir": forged[0].parent, "cache-dir": _cache(proj)}[what]
    before = {f: f.stat().st_mtime_ns for f in _cache(proj).rglob("*.idx")}
    _give_away(target, how)
    assert _listing(proj, _index_only(proj)) == honest
    # and nothing of this user's is written into a directory someone else controls
    # (index files of other roots, written before the directory changed hands, stay)
    if what != "file":
        written = [
            f
            for f in target.rglob("*.idx")
            if f.stat().st_uid == os.getuid() and before.get(f) != f.stat().st_mtime_ns
        ]
        assert written == []


# ----------------------------------------------------------------- snapshots


def _forge_snapshot(p: Project) -> Path:
    """Replace HONEST by FORGED in the recorded output of the one snapshot (same length)."""
    (snap,) = p.snapshots()
    data = snap.read_bytes()
    assert data.count(HONEST.encode()) == 1
    snap.write_bytes(data.replace(HONEST.encode(), FORGED.encode()))
    return snap


def test_the_whole_recorded_output_is_verified(proj: Project) -> None:
    honest = _recorded(proj)
    _forge_snapshot(proj)
    again = proj.run("list", "--json")
    assert again.stdout.decode() == honest
    assert not any(d.startswith("replayed") for d in proj.decisions()), proj.decisions()


@ROOT_ONLY
@pytest.mark.parametrize(("what", "how"), CASES)
def test_a_snapshot_another_user_could_write_is_not_replayed(
    proj: Project, what: str, how: str
) -> None:
    honest = _recorded(proj)
    (snap,) = proj.snapshots()
    target = {"file": snap, "dir": snap.parent, "cache-dir": _cache(proj)}[what]
    _give_away(target, how)
    again = proj.run("list", "--json")
    assert again.stdout.decode() == honest
    assert not any(d.startswith("replayed") for d in proj.decisions()), proj.decisions()


@ROOT_ONLY
def test_a_foreign_forged_snapshot_is_not_replayed(proj: Project) -> None:
    honest = _recorded(proj)
    # a forged snapshot that checks out in every other way
    snap = _forge_snapshot(proj)
    meta = _cachefile.unseal(_replay._MAGIC, snap.read_bytes())
    assert meta is not None
    os.chown(snap, OTHER, OTHER)
    assert proj.run("list", "--json").stdout.decode() == honest


# ----------------------------------------------------------------- entry points


ZEN = "Beautiful is better than ugly."


def _forge_entry_points(p: Project) -> Path:
    """Add an entry point whose module prints when imported (``this``) to the cache."""
    (path,) = sorted((_cache(p) / "index").glob("entry-points-*.bin"))
    parts = _cachefile.unseal(_entrypoints._MAGIC, path.read_bytes())
    assert parts is not None
    fmt, fingerprint, groups = marshal.loads(parts[0])
    groups.setdefault("skillpath", []).append(("zen", "this", "zen", "1.0"))
    path.write_bytes(
        _cachefile.seal(_entrypoints._MAGIC, marshal.dumps((fmt, fingerprint, groups)))
    )
    return path


def test_a_forged_entry_point_cache_of_ones_own_is_believed(proj: Project) -> None:
    _listing(proj, _index_only(proj))
    _forge_entry_points(proj)
    assert ZEN in proj.run("list", "--no-index", env=_index_only(proj)).stdout.decode()


@ROOT_ONLY
@pytest.mark.parametrize("how", WAYS)
@pytest.mark.parametrize("what", ["file", "dir"])
def test_an_entry_point_cache_another_user_could_write_is_not_used(
    proj: Project, what: str, how: str
) -> None:
    _listing(proj, _index_only(proj))
    path = _forge_entry_points(proj)
    _give_away(path if what == "file" else path.parent, how)
    out = proj.run("list", "--no-index", env=_index_only(proj))
    assert out.returncode == 0, out.stderr
    assert ZEN not in out.stdout.decode()


# ----------------------------------------------------------------- special files


def _special(path: Path, kind: str) -> None:
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path, 0o600)
    else:
        path.symlink_to("/dev/zero")


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
@pytest.mark.parametrize("which", ["index", "snapshot", "entry-points"])
def test_a_special_file_in_the_cache_neither_hangs_nor_crashes(
    proj: Project, which: str, kind: str
) -> None:
    honest = _recorded(proj)
    if which == "index":
        paths = sorted((_cache(proj) / "index").glob("*.idx"))
    elif which == "snapshot":
        paths = proj.snapshots()
    else:
        paths = sorted((_cache(proj) / "index").glob("entry-points-*.bin"))
    assert paths
    for path in paths:
        _special(path, kind)
    # p.run has a hang guard: a blocked open fails the test instead of stalling it
    env = proj.env if which == "snapshot" else _index_only(proj)
    out = proj.run("list", "--json", env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.decode() == honest
    assert b"Traceback" not in out.stderr


# ----------------------------------------------------------------- who asks


def test_a_permission_outcome_is_not_kept_for_another_identity(
    isolated_env: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "cannot read" depends on who asks (groups, sudo -E), not on the file's stat;
    # the first load is refused the file as another identity would be
    import skillpath.scan as sw_scan
    from skillpath import load_skills

    env = dict(isolated_env.env, SKILLPATH_INDEX_RACY_MS="0")
    isolated_env.skill(".claude/skills", "guarded", "Guarded.")
    isolated_env.skill(".claude/skills", "open", "Open.")
    real = sw_scan._read_head_linked

    def refused(path: Any, *a: Any, **kw: Any) -> Any:
        if "guarded" in str(path):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, *a, **kw)

    monkeypatch.setattr(sw_scan, "_read_head_linked", refused)
    before = load_skills(isolated_env.project, env=env)
    assert before.get("guarded") is None
    assert any(d.code == "unreadable-skill" for d in before.diagnostics)
    monkeypatch.setattr(sw_scan, "_read_head_linked", real)
    # the same file, the same stat, now readable by the one who asks
    after = load_skills(isolated_env.project, env=env)
    guarded = after.get("guarded")
    assert guarded is not None and guarded.description == "Guarded."


def test_the_passwd_home_is_part_of_the_snapshot_key(monkeypatch: pytest.MonkeyPatch) -> None:
    import pwd

    env = {k: v for k, v in os.environ.items() if k != "HOME"}
    real = pwd.getpwuid

    def moved(uid: int) -> Any:
        entry = list(real(uid))
        entry[5] = "/elsewhere/home"
        return pwd.struct_passwd(entry)

    before = _replay._key(["list"], env)
    monkeypatch.setattr(pwd, "getpwuid", moved)
    assert _replay._key(["list"], env) != before


# ----------------------------------------------------------------- the code fingerprint


def test_the_code_fingerprint_follows_content_not_size_and_mtime(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mod = tmp_path / "sp_fp_probe.py"
    mod.write_text("VALUE = 1\n")
    stamp = (1_000_000_000, 1_000_000_000)
    os.utime(mod, stamp)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    importlib.import_module("sp_fp_probe")
    monkeypatch.setattr(index, "_CODE_MODULES", (*index._CODE_MODULES, "sp_fp_probe"))
    cache = tmp_path / "cache"
    before = index.DiscoveryIndex(cache).fingerprint
    # an upgrade that keeps the size and the mtime (as reproducible packages do)
    mod.write_text("VALUE = 2\n")
    os.utime(mod, stamp)
    after = index.DiscoveryIndex(cache).fingerprint
    assert after != before
    sys.modules.pop("sp_fp_probe", None)


def test_the_code_fingerprint_names_the_yaml_library(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import yaml

    fp = repr(index.DiscoveryIndex(tmp_path / "c1").fingerprint)
    assert yaml.__version__ in fp
    if yaml.__with_libyaml__:
        assert yaml._yaml.get_version_string() in fp  # type: ignore[attr-defined]


# ----------------------------------------------------------------- stderr order


def test_stderr_keeps_its_place_under_2_to_1(proj: Project) -> None:
    proj.plugin(
        "sp_noisy",
        """
        import sys
        print("noisy: loaded", file=sys.stderr, flush=True)
        """,
    )

    def merged(env: dict[str, str]) -> bytes:
        out = subprocess.run(
            [str(Path(sys.executable).with_name("skillpath")), "list"],
            cwd=proj.project,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=120,
            check=False,
        )
        assert out.returncode == 0, out.stdout
        return bytes(out.stdout)

    expected = merged(dict(proj.env, SKILLPATH_NO_SNAPSHOT="1"))
    assert expected.startswith(b"noisy: loaded")
    assert merged(proj.env) == expected  # the recording run
    assert merged(proj.env) == expected  # a replay (or another recording run)


def test_a_cache_made_under_umask_002_is_used(proj: Project) -> None:
    # a user whose umask lets the group write new folders still gets a cache of its own
    def loose() -> None:
        os.umask(0o002)

    first = proj.run("list", "--json", preexec_fn=loose)
    assert first.returncode == 0, first.stderr
    proj.run("list", "--json", preexec_fn=loose)  # the first run made the cache folder
    again = proj.run("list", "--json", preexec_fn=loose)
    assert again.stdout == first.stdout
    assert any(d.startswith("replayed ") for d in proj.decisions()), proj.decisions()
    for folder in (_cache(proj), _cache(proj) / "snapshots", _cache(proj) / "index"):
        assert not folder.stat().st_mode & 0o022, folder


def test_a_symlink_planted_in_the_cache_is_refused(proj: Project, tmp_path: Path) -> None:
    # a file of the user's own with content someone else chose (in a cloned
    # repository, say), linked into the cache by whoever could write there
    honest = _listing(proj, _index_only(proj))
    for f in _forge_index(proj):
        planted = tmp_path / "clone" / f.name
        planted.parent.mkdir(exist_ok=True)
        shutil.move(f, planted)
        f.symlink_to(planted)
    assert _listing(proj, _index_only(proj)) == honest


def test_a_cache_folder_swapped_for_a_symlink_is_refused(proj: Project, tmp_path: Path) -> None:
    # whoever may write the cache root (a umask of 002) puts a link to a folder
    # of the user's own, holding files someone else chose, in place of ``index``
    honest = _listing(proj, _index_only(proj))
    os.chmod(_cache(proj), 0o777)
    _forge_index(proj)
    index_dir = _cache(proj) / "index"
    elsewhere = tmp_path / "clone" / "index"
    elsewhere.parent.mkdir()
    shutil.move(index_dir, elsewhere)
    index_dir.symlink_to(elsewhere, target_is_directory=True)
    assert _listing(proj, _index_only(proj)) == honest
