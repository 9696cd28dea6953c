"""Local git repositories and a ``git daemon`` on 127.0.0.1 for the ``add``/``update``
tests: nothing leaves the machine."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

_GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(*args: str, cwd: Path) -> str:
    """Run git in ``cwd`` (a fixed identity, no system config); its stdout."""
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        env={**os.environ, **_GIT_ENV},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout


def write_files(root: Path, files: Mapping[str, str | None]) -> None:
    """Write (or, for ``None``, delete) ``files`` under ``root``."""
    for rel, text in files.items():
        path = root / rel
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def skill_text(name: str, description: str, body: str = "Body.\n") -> str:
    """A ``SKILL.md`` with ``name`` and ``description``."""
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}"


class Upstream:
    """A work tree (``work``) whose commits are pushed to a bare repository (``bare``)."""

    def __init__(self, root: Path, files: Mapping[str, str | None]) -> None:
        self.work = root / "work"
        self.bare = root / "served" / "pack.git"
        self.work.mkdir(parents=True)
        git("init", "-q", "-b", "main", cwd=self.work)
        write_files(self.work, files)
        git("add", "-A", cwd=self.work)
        git("commit", "-qm", "first", cwd=self.work)
        self.bare.parent.mkdir(parents=True)
        git("clone", "-q", "--bare", str(self.work), str(self.bare), cwd=root)

    def commit(self, files: Mapping[str, str | None], message: str = "next") -> None:
        """Change ``files``, commit and push to the bare repository."""
        write_files(self.work, files)
        git("add", "-A", cwd=self.work)
        git("commit", "-qm", message, cwd=self.work)
        git("push", "-q", str(self.bare), "main", cwd=self.work)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def git_daemon(base: Path) -> Iterator[str]:
    """Serve the repositories under ``base`` with ``git daemon`` on 127.0.0.1; yields
    the ``git://127.0.0.1:PORT`` base URL. Waits until the port answers (bounded)."""
    port = free_port()
    proc = subprocess.Popen(
        [
            "git",
            "daemon",
            "--reuseaddr",
            "--listen=127.0.0.1",
            f"--port={port}",
            "--export-all",
            f"--base-path={base}",
            str(base),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"git daemon did not start on port {port}")
            time.sleep(0.05)
        yield f"git://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
