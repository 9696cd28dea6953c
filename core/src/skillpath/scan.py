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
import stat
import unicodedata
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs

from skillpath.cache import index as _index
from skillpath.cache import replay as _replay
from skillpath.cache import reuse as _reuse
from skillpath.frontmatter import (
    LinkedOutside,
    _parse_frontmatter,
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
from skillpath.safety import is_inside, outside_area, project_area
from skillpath.textguard import text_findings

__all__ = [
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

SKILL_FILE = "SKILL.md"
_SEP_SKILL_FILE = os.sep + SKILL_FILE


def _slow_child(base: Path, name: str) -> Path:
    return base / name


# ``base / name`` re-parses the whole path; pathlib's own helper for names that
# come from a directory listing does not (checked once, with a fallback)
_fast_child: Any = getattr(Path, "_make_child_relpath", None)
_child: Callable[[Path, str], Path] = (
    _fast_child
    if _fast_child is not None and str(_fast_child(Path("/a"), "b")) == "/a/b" == os.sep + "a/b"
    else _slow_child
)


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


_RULE_OR_UNDERLINE = re.compile(r"(?:[-*_]\s*){3,}|=+|-+")


def has_text(value: str) -> bool:
    """Whether ``value`` holds a letter or digit (a description of only
    punctuation, ``"..."`` or ``"-"``, counts as missing)."""
    return any(ch.isalnum() for ch in value)


def _first_paragraph(body: str | None) -> str:
    """The description fallback: the first prose paragraph of ``body``.

    Never a Markdown rule (``---``), a heading (``#`` or underlined), a code
    fence and what it holds, an HTML comment, or a table; a paragraph of only
    punctuation is passed over. Cut to 250 characters at a word boundary.
    """
    if not body:
        return ""
    para: list[str] = []
    fence = ""
    comment = False
    for line in body.splitlines():
        text = line.strip()
        if fence:
            if text.startswith(fence):
                fence = ""
            continue
        if comment:
            comment = "-->" not in text
            continue
        if para and _RULE_OR_UNDERLINE.fullmatch(text) and not text.startswith(("*", "_")):
            para = []  # the paragraph was a heading (setext underline)
            continue
        prose = text and not text.startswith(("```", "~~~", "<!--", "#", "|"))
        if prose and not _RULE_OR_UNDERLINE.fullmatch(text):
            para.append(text)
            continue
        found = _paragraph_text(para)
        if found:
            return found
        para = []
        if text.startswith(("```", "~~~")):
            fence = text[:3]
        elif text.startswith("<!--"):
            comment = "-->" not in text[4:]
    return _paragraph_text(para)


def _paragraph_text(lines: list[str]) -> str:
    text = " ".join(lines)
    if not has_text(text):
        return ""
    if len(text) > 250:
        text = text[:250].rsplit(" ", 1)[0] + "…"
    return text


#: What the scanner derives from one ``SKILL.md`` (and the discovery index stores):
#: ``(frontmatter values or None when the skill is skipped, name, description,
#: diagnostics)``.
Record = tuple[Any, str, str, Any]


def _derive(
    data: Mapping[str, Any],
    *,
    default_name: str,
    source: SkillSource,
    path: Path | None,
    require_description: bool,
    body_hint: str | None,
    diags: list[Diagnostic],
) -> tuple[dict[str, Any] | None, str, str]:
    """Everything :func:`build_skill` decides, as plain data.

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
        description = _first_paragraph(body_hint)
    for code, message in text_findings(name, description):
        diags.append(Diagnostic("warning", code, message, path, None, provider))
    return values, name, description


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
) -> tuple[Record | None, os.stat_result | None]:
    """Read and derive one ``SKILL.md``: ``(record, stat)``; ``(None, None)`` when absent."""
    diags: list[Diagnostic] = []
    project = source.level == "project"
    try:
        head, st, linked = _read_head_linked(path, contained=project and path.name == SKILL_FILE)
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
        return (None, "", "", diags), None
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
            return (None, "", "", diags), None
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
        return (None, "", "", diags), None
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
            return (None, "", "", diags), st
    if st.st_size == 0:
        diags.append(
            Diagnostic(
                "warning", "empty-skill-file", "the file is empty", path, None, source.provider
            )
        )
    data, body, _line, _fenced, parse_diags, _rep, _rec, unclosed = _parse_frontmatter(head, path)
    if parse_diags:
        diags.extend(attrs.evolve(d, provider=source.provider) for d in parse_diags)
        if any(d.level == "error" for d in parse_diags):
            return (None, "", "", diags), st
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
    return (values, name, description, diags), st


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
    values, name, description, raw_diags = record
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
    """Build a skill from ``SKILL.md`` text (bundled, pack and MCP skills)."""
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


def _keepable(record: Record) -> bool:
    """Whether the index may keep ``record``: not when the file could not be read.

    "Cannot read" (permission denied, an I/O error) depends on who asks and
    when, not on the file's ``stat``: a user added to a group, or the same
    cache used through ``sudo -E``, must see the file as it is now.
    """
    return not any(getattr(d, "code", None) == "unreadable-skill" for d in record[3])


def _describe_oserror(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "symlink loop"
    if exc.errno == errno.ENOTDIR:
        return "not a directory"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return exc.strerror or str(exc)


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

    During :func:`skillpath.load_skills` the persistent discovery index
    (:mod:`skillpath.index`) is consulted: an unchanged root is not listed
    again and an unchanged ``SKILL.md`` is not read again (directory and file
    stats only). The result is the same either way.
    """
    root = Path(root)
    src = source if source.root == root else attrs.evolve(source, root=root)
    provider = src.provider
    diags: list[Diagnostic] = []
    skills: list[Skill] = []
    root_str = os.fspath(root)
    area = project_area(root) if src.level == "project" else None
    if area is not None and os.path.exists(root_str):
        outside = outside_area(root_str, area)
        if outside is not None:
            diags.append(outside_project(root, outside, area, provider))
            return ScanResult((), tuple(diags), RootScan(provider, src.level, root, True))
    idx = _index.current()
    build = (provider, src.level, src.loaded_from, require_description)
    memo_key: tuple[Any, ...] | None = None
    memo: _reuse.RootMemo | None = None
    root_key: tuple[Any, ...] | None = None
    if idx is not None and idx.reuse:
        memo_key = (root_str, *build, priority)
        memo = _reuse.get(memo_key)
        if memo is not None and (memo.area != area or memo.source != src):
            memo = None
        root_key = _root_key(root_str)
        if (
            memo is not None
            and memo.result is not None
            and root_key is not None
            and root_key == memo.root_key
        ):
            if memo.armed:
                # watched: only what had an event is looked at again, and every link
                # (what a link leads to can change with no event here)
                changed = _reuse.changed(memo_key, memo)
                if None not in changed:
                    entries_kept = memo.entries
                    parents = idx.realpaths
                    changed.update(
                        n
                        for n in memo.links
                        if not _link_unchanged(entries_kept[n], memo.area, parents)
                    )
                if not changed:
                    _reuse.count("roots_reused")
                    _replay.listed(root_str)  # the entries are used as if listed again
                    return memo.result  # type: ignore[no-any-return]
                if None not in changed:
                    patched = _patch_root(
                        root, src, priority, require_description, memo, memo_key, changed, idx
                    )
                    if patched is not None:
                        return patched
            elif memo.stat_ok:
                # kept by a load that did not watch: a session's load watches it from now
                routes = _watch(root_str, memo.entries) if _reuse.watch_requested() else None
                if _unchanged(memo.entries, memo.area, idx.realpaths) and (
                    routes is None or _root_key(root_str) == memo.root_key
                ):
                    if routes is not None:
                        _reuse.put(memo_key, _armed(memo), routes=routes, base=memo)
                    _reuse.count("roots_reused")
                    _replay.listed(root_str)  # the entries are used as if listed again
                    return memo.result  # type: ignore[no-any-return]
                if routes is not None:
                    _reuse.release(routes)
    handled = (
        _reuse.changed(memo_key, memo)
        if memo_key is not None and memo is not None and memo.armed
        else None
    )
    state = idx.root(os.path.abspath(root_str)) if idx is not None else None
    entries = _list_root(root_str, src, diags, idx, state)
    if entries is None:
        if memo_key is not None:
            _reuse.put(memo_key, None, base=memo)
        if diags:
            return ScanResult((), tuple(diags), RootScan(provider, src.level, root, True))
        if idx is not None:
            idx.forget(os.path.abspath(root_str))
        return ScanResult((), (), RootScan(provider, src.level, root, False))
    prefix = root_str if root_str.endswith(os.sep) else root_str + os.sep
    survey = _Survey(root, provider)
    # what this scan leaves for the next one in this process (see skillpath.cache.reuse)
    old_memo = memo.entries if memo is not None else None
    new_memo: dict[str, tuple[Any, ...]] | None = {} if memo_key is not None else None
    whole = memo_key is not None
    reused = 0
    for name, kind in entries:
        if kind == "f":
            _note_flat_file(root, name, src, diags)
            continue
        if kind == "h":
            whole = False
            survey.walk(_child(root, name))  # a dot folder is never a skill; look inside
            continue
        folder = prefix + name
        if kind != "d":
            whole = whole and kind == "l"  # an entry not inspected when listed: every time
            if not _link_is_dir(folder, kind, provider, diags):
                whole = False
                continue
        if area is not None and kind == "l":
            outside = outside_area(folder, area)
            if outside is not None:
                refused = outside_project(Path(folder), outside, area, provider)
                diags.append(refused)
                if new_memo is not None:  # decided by where the link leads, nothing else
                    new_memo[name] = (
                        ("outside", outside),
                        folder,
                        None,
                        None,
                        (None, (refused,)),
                        False,
                    )
                continue
        skill_path = folder + _SEP_SKILL_FILE
        linked = folder if kind == "l" else None
        record: Record | None = None
        file_id: tuple[int, int] | None = None
        key = None if state is None else _file_key(skill_path, linked)
        if old_memo is not None and key is not None and state is not None:
            kept = old_memo.get(name)
            if kept is not None and kept[0] == key and kept[1] == linked and not kept[5]:
                # unchanged since the last scan in this process: the same objects
                if state.lookup(name, key, build) is None:
                    state.store(name, key, False, build, kept[3])
                skill, sdiags_t = kept[4]
                diags.extend(sdiags_t)
                if skill is not None:
                    skills.append(skill)
                new_memo[name] = kept  # type: ignore[index]
                reused += 1
                continue
        base_dir, path = _skill_paths(root, name, folder, skill_path)
        racy = True
        if key is not None and state is not None and idx is not None:
            file_id = key[-1]
            record = state.lookup(name, key, build)
            cached: tuple[Skill | None, list[Diagnostic]] | None = None
            if record is not None:
                try:
                    cached = _from_record(record, path, src, priority, file_id, base_dir)
                except (TypeError, ValueError, AttributeError):
                    cached = None  # a record that does not fit: read the file instead
            racy = idx.is_racy(key[1], key[4]) or (
                key[5] is not None and idx.is_racy(key[5][1], key[5][4])
            )
            if cached is not None:
                idx.stats.hits += 1
                skill, sdiags = cached
                diags.extend(sdiags)
                if skill is not None:
                    skills.append(skill)
                elif not sdiags:
                    whole = False
                    _note_nested(base_dir, src, diags, survey)
                    continue
                if new_memo is not None and not racy:
                    built = (skill, tuple(sdiags))
                    new_memo[name] = (key, linked, skill_path, record, built, False)
                else:
                    whole = False
                continue
            else:
                idx.stats.misses += 1
                record, _st = _read_record(
                    path, src, require_description=require_description, default_name=name
                )
                if record is not None and _keepable(record):
                    state.store(name, key, racy, build, record)
                else:
                    racy = True  # not kept: read again next time
        else:
            record, st = _read_record(
                path, src, require_description=require_description, default_name=name
            )
            if st is not None:
                file_id = (st.st_dev, st.st_ino)
        if record is None:
            whole = False
            _note_nested(base_dir, src, diags, survey)
            continue
        skill, sdiags = _from_record(record, path, src, priority, file_id, base_dir)
        diags.extend(sdiags)
        if skill is not None:
            skills.append(skill)
        elif not sdiags:
            whole = False
            _note_nested(base_dir, src, diags, survey)
            continue
        if new_memo is not None and not racy:
            new_memo[name] = (key, linked, skill_path, record, (skill, tuple(sdiags)), False)
        else:
            whole = False
    survey.report(diags)
    if _SPARE is not None:
        _SPARE.append(entries)  # freed at exit, not object by object here
    result = ScanResult(
        tuple(skills), tuple(diags), RootScan(provider, src.level, root, True, len(skills))
    )
    if memo_key is not None and new_memo is not None:
        _reuse.count("roots_rescanned")
        _reuse.count("entries_reused", reused)
        if root_key is not None and idx is not None and idx.is_racy(root_key[2], root_key[3]):
            root_key = None
        keep = result if whole and root_key is not None else None
        root_memo = _reuse.RootMemo(src, area, root_key, new_memo, keep, entries)
        routes = None
        if keep is not None and _reuse.watch_requested():
            routes = _watch(root_str, new_memo)
            # a change made before the watches were in place gave no event
            if routes is not None:
                if _root_key(root_str) == root_key and _unchanged(new_memo):
                    root_memo = _armed(root_memo)
                else:
                    _reuse.release(routes)
                    routes = None
        _reuse.put(memo_key, root_memo, handled=handled, routes=routes, base=memo)
    return result


def _watch(root: str, entries: Mapping[str, tuple[Any, ...]]) -> _reuse.Routes | None:
    """Watch root ``root`` and its kept skill folders (see :func:`skillpath.cache.reuse.arm`)."""
    return _reuse.arm(root, [n for n, e in entries.items() if e[2] is not None])


def _armed(memo: _reuse.RootMemo) -> _reuse.RootMemo:
    """A copy of ``memo`` marked as watched (its links still checked on every load)."""
    armed = _reuse.RootMemo(
        memo.source,
        memo.area,
        memo.root_key,
        memo.entries,
        memo.result,
        memo.listing,
        stat_ok=memo.stat_ok,
        armed=True,
    )
    armed.links = tuple(n for n, e in memo.entries.items() if _linked(e))
    _reuse.count("roots_armed")
    return armed


def _linked(entry: tuple[Any, ...]) -> bool:
    """Whether a kept entry goes through a symlink (its folder or its ``SKILL.md``): where
    a link leads can change with no event in the watched folders, so it is checked by
    ``stat`` on every load even while its root is watched."""
    return entry[1] is not None or entry[2] is None or entry[0][5] is not None


def _patch_root(
    root: Path,
    src: SkillSource,
    priority: int,
    require_description: bool,
    memo: _reuse.RootMemo,
    memo_key: tuple[Any, ...],
    changed: set[str | None],
    idx: _index.DiscoveryIndex,
) -> ScanResult | None:
    """The scan result of watched root ``root`` after events in the folders ``changed``.

    Those folders are watched again (a replaced ``SKILL.md`` is a new file)
    before each ``SKILL.md`` is read again; every other skill stays as kept.
    ``None`` when a folder is not a plain skill folder any more (the caller
    scans the whole root).
    """
    names = [n for n in changed if n is not None]
    if any(n not in memo.entries or memo.entries[n][2] is None for n in names):
        return None  # not a kept skill folder, or a link refused for leading outside
    root_str = os.fspath(root)
    routes = _reuse.arm(root_str, names, with_root=False)
    if routes is None:
        return None
    prefix = root_str if root_str.endswith(os.sep) else root_str + os.sep
    entries = dict(memo.entries)
    stat_ok = memo.stat_ok
    for name in names:
        folder = prefix + name
        skill_path = folder + _SEP_SKILL_FILE
        linked = memo.entries[name][1]
        if linked is not None:
            # as the scan does: a link that leads nowhere or out of the project
            # makes a diagnostic of its own: the whole root is scanned again
            if not os.path.isdir(folder):
                return None
            if memo.area is not None and outside_area(folder, memo.area) is not None:
                return None
        key = _file_key(skill_path, linked)
        if key is None:
            return None
        base_dir, path = _skill_paths(root, name, folder, skill_path)
        record, _st = _read_record(
            path, src, require_description=require_description, default_name=name
        )
        if record is None or not _keepable(record):
            return None
        skill, sdiags = _from_record(record, path, src, priority, key[-1], base_dir)
        if skill is None and not sdiags:
            return None
        racy = idx.is_racy(key[1], key[4]) or (
            key[5] is not None and idx.is_racy(key[5][1], key[5][4])
        )
        # a recent file is kept while watched; its key alone does not vouch for it
        stat_ok = stat_ok and not racy
        entries[name] = (key, linked, skill_path, record, (skill, tuple(sdiags)), racy)
    result = _replaced(memo, entries, names)
    if result is None:  # skills came or went, or diagnostics changed: put together again
        skills: list[Skill] = []
        diags: list[Diagnostic] = []
        for name, kind in memo.listing:
            if kind == "f":
                _note_flat_file(root, name, src, diags)
                continue
            skill, sdiags_t = entries[name][4]
            diags.extend(sdiags_t)
            if skill is not None:
                skills.append(skill)
        result = ScanResult(
            tuple(skills), tuple(diags), RootScan(src.provider, src.level, root, True, len(skills))
        )
    kept = _reuse.RootMemo(
        src,
        memo.area,
        memo.root_key,
        entries,
        result,
        memo.listing,
        stat_ok=stat_ok,
        armed=True,
    )
    kept.links = memo.links
    _reuse.put(memo_key, kept, handled=set(names), routes=routes, add_routes=True, base=memo)
    _reuse.count("roots_patched")
    _replay.listed(root_str)
    return result


def _root_key(root: str) -> tuple[Any, ...] | None:
    """The identity and ``mtime_ns``/``ctime_ns`` of root ``root`` (``None``: no ``stat``)."""
    try:
        st = os.stat(root)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)


def _unchanged(
    entries: Mapping[str, tuple[Any, ...]],
    area: str | None = None,
    parents: dict[str, str] | None = None,
) -> bool:
    """Whether every kept entry still stands (see :func:`_entry_unchanged`); an entry
    through a folder symlink is checked as :func:`_link_unchanged` does, with the
    load's cache of real parent folders ``parents`` (``os.path.realpath`` of each link
    would ``lstat`` every component of its path, for each link)."""
    for entry in entries.values():
        if entry[1] is None:
            if not _entry_unchanged(entry):
                return False
        elif not _link_unchanged(entry, area, parents):
            return False
    return True


def _replaced(
    memo: _reuse.RootMemo, entries: Mapping[str, tuple[Any, ...]], names: list[str]
) -> ScanResult | None:
    """``memo``'s result with the skills of ``names`` taken from ``entries``, in their
    places, when each was and still is a skill without diagnostics (else ``None``)."""
    old = memo.result
    if old is None:
        return None
    swap: dict[int, Skill] = {}
    for name in names:
        before, before_diags = memo.entries[name][4]
        after, after_diags = entries[name][4]
        if before is None or after is None or before_diags or after_diags:
            return None
        swap[id(before)] = after
    skills = tuple(swap.get(id(s), s) for s in old.skills)
    return ScanResult(skills, old.diagnostics, old.root)


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


def _realpath_cached(path: str, parents: dict[str, str], depth: int = 0) -> str:
    """:func:`os.path.realpath` of ``path``, the real path of each parent folder taken
    once from ``parents`` (one load's cache: links in a root share their targets' folders).

    Only the last component is resolved here (a symlink is followed from the real
    folder that holds it); everything else is :func:`os.path.realpath`'s.
    """
    parent, base = os.path.split(path)
    if not parent or base in ("", ".", "..") or depth > 40:
        return os.path.realpath(path)
    real_parent = parents.get(parent)
    if real_parent is None:
        real_parent = parents[parent] = os.path.realpath(parent)
    candidate = os.path.join(real_parent, base)
    try:
        if not stat.S_ISLNK(os.lstat(candidate).st_mode):
            return candidate
        target = os.readlink(candidate)
    except FileNotFoundError:
        return candidate  # as realpath: a missing last component is kept as is
    except OSError:
        return os.path.realpath(path)
    return _realpath_cached(os.path.join(real_parent, target), parents, depth + 1)


def _link_unchanged(
    entry: tuple[Any, ...], area: str | None, parents: dict[str, str] | None = None
) -> bool:
    """:func:`_entry_unchanged` for an entry through a symlink in a watched root.

    Outside a project (no ``area``) a folder link's real path decides nothing
    but the key: the ``lstat`` of the ``SKILL.md`` it leads to (a plain file)
    is enough, and costs one call instead of one per path component.
    """
    key, linked, skill_path, _record, _built, _racy = entry
    if area is None and skill_path is not None and linked is not None and key[5] is None:
        try:
            st = os.lstat(skill_path)
        except OSError:
            return False
        return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev, st.st_ctime_ns) == key[:5]
    if parents is not None and skill_path is not None:
        return _file_key(skill_path, linked, lambda p: _realpath_cached(p, parents)) == key
    return _entry_unchanged(entry)


