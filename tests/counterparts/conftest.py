"""The real counterparts (``testing/npm``): Claude Code, Codex CLI, OpenCode, ``npx skills``,
the MCP conformance suite, and the Node.js they run on.

``.ci/run`` installs them (``npm install --no-save`` in ``testing/npm``). A test that needs
one asks the ``counterpart`` fixture for its command; where it is not installed the test is
skipped with the command that installs it, except under CI (``CI`` set), where a missing
counterpart is a failure: the differential tests must never pass by not running.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

NPM = Path(__file__).resolve().parents[2] / "testing" / "npm"
BIN = NPM / "node_modules" / ".bin"

# the helpers beside the tests (fakemodel, agentrun, cases) import by their plain names
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test under this folder ``counterpart`` (``pytest -m counterpart`` runs them)."""
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.counterpart)


@pytest.fixture(scope="session")
def counterpart() -> Callable[[str], Path]:
    """Return a function giving the path of an installed counterpart's command (``claude``,
    ``codex``, ``opencode``, ``skills``, ``conformance``, ``node``)."""

    def find(name: str) -> Path:
        path = BIN / name
        if path.exists():
            return path
        message = f"{name} is not installed: run `npm install --no-save` in {NPM}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)

    return find


@pytest.fixture(scope="session")
def node_path() -> str:
    """A ``PATH`` whose first entry holds the pinned Node.js and every counterpart's command."""
    return os.pathsep.join([str(BIN), os.environ.get("PATH", "")])
