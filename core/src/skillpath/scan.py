"""Scanning skills roots: ``<root>/<name>/SKILL.md``, one level deep.

Providers call :func:`scan_skills_dir` (or the :class:`Discovery` builder that
wraps it) for each root they own. Every skill, whatever its source, is built by
:func:`build_skill` so names, descriptions and frontmatter follow one set of
rules.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs

from skillpath._rootlist import _link_is_dir, _list_root
from skillpath.cache.memo import ScanMemo, open_scan_memo
from skillpath.frontmatter import (
    WHOLE_BYTES,
    LinkedOutside,
    _head_of,
    _parse_parts,
    _read_head_linked,
    frontmatter_values,
    normalize_key,
    parse_frontmatter,
)
from skillpath.model import (
    Diagnostic,
    DiscoveryResult,
    Frontmatter,
    RootScan,
    Skill,
    SkillSource,
)
from skillpath.paragraph import first_paragraph, has_text
from skillpath.safety import is_inside, outside_area, project_area
from skillpath.survey import SKILL_FILE as _SURVEY_SKILL_FILE
from skillpath.survey import (
    Survey,
    near_miss_roots,
    note_flat_file,
    note_nested,
)
from skillpath.survey import child_path as _child
from skillpath.textguard import name_refusal, strip_invisible, text_findings

__all__ = [
    "SKILL_FILE",
    "Discovery",
    "ScanResult",
    "build_skill",
    "check_name",
    "load_skill_file",
    "load_skills_from_dir",
    "near_miss_roots",
    "outside_project",
    "scan_skills_dir",
    "skill_from_text",
]

#: The file that makes a folder a skill.
SKILL_FILE = _SURVEY_SKILL_FILE
_SEP_SKILL_FILE = os.sep + SKILL_FILE


def _can_seed_str() -> bool:
    # pathlib caches a path's text in ``_str`` and builds it from the parts on
    # first use (about 1 us a path); the scanner already has the exact text of
    # every path it makes. Used only when setting the cache is seen to work.
    try:
        probe = _child(Path(os.sep + "a"), "b")
        probe._str = os.sep + "c"  # type: ignore[attr-defined]
        return str(probe) == os.sep + "c" == os.fspath(probe)
    except (AttributeError, TypeError):
        return False


_SEED_STR = _can_seed_str()
_MAX_NAME = 255
_BAD_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
_SIMPLE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]*\Z")


def check_name(name: str) -> str | None:
    """Why ``name`` cannot be a skill name, or ``None`` when it can.

    Refused at the boundary: empty, longer than 255, ``.``/``..``, path
    separators, NUL, control characters, bidi overrides and other invisible
    format characters, leading or trailing whitespace.
    """
    if _SIMPLE_NAME.match(name) and len(name) <= _MAX_NAME:
        return None
    if not name:
        return "name is empty"
    if len(name) > _MAX_NAME:
        return f"name is {len(name)} characters long (limit {_MAX_NAME})"
    if name in (".", ".."):
        return f"name {name!r} is a path component"
    if "/" in name or "\\" in name:
        return f"name {name!r} contains a path separator"
    if name != name.strip():
        return f"name {name!r} has leading or trailing whitespace"
    for ch in name:
        if ch == "\x00":
            return "name contains a NUL character"
        if unicodedata.category(ch) in _BAD_CATEGORIES:
            return f"name {name!r} contains an invisible or control character U+{ord(ch):04X}"
    return None


#: What the scanner derives from one ``SKILL.md`` (and the discovery index stores):
#: ``(frontmatter values or None when the skill is skipped, name, description,
#: diagnostics, content findings)``; the findings are the rows of
#: :func:`skillpath.findings.file_rows` over the text the scan read, or ``None``
#: when the checks are off (``SKILLPATH_NO_CONTENT_CHECKS``) or the skill is skipped.
Record = tuple[Any, str, str, Any, Any]


def _derive(
    data: Mapping[str, Any],
    *,
    default_name: str,
    source: SkillSource,
    path: Path | None,
    require_description: bool,
    body_hint: str | bytes | None,
    diags: list[Diagnostic],
) -> tuple[dict[str, Any] | None, str, str]:
    """Everything :func:`build_skill` decides, as plain data (``body_hint`` as
    :func:`~skillpath.frontmatter._parse_parts` gives it: ``bytes`` are ASCII).

    Returns the :class:`Frontmatter` keyword arguments (``None`` when the skill
    is skipped), the name and the description; diagnostics go to ``diags``.
    """
    provider = source.provider
    values, fm_diags = frontmatter_values(data, path)
    if fm_diags:
        diags.extend(attrs.evolve(d, provider=provider) for d in fm_diags)
    fm_name = values.get("name")
    name = fm_name or default_name
    why = check_name(name)
    if why is not None:
        diags.append(
            Diagnostic("error", "invalid-name", f"skill skipped: {why}", path, 1, provider)
        )
        return None, name, ""
    if fm_name and fm_name != default_name and source.loaded_from == "disk":
        diags.append(
            Diagnostic(
                "info",
                "name-mismatch",
                f"frontmatter name {fm_name!r} differs from directory name {default_name!r}; "
                f"using {fm_name!r}",
                path,
                None,
                provider,
            )
        )
    description = values.get("description") or ""
    if description and not has_text(description):
        diags.append(
            Diagnostic(
                "warning",
                "description-no-text",
                f"description {description!r} holds no letter or digit; treated as missing",
                path,
                None,
                provider,
            )
        )
        description = ""
    if not description:
        if require_description:
            diags.append(
                Diagnostic(
                    "error",
                    "missing-description",
                    f"skill {name!r} skipped: provider {provider!r} requires a description",
                    path,
                    1,
                    provider,
                )
            )
            return None, name, ""
        if type(body_hint) is bytes:
            body_hint = body_hint.decode("ascii")
        description = first_paragraph(body_hint)  # type: ignore[arg-type]
    for code, message in text_findings(name, description):
        diags.append(Diagnostic("warning", code, message, path, None, provider))
    if not description.isascii():
        # reported above (and by the content checks, which read the file): what a
        # skill carries to a model from here on, whoever renders it (an adapter's
        # own skill objects, a framework's listing), holds none of them
        description = strip_invisible(description)[0]
    _strip_fields(values)
    return values, name, description


#: The frontmatter text fields a framework may show a model beside the description.
_MODEL_FIELDS = ("description", "when_to_use", "argument_hint")


def _strip_fields(values: dict[str, Any]) -> None:
    """Remove invisible characters (:func:`~skillpath.textguard.strip_invisible`) from
    the frontmatter fields of ``values`` that reach a model."""
    for key in _MODEL_FIELDS:
        value = values.get(key)
        if isinstance(value, str) and not value.isascii():
            values[key] = strip_invisible(value)[0]


def build_skill(
    data: dict[str, Any] | Any,
    *,
    default_name: str,
    source: SkillSource,
    priority: int,
    path: Path | None,
    base_dir: Path | None,
    require_description: bool,
    body_hint: str | None = None,
    body_loader: Callable[[], str] | None = None,
    file_id: tuple[int, int] | None = None,
    diagnostics: list[Diagnostic] | None = None,
) -> tuple[Skill | None, list[Diagnostic]]:
    """The one builder every skill goes through (disk, pack, bundled, MCP).

    Applies the name default (the directory name), validates the name at the
    boundary, enforces ``require_description`` and, when a description is
    optional and missing, falls back to the first paragraph of ``body_hint``.
    """
    diags = diagnostics if diagnostics is not None else []
    values, name, description = _derive(
        data,
        default_name=default_name,
        source=source,
        path=path,
        require_description=require_description,
        body_hint=body_hint,
        diags=diags,
    )
    if values is None:
        return None, diags
    skill = Skill(
        name=name,
        description=description,
        path=path,
        base_dir=base_dir,
        source=source,
        priority=priority,
        frontmatter=Frontmatter(**values),
        file_id=file_id,
        body_cache=body_loader,
    )
    return skill, diags


def _read_record(
    path: Path,
    source: SkillSource,
    *,
    require_description: bool,
    default_name: str,
    ignore_keys: Collection[str] = (),
    checks: bool = False,
) -> tuple[Record | None, os.stat_result | None]:
    """Read and derive one ``SKILL.md``: ``(record, stat)``; ``(None, None)`` when absent.

    With ``checks``, the file is read whole (bounded) through the same descriptor
    and the content checks run on that text: the file is opened once."""
    diags: list[Diagnostic] = []
    project = source.level == "project"
    kept: list[Any] = []

    def whole(st: os.stat_result) -> int:
        # a file whose findings a load without the index kept (by its stat) is
        # read as without checks: its head alone
        rows = _kept_rows()(st)
        if rows is not None:
            kept.append(rows)
            return 0
        return WHOLE_BYTES

    try:
        head, st, linked = _read_head_linked(
            path, contained=project and path.name == SKILL_FILE, whole=whole if checks else 0
        )
    except LinkedOutside as exc:
        # refused before the target is opened: its text never reaches anything
        diags.append(
            Diagnostic(
                "error",
                "skill-file-outside",
                f"{path.name} is {exc.strerror}, outside its folder; skipped (project skills "
                "must stay inside their folder)",
                path,
                None,
                source.provider,
            )
        )
        return (None, "", "", diags, None), None
    except FileNotFoundError:
        if os.path.islink(path):
            diags.append(
                Diagnostic(
                    "error",
                    "broken-symlink",
                    f"SKILL.md is a dangling symlink -> {os.readlink(path)}; the skill cannot load",
                    path,
                    None,
                    source.provider,
                )
            )
            return (None, "", "", diags, None), None
        return None, None
    except OSError as exc:
        reason = exc.strerror or str(exc)
        code = "unreadable-skill"
        if isinstance(exc, IsADirectoryError):
            reason = "SKILL.md is a directory"
        elif exc.errno == errno.ELOOP:
            reason = "symlink loop"
        diags.append(
            Diagnostic("error", code, f"cannot read: {reason}", path, None, source.provider)
        )
        return (None, "", "", diags, None), None
    if linked and path.name == SKILL_FILE and not is_inside(path, path.parent):
        # a symlinked SKILL.md that leaves its folder would put an arbitrary
        # file (a key, a password store) into the prompt; refused for project
        # content (above, unread), reported for the user's own folders
        diags.append(
            Diagnostic(
                "error" if project else "warning",
                "skill-file-outside",
                f"{path.name} is a symlink to {os.path.realpath(path)}, outside its folder"
                + ("; skipped (project skills must stay inside their folder)" if project else ""),
                path,
                None,
                source.provider,
            )
        )
        if project:
            return (None, "", "", diags, None), st
    whole_text = head
    if checks and not kept:
        head = _head_of(whole_text, st.st_size)
    if st.st_size == 0:
        diags.append(
            Diagnostic(
                "warning", "empty-skill-file", "the file is empty", path, None, source.provider
            )
        )
    data, body, _line, _fenced, parse_diags, _rep, _rec, unclosed = _parse_parts(head, path)
    if parse_diags:
        diags.extend(attrs.evolve(d, provider=source.provider) for d in parse_diags)
        if any(d.level == "error" for d in parse_diags):
            return (None, "", "", diags, None), st
    if ignore_keys:
        data = {k: v for k, v in data.items() if normalize_key(k) not in ignore_keys}
    values, name, description = _derive(
        data,
        default_name=default_name,
        source=source,
        path=path,
        require_description=require_description,
        body_hint=None if unclosed else body,
        diags=diags,
    )
    rows = None
    if checks and values is not None:
        rows = kept[0] if kept else _file_rows()(whole_text, os.fspath(path), st)
    return (values, name, description, diags, rows), st


def _diagnostic(d: Any, own: Path | None = None) -> Diagnostic:
    """A diagnostic from a record: as is, or rebuilt from its plain tuple.

    A path equal to the text of ``own`` (the skill's ``SKILL.md``, the path of
    nearly every diagnostic of a record) becomes ``own`` itself: no new path
    object, and exactly the text the scan that made the record saw.
    """
    if isinstance(d, Diagnostic):
        return d
    level, code, message, path, line, provider = d
    if path is None:
        where = None
    elif own is not None and path == os.fspath(own):
        where = own
    else:
        where = Path(path)
    return Diagnostic(level, code, message, where, line, provider)


def _from_record(
    record: Record,
    path: Path,
    source: SkillSource,
    priority: int,
    file_id: tuple[int, int] | None,
    base_dir: Path | None = None,
) -> tuple[Skill | None, list[Diagnostic]]:
    """The skill (or ``None``) and diagnostics that ``record`` stands for."""
    values, name, description, raw_diags, rows = record
    diags = [_diagnostic(d, path) for d in raw_diags]
    if values is None:
        return None, diags
    skill = Skill(
        name=name,
        description=description,
        path=path,
        base_dir=path.parent if base_dir is None else base_dir,
        source=source,
        priority=priority,
        frontmatter=Frontmatter(**values),
        file_id=file_id,
        body_cache=None,
        file_findings=rows,
    )
    return skill, diags


def load_skill_file(
    path: Path,
    source: SkillSource,
    *,
    priority: int = 0,
    require_description: bool = False,
    default_name: str | None = None,
    ignore_keys: Collection[str] = (),
) -> tuple[Skill | None, list[Diagnostic]]:
    """Read and parse one ``SKILL.md``; never raises.

    ``ignore_keys`` names frontmatter keys (compared after kebab/camel-case
    normalisation) dropped before building, for formats that may not set them
    (legacy command files ignore ``name`` and ``paths``).
    """
    path = Path(path)
    record, st = _read_record(
        path,
        source,
        require_description=require_description,
        default_name=default_name or path.parent.name,
        ignore_keys=ignore_keys,
        checks=_checks_on(),
    )
    if record is None:
        return None, []
    return _from_record(
        record, path, source, priority, (st.st_dev, st.st_ino) if st is not None else None
    )


def skill_from_text(
    text: str,
    *,
    name: str | None,
    source: SkillSource,
    priority: int = 0,
    path: Path | None = None,
    base_dir: Path | None = None,
    body_loader: Callable[[], str] | None = None,
    require_description: bool = False,
) -> tuple[Skill | None, list[Diagnostic]]:
    """Build a skill from ``SKILL.md`` text (bundled, pack and MCP skills), parsed and
    checked as a file on disk; ``(None, diagnostics)`` when it is not loadable. Without
    ``body_loader`` the body of ``text`` is used."""
    parsed = parse_frontmatter(text, path)
    diags = [attrs.evolve(d, provider=source.provider) for d in parsed.diagnostics]
    if any(d.level == "error" for d in parsed.diagnostics):
        return None, diags
    body = parsed.body or ""
    loader = body_loader if body_loader is not None else (lambda: body)
    return build_skill(
        dict(parsed.data),
        default_name=name or (base_dir.name if base_dir else ""),
        source=source,
        priority=priority,
        path=path,
        base_dir=base_dir,
        require_description=require_description,
        body_hint=None if parsed.unclosed else body,
        body_loader=loader,
        diagnostics=diags,
    )


@attrs.frozen
class ScanResult:
    """What :func:`scan_skills_dir` found in one root."""

    skills: tuple[Skill, ...]
    diagnostics: tuple[Diagnostic, ...]
    root: RootScan


def outside_project(path: Path, real: str, area: str, provider: str | None = None) -> Diagnostic:
    """The ``file-outside-project`` error for project content at ``path`` that resolves
    to ``real``, outside the project ``area`` (see :func:`skillpath.safety.project_area`)."""
    return Diagnostic(
        "error",
        "file-outside-project",
        f"skipped: resolves to {real}, outside the project {area} "
        "(a project's files must stay inside its repository)",
        path,
        None,
        provider,
    )


def _file_rows() -> Callable[[bytes, str, os.stat_result], Any]:
    """:func:`skillpath.findings.file_rows`, imported on first use."""
    global _FILE_ROWS
    if _FILE_ROWS is None:
        from skillpath.findings import file_rows

        _FILE_ROWS = file_rows
    return _FILE_ROWS


_FILE_ROWS: Callable[[bytes, str, os.stat_result], Any] | None = None


def _kept_rows() -> Callable[[os.stat_result], Any]:
    """:func:`skillpath.findings.kept_file_rows`, imported on first use."""
    global _KEPT_ROWS
    if _KEPT_ROWS is None:
        from skillpath.findings import kept_file_rows

        _KEPT_ROWS = kept_file_rows
    return _KEPT_ROWS


_KEPT_ROWS: Callable[[os.stat_result], Any] | None = None


def _checks_on() -> bool:
    """Whether the scan runs the content checks (``SKILLPATH_NO_CONTENT_CHECKS`` in
    the process environment turns them off, for measuring what they cost)."""
    return os.environ.get("SKILLPATH_NO_CONTENT_CHECKS", "").strip().lower() not in _TRUE


_TRUE = frozenset({"1", "true", "yes", "on"})


def _keepable(record: Record) -> bool:
    """Whether the index may keep ``record``: not when the file could not be read.

    "Cannot read" (permission denied, an I/O error) depends on who asks and
    when, not on the file's ``stat``: a user added to a group, or the same
    cache used through ``sudo -E``, must see the file as it is now.
    """
    return not any(getattr(d, "code", None) == "unreadable-skill" for d in record[3])


def _decoded(name: str) -> str:
    """``name`` with each byte that is not UTF-8 (a surrogate escape) as U+FFFD."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def scan_skills_dir(
    root: Path | str,
    source: SkillSource,
    *,
    priority: int = 0,
    require_description: bool = False,
) -> ScanResult:
    """Scan ``<root>/<name>/SKILL.md`` one level deep.

    Dot entries are skipped, symlinked skill dirs followed, entries visited in
    sorted order. A missing root is silent; any other OS error on the root (not
    a directory, permission denied) or on an entry (dangling symlink, loop,
    unreadable file) is a diagnostic. Never raises.

    During :func:`skillpath.load_skills` the scan asks its memo
    (:class:`skillpath.cache.memo.ScanMemo`: the persistent discovery index and
    the in-process reuse) what it may skip: an unchanged root is not listed
    again and an unchanged ``SKILL.md`` is not read again (directory and file
    stats only). The result is the same either way.
    """
    root = Path(root)
    src = source if source.root == root else attrs.evolve(source, root=root)
    provider = src.provider
    diags: list[Diagnostic] = []
    root_str = os.fspath(root)
    area = project_area(root) if src.level == "project" else None
    if area is not None and os.path.exists(root_str):
        outside = outside_area(root_str, area)
        if outside is not None:
            diags.append(outside_project(root, outside, area, provider))
            return ScanResult((), tuple(diags), RootScan(provider, src.level, root, True))
    checks = _checks_on()
    reader = _RootReader(root, src, priority, require_description, checks)
    # records made with the content checks off hold no findings: kept apart
    build = (provider, src.level, src.loaded_from, require_description, checks)
    memo = open_scan_memo(root_str, src, area, build, priority)
    kept = memo.kept_result(reader)
    if kept is not None:
        return kept  # type: ignore[no-any-return]
    memo.begin()
    entries = _list_root(root_str, src, diags, memo)
    if entries is None:
        memo.root_missing(forget=not diags)
        return ScanResult((), tuple(diags), RootScan(provider, src.level, root, bool(diags)))
    prefix = root_str if root_str.endswith(os.sep) else root_str + os.sep
    survey = Survey(root, provider)
    skills: list[Skill] = []
    for name, kind in entries:
        if kind == "f":
            note_flat_file(root, name, src, diags)
            continue
        if kind == "h":
            memo.partial()
            survey.walk(_child(root, name))  # a dot folder is never a skill; look inside
            continue
        folder = prefix + name
        # bytes that are not UTF-8 (surrogate escapes) are shown escaped, not hidden:
        # only invisible characters refuse a folder
        why = None if name.isprintable() else name_refusal(_decoded(name))
        if why is not None:
            # a folder found only by its exact name, which reads as another (a bidi
            # override) or as a neighbour's (a zero-width space): never entered
            memo.partial()
            diags.append(
                Diagnostic(
                    "error",
                    "invalid-name",
                    f"skill folder skipped: its name holds {why}",
                    Path(folder),
                    None,
                    provider,
                )
            )
            continue
        if kind != "d":
            if kind != "l":
                memo.partial()  # an entry not inspected when listed: every time
            if not _link_is_dir(folder, kind, provider, diags):
                memo.partial()
                continue
        if area is not None and kind == "l":
            outside = outside_area(folder, area)
            if outside is not None:
                refused = outside_project(Path(folder), outside, area, provider)
                diags.append(refused)
                memo.refused(name, outside, folder, refused)
                continue
        linked = folder if kind == "l" else None
        if not _scan_folder(reader, memo, name, folder, linked, skills, diags):
            memo.partial()
            note_nested(_child(root, name), src, diags, survey)
    survey.report(diags)
    if _SPARE is not None:
        _SPARE.append(entries)  # freed at exit, not object by object here
    result = ScanResult(
        tuple(skills), tuple(diags), RootScan(provider, src.level, root, True, len(skills))
    )
    memo.finish(result, entries)
    return result