def _entry_unchanged(entry: tuple[Any, ...]) -> bool:
    """Whether a kept ``SKILL.md`` still has the key it was kept with (or a folder link
    refused for leading out of the project still leads to the same place)."""
    key, linked, skill_path, _record, _built, _racy = entry
    if skill_path is None:
        return os.path.isdir(linked) and os.path.realpath(linked) == key[1]
    return _file_key(skill_path, linked) == key


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


def _list_root(
    root: str,
    src: SkillSource,
    diags: list[Diagnostic],
    idx: _index.DiscoveryIndex | None,
    state: _index.RootState | None,
) -> tuple[tuple[str, str], ...] | None:
    """The candidate entries of ``root`` as ``(name, kind)``, sorted; ``None`` when
    the root is missing (silent) or unreadable (a diagnostic).

    ``kind`` is ``d`` (a directory), ``l`` (a symlink, resolved on every scan),
    ``x`` (an entry that could not be inspected, retried on every scan) or ``f``
    (a ``*.md`` file: not a skill, reported as ``not-a-skill``).
    """
    key = None
    if state is not None and idx is not None:
        try:
            st = os.stat(root)
        except FileNotFoundError:
            return None
        except OSError:
            st = None
        if st is not None:
            key = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
            cached = state.cached_listing(key)
            if cached is not None:
                idx.stats.listings_reused += 1
                _replay.listed(root)  # the entries are used as if listed again
                return cached
    try:
        with os.scandir(root) as it:
            found = sorted(it, key=lambda e: e.name)
    except FileNotFoundError:
        return None
    except OSError as exc:
        diags.append(
            Diagnostic(
                "error",
                "unreadable-root",
                f"cannot scan skills root: {_describe_oserror(exc)}",
                Path(root),
                None,
                src.provider,
            )
        )
        return None
    entries: list[tuple[str, str]] = []
    for entry in found:
        name = entry.name
        if name.startswith("."):
            if name not in _SURVEY_SKIP:
                try:
                    if entry.is_dir():
                        entries.append((name, "h"))
                except OSError:
                    pass
            continue
        if entry.is_symlink():
            entries.append((name, "l"))
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            entries.append((name, "x"))
            continue
        if is_dir:
            entries.append((name, "d"))
        elif name[-3:].lower() == ".md":
            entries.append((name, "f"))
    listing = tuple(entries)
    if key is not None and state is not None and idx is not None:
        state.store_listing(key, idx.is_racy(key[2], key[3]), listing)
    return listing


