"""Waiting on an export lock is bounded and ends in one line (issue row 14).

Another user sharing the cache folder holds the export lock (or owns the lock
folder): ``skillpath export`` used to wait 300 s and then print a
``filelock.Timeout`` traceback. Each test holds the lock first, then exports.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from skillpath import load_skills, make_context
from skillpath.export import export_skills
from skillpath.ownership import LockBusy, lock_wait

from ..conftest import Env
from .test_export import run

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="handing a file to another user needs root")


def _world(env: Env) -> Path:
    root = env.project / "tools" / "skills"
    env.skill(root, "deploy", "Deploy the service.")
    config = env.project / ".skillpath" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[skills]\ncustom_directories = ["tools/skills"]\n')
    site = env.home / "site"
    site.mkdir(exist_ok=True)
    return site


def _lock_file(env: Env) -> Path:
    lock = env.project / ".skillpath" / "export-lock.json"
    key = hashlib.sha256(os.fsencode(str(lock))).hexdigest()[:24]
    return env.home / "cache" / "locks" / f"export-{key}.lock"


@contextmanager
def _held(path: Path, owner: int | None = None) -> Iterator[None]:
    """Hold ``path`` locked (``flock``, as filelock does), owned by ``owner``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        if owner is not None:
            os.fchown(fd, owner, owner)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield
    finally:
        os.close(fd)


def _one_line_failure(stderr: str) -> str:
    assert "Traceback" not in stderr and "filelock" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    return lines[0]


@needs_root
def test_another_users_lock_is_refused_at_once(isolated_env: Env) -> None:
    site = _world(isolated_env)
    with _held(_lock_file(isolated_env), owner=54321):
        done = run(isolated_env, site, "export", "--to", "claude")
    assert done.returncode != 0
    line = _one_line_failure(done.stderr)
    assert "is owned by uid 54321, another user" in line and "not waiting" in line
    assert "SKILLPATH_CACHE_DIR" in line
    assert not (isolated_env.project / ".claude" / "skills" / "deploy").exists()


@needs_root
def test_a_lock_folder_another_user_owns_is_refused(isolated_env: Env) -> None:
    site = _world(isolated_env)
    locks = _lock_file(isolated_env).parent
    locks.mkdir(parents=True)
    os.chown(locks, 54321, 54321)
    done = run(isolated_env, site, "export", "--to", "claude", "--json")
    assert done.returncode != 0
    _one_line_failure(done.stderr)
    assert "owned by uid 54321" in done.stdout


def test_a_held_lock_is_waited_on_for_a_bounded_time(isolated_env: Env) -> None:
    site = _world(isolated_env)
    isolated_env.env["SKILLPATH_LOCK_WAIT"] = "0.2"
    with _held(_lock_file(isolated_env)):
        done = run(isolated_env, site, "export", "--to", "claude")
    assert done.returncode != 0
    line = _one_line_failure(done.stderr)
    assert "held by another process; gave up after 0.2 s" in line
    assert "SKILLPATH_LOCK_WAIT" in line
    after = run(isolated_env, site, "export", "--to", "claude")  # free again: it works
    assert after.returncode == 0, after.stderr


def test_in_process_the_wait_ends_in_lock_busy(isolated_env: Env) -> None:
    _world(isolated_env)
    env = {**isolated_env.env, "SKILLPATH_CACHE_DIR": str(isolated_env.home / "cache")}
    env["SKILLPATH_LOCK_WAIT"] = "0"
    ctx, _ = make_context(isolated_env.project, env=env)
    skills = load_skills(ctx=ctx).skills
    with _held(_lock_file(isolated_env)), pytest.raises(LockBusy, match="gave up after 0 s"):
        export_skills(skills, ctx, to="claude")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("", 30.0), ("2.5", 2.5), ("0", 0.0), ("-1", 30.0), ("nan", 30.0), ("x", 30.0)],
)
def test_lock_wait_setting(raw: str, expected: float) -> None:
    assert lock_wait({"SKILLPATH_LOCK_WAIT": raw}) == expected