def _scan_folder(
    reader: _RootReader,
    memo: ScanMemo,
    name: str,
    folder: str,
    linked: str | None,
    skills: list[Skill],
    diags: list[Diagnostic],
) -> bool:
    """Build the skill of folder ``name`` (text ``folder``; ``linked``: the same when it
    is a symlink) into ``skills`` and ``diags``, through ``memo``; ``False`` when the
    folder holds no skill and no diagnostic (the caller says why it is not a skill)."""
    skill_path = folder + _SEP_SKILL_FILE
    key = memo.file_key(skill_path, linked)
    kept = memo.unchanged_entry(name, key, linked)
    if kept is not None:  # unchanged since the last scan in this process: the same objects
        skill, sdiags_t = kept[4]
        diags.extend(sdiags_t)
        if skill is not None:
            skills.append(skill)
        return True
    base_dir, path = _skill_paths(reader.root, name, folder, skill_path)
    src, priority = reader.source, reader.priority
    built: tuple[Skill | None, list[Diagnostic]] | None = None
    file_id: tuple[int, int] | None = None
    if key is not None:  # the index is on
        file_id = key[-1]
        record = memo.lookup(name, key)
        if record is not None:
            try:
                built = _from_record(record, path, src, priority, file_id, base_dir)
            except (TypeError, ValueError, AttributeError):
                built = None  # a record that does not fit: read the file instead
        racy = memo.is_racy(key)
        if built is not None:
            memo.hit()
        else:
            memo.miss()
            record, _st = reader.read(path, name)
            if record is not None and _keepable(record):
                memo.store(name, key, racy, record)
            else:
                racy = True  # not kept: read again next time
    else:
        racy = True
        record, st = reader.read(path, name)
        if st is not None:
            file_id = (st.st_dev, st.st_ino)
    if built is None:
        if record is None:
            return False
        built = _from_record(record, path, src, priority, file_id, base_dir)
    skill, sdiags = built
    diags.extend(sdiags)
    if skill is not None:
        skills.append(skill)
    elif not sdiags:
        return False
    memo.keep(name, key, linked, skill_path, record, (skill, tuple(sdiags)), racy)
    return True