def _link_is_dir(path: str, kind: str, provider: str, diags: list[Diagnostic]) -> bool:
    """Resolve a symlinked (``l``) or uninspectable (``x``) entry; report broken ones."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if kind == "l":
            diags.append(
                Diagnostic(
                    "warning",
                    "broken-symlink",
                    f"skill entry skipped: dangling symlink -> {os.readlink(path)}",
                    Path(path),
                    None,
                    provider,
                )
            )
        return False
    except OSError as exc:
        link = kind == "l"
        diags.append(
            Diagnostic(
                "warning" if link else "error",
                "broken-symlink" if link else "unreadable-entry",
                f"cannot inspect: {_describe_oserror(exc)}",
                Path(path),
                None,
                provider,
            )
        )
        return False
    return stat.S_ISDIR(st.st_mode)


def _file_key(
    path: str, linked_folder: str | None, realpath: Callable[[str], str] = os.path.realpath
) -> tuple[Any, ...] | None:
    """The index key of one ``SKILL.md`` plus its ``file_id`` (last item); ``None``
    when it cannot be stat'ed (the caller reads it the ordinary way). ``realpath``
    is :func:`os.path.realpath` or the same with a cache (:func:`_realpath_cached`)."""
    try:
        lst = os.lstat(path)
        target = None
        file_id = (lst.st_dev, lst.st_ino)
        if stat.S_ISLNK(lst.st_mode):
            st = os.stat(path)
            target = (
                st.st_size,
                st.st_mtime_ns,
                st.st_ino,
                st.st_dev,
                st.st_ctime_ns,
                os.readlink(path),
                realpath(path),
            )
            file_id = (st.st_dev, st.st_ino)
        folder = None
        if linked_folder is not None:
            folder = (os.readlink(linked_folder), realpath(linked_folder))
    except OSError:
        return None
    return (
        lst.st_size,
        lst.st_mtime_ns,
        lst.st_ino,
        lst.st_dev,
        lst.st_ctime_ns,
        target,
        folder,
        file_id,
    )


#: Documentation files that often sit in a skills root and are not meant as skills.
_ROOT_DOC_FILES = frozenset(
    {"readme", "changelog", "license", "contributing", "agents", "claude", "index", "notes"}
)


def _note_flat_file(root: Path, name: str, source: SkillSource, diags: list[Diagnostic]) -> None:
    """A ``*.md`` file directly in a skills root: say why it is not a skill."""
    stem = name[:-3]
    if stem.lower() in _ROOT_DOC_FILES:
        return
    if stem.lower() == "skill":
        message = (
            f"{name} directly in a skills root is not a skill: skills are folders, "
            f"<root>/<name>/{SKILL_FILE}; move it into a folder named after the skill"
        )
    else:
        message = (
            f"{name} is not a skill: a skill is a folder with a {SKILL_FILE}; "
            f"move it to {stem}/{SKILL_FILE}"
        )
    diags.append(
        Diagnostic("info", "not-a-skill", message, _child(root, name), None, source.provider)
    )


def _note_nested(
    folder: Path, source: SkillSource, diags: list[Diagnostic], survey: _Survey | None = None
) -> None:
    """A folder without SKILL.md: say why it is not a skill.

    A ``skill.md`` in other letter case, nested skills (not discovered: one level
    deep only; ``survey`` walks the folder and reports each ``SKILL.md`` it
    holds, see :class:`_Survey`), or simply no ``SKILL.md`` — each an info
    diagnostic, so ``doctor`` and ``explain`` can answer "why is my skill missing?".
    """
    try:
        with os.scandir(folder) as it:
            names = sorted(e.name for e in it if not e.name.startswith("."))
    except OSError as exc:
        diags.append(
            Diagnostic(
                "warning",
                "unreadable-entry",
                f"cannot inspect skill folder: {_describe_oserror(exc)}",
                folder,
                None,
                source.provider,
            )
        )
        return
    variant = next((n for n in names if n.lower() == "skill.md" and n != SKILL_FILE), None)
    if variant is not None and os.path.isfile(os.path.join(folder, variant)):
        diags.append(
            Diagnostic(
                "info",
                "not-a-skill",
                f"found {variant}, not {SKILL_FILE}; agents look for {SKILL_FILE} exactly "
                f"(rename it)",
                _child(folder, variant),
                None,
                source.provider,
            )
        )
        return
    if SKILL_FILE in names:
        return  # the file itself was reported when it was read
    if survey is None:
        survey = _Survey(folder.parent, source.provider)
        if survey.walk(folder):
            survey.report(diags)
            return
    elif survey.walk(folder):
        return
    if folder.name != "__pycache__":
        what = "it is empty" if not names else f"it holds {', '.join(names[:3])}"
        if len(names) > 3:
            what += f" and {len(names) - 3} more"
        diags.append(
            Diagnostic(
                "info",
                "not-a-skill",
                f"folder has no {SKILL_FILE} ({what}); not a skill",
                folder,
                None,
                source.provider,
            )
        )


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
        for folder in ctx.walk_up():
            d.scan(folder / ".skillpath" / "skills", "project", require_description=True)
        return d.result()
    """

    provider: str
    priority: int
    late: bool = False
    skills: list[Skill] = attrs.field(factory=list)
    diagnostics: list[Diagnostic] = attrs.field(factory=list)
    roots: list[RootScan] = attrs.field(factory=list)

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
        )


