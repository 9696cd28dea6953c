"""A shared world for the tests of framework adapters (``integrations/``).

:func:`adapter_world` builds a private home and project with skills in
Claude Code's ``.claude/skills`` (one with arguments and a sibling file, one
the model may not call, one hidden, one conditional) and uses the installed
example pack ``acme-skills`` (``code-review``, ``release-checklist``) through
the ``packs`` provider. Only the ``claude`` and ``packs`` providers load, so
nothing else installed on the machine leaks into the catalog.

:func:`skill_world` is the smaller world the adapters' conversation tests share
(``test_conversations.py`` of agno, strands, agent-framework …), with the cases
those tests repeat: a crowded project whose ``pdf-forms`` skill only the
search finds and the model's two calls for it (:func:`crowd`,
:func:`search_then_load`), a skill with a file beside its ``SKILL.md``
(:func:`styled_skill`) and one with every frontmatter field a framework may
carry (:func:`licensed_skill`).
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
    "CROWD_BUDGET",
    "LICENSED",
    "PACK_SKILL",
    "PROJECT_SKILL",
    "SEARCHED_BODY",
    "SEARCHED_SKILL",
    "SEARCH_QUERY",
    "STYLE_TEXT",
    "AdapterWorld",
    "SkillWorld",
    "adapter_world",
    "crowd",
    "licensed_skill",
    "search_then_load",
    "skill_world",
    "styled_skill",
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


#: The skill of a crowded project (:func:`crowd`) that the listing has no room for.
SEARCHED_SKILL = "pdf-forms"
#: Its body, which the model gets once it loads the skill by name.
SEARCHED_BODY = "Fill it.\n"
#: What the model asks ``search_skills`` for.
SEARCH_QUERY = "fill a pdf form"
#: The listing budget (characters) at which the crowd leaves :data:`SEARCHED_SKILL` out.
CROWD_BUDGET = 600


def crowd(world: SkillWorld) -> None:
    """Write 30 filler skills and :data:`SEARCHED_SKILL`: at :data:`CROWD_BUDGET` the
    listing has no room for it, so the model finds it with ``search_skills``."""
    for i in range(30):
        world.skill(f"filler-{i:02d}", f"Filler skill number {i} " + "z" * 60)
    world.skill(SEARCHED_SKILL, "Fill in PDF forms and extract their fields.", body=SEARCHED_BODY)


def search_then_load(load_tool: str) -> list[tuple[str, dict[str, str]]]:
    """The scripted model's two calls in a crowded project, as ``(tool, arguments)``:
    ``search_skills`` for :data:`SEARCH_QUERY`, then ``load_tool`` (the framework's
    skill tool, which takes ``skill_name``) for :data:`SEARCHED_SKILL`."""
    return [
        ("search_skills", {"query": SEARCH_QUERY}),
        (load_tool, {"skill_name": SEARCHED_SKILL}),
    ]


#: The text of ``style.md`` beside the ``styled`` skill (:func:`styled_skill`).
STYLE_TEXT = "Short sentences.\n"


def styled_skill(world: SkillWorld) -> Path:
    """Write the ``styled`` skill, whose body sends the model to ``style.md`` beside
    it (:data:`STYLE_TEXT`); returns the skill's folder."""
    folder = world.skill("styled", "Write in the house style.", body="Read style.md.\n").parent
    (folder / "style.md").write_text(STYLE_TEXT, encoding="utf-8")
    return folder


#: The frontmatter of the ``licensed`` skill (:func:`licensed_skill`), as written.
LICENSED = {
    "license": "MIT",
    "compatibility": "Needs git",
    "allowed_tools": "Read Grep",
}


def licensed_skill(world: SkillWorld, metadata: str = "{owner: docs}") -> Path:
    """Write the ``licensed`` skill: :data:`LICENSED`'s fields and ``metadata`` (a YAML
    mapping, as written in the frontmatter); returns its ``SKILL.md``."""
    return world.skill("licensed", "Has metadata.", metadata=metadata, **LICENSED)


def load_example(path: Path) -> ModuleType:
    """Import the Python file ``path`` as a module of its own (a docs example an
    adapter's tests run), named ``docs_example_<stem>``."""
    spec = importlib.util.spec_from_file_location(f"docs_example_{path.stem}", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
