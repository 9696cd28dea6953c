"""``SkillpathLazySkillSource``: skillpath skills for a ``SandboxAgent``'s ``Skills`` capability.

The SDK's sandbox ``Skills(lazy_from=...)`` lists the skills in the agent's
instructions and gives the model a ``load_skill`` tool that stages one skill
under ``<skills_path>/<name>/`` in the sandbox workspace, where the model reads
its ``SKILL.md`` with the sandbox's file tools. This source answers both from
skillpath:

* the index is the skills the model may use (hidden and
  ``disable-model-invocation`` skills left out), and of those only the ones the
  listing budget keeps (dropped ones are left out too);
* ``load_skill`` writes the skill **as skillpath renders it** for the Skill tool
  (argument placeholders, variables, the inline-shell policy and every
  ``transform_prompt`` plugin apply; the host path of the skill's folder is
  replaced by its path in the sandbox) as ``SKILL.md``, and copies the skill's
  other files, each read through ``skill://`` so skillpath's containment
  decides what leaves the host. An unknown or refused name gets
  ``{"status": "error", "message": …}`` for the model, not an exception.
"""

from __future__ import annotations

import io
import os
import threading
import weakref
from pathlib import Path
from typing import Any

from agents.sandbox.capabilities.skills import LazySkillSource, SkillMetadata
from agents.sandbox.session.base_sandbox_session import BaseSandboxSession
from agents.sandbox.types import User
from pydantic import PrivateAttr
from skillpath.agent import AgentSkills, unknown_for_model
from skillpath.contentscan import strip_invisible
from skillpath.errors import SkillpathError
from skillpath.resources import walk_skill_files

__all__ = ["SkillpathLazySkillSource", "registered"]

#: Files copied into the sandbox per skill, at most (a skill folder is small).
MAX_FILES = 500
#: The live skills behind the sources, by key. Weak: an entry lasts while its
#: :class:`AgentSkills` lives (each source holds it), so building sources again and
#: again leaves one entry per live ``AgentSkills``, not one per build.
_SOURCES: weakref.WeakValueDictionary[str, AgentSkills] = weakref.WeakValueDictionary()
#: Each live ``AgentSkills``' key (the same key however many sources are built on it).
_KEYS: weakref.WeakKeyDictionary[AgentSkills, str] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def _register(skills: AgentSkills) -> str:
    with _LOCK:
        key = _KEYS.get(skills)
        if key is None:
            key = f"skillpath-{id(skills):x}-{skills.session.session_id}"
            _KEYS[skills] = key
            _SOURCES[key] = skills
        return key


def registered() -> int:
    """How many ``AgentSkills`` the sources of this process serve (live ones only)."""
    return len(_SOURCES)


