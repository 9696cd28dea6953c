"""``SkillpathBackend``: every skillpath skill as a read-only deepagents backend.

deepagents' own ``SkillsMiddleware`` lists skills found in a backend
(``<source>/<name>/SKILL.md``) and the agent reads them with its ``read_file``
tool. This backend serves skillpath's skills there, so that middleware shows
every skill the user has (Claude Code's, Codex's, ``.agents``', plugins',
pip-installed packs, MCP) with deepagents' own prompt::

    backend = CompositeBackend(
        default=StateBackend(), routes={"/skills/": SkillpathBackend(cwd=".")}
    )
    agent = create_deep_agent(model, backend=backend, skills=["/skills/"])

What each path holds (paths are relative to where the backend is mounted):

* ``/`` lists one folder per skill the model may use (hidden and
  ``disable-model-invocation`` skills are left out, and so are the ones the
  listing budget drops); the list is checked against the disk at every ``ls``
  (``refresh="turn"``);
* ``/<name>/SKILL.md`` *read* (the model's ``read_file``) is the skill as
  skillpath renders it for the Skill tool (arguments, variables, the
  inline-shell policy and ``transform_prompt`` plugins apply), or an
  ``Error: …`` text for the model. Its "Base directory" line (and every other
  mention of the skill's folder on the host, ``${SKILL_DIR}`` included) names
  the folder in the agent's own file system view, ``<mount>/<name>``
  (``mount="/skills/"``: where the backend is routed), so its ``read_file``,
  ``ls`` and ``glob`` reach the files the skill names;
* ``/<name>/SKILL.md`` *downloaded* (deepagents' skill index, and its
  ``pinned_skills``, which pin what the download holds) is the frontmatter
  deepagents reads (``name``, ``description``, ``license``, ``compatibility``,
  ``allowed-tools``, ``metadata`` with ``include_tools``: skill-scoped tools)
  and the rendered skill as ``read_file`` gives it, so a pinned skill is the
  skill. A skill whose rendering would run an inline shell command (the policy
  allows it for that skill) holds a line pointing at ``read_file`` instead: the
  index is built for every new conversation and must run nothing;
* ``/<name>/<path>`` is the file ``skill://<name>/<path>`` (skillpath's
  containment decides what can be read); a folder at any depth is listed by
  ``ls``, and ``glob`` matches files at any depth (``**/*.md``).

What deepagents has no field for (``when_to_use``, ``argument-hint``,
``disable-model-invocation``, ``paths``, ``model``, ``hooks``…) is dropped from
the index; the rendered skill applies what skillpath applies.

Writes, edits and deletes are refused with an error result.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

import yaml
from deepagents.backends.protocol import (
    BackendProtocol,
    DeleteResult,
    EditResult,
    FileData,
    FileDownloadResponse,
    FileInfo,
    FileUploadResponse,
    GlobResult,
    GrepResult,
    LsResult,
    ReadResult,
    WriteResult,
)
from deepagents.backends.utils import slice_read_response
from skillpath import SkillSession
from skillpath.agent import AgentSkills
from skillpath.errors import SkillpathError

from skillpath_langchain.middleware import skills_for

__all__ = ["SkillpathBackend"]

_READ_ONLY = "the skillpath skills backend is read-only"

#: Entries ``glob`` walks in one skill's folder, at most (a skill folder is small).
MAX_GLOB_ENTRIES = 500


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """``pattern`` as a regular expression over ``/``-separated paths: ``**`` spans
    folders, ``*`` and ``?`` stay within one, ``[…]`` is a character class."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : end].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = end
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def _not_a(kind: type, what: str, value: Any) -> str | None:
    """The error text for an argument of the wrong type (``None`` when it is right):
    the tools and indexes that call a backend pass what the model sent."""
    if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
        return None
    return f"Error: {what} must be a {kind.__name__}, not {type(value).__name__}"


def _split(path: str) -> tuple[str, str]:
    """``/name/rest`` → ``(name, rest)`` (``rest`` without a leading ``/``)."""
    parts = [p for p in path.replace("\\", "/").split("/") if p and p != "."]
    if not parts:
        return "", ""
    return parts[0], "/".join(parts[1:])


def _metadata_value(key: Any, value: Any) -> str:
    """A ``metadata`` value as deepagents reads it (strings; ``include_tools``: names
    separated by spaces, as deepagents wants them, also when written as a list)."""
    if isinstance(value, list | tuple):
        sep = " " if key == "include_tools" else ", "
        return sep.join(str(v) for v in value)
    return str(value)


