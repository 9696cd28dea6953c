"""skillpath for Agno (``agno``): every skillpath skill behind Agno's own skills feature.

Agno's ``Agent(skills=Skills(loaders=[...]))`` lists skills in the system
prompt and gives the model three tools (``get_skill_instructions``,
``get_skill_reference``, ``get_skill_script``). This package feeds them from
skillpath:

* :class:`SkillpathSkillLoader`: a ``SkillLoader`` whose ``load()`` returns
  the skills skillpath lists for the model (every provider, pack and MCP
  skill, after precedence, filters and the listing budget). Use it with
  Agno's own ``Skills`` when you want nothing else changed::

      Agent(skills=Skills(loaders=[SkillpathSkillLoader(cwd=".")]))

* :class:`SkillpathSkills`: Agno's ``Skills`` with skillpath's answers. Before
  each request (when Agno asks for the prompt snippet and the tools) it checks
  the disk and loads the skills again when the catalog changed;
  ``get_skill_instructions`` renders through skillpath (arguments, inline-shell
  policy, ``disable-model-invocation``) and refuses unknown names with
  skillpath's near names; references and scripts are read through
  ``skill://`` (skillpath's containment)::

      Agent(model=..., skills=SkillpathSkills(cwd="."))

Nothing here discovers, parses or filters skills: that is skillpath's
(:class:`skillpath.agent.AgentSkills`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import Any

from agno.run.base import RunContext
from agno.skills import Skills
from agno.skills.loaders.base import SkillLoader
from agno.skills.skill import Skill as AgnoSkill
from agno.tools.function import Function
from skillpath import SkillSession
from skillpath.adapters import with_files_hint
from skillpath.agent import SEARCH_TOOL_NAME, AgentSkills, paths_in_arguments
from skillpath.model import Skill
from skillpath.resources import walk_skill_files

__all__ = [
    "TOOL_NAME",
    "SkillpathSkill",
    "SkillpathSkillLoader",
    "SkillpathSkills",
    "conversation_of",
    "skills_for",
]

#: The Agno tool that loads a skill's instructions.
TOOL_NAME = "get_skill_instructions"

_ERROR = "Error: "


def conversation_of(run_context: Any) -> str | None:
    """The conversation a tool call belongs to: the run's Agno ``session_id`` (a run
    given none continues the agent's own session), else ``None``."""
    ident = getattr(run_context, "session_id", None)
    return f"session:{ident}" if isinstance(ident, str) and ident else None


def skills_for(
    skills: AgentSkills | SkillSession | None = None,
    *,
    cwd: str | os.PathLike[str] | None = None,
    home: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    settings: Mapping[str, Any] | None = None,
    refresh: str = "turn",
    budget: int | None = None,
    search: bool = True,
) -> AgentSkills:
    """The :class:`AgentSkills` to serve: ``skills`` as is, a session wrapped, or a new one
    (``search``: the agent has ``search_skills``, so the listing leaves the skills that
    do not fit to it)."""
    return AgentSkills.of(
        skills,
        cwd=cwd,
        home=home,
        env=env,
        settings=settings,
        refresh=refresh,
        budget=budget,
        tool_name=TOOL_NAME,
        search_tool=SEARCH_TOOL_NAME if search else None,
    )


def _files(base: str | None, sub: str) -> list[str]:
    """The names of the regular files directly in ``<base>/<sub>`` (sorted; none when
    absent), as :func:`skillpath.resources.walk_skill_files` finds them: dot entries,
    refused names (:func:`skillpath.textguard.name_refusal`) and links leaving the
    skill's folder left out."""
    if base is None:
        return []
    walk = walk_skill_files(base, under=sub, max_depth=0)
    return [e.path.name for e in walk.entries]


