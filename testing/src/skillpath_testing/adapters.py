"""A shared world for the tests of framework adapters (``integrations/``).

:func:`adapter_world` builds a private home and project with skills in
Claude Code's ``.claude/skills`` (one with arguments and a sibling file, one
the model may not call, one hidden, one conditional) and uses the installed
example pack ``acme-skills`` (``code-review``, ``release-checklist``) through
the ``packs`` provider. Only the ``claude`` and ``packs`` providers load, so
nothing else installed on the machine leaks into the catalog.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import attrs
import pytest
from skillpath import SkillSession, reset_plugin_host

from skillpath_testing.conformance import isolate_environment

__all__ = [
    "PACK_SKILL",
    "PROJECT_SKILL",
    "AdapterWorld",
    "SkillWorld",
    "adapter_world",
    "skill_world",
]

#: The ``.claude/skills`` skill every adapter test calls (it takes ``$ARGUMENTS``).
PROJECT_SKILL = "pdf-notes"
#: The pip-installed pack's skill every adapter test calls.
PACK_SKILL = "code-review"


def _skill_md(description: str, body: str, **fields: str) -> str:
    extra = "".join(f"{k}: {v}\n" for k, v in fields.items())
    return f"---\ndescription: {description}\n{extra}---\n{body}"


@attrs.define
class AdapterWorld:
    """A private home and project; ``env`` is the environment to hand skillpath."""

    home: Path
    project: Path
    env: dict[str, str]

    @property
    def skills_dir(self) -> Path:
        """The project's ``.claude/skills`` folder."""
        return self.project / ".claude" / "skills"

    def write(self, name: str, description: str, body: str = "Body.\n", **fields: str) -> Path:
        """Write ``.claude/skills/<name>/SKILL.md`` (``fields`` are frontmatter, kebab-case)."""
        folder = self.skills_dir / name
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "SKILL.md"
        kebab = {k.replace("_", "-"): v for k, v in fields.items()}
        path.write_text(_skill_md(description, body, **kebab), encoding="utf-8")
        return path

    def session(self, **settings: object) -> SkillSession:
        """A new session over the project (``settings`` as ``{"section": {...}}``)."""
        return SkillSession.open(
            self.project, home=self.home, env=self.env, settings=settings or None
        )


def adapter_world(monkeypatch: pytest.MonkeyPatch, tmp: Path) -> AdapterWorld:
    """Build the world in ``tmp`` (environment isolated through ``monkeypatch``)."""
    home, project = isolate_environment(monkeypatch, tmp, cache_dir=tmp / "cache")
    monkeypatch.setenv("SKILLPATH_PLUGINS", "claude,packs")
    world = AdapterWorld(home=home, project=project, env=dict(os.environ))
    world.write(
        PROJECT_SKILL,
        "Take notes from a PDF file. Use when the user hands over a PDF.",
        "Read the PDF $ARGUMENTS and write notes; see reference.md for the format.\n",
        argument_hint="<file>",
    )
    (world.skills_dir / PROJECT_SKILL / "reference.md").write_text(
        "Notes are bullet points.\n", encoding="utf-8"
    )
    world.write("manual-deploy", "Deploy by hand.", "Deploy.\n", disable_model_invocation="true")
    world.write("quiet", "A hidden helper.", "Quiet.\n", hide="true")
    world.write("py-style", "Python style rules.", "Style.\n", paths='"**/*.py"')
    return world


@attrs.define
class SkillWorld:
    """A private home and project (a git root); ``skill()`` writes ``.claude/skills`` skills.

    The world every framework adapter's tests share (see :func:`skill_world`).
    """

    home: Path
    project: Path

    def skill(self, name: str, description: str, body: str = "Body.\n", **fields: str) -> Path:
        """Write ``.claude/skills/<name>/SKILL.md`` (``snake_case`` fields as ``kebab-case``)."""
        folder = self.project / ".claude" / "skills" / name
        folder.mkdir(parents=True, exist_ok=True)
        lines = ["---", f"name: {name}", f"description: {description}"]
        lines += [f"{k.replace('_', '-')}: {v}" for k, v in fields.items()]
        path = folder / "SKILL.md"
        path.write_text("\n".join([*lines, "---", body]), encoding="utf-8")
        return path


def skill_world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SkillWorld]:
    """For a pytest fixture (``yield from skill_world(...)``): an isolated world with a
    model-callable ``greet`` skill, a hidden ``secret`` and a user-only ``deploy``."""
    home, project = isolate_environment(monkeypatch, tmp_path, cache_dir=tmp_path / "cache")
    w = SkillWorld(home=home, project=project)
    w.skill("greet", "Greet someone by name.", body="Say hello to $ARGUMENTS.\n")
    w.skill("secret", "Hidden helper.", hide="true")
    w.skill("deploy", "Deploy the service (the user runs it).", disable_model_invocation="true")
    yield w
    reset_plugin_host()


def load_example(path: Path) -> ModuleType:
    """Import the Python file ``path`` as a module of its own (a docs example an
    adapter's tests run), named ``docs_example_<stem>``."""
    spec = importlib.util.spec_from_file_location(f"docs_example_{path.stem}", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
