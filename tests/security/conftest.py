"""Shared setup for the security suite: hypothesis profiles and subprocess helpers.

``HYPOTHESIS_PROFILE=ci`` (the default) runs a bounded number of examples with a
fixed seed so CI stays fast and reproducible; ``HYPOTHESIS_PROFILE=long`` runs
many more examples with random seeds for a local soak (see README.md).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "long",
    max_examples=20_000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

#: Nobody's uid/gid, used to run a check without root's powers.
NOBODY = 65534


def can_drop_privileges() -> bool:
    """True when this process is root and ``setpriv`` can switch to an unprivileged uid."""
    return os.geteuid() == 0 and shutil.which("setpriv") is not None


def as_nobody(argv: list[str]) -> list[str]:
    """``argv`` wrapped so it runs as uid/gid 65534 with no supplementary groups."""
    return [
        "setpriv",
        f"--reuid={NOBODY}",
        f"--regid={NOBODY}",
        "--clear-groups",
        *argv,
    ]


def run_python(
    code: str,
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 60,
    unprivileged: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter (the project's venv) with a hard timeout."""
    argv = [sys.executable, "-c", code, *args]
    if unprivileged:
        argv = as_nobody(argv)
    return subprocess.run(
        argv,
        capture_output=True,
        text=True,
        env=env if env is not None else dict(os.environ),
        timeout=timeout,
        check=False,
    )


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A temp dir an unprivileged uid can traverse (pytest's own tmp dirs are 0700)."""
    path = Path(tempfile.mkdtemp(prefix="sw-sec-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        for dirpath, dirnames, _files in os.walk(path):
            for d in dirnames:
                with contextlib.suppress(OSError):
                    os.chmod(os.path.join(dirpath, d), 0o755, follow_symlinks=False)
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def nobody_python() -> list[str]:
    """The argv prefix running this interpreter as uid 65534; skips when impossible."""
    if not can_drop_privileges():
        pytest.skip("needs root and setpriv to drop privileges")
    probe = subprocess.run(
        as_nobody([sys.executable, "-c", "import os, skillpath; print(os.geteuid())"]),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if probe.returncode != 0 or probe.stdout.strip() != str(NOBODY):
        pytest.skip(f"cannot run the interpreter as uid {NOBODY}: {probe.stderr.strip()[:200]}")
    return as_nobody([sys.executable])


#: No security test may take longer than this (seconds); a hang fails instead of
#: blocking the suite. Off under the ``long`` hypothesis profile.
TEST_TIMEOUT = 120


@pytest.fixture(autouse=True)
def _no_hang() -> Iterator[None]:
    """Fail a test that runs longer than :data:`TEST_TIMEOUT` (SIGALRM, main thread)."""
    if os.environ.get("HYPOTHESIS_PROFILE") == "long" or not hasattr(signal, "setitimer"):
        yield
        return

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"security test still running after {TEST_TIMEOUT}s: a hang")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, TEST_TIMEOUT)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
