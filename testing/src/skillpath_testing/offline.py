"""Run code in a fresh interpreter in which any network use fails loudly.

For the "nothing touches the network at import or construction" check of
adapters and providers: name resolution and every internet socket connect
raise, so a module that phones home at import (or a constructor that does)
fails the run instead of passing silently on a machine with no network.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path

__all__ = ["PRELUDE", "run_offline"]

#: Code run before the checked code: it blocks DNS and internet connects.
PRELUDE = textwrap.dedent(
    """
    import socket

    class NetworkUsed(RuntimeError):
        pass

    def _refuse(*args, **kwargs):
        raise NetworkUsed(f"network used: {args!r}")

    _connect = socket.socket.connect
    _connect_ex = socket.socket.connect_ex

    def _guard(connect):
        def guarded(self, address, *rest):
            if self.family in (socket.AF_INET, socket.AF_INET6):
                _refuse(address)
            return connect(self, address, *rest)
        return guarded

    socket.getaddrinfo = _refuse
    socket.gethostbyname = _refuse
    socket.create_connection = _refuse
    socket.socket.connect = _guard(_connect)
    socket.socket.connect_ex = _guard(_connect_ex)
    """
)


def run_offline(
    code: str,
    *,
    project: Path,
    env: Mapping[str, str] | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` (``PROJECT`` is the project path) offline; fail the test on an error.

    :returns: the finished process (its ``stdout`` for further checks).
    """
    script = f"{PRELUDE}\nPROJECT = {str(project)!r}\n{code}"
    proc = subprocess.run(
        [sys.executable, "-c", script],
        cwd=project,
        env=dict(env if env is not None else os.environ),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc
