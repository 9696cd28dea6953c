"""Fixtures for the runtime tests: real skill folders in a private HOME and project."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import pytest
from skillpath import PluginHost, SkillSession

from ..conftest import Env, skill_md

skill_text = skill_md


@attrs.define
class Runtime:
    """A project (a git repo outside HOME) with native skills, and sessions over it.

    Only the ``native`` provider's entry point is loaded (``SKILLPATH_PLUGINS``),
    so installed example packs do not leak into the catalog; the core's built-in
    plugins (steps, resolver) are always there.
    """

    env: Env

    @property
    def project(self) -> Path:
        return self.env.project

    @property
    def home(self) -> Path:
        return self.env.home

    @property
    def environ(self) -> dict[str, str]:
        return {**self.env.env, "SKILLPATH_PLUGINS": "native"}

    def project_skill(self, name: str, text: str | None = None, **kw: Any) -> Path:
        """Write ``.skillpath/skills/<name>/SKILL.md`` in the project (level ``project``)."""
        return self._write(self.project / ".skillpath" / "skills" / name, text, **kw)

    def user_skill(self, name: str, text: str | None = None, **kw: Any) -> Path:
        """Write ``~/.skillpath/skills/<name>/SKILL.md`` (level ``user``)."""
        return self._write(self.home / ".skillpath" / "skills" / name, text, **kw)

    def _write(self, folder: Path, text: str | None, **kw: Any) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "SKILL.md"
        path.write_text(text if text is not None else skill_text(**kw), encoding="utf-8")
        return path

    def host(self, **kw: Any) -> PluginHost:
        """A private plugin host with the runtime environment."""
        return PluginHost.create(env=self.environ, **kw)

    def session(
        self,
        settings: dict[str, Any] | None = None,
        *,
        host: PluginHost | None = None,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        session_id: str | None = "sess-1",
    ) -> SkillSession:
        """Open a session on the project."""
        environ = env if env is not None else self.environ
        return SkillSession.open(
            cwd if cwd is not None else self.project,
            home=self.home,
            env=environ,
            settings=settings,
            host=host if host is not None else PluginHost.create(env=environ),
            session_id=session_id,
        )


@pytest.fixture
def rt(isolated_env: Env) -> Runtime:
    """The runtime helper bound to the isolated home and project."""
    return Runtime(isolated_env)
