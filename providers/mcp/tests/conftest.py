"""Fixtures for the MCP provider's tests: a private home and project, fixture servers."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import attrs
import pytest
from skillpath import reset_plugin_host
from skillpath_testing import isolate_environment

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(autouse=True, scope="module")
def _no_connection_thread_left() -> Iterator[None]:
    """Each module's server connections and their thread end with the module, so no
    thread outlives these tests (other tests fork and require a single thread)."""
    yield
    from skillpath_mcp.client import shutdown_connections

    shutdown_connections()


@attrs.define
class World:
    """A private home and a project (a git root), with helpers to fill them."""

    home: Path
    project: Path

    def skill(self, name: str, description: str = "A local skill.", body: str = "Body.\n") -> Path:
        """Write ``.skillpath/skills/<name>/SKILL.md`` in the project."""
        folder = self.project / ".skillpath" / "skills" / name
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "SKILL.md"
        path.write_text(f"---\ndescription: {description}\n---\n{body}", encoding="utf-8")
        return path

    def config(self, text: str) -> Path:
        """Write the user's ``~/.skillpath/config.toml`` (MCP servers are honoured
        from the user config, not from an untrusted project's)."""
        path = self.home / ".skillpath" / "config.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    @property
    def env(self) -> dict[str, str]:
        """The environment the tests run with (for subprocesses)."""
        return dict(os.environ)

    @staticmethod
    def server(name: str, script: str, *args: str, **extra: object) -> dict[str, object]:
        """A ``[[mcp.servers]]`` table that runs ``fixtures/<script>`` with this Python."""
        entry: dict[str, object] = {
            "name": name,
            "command": sys.executable,
            "args": [str(FIXTURES / script), *args],
        }
        entry.update(extra)
        return entry

    @staticmethod
    def children() -> list[int]:
        """Live (not zombie) child processes of this process, from ``/proc`` (Linux)."""
        me = os.getpid()
        out = []
        for entry in Path("/proc").iterdir() if Path("/proc/self").exists() else ():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[-1].split()
            if len(fields) > 1 and fields[1] == str(me) and fields[0] != "Z":
                out.append(int(entry.name))
        return out

    @staticmethod
    def toml_servers(entries: list[dict[str, object]], timeout: int = 20) -> str:
        """``[mcp]`` settings as TOML text."""
        lines = ["[mcp]", f"timeout = {timeout}"]
        for entry in entries:
            lines.append("[[mcp.servers]]")
            for key, value in entry.items():
                lines.append(f"{key} = {_toml(value)}")
        return "\n".join(lines) + "\n"


def _toml(value: object) -> str:
    """A TOML literal for a JSON-like value (inline tables for mappings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + "}"
    raise TypeError(type(value))


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    """HOME, XDG dirs and skillpath variables point into ``tmp_path``; caches are fresh."""
    from skillpath_mcp.provider import clear_cache

    home, project = isolate_environment(monkeypatch, tmp_path)
    monkeypatch.chdir(project)
    clear_cache()
    yield World(home=home, project=project)
    reset_plugin_host()
    clear_cache()