class _RootReader:
    """How one root's folders are read (what its :class:`~skillpath.cache.memo.ScanMemo`
    is given, to read again the folders of a watched root that had events)."""

    __slots__ = ("checks", "priority", "require_description", "root", "source")

    def __init__(
        self,
        root: Path,
        source: SkillSource,
        priority: int,
        require_description: bool,
        checks: bool = False,
    ) -> None:
        self.root = root
        self.source = source
        self.priority = priority
        self.require_description = require_description
        self.checks = checks

    def read(self, path: Path, name: str) -> tuple[Record | None, os.stat_result | None]:
        """Read and derive ``SKILL.md`` ``path`` of folder ``name``."""
        return _read_record(
            path,
            self.source,
            require_description=self.require_description,
            default_name=name,
            checks=self.checks,
        )

    def link_ok(self, folder: str, area: str | None) -> bool:
        """Whether folder link ``folder`` leads to a folder, inside ``area`` if any."""
        if not os.path.isdir(folder):
            return False
        return area is None or outside_area(folder, area) is None

    def reread(
        self, name: str, folder: str, skill_path: str, file_id: Any
    ) -> tuple[Record, Skill | None, tuple[Diagnostic, ...]] | None:
        """``(record, skill, diagnostics)`` of folder ``name`` read again; ``None`` when
        it is not a plain skill folder whose record the index may keep."""
        base_dir, path = _skill_paths(self.root, name, folder, skill_path)
        record, _st = self.read(path, name)
        if record is None or not _keepable(record):
            return None
        skill, sdiags = _from_record(record, path, self.source, self.priority, file_id, base_dir)
        if skill is None and not sdiags:
            return None
        return record, skill, tuple(sdiags)

    def flat_file(self, name: str, diags: list[Diagnostic]) -> None:
        """The diagnostic of ``*.md`` file ``name`` directly in the root."""
        note_flat_file(self.root, name, self.source, diags)

    def result(self, skills: list[Skill], diags: list[Diagnostic]) -> ScanResult:
        """The scan result of the root with ``skills`` and ``diags``."""
        src = self.source
        return ScanResult(
            tuple(skills),
            tuple(diags),
            RootScan(src.provider, src.level, self.root, True, len(skills)),
        )


