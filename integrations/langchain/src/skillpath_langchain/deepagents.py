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
  ``Error: …`` text for the model; *downloaded* (deepagents' index) it is
  only the frontmatter deepagents needs (``name``, ``description``) and a
  line pointing at the full text, so building the index runs nothing;
* ``/<name>/<path>`` is the file ``skill://<name>/<path>`` (skillpath's
  containment decides what can be read).

Writes, edits and deletes are refused with an error result.
"""

from __future__ import annotations

import fnmatch
import os
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


class SkillpathBackend(BackendProtocol):
    """A read-only deepagents backend over an :class:`~skillpath.agent.AgentSkills`.

    Arguments as :class:`~skillpath_langchain.SkillsMiddleware` (``skills`` or
    ``cwd`` and the options of :meth:`AgentSkills.open`).
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

    def refresh(self) -> bool:
        """Load the skills again now (see :meth:`AgentSkills.refresh`)."""
        return self.skills.refresh()

    # -- what is there ------------------------------------------------------
    def _names(self) -> list[str]:
        """The skills the model may use that the listing budget keeps, sorted."""
        return self.skills.listed_names()

    def _files(self, name: str) -> list[str]:
        skill = self.skills.session.get(name)
        base = skill.base_dir if skill is not None else None
        out = ["SKILL.md"]
        if base is None or not os.path.isdir(base):
            return out
        try:
            with os.scandir(base) as it:
                entries = sorted(it, key=lambda e: e.name)
                for entry in entries:
                    if entry.name.startswith(".") or entry.name == "SKILL.md":
                        continue
                    out.append(entry.name + ("/" if entry.is_dir() else ""))
        except OSError:
            pass
        return out

    def ls(self, path: str) -> LsResult:
        """``/``: one folder per skill; ``/<name>/``: the files at the top of its folder."""
        refused = _not_a(str, "path", path)
        if refused is not None:
            return LsResult(error=refused)
        name, rest = _split(path)
        if not name:
            self.skills.begin_turn()
            return LsResult(entries=[FileInfo(path=f"/{n}/", is_dir=True) for n in self._names()])
        if self.skills.session.get(name) is None or name not in self._names():
            return LsResult(error=f"No skill named {name!r}")
        if rest:
            res = self._resolve(name, rest)
            if isinstance(res, str):
                return LsResult(error=res)
            return LsResult(error=f"{path} is not a folder the skills backend lists")
        return LsResult(
            entries=[
                FileInfo(path=f"/{name}/{f}", is_dir=f.endswith("/")) for f in self._files(name)
            ]
        )

    # -- reading ------------------------------------------------------------
    def _resolve(self, name: str, rest: str) -> Any:
        try:
            return self.skills.session.resolve(f"skill://{name}/{rest}")
        except SkillpathError as exc:
            return f"Error: {exc}"

    def _text(self, path: str) -> str:
        name, rest = _split(path)
        if not name:
            return "Error: give a skill's file, e.g. /<name>/SKILL.md"
        if rest in ("", "SKILL.md"):
            return self.skills.call(name, force=True)  # a read is paged: always the full text
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
        front = yaml.safe_dump(
            {"name": skill.name, "description": " ".join(skill.description.split())},
            allow_unicode=True,
            sort_keys=False,
            width=10_000,
        )
        body = "Read this SKILL.md with the read_file tool for the skill's instructions.\n"
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
        """Match ``pattern`` against ``/<name>/SKILL.md`` and each skill's top-level files."""
        refused = _not_a(str, "pattern", pattern) or (
            None if path is None else _not_a(str, "path", path)
        )
        if refused is not None:
            return GlobResult(error=refused)
        paths = [f"/{n}/{f}" for n in self._names() for f in self._files(n)]
        pat = pattern if pattern.startswith("/") else f"**/{pattern}"
        found = [p for p in paths if fnmatch.fnmatch(p, pat) or fnmatch.fnmatch(p, pattern)]
        return GlobResult(matches=[FileInfo(path=p, is_dir=p.endswith("/")) for p in found])

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