_NEAR_CUTOFF = 0.8


def _quick_ratio(a: str, b: str) -> float:
    """``difflib.SequenceMatcher(None, a, b).quick_ratio()``: an upper bound of the
    similarity ``get_close_matches`` requires (the characters the two share)."""
    if not a and not b:
        return 1.0
    left: dict[str, int] = {}
    for c in a:
        left[c] = left.get(c, 0) + 1
    matches = 0
    for c in b:
        n = left.get(c, 0)
        if n > 0:
            left[c] = n - 1
            matches += 1
    return 2.0 * matches / (len(a) + len(b))


def near_miss_roots(roots: Iterable[RootScan], provider: str | None = None) -> list[Diagnostic]:
    """``near-miss-root`` info diagnostics for missing roots with a near-named sibling.

    For each root that does not exist, its parent folder is listed once (only
    when the parent exists) and a sibling folder whose name is close to the
    root's (``skill`` for ``skills``, ``Skills``) is reported, unless that
    sibling is itself one of ``roots`` (OpenCode reads both ``skill`` and
    ``skills``).
    """
    roots = list(roots)
    scanned = {os.path.normpath(r.path) for r in roots}
    listings: dict[str, list[str] | None] = {}
    seen: set[str] = set()
    out: list[Diagnostic] = []
    for r in roots:
        if r.exists:
            continue
        parent = os.path.dirname(os.path.normpath(r.path))
        if parent not in listings:
            try:
                listings[parent] = sorted(os.listdir(parent))
            except OSError:
                listings[parent] = None
        names = listings[parent]
        if not names:
            continue
        # siblings that are roots themselves (OpenCode's skill and skills) are never
        # suggested, nor those too unlike the root's name for difflib to match
        # (its quick_ratio bound, computed here): often nothing is left to compare
        # and difflib is not imported
        names = [
            n
            for n in names
            if os.path.join(parent, n) not in scanned
            and _quick_ratio(r.path.name, n) >= _NEAR_CUTOFF
        ]
        if not names:
            continue
        import difflib  # only when a missing root has a sibling of a near name

        for near in difflib.get_close_matches(r.path.name, names, n=3, cutoff=_NEAR_CUTOFF):
            full = os.path.join(parent, near)
            if near == r.path.name or full in seen or not os.path.isdir(full):
                continue
            seen.add(full)
            out.append(
                Diagnostic(
                    "info",
                    "near-miss-root",
                    f"{near!r} is not a skills root; did you mean {r.path.name!r}? "
                    f"({r.provider} looks in {r.path}, which does not exist)",
                    Path(full),
                    None,
                    provider if provider is not None else r.provider,
                )
            )
    return out