#: Set by a command that exits once it has written its output (``list``): what a
#: scan read ahead and listed, no longer needed once its skills are built, is
#: kept here rather than freed object by object when the scan returns (the
#: process frees it all at once when it ends).
_SPARE: list[Any] | None = None


@contextlib.contextmanager
def keeping_until_exit(store: list[Any]) -> Iterator[list[Any]]:
    """While active, keep in ``store`` what each scan no longer needs.

    Only for a process that ends right after the load (the ``list`` command,
    which keeps ``store`` until it exits): a library or a long-running process
    must not use it.
    """
    global _SPARE
    before, _SPARE = _SPARE, store
    try:
        yield store
    finally:
        _SPARE = before


def _skill_paths(root: Path, name: str, folder: str, skill_path: str) -> tuple[Path, Path]:
    """The folder and ``SKILL.md`` paths of entry ``name`` of ``root``.

    ``folder`` and ``skill_path`` are their texts (the root's text, a separator,
    the name …), handed to pathlib as the text it would build.
    """
    base_dir = _child(root, name)
    path = _child(base_dir, SKILL_FILE)
    if _SEED_STR:
        base_dir._str = folder  # type: ignore[attr-defined]
        path._str = skill_path  # type: ignore[attr-defined]
    return base_dir, path


def load_skills_from_dir(
    dir: Path | str,
    source: SkillSource | str = "custom",
    *,
    level: str = "user",
    priority: int = 0,
    require_description: bool = True,
) -> tuple[list[Skill], list[Diagnostic]]:
    """Convenience wrapper over :func:`scan_skills_dir` for simple hosts and tests.

    ``source`` is a :class:`SkillSource` or a provider id (with ``level``).
    """
    src = source if isinstance(source, SkillSource) else SkillSource(source, level, Path(dir))
    res = scan_skills_dir(dir, src, priority=priority, require_description=require_description)
    return list(res.skills), list(res.diagnostics)