class SkillpathLazySkillSource(LazySkillSource):
    """A ``LazySkillSource`` over an :class:`~skillpath.agent.AgentSkills`.

    Build it with :meth:`open` (``cwd`` and the other arguments as
    :meth:`AgentSkills.open`) or pass ``skills=``::

        Skills(lazy_from=SkillpathLazySkillSource.open("."))
    """

    key: str
    """Which :class:`~skillpath.agent.AgentSkills` this source serves (the SDK copies and
    serialises capabilities, so the source holds a key as its field; the live object is
    held beside it, and copies keep it)."""

    _live: AgentSkills | None = PrivateAttr(default=None)

    def __init__(self, skills: AgentSkills | None = None, /, **data: Any) -> None:
        if skills is not None:
            data["key"] = _register(skills)
        super().__init__(**data)
        self._live = skills if skills is not None else _SOURCES.get(self.key)

    @classmethod
    def open(
        cls, cwd: str | os.PathLike[str] | None = None, **kwargs: Any
    ) -> SkillpathLazySkillSource:
        """A source over a new :class:`AgentSkills` for ``cwd`` (arguments as its ``open``)."""
        return cls(AgentSkills.open(cwd, tool_name="load_skill", **kwargs))

    @property
    def skills(self) -> AgentSkills:
        """The :class:`~skillpath.agent.AgentSkills` served."""
        skills = self._live if self._live is not None else _SOURCES.get(self.key)
        if skills is None:
            raise SkillpathError(f"no skillpath skills registered under {self.key!r}")
        return skills

    def _agent_skills(self) -> AgentSkills:
        return self.skills

    def list_skill_metadata(
        self, *, skills_path: str, source_grants: tuple[Any, ...] = ()
    ) -> list[SkillMetadata]:
        """The skills the model may load (the listing's, within its budget)."""
        skills = self._agent_skills()
        skills.begin_turn()
        session = skills.session
        out: list[SkillMetadata] = []
        for name in skills.listed_names():
            skill = session.get(name)
            if skill is None:
                continue
            out.append(
                SkillMetadata(
                    name=skill.name,
                    description=" ".join(skill.description.split()) or skill.name,
                    path=Path(skills_path) / skill.name,
                )
            )
        return out

    async def load_skill(
        self,
        *,
        skill_name: str,
        session: BaseSandboxSession,
        skills_path: str,
        user: str | User | None = None,
    ) -> dict[str, str]:
        """Stage ``skill_name`` under ``skills_path`` in the sandbox (rendered by skillpath)."""
        skills = self._agent_skills()
        sp = skills.session
        name = str(skill_name)
        rel = (Path(skills_path) / name).as_posix()
        if sp.get(name) is None:
            pending = next((s for s in sp.pending() if s.name == name), None)
            message = (
                unknown_for_model(name, skills.model_skill_names())
                if pending is None
                else skills.call(name)
            )
            return {"status": "error", "skill_name": name, "message": message}
        try:
            rendered = sp.invoke(name, "", trigger="tool", force=True)
        except SkillpathError as exc:
            return {"status": "error", "skill_name": name, "message": f"Error: {exc}"}
        root = Path(session.state.manifest.root)
        dest = root / rel
        text = rendered.content
        base = rendered.base_dir
        if base is not None:
            text = text.replace(os.fspath(base), dest.as_posix())
        copied = 0
        skipped: list[str] = []
        if base is not None and os.path.isdir(base):
            files, skipped = _files(base)
            for rel_file in files:
                if rel_file == "SKILL.md":
                    continue
                try:
                    res = sp.resolve(f"skill://{name}/{rel_file}")
                except SkillpathError:
                    skipped.append(rel_file)
                    continue
                data = res.path.read_bytes() if res.path is not None else res.content.encode()
                data = _without_invisible(data)
                await session.write(dest / rel_file, io.BytesIO(data), user=user)
                copied += 1
        await session.write(dest / "SKILL.md", io.BytesIO(text.encode("utf-8")), user=user)
        result = {"status": "loaded", "skill_name": name, "path": rel}
        if skipped:
            result["skipped"] = ", ".join(skipped)
        return result


def _without_invisible(data: bytes) -> bytes:
    """A text file's bytes without the invisible characters every model-facing path
    strips (:func:`skillpath.contentscan.strip_invisible`): the model reads the staged
    copy itself. Bytes that are not UTF-8 text are copied as they are."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data
    clean, removed = strip_invisible(text)
    return clean.encode("utf-8") if removed else data


def _files(base: Path) -> tuple[list[str], list[str]]:
    """The files below ``base`` to copy, relative, as
    :func:`skillpath.resources.walk_skill_files` finds them (at most :data:`MAX_FILES`;
    dot entries and refused names — :func:`skillpath.textguard.name_refusal`: never
    copied, never named — left out), and the links left out because they leave the
    skill's folder (reported as skipped)."""
    walk = walk_skill_files(base, max_files=MAX_FILES)
    return [e.rel for e in walk.entries], [e.rel for e in walk.links]