class SkillpathBackend(BackendProtocol):
    """A read-only deepagents backend over an :class:`~skillpath.agent.AgentSkills`.

    Arguments as :class:`~skillpath_langchain.SkillsMiddleware` (``skills`` or
    ``cwd`` and the options of :meth:`AgentSkills.open`), and ``mount``: the route
    the backend is served under in the agent's ``CompositeBackend`` (default
    ``/skills/``), which the rendered skills' "Base directory" lines name.
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
        mount: str = "/skills/",
    ) -> None:
        self.skills = skills_for(
            skills,
            cwd=cwd,
            home=home,
            env=env,
            settings=settings,
            refresh=refresh,
            budget=budget,
        )
        #: Where the backend is routed in the agent's file system (``CompositeBackend``'s
        #: route): the rendered skills name their folders under it.
        self.mount = "/" + "/".join(p for p in str(mount).split("/") if p)
        self.mount = self.mount.rstrip("/") + "/"

    def refresh(self) -> bool:
        """Load the skills again now (see :meth:`AgentSkills.refresh`)."""
        return self.skills.refresh()

    # -- what is there ------------------------------------------------------
    def _names(self) -> list[str]:
        """The skills the model may use that the listing budget keeps, sorted."""
        return self.skills.listed_names()

    def _entries(self, name: str, rest: str) -> list[str] | str:
        """The entries of folder ``rest`` of skill ``name`` (``""``: its top), folders
        ending in ``/``, as skillpath's contained reader lists them; or an error text."""
        res = self._resolve(name, rest or ".")
        if isinstance(res, str):
            return res
        if not res.is_directory:
            return f"Error: {rest} is a file, not a folder"
        return [line for line in str(res.content).splitlines() if line]

    def _walk(self, name: str) -> list[str]:
        """Every entry below skill ``name``'s folder, relative (folders end in ``/``),
        breadth first, at most :data:`MAX_GLOB_ENTRIES`."""
        out: list[str] = []
        todo = [""]
        while todo and len(out) < MAX_GLOB_ENTRIES:
            folder = todo.pop(0)
            entries = self._entries(name, folder)
            if isinstance(entries, str):
                continue
            for entry in entries:
                rel = f"{folder}{entry}"
                out.append(rel)
                if entry.endswith("/"):
                    todo.append(rel)
                if len(out) >= MAX_GLOB_ENTRIES:
                    break
        return out

    def ls(self, path: str) -> LsResult:
        """``/``: one folder per skill; ``/<name>/…/``: the entries of that folder."""
        refused = _not_a(str, "path", path)
        if refused is not None:
            return LsResult(error=refused)
        name, rest = _split(path)
        if not name:
            self.skills.begin_turn()
            return LsResult(entries=[FileInfo(path=f"/{n}/", is_dir=True) for n in self._names()])
        if self.skills.session.get(name) is None or name not in self._names():
            return LsResult(error=f"No skill named {name!r}")
        entries = self._entries(name, rest)
        if isinstance(entries, str):
            return LsResult(error=entries)
        prefix = f"/{name}/" + (f"{rest}/" if rest else "")
        return LsResult(
            entries=[FileInfo(path=prefix + e, is_dir=e.endswith("/")) for e in entries]
        )

    # -- reading ------------------------------------------------------------
    def _resolve(self, name: str, rest: str) -> Any:
        try:
            return self.skills.session.resolve(f"skill://{name}/{rest}")
        except SkillpathError as exc:
            return f"Error: {exc}"

    def _rendered(self, name: str) -> str:
        """The skill as the Skill tool renders it, its host folder named as the agent sees it."""
        text = self.skills.call(name, force=True)  # a read is paged: always the full text
        skill = self.skills.session.get(name)
        base = None if skill is None else skill.base_dir
        if base is None:
            return text
        return text.replace(os.fspath(base), f"{self.mount}{name}")

    def _text(self, path: str) -> str:
        name, rest = _split(path)
        if not name:
            return "Error: give a skill's file, e.g. /<name>/SKILL.md"
        if rest in ("", "SKILL.md"):
            return self._rendered(name)
        res = self._resolve(name, rest)
        return res if isinstance(res, str) else str(res.content)

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """The model's ``read_file``: the rendered skill or a file of it (``Error: …`` text)."""
        refused = (
            _not_a(str, "file_path", file_path)
            or _not_a(int, "offset", offset)
            or _not_a(int, "limit", limit)
        )
        if refused is not None:
            return ReadResult(error=refused)
        text = self._text(file_path)
        return slice_read_response(FileData(content=text, encoding="utf-8"), offset, limit)

    def _index_entry(self, name: str) -> bytes | None:
        skill = self.skills.session.get(name)
        if skill is None or skill.hidden:
            return None
        return self.skills.memo(f"deepagents:index:{self.mount}:{name}", lambda: self._entry(name))

    def _entry(self, name: str) -> bytes:
        skill = self.skills.session.get(name)
        assert skill is not None
        fm = skill.frontmatter
        data: dict[str, Any] = {
            "name": skill.name,
            "description": " ".join(skill.description.split()),
        }
        if fm.license:
            data["license"] = fm.license
        if fm.compatibility:
            data["compatibility"] = fm.compatibility
        if fm.allowed_tools:
            data["allowed-tools"] = list(fm.allowed_tools)
        if fm.metadata:
            data["metadata"] = {str(k): _metadata_value(k, v) for k, v in fm.metadata.items()}
        front = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=10_000)
        if self.skills.runs_commands(name):
            body = (
                f"This skill runs commands when it is read: read {self.mount}{name}/SKILL.md "
                "with the read_file tool for its instructions.\n"
            )
        else:
            body = self._rendered(name)
        return f"---\n{front}---\n{body}".encode()

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """deepagents' skill index: ``SKILL.md`` holds the frontmatter only; other files as read."""
        out: list[FileDownloadResponse] = []
        if not isinstance(paths, (list, tuple)):
            return [FileDownloadResponse(path=repr(paths)[:200], error="invalid_path")]
        for path in paths:
            if not isinstance(path, str):
                out.append(FileDownloadResponse(path=repr(path)[:200], error="invalid_path"))
                continue
            name, rest = _split(path)
            if rest == "SKILL.md":
                data = self._index_entry(name)
                if data is None:
                    out.append(FileDownloadResponse(path=path, error="file_not_found"))
                else:
                    out.append(FileDownloadResponse(path=path, content=data))
                continue
            res = self._resolve(name, rest) if name and rest else "Error: not a file"
            if isinstance(res, str):
                out.append(FileDownloadResponse(path=path, error="file_not_found"))
            else:
                out.append(FileDownloadResponse(path=path, content=str(res.content).encode()))
        return out

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        """Files and folders at any depth of the skills' folders that match ``pattern``
        (relative to ``path``, default ``/``; a pattern starting with ``/`` is absolute)."""
        refused = _not_a(str, "pattern", pattern) or (
            None if path is None else _not_a(str, "path", path)
        )
        if refused is not None:
            return GlobResult(error=refused)
        name, rest = _split(path or "/")
        if name and name not in self._names():
            return GlobResult(matches=[])
        base = "/" + "/".join(p for p in (name, rest) if p)
        base = base.rstrip("/") + "/"
        regex = _glob_regex(pattern.lstrip("/") if pattern.startswith("/") else pattern)
        found: list[FileInfo] = []
        for skill in [name] if name else self._names():
            for rel in self._walk(skill):
                full = f"/{skill}/{rel}"
                if not full.startswith(base) or full == base:
                    continue
                target = full.rstrip("/")
                subject = target.lstrip("/") if pattern.startswith("/") else target[len(base) :]
                if regex.match(subject):
                    found.append(FileInfo(path=full, is_dir=full.endswith("/")))
        return GlobResult(matches=found)

    def grep(
        self,
        pattern: str,
        path: str | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
    ) -> GrepResult:
        """Not offered: read the skill instead."""
        return GrepResult(error="grep is not offered by the skills backend; read the SKILL.md")

    # -- refused ------------------------------------------------------------
    def write(self, file_path: str, content: str) -> WriteResult:
        """Refused (read-only)."""
        return WriteResult(error=_READ_ONLY)

    def edit(
        self,
        file_path: str,
        old_string: str,
        new_string: str,
        replace_all: bool = False,
    ) -> EditResult:
        """Refused (read-only)."""
        return EditResult(error=_READ_ONLY)

    def delete(self, file_path: str) -> DeleteResult:
        """Refused (read-only)."""
        return DeleteResult(error=_READ_ONLY)

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Refused (read-only)."""
        if not isinstance(files, (list, tuple)):
            return [FileUploadResponse(path=repr(files)[:200], error="permission_denied")]
        return [
            FileUploadResponse(
                path=item[0]
                if isinstance(item, (list, tuple)) and item and isinstance(item[0], str)
                else repr(item)[:200],
                error="permission_denied",
            )
            for item in files
        ]