class SkillpathSkill(AgnoSkill):
    """An Agno ``Skill`` for one skillpath skill.

    Its ``instructions`` are rendered by skillpath each time they are read
    (empty arguments, ``trigger="tool"``): the inline-shell policy and
    ``disable-model-invocation`` are skillpath's, and a refusal reads as an
    ``Error:`` text.
    """

    def __init__(self, skills: AgentSkills, record: Skill) -> None:
        base = os.fspath(record.base_dir) if record.base_dir is not None else None
        fm = record.frontmatter
        super().__init__(
            name=record.name,
            description=record.description,
            instructions="",
            source_path=base or f"skill://{record.name}",
            scripts=_files(base, "scripts"),
            references=_files(base, "references"),
            metadata=dict(fm.metadata) or None,
            license=fm.license,
            compatibility=fm.compatibility,
            allowed_tools=list(fm.allowed_tools) or None,
        )
        self._skillpath = skills

    @property  # type: ignore[override]
    def instructions(self) -> str:
        """The skill rendered by skillpath (``Error:`` text when refused)."""
        return self._skillpath.call(self.name, "", force=True)

    @instructions.setter
    def instructions(self, value: str) -> None:
        # The dataclass __init__ assigns the field; skillpath renders on read instead.
        pass


class SkillpathSkillLoader(SkillLoader):
    """An Agno ``SkillLoader`` backed by skillpath.

    :meth:`load` returns one :class:`SkillpathSkill` per skill skillpath lists
    for the model: hidden and ``disable-model-invocation`` skills are left out,
    and so are those the listing budget drops. Each call first checks the disk
    (``refresh="turn"``), so Agno's ``Skills.reload()`` sees added and edited
    skills. Arguments are as :meth:`skillpath.agent.AgentSkills.open`, or pass
    an :class:`~skillpath.agent.AgentSkills` or a :class:`~skillpath.SkillSession`.
    ``search``: the agent has the ``search_skills`` tool (:class:`SkillpathSkills`
    offers it; Agno's own ``Skills`` does not, hence the default ``False``).
    """

    def __init__(
        self,
        skills: AgentSkills | SkillSession | None = None,
        *,
        cwd: str | os.PathLike[str] | None = None,
        home: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        settings: Mapping[str, Any] | None = None,
        refresh: str = "turn",
        budget: int | None = None,
        search: bool = False,
    ) -> None:
        self.skillpath = skills_for(
            skills,
            cwd=cwd,
            home=home,
            env=env,
            settings=settings,
            refresh=refresh,
            budget=budget,
            search=search,
        )

    def load(self) -> list[AgnoSkill]:
        """The listed skills as Agno ``Skill`` objects (after the per-turn disk check)."""
        self.skillpath.begin_turn()
        return [SkillpathSkill(self.skillpath, s) for s in self.skillpath.listed_skills()]

    def __repr__(self) -> str:
        return f"SkillpathSkillLoader(cwd={os.fspath(self.skillpath.session.ctx.cwd)!r})"