@attrs.define(eq=False)
class Discovery:
    """Builder for a provider's :class:`DiscoveryResult`.

    Example::

        d = Discovery("native", 100)
        for folder in ctx.walk_up(entries=(".skillpath",)):
            d.scan(folder / ".skillpath" / "skills", "project", require_description=True)
        return d.result()
    """

    provider: str
    priority: int
    late: bool = False
    skills: list[Skill] = attrs.field(factory=list)
    diagnostics: list[Diagnostic] = attrs.field(factory=list)
    roots: list[RootScan] = attrs.field(factory=list)
    inputs: list[Path] = attrs.field(factory=list)

    def scan(
        self,
        root: Path | str,
        level: str,
        *,
        require_description: bool = False,
        loaded_from: str = "disk",
        **detail: Any,
    ) -> ScanResult:
        """Scan one root and add what it holds."""
        src = SkillSource(self.provider, level, Path(root), loaded_from, detail)
        res = scan_skills_dir(
            root, src, priority=self.priority, require_description=require_description
        )
        self.skills.extend(res.skills)
        self.diagnostics.extend(res.diagnostics)
        self.roots.append(res.root)
        return res

    def add(self, skills: Iterable[Skill]) -> None:
        """Add skills built elsewhere (bundled, remote …)."""
        self.skills.extend(skills)

    def input(self, path: Path | str) -> None:
        """Declare a file or folder (not a skills root) that decides what this provider
        loads: a settings file or registry it read or looked for (missing counts too), a
        folder it listed below a root's first level (an entry added or removed changes it).

        A long-running host (:class:`skillpath.AgentSkills`, :func:`skillpath.watch_skills`)
        stats every declared input and loads again when one changes, so an
        edit there is seen as an edit of a skill is.
        """
        self.inputs.append(Path(path))

    def diagnostic(
        self,
        level: str,
        code: str,
        message: str,
        path: Path | None = None,
        line: int | None = None,
    ) -> None:
        """Record a diagnostic attributed to this provider."""
        self.diagnostics.append(
            Diagnostic(level, code, message, path, line, self.provider)  # type: ignore[arg-type]
        )

    def result(self) -> DiscoveryResult:
        """The immutable result to return from ``discover_skills``.

        A root that does not exist next to a folder of a near name
        (``.claude/skill`` for ``.claude/skills``) gets a ``near-miss-root``
        info diagnostic; see :func:`near_miss_roots`.
        """
        return DiscoveryResult(
            provider=self.provider,
            priority=self.priority,
            skills=tuple(self.skills),
            diagnostics=(*self.diagnostics, *near_miss_roots(self.roots, self.provider)),
            roots=tuple(self.roots),
            late=self.late,
            inputs=tuple(dict.fromkeys(self.inputs)),
        )