# -- the survey: SKILL.md files below a root that the one-level scan does not load --

#: How far below a skills root the scan looks for ``SKILL.md`` files it does not
#: load (folder levels below the root) and how many directories it lists per root.
SURVEY_DEPTH = 6
SURVEY_MAX_DIRS = 2000
#: Directories the survey never enters (version control, dependencies, caches).
_SURVEY_SKIP = frozenset(
    {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", "site-packages"}
)


@attrs.define(eq=False)
class _Survey:
    """Walks the folders of one root that are not skills, bounded and loop-safe.

    Every folder visited counts against :data:`SURVEY_MAX_DIRS`; a folder
    reached twice (a symlink loop, a mirror made of symlinks) is entered once.
    A folder holding a ``SKILL.md`` is recorded and not entered (what lies
    below it belongs to that skill).
    """

    root: Path
    provider: str
    budget: int = attrs.field(factory=lambda: SURVEY_MAX_DIRS)
    seen: set[tuple[int, int]] = attrs.field(factory=set)
    found: list[Path] = attrs.field(factory=list)
    cut: int = 0
    truncated: bool = False

    def walk(self, folder: Path) -> int:
        """Survey ``folder`` (an entry of the root); how many skill folders it holds."""
        before = len(self.found)
        stack: list[tuple[str, int]] = [(os.fspath(folder), 1)]
        while stack:
            path, depth = stack.pop()
            if self.budget <= 0:
                self.truncated = True
                break
            try:
                st = os.stat(path)
            except OSError:
                continue
            ident = (st.st_dev, st.st_ino)
            if ident in self.seen:
                self.cut += 1
                continue
            self.seen.add(ident)
            self.budget -= 1
            try:
                with os.scandir(path) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError:
                continue
            if any(e.name == SKILL_FILE for e in entries):
                self.found.append(Path(path))
                continue
            if depth >= SURVEY_DEPTH:
                continue
            subdirs = []
            for e in entries:
                if e.name in _SURVEY_SKIP:
                    continue
                try:
                    if e.is_dir():
                        subdirs.append(e.path)
                except OSError:
                    continue
            stack.extend((p, depth + 1) for p in reversed(subdirs))
        return len(self.found) - before

    def report(self, diags: list[Diagnostic]) -> None:
        """One ``nested-skills-ignored`` entry per ``SKILL.md`` found, one
        ``nested-skills-group`` entry per fix, and a note when the walk was cut."""
        groups = nested_fix_patterns(self.root, self.found)
        for pattern, folders in groups:
            fix = _fix_text(self.root, pattern)
            diags.append(
                Diagnostic(
                    "info",
                    "nested-skills-group",
                    f"{len(folders)} skill folder(s) here are not loaded: skills root "
                    f"{self.root} is scanned one level deep (<root>/<name>/{SKILL_FILE}); "
                    f"fix: {fix}",
                    Path(pattern) if pattern != os.fspath(self.root) else self.root,
                    None,
                    self.provider,
                )
            )
            for folder in folders:
                rel = folder.relative_to(self.root).as_posix()
                if folder.parent == self.root:
                    why = f"folder {rel!r} of skills root {self.root} starts with '.'"
                else:
                    why = (
                        f"skill folder {rel!r} is {rel.count('/') + 1} levels below skills "
                        f"root {self.root} (skills are found one level deep)"
                    )
                diags.append(
                    Diagnostic(
                        "info",
                        "nested-skills-ignored",
                        f"not loaded: {why}; fix: {fix}",
                        folder / SKILL_FILE,
                        None,
                        self.provider,
                    )
                )
        if self.cut:
            diags.append(
                Diagnostic(
                    "info",
                    "survey-loop",
                    f"{self.cut} folder(s) below this skills root were reached twice "
                    "(symlink loop or mirror) and entered once",
                    self.root,
                    None,
                    self.provider,
                )
            )
        if self.truncated:
            diags.append(
                Diagnostic(
                    "warning",
                    "survey-truncated",
                    f"stopped looking for nested SKILL.md files after {SURVEY_MAX_DIRS} "
                    "folders; SKILL.md files further down are not reported (move unrelated "
                    "folders out of the skills root)",
                    self.root,
                    None,
                    self.provider,
                )
            )


def _fix_text(root: Path, pattern: str) -> str:
    if pattern == os.fspath(root):
        return (
            "folders whose name starts with '.' are not scanned; rename the folder "
            "without the leading dot"
        )
    return f'add "{pattern}" to skills.custom_directories'


def nested_fix_patterns(root: Path, skill_dirs: Iterable[Path]) -> list[tuple[str, list[Path]]]:
    """The ``custom_directories`` entries that would load ``skill_dirs``, with the
    folders each one loads, in sorted order.

    Each skill folder's parent is the directory to add. Parents below the same
    entry of ``root`` at the same depth are merged into one glob pattern: the
    path components that differ become ``*`` (``<root>/repo/plugins/*/skills``
    for a plugin marketplace, ``<root>/repo/skills/*`` for category folders),
    unless one of the differing names starts with ``.`` (``*`` does not match
    those). A skill folder directly in a dot folder of the root (``<root>/.x/SKILL.md``)
    has the root itself as parent; its fix is a rename, not a pattern.
    """
    by_parent: dict[tuple[str, ...], list[Path]] = {}
    for d in skill_dirs:
        rel = d.parent.relative_to(root).parts
        by_parent.setdefault(rel, []).append(d)
    clusters: dict[tuple[Any, ...], list[tuple[str, ...]]] = {}
    for rel in sorted(by_parent):
        key: tuple[Any, ...] = (rel[:1], len(rel))
        clusters.setdefault(key, []).append(rel)
    out: list[tuple[str, list[Path]]] = []
    for rels in clusters.values():
        merged: list[tuple[tuple[str, ...], list[tuple[str, ...]]]] = []
        if len(rels) > 1:
            glob_parts = []
            ok = True
            for column in zip(*rels, strict=True):
                values = set(column)
                if len(values) == 1:
                    glob_parts.append(column[0])
                elif any(v.startswith(".") for v in values):
                    ok = False
                    break
                else:
                    glob_parts.append("*")
            if ok:
                merged.append((tuple(glob_parts), rels))
            else:
                merged.extend((rel, [rel]) for rel in rels)
        else:
            merged.append((rels[0], rels))
        for parts, members in merged:
            pattern = os.fspath(root.joinpath(*parts)) if parts else os.fspath(root)
            folders = sorted(d for rel in members for d in by_parent[rel])
            out.append((pattern, folders))
    out.sort(key=lambda item: item[0])
    return out