class SkillpathSkills(Skills):
    """Agno's ``Skills`` serving every skillpath skill, re-read when the catalog changed.

    Agno asks for :meth:`get_system_prompt_snippet` and :meth:`get_tools` at
    the start of every run; both first check the disk and reload the loaded
    skills when skillpath's catalog changed (``refresh="turn"``; with
    ``"manual"``, call :meth:`refresh`). The prompt snippet and the three tools
    keep Agno's names and formats, with these differences:

    * ``get_skill_instructions`` takes an optional ``args`` string (skillpath's
      ``$ARGUMENTS``) and answers with skillpath's rendering; a hidden skill
      can be loaded by name although it is not listed, a user-only
      (``disable-model-invocation``) or unknown one is refused with a JSON
      ``error`` that names the nearest skills the model may use;
    * ``get_skill_reference`` and ``get_skill_script`` (reading) go through
      ``skill://`` reads, so skillpath's containment applies (a symlink out of
      the skill folder is refused); ``execute=True`` runs Agno's script runner
      only after that read succeeded and when skillpath's ``[shell]`` policy lets
      the skill run commands (:meth:`skillpath.SkillSession.script_refusal`).

    ``extra_loaders`` are Agno loaders whose skills are added after
    skillpath's (Agno keeps the last of two skills with one name).
    """

    def __init__(
        self,
        skills: AgentSkills | SkillSession | None = None,
        *,
        cwd: str | os.PathLike[str] | None = None,
        home: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        settings: Mapping[str, Any] | None = None,
        refresh: str = "turn",
        budget: int | None = None,
        extra_loaders: list[SkillLoader] | None = None,
    ) -> None:
        self.loader = SkillpathSkillLoader(
            skills,
            cwd=cwd,
            home=home,
            env=env,
            settings=settings,
            refresh=refresh,
            budget=budget,
            search=True,
        )
        self.skillpath = self.loader.skillpath
        self._loaded_for: tuple[Skill, ...] | None = None
        self._checked_by: str | None = None
        super().__init__(loaders=[self.loader, *(extra_loaders or [])])

    # -- freshness ----------------------------------------------------------
    def _load_skills(self) -> None:
        super()._load_skills()
        self._loaded_for = self.skillpath.listed_skills()

    def _check(self, part: str) -> None:
        """The per-run disk check, once for the pair of calls Agno makes per run.

        A run starts with the tools, then asks for the prompt snippet: the
        tools always check, and the snippet right after them uses that check
        (a snippet asked for on its own checks).
        """
        if part == "snippet" and self._checked_by == "tools":
            self._checked_by = None
            return
        self._checked_by = part
        self.skillpath.begin_turn()
        if self.skillpath.listed_skills() is not self._loaded_for:
            self.reload()

    def refresh(self) -> bool:
        """Load the skills again now; whether skillpath's active skills changed."""
        changed = self.skillpath.refresh()
        self.reload()
        return changed

    def get_system_prompt_snippet(self) -> str:
        """Agno's skills prompt for the current catalog (checked against the disk first),
        with a line naming ``search_skills`` when the listing budget left skills out."""
        self._check("snippet")
        text = super().get_system_prompt_snippet()
        dropped = len(self.skillpath.listing().report.dropped)
        if not text or not dropped:
            return text
        more = "skill is" if dropped == 1 else "skills are"
        line = (
            f"{dropped} more {more} not listed: call `{SEARCH_TOOL_NAME}(query)` with a few "
            f"words of the task to find them, then `{TOOL_NAME}` one by name."
        )
        return text.replace("\n</skills_system>", f"\n{line}\n</skills_system>", 1)

    def get_tools(self) -> list[Any]:
        """Agno's three skill tools and ``search_skills`` (the catalog checked first)."""
        self._check("tools")
        search = Function(
            name=SEARCH_TOOL_NAME,
            description=self.skillpath.search_schema()["description"],
            entrypoint=self._search_skills,
        )
        return [*super().get_tools(), search]

    def tool_hook(
        self, function_name: str, function_call: Callable[..., Any], arguments: dict[str, Any]
    ) -> Any:
        """An Agno tool hook (``Agent(tool_hooks=[skills.tool_hook])``): after a tool
        with a ``file_path``/``path``/``paths``/``filename`` argument ran, nested
        skills directories load and conditional skills activate for those paths
        (the next run lists them)."""
        result = function_call(**arguments)
        paths = paths_in_arguments(arguments)
        if paths:
            self.skillpath.files_touched(paths)
        return result

    # -- the tools ----------------------------------------------------------
    def _refusal(self, skill_name: str) -> str | None:
        """skillpath's refusal for a name the model may not use, else ``None``."""
        if skill_name in self.skillpath.model_skill_names():
            return None
        return self.skillpath.call(skill_name).removeprefix(_ERROR)

    def _search_skills(self, query: str, k: int = 5) -> str:
        """Search the skills by what you need to do, when the list shows none that fits.

        Args:
            query: A few words describing the task.
            k: How many skills to return (default 5).

        Returns:
            The best matching skills (name and description), best first.
        """
        return self.skillpath.search({"query": query, "k": k})

    def _get_skill_instructions(
        self, skill_name: str, args: str = "", run_context: RunContext | None = None
    ) -> str:
        """Load the full instructions for a skill.

        Args:
            skill_name: The name of the skill, from the available skills.
            args: Arguments for the skill (its $ARGUMENTS), or an empty string.

        Returns:
            A JSON string with the skill's instructions and metadata.
        """
        name = str(skill_name)
        key = conversation_of(run_context)
        conversation = self.skillpath.new_conversation() if key is None else key
        text = self.skillpath.call(name, str(args or ""), conversation=conversation)
        if text.startswith(_ERROR):
            return json.dumps({"error": text.removeprefix(_ERROR)})
        # The record after rendering: a pack skill's folder exists once it was loaded.
        hint = " (read its files with get_skill_reference: reference_path inside this folder)"
        text = with_files_hint(self.skillpath.session, name, text, "get_skill_reference", hint=hint)
        record = self.skillpath.session.get(name)
        base = record.base_dir if record is not None else None
        folder = os.fspath(base) if base is not None else None
        return json.dumps(
            {
                "skill_name": name,
                "description": record.description if record is not None else "",
                "instructions": text,
                "available_scripts": _files(folder, "scripts"),
                "available_references": _files(folder, "references"),
            }
        )

    def _read(self, skill_name: str, folder: str, path: str | None, key: str) -> str:
        refused = self._refusal(str(skill_name))
        if refused is not None:
            return json.dumps({"error": refused})
        if not path:
            return json.dumps({"error": f"A {key} is required (skill '{skill_name}')"})
        text = self.skillpath.read(f"skill://{skill_name}/{folder}/{path}")
        if text.startswith(_ERROR):
            return json.dumps({"error": text.removeprefix(_ERROR), "skill_name": skill_name})
        return json.dumps({"skill_name": skill_name, key: path, "content": text})

    def _get_skill_reference(self, skill_name: str, reference_path: str | None = None) -> str:
        """Load a reference document of a skill: a file in its references/ folder, or any
        file in the skill's folder by its path there.

        Args:
            skill_name: The name of the skill.
            reference_path: The file name in references/, or a path in the skill's folder.

        Returns:
            A JSON string with the reference content.
        """
        read = self._read(skill_name, "references", reference_path, "reference_path")
        path = str(reference_path or "")
        if "error" not in json.loads(read) or not path or path.startswith("references/"):
            return read
        if self._refusal(str(skill_name)) is not None:
            return read
        text = self.skillpath.read(f"skill://{skill_name}/{path}")
        if text.startswith(_ERROR):
            return read  # the references/ answer (the refusal of a name it may not use too)
        return json.dumps({"skill_name": skill_name, "reference_path": path, "content": text})

    def _get_skill_script(
        self,
        skill_name: str,
        script_path: str | None = None,
        execute: bool = False,
        args: list[str] | None = None,
        timeout: int = 30,
    ) -> str:
        """Read or execute a script from a skill's scripts/ folder.

        Args:
            skill_name: The name of the skill.
            script_path: The file name of the script.
            execute: If True, run the script and return its output; if False, its content.
            args: Arguments for the script (only when execute is True).
            timeout: Maximum run time in seconds (only when execute is True).

        Returns:
            A JSON string with the script's content or its run's output.
        """
        read = self._read(skill_name, "scripts", script_path, "script_path")
        if not execute or "error" in json.loads(read):
            return read
        refused = self.skillpath.session.script_refusal(str(skill_name))
        if refused is not None:
            return json.dumps({"error": f"script not run: {refused}", "skill_name": skill_name})
        return super()._get_skill_script(skill_name, script_path, True, args, timeout)
