"""Special files and unbounded reads: every file a repository, the home or a cache controls.

The attack: ``.skillpath/config.toml -> /dev/zero`` (memory exhausted in every
command), ``-> /dev/stdin`` (``list`` hangs, stdio ``serve`` eats the client's
stream), a FIFO nobody writes to (the open blocks), a file far over any
sensible size. Every reader goes through :func:`skillpath.safety.read_bounded`:
opened non-blocking, checked to be a regular file after opening, read up to a
documented bound; anything else is a diagnostic with the path and the reason.

Each case runs the real CLI in a subprocess whose stdin is a pipe held open and
never written (what ``/dev/stdin`` would block on), under a 2 GiB address-space
limit (so ``/dev/zero`` fails fast instead of swapping); the timeout only
guards against a hang, the test never waits on it.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from skillpath.safety import MAX_CONFIG_BYTES, read_bounded

from ..conftest import Env

LIMIT = 60
ADDRESS_SPACE = 2 * 1024**3


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def _cli(env: Env, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the CLI with stdin a pipe that stays open and silent for the whole run."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillpath", *args, "--cwd", str(env.project)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env.env,
        preexec_fn=_limit_memory,
    )
    try:
        out, err = proc.communicate(timeout=LIMIT)  # stdin closed only once it exits
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def _stdin(path: Path) -> None:
    path.symlink_to("/dev/stdin")


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _huge(path: Path) -> None:
    with open(path, "wb") as f:  # sparse: big by size, cheap on disk
        f.truncate(MAX_CONFIG_BYTES + 1)


TARGETS: dict[str, Callable[[Path], None]] = {
    "dev-zero": _zero,
    "dev-stdin": _stdin,
    "fifo": _fifo,
    "oversize": _huge,
}


def _place(env: Env, where: str) -> Path:
    """The path of the file ``where`` names, its folder created."""
    paths = {
        "project-config": env.project / ".skillpath" / "config.toml",
        "user-config": env.home / ".skillpath" / "config.toml",
        "claude-user-settings": env.home / ".claude" / "settings.json",
        "claude-project-settings": env.project / ".claude" / "settings.json",
        "plugin-registry": env.home / ".claude" / "plugins" / "installed_plugins.json",
    }
    path = paths[where]
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _with_plugin(env: Env) -> None:
    """A well-formed plugin install, so that Claude's settings files are read."""
    root = env.home / "plugin-root"
    (root / "skills" / "plug").mkdir(parents=True)
    (root / "skills" / "plug" / "SKILL.md").write_text("---\ndescription: Plugin skill.\n---\n")
    registry = env.home / ".claude" / "plugins" / "installed_plugins.json"
    registry.parent.mkdir(parents=True, exist_ok=True)
    if not registry.exists() and not registry.is_symlink():
        registry.write_text(
            json.dumps({"version": 2, "plugins": {"p@m": [{"installPath": str(root)}]}})
        )


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize(
    "where",
    [
        "project-config",
        "user-config",
        "claude-user-settings",
        "claude-project-settings",
        "plugin-registry",
    ],
)
def test_config_and_settings_files_that_are_not_regular_or_too_big(
    isolated_env: Env, where: str, target: str
) -> None:
    isolated_env.skill(".skillpath/skills", "still-here", "Loads whatever the configs are.")
    path = _place(isolated_env, where)
    TARGETS[target](path)
    if where != "plugin-registry":
        _with_plugin(isolated_env)
    proc = _cli(isolated_env, "list", "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads(proc.stdout)
    assert "still-here" in {s["name"] for s in data["skills"]}
    about = [d for d in data["diagnostics"] if d.get("path") == str(path)]
    assert about, data["diagnostics"]
    reason = "larger than" if target == "oversize" else "not a regular file"
    if where.startswith(("project", "claude-project")) and target.startswith("dev-"):
        reason = "outside the project"  # a link out of the repository: refused unopened
    assert any(reason in d["message"] for d in about), about


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_context_file_that_is_not_regular_or_too_big(isolated_env: Env, target: str) -> None:
    path = isolated_env.project / "AGENTS.md"
    if target == "oversize":
        with open(path, "wb") as f:
            f.truncate(2 * 1024 * 1024)
    else:
        TARGETS[target](path)
    proc = _cli(isolated_env, "context", "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads(proc.stdout)
    about = [d for d in data["diagnostics"] if d.get("path") == str(path)]
    # a link out of the repository is refused before it is opened
    code = "context-file-outside" if target.startswith("dev-") else "unreadable-context-file"
    assert about and about[0]["code"] == code, data


@pytest.mark.parametrize("target", ["dev-zero", "fifo"])
def test_skill_file_and_gitignore_that_are_special(isolated_env: Env, target: str) -> None:
    isolated_env.skill(".skillpath/skills", "ok", "Fine.")
    bad = isolated_env.project / ".skillpath" / "skills" / "bad"
    bad.mkdir()
    TARGETS[target](bad / "SKILL.md")
    TARGETS[target](isolated_env.project / ".gitignore")
    proc = _cli(isolated_env, "list", "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    data = json.loads(proc.stdout)
    assert [s["name"] for s in data["skills"] if s["name"] in ("ok", "bad")] == ["ok"]


def test_read_bounded_refuses_every_special_file(tmp_path: Path) -> None:
    cases: dict[str, Any] = {}
    for name, make in TARGETS.items():
        path = tmp_path / name
        make(path)
        try:
            read_bounded(path, MAX_CONFIG_BYTES)
            cases[name] = None
        except OSError as exc:
            cases[name] = exc.errno
    assert cases == {
        "dev-zero": errno.EINVAL,
        "dev-stdin": errno.EINVAL,
        "fifo": errno.EINVAL,
        "oversize": errno.EFBIG,
    }
    (tmp_path / "dir").mkdir()
    with pytest.raises(IsADirectoryError):
        read_bounded(tmp_path / "dir", 10)
    (tmp_path / "ok").write_bytes(b"x" * 10)
    assert read_bounded(tmp_path / "ok", 10) == b"x" * 10
    with pytest.raises(OSError, match="larger than 9 bytes"):
        read_bounded(tmp_path / "ok", 9)
