"""The built-in ``skill://`` resolver.

``skill://<name>`` (or ``skill://<name>/``) is the skill's own ``SKILL.md``, the
file discovery loaded; ``skill://<name>/<rel>`` is a file (or a directory
listing) inside the skill's base directory; ``skill://<name>/.`` lists the
base directory itself.

Rules:

* the name matches exactly and case-sensitively a skill in ``ctx.skills``
  (hidden skills included); an unknown name is an :class:`UnknownSkillURLError`
  that offers the nearest names (:func:`skillpath.suggest.unknown_skill_message`;
  :meth:`SkillSession.resolve <skillpath.session.SkillSession.resolve>` says
  instead when the name is a conditional skill that is not active yet);
* the name and the relative part are percent-decoded once (as UTF-8); the
  decoded relative part must pass :func:`skillpath.safety.resolve_inside`:
  no absolute path, no ``..`` segment (also when slashes or dots were
  percent-encoded), no backslash, NUL or control character, and the real path
  (symlinks followed) must stay inside the real base directory;
* ``?`` and ``#`` have no special meaning (they are part of the file name);
* a missing file is ``File not found: <path>``; a directory gives a listing
  (one entry per line, sub-directories with a trailing ``/``, dot entries
  left out); files must be regular, at most :data:`MAX_READ_BYTES` and not
  binary;
* a listing follows :func:`skillpath.resources.walk_skill_files`' rules: a
  symbolic link whose target leaves the skill's folder, special files,
  ``__pycache__``/``node_modules`` and a file or folder whose name holds invisible
  characters (:func:`skillpath.textguard.name_refusal`: tag characters, bidi
  controls, zero-width characters, line breaks …) are left out; a path through a
  refused name is refused (the content checks report it as
  ``invisible-file-name``);
* content type: ``text/markdown`` for ``.md``/``.markdown``/``.mdx``,
  ``application/json`` for ``.json``, else ``text/plain``;
* ``skill://`` alone is the index of every skill the model may use
  (:func:`skill_index`), where a listing trimmed by its budget sends the model;
* a skill's folder name finds it when its frontmatter name differs
  (:func:`skillpath.suggest.by_folder`); there is no other fallback search.

The resolver is registered ``trylast``, so any plugin can handle ``skill://``
URLs first (for example to extract pack files lazily) or add schemes.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

from skillpath.errors import ResolveError
from skillpath.hookspecs import hookimpl
from skillpath.safety import read_bounded, resolve_inside
from skillpath.textguard import escape_controls, name_refusal

if TYPE_CHECKING:
    from skillpath.context import SkillContext
    from skillpath.model import Skill
    from skillpath.resources import Resource

__all__ = [
    "INDEX_DESCRIPTION",
    "MAX_READ_BYTES",
    "SCHEME",
    "UnknownSkillURLError",
    "mime_type_for",
    "read_text_file",
    "resolve_skill_url",
    "resolve_url",
    "skill_index",
]

#: The URL scheme of a skill's files: ``skill://<name>/<path>``.
SCHEME = "skill://"
#: Largest file a ``skill://`` read returns.
MAX_READ_BYTES = 8 * 1024 * 1024
_MARKDOWN = {".md", ".markdown", ".mdx"}


def mime_type_for(path: Path | str) -> str:
    """``text/markdown``, ``application/json`` or ``text/plain`` by file extension."""
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext in _MARKDOWN:
        return "text/markdown"
    if ext == ".json":
        return "application/json"
    return "text/plain"


def read_text_file(path: Path | str, *, limit: int = MAX_READ_BYTES) -> str:
    """Read a regular UTF-8 text file (invalid bytes replaced).

    Read with :func:`skillpath.safety.read_bounded`: never blocks on a FIFO,
    never reads past ``limit``. :raises OSError: ``FileNotFoundError``,
    ``IsADirectoryError``, a non-regular file, a file over ``limit`` bytes
    (``EFBIG``), or a binary file (NUL bytes in the first 8 KiB).
    """
    data = read_bounded(path, limit)
    if b"\x00" in data[:8192]:
        raise OSError(errno.EINVAL, "binary file", os.fspath(path))
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return data.decode("utf-8", errors="replace")


class UnknownSkillURLError(ResolveError):
    """A ``skill://`` URL names no active skill; ``name`` is the decoded name."""

    def __init__(self, message: str, name: str) -> None:
        super().__init__(message)
        self.name = name


# resources and suggest are imported when a URL is resolved, not when the plugin is
# registered: a listing never resolves one


def _echo(text: str) -> str:
    from skillpath.suggest import echo_name

    return echo_name(text)


def _unknown(name: str, skills: Mapping[str, Skill]) -> UnknownSkillURLError:
    from skillpath.suggest import folder_matches, unknown_skill_message

    first = folder_matches(name, skills.values())
    return UnknownSkillURLError(unknown_skill_message(name, skills, first=first), name)


def _decode(part: str, what: str) -> str:
    try:
        return unquote(part, encoding="utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise ResolveError(f"{what} is not valid UTF-8 after percent-decoding") from exc


def _listing(path: Path, base: Path | None) -> str:
    """The entries of folder ``path`` (a real path inside skill folder ``base``) under
    :func:`skillpath.resources.walk_skill_files`' rules, folders with a trailing ``/``."""
    if not os.access(path, os.R_OK | os.X_OK):
        raise ResolveError(f"Cannot list directory {path}: Permission denied")
    from skillpath.resources import MAX_WALK_FILES, walk_skill_files

    real = os.path.realpath(base if base is not None else path)
    under = os.path.relpath(path, real).replace(os.sep, "/")
    walk = walk_skill_files(real, under="" if under == "." else under, max_depth=0, folders=True)
    cut = len(under) + 1 if under != "." else 0
    lines = [e.rel[cut:] + "/" if e.is_dir else e.rel[cut:] for e in walk.entries]
    if walk.truncated:
        lines.append(f"(more entries not listed: at most {MAX_WALK_FILES})")
    return "\n".join(lines) + ("\n" if lines else "")


def _read(url: str, path: Path, skill: Skill) -> Resource:
    from skillpath.resources import Resource

    # os.path.isdir answers False for a path the system refuses (a name over
    # 255 bytes): reading it then says why, as a ResolveError
    if os.path.isdir(path):
        return Resource(url, _listing(path, skill.base_dir), "text/plain", path, skill.name, True)
    try:
        content = read_text_file(path)
    except FileNotFoundError as exc:
        raise ResolveError(f"File not found: {path}") from exc
    except OSError as exc:
        if exc.errno == errno.ENOENT or exc.errno == errno.ENOTDIR:
            raise ResolveError(f"File not found: {path}") from exc
        raise ResolveError(f"Cannot read {path}: {exc.strerror or exc}") from exc
    return Resource(url, content, mime_type_for(path), path, skill.name, False)


#: Descriptions in the ``skill://`` index are cut to this many characters.
INDEX_DESCRIPTION = 200


def skill_index(url: str, skills: Mapping[str, Skill]) -> Resource:
    """The index of every skill the model may use (``skill://``): one ``- name:
    description`` line each (hidden skills left out, descriptions cut to
    :data:`INDEX_DESCRIPTION` characters), sorted by name.

    It is where the listing sends the model when the budget left skills out.
    """
    from skillpath.listing import neutralise, shorten
    from skillpath.model import sort_key
    from skillpath.resources import Resource

    visible = sorted((s for s in skills.values() if not s.hidden), key=sort_key)
    lines = [f"# Skills ({len(visible)}); read skill://<name> for one\n"]
    for skill in visible:
        name = neutralise(skill.name)[0]
        desc = shorten(neutralise(skill.description or "")[0], INDEX_DESCRIPTION)
        lines.append(f"- {name}: {desc}" if desc else f"- {name}")
    return Resource(url, "\n".join(lines) + "\n", "text/markdown", None, None, False)


def resolve_skill_url(url: str, skills: Mapping[str, Skill]) -> Resource:
    """Resolve a ``skill://`` URL against ``skills`` (name → skill).

    :raises ResolveError: for a URL that is not ``skill://``, an unknown name
        (:class:`UnknownSkillURLError`), a skill without files on disk, a
        missing or unreadable file;
        :class:`~skillpath.safety.ContainmentError` for any path that would
        leave the skill's directory.
    """
    if url[: len(SCHEME)].lower() != SCHEME:
        raise ResolveError(f"not a skill:// URL: {_echo(url)}")
    rest = url[len(SCHEME) :]
    if rest in ("", "/"):
        return skill_index(url, skills)
    raw_name, sep, raw_rel = rest.partition("/")
    name = _decode(raw_name, "skill name")
    skill = skills.get(name)
    if skill is None:
        from skillpath.suggest import by_folder

        skill = by_folder(name, skills.values())  # the folder name of a skill named otherwise
    if skill is None:
        raise _unknown(name, skills)
    rel = _decode(raw_rel, "path") if sep else ""
    base = skill.base_dir
    if rel == "":
        if skill.path is not None:
            return _read(url, Path(os.path.realpath(skill.path)), skill)
        if base is None:
            raise ResolveError(
                f"Skill {name!r} has no files on disk (source {skill.source.provider}/"
                f"{skill.source.loaded_from}); nothing to read at {url}"
            )
        return _read(url, resolve_inside(base, "SKILL.md"), skill)
    if base is None:
        raise ResolveError(
            f"Skill {name!r} has no directory on disk (source {skill.source.provider}/"
            f"{skill.source.loaded_from}); cannot read {_echo(rel)}"
        )
    if rel in (".", "./"):
        return _read(url, Path(os.path.realpath(base)), skill)
    path = resolve_inside(base, rel)  # containment first: its refusals come before
    refused = name_refusal(rel)
    if refused is not None:
        shown = escape_controls(rel, keep="", invisible=True)
        raise ResolveError(
            f"'{shown}' is refused: its name holds {refused} (skill {_echo(skill.name)})"
        )
    return _read(url, path, skill)


@hookimpl(trylast=True)
def resolve_url(url: str, ctx: SkillContext) -> Resource | None:
    """The built-in resolver: handles ``skill://`` URLs, abstains on anything else."""
    if url[: len(SCHEME)].lower() != SCHEME:
        return None
    return resolve_skill_url(url, ctx.skills)
