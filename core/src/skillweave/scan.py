"""Scanning skills roots: ``<root>/<name>/SKILL.md``, one level deep.

Providers call :func:`scan_skills_dir` (or the :class:`Discovery` builder that
wraps it) for each root they own. Every skill, whatever its source, is built by
:func:`build_skill` so names, descriptions and frontmatter follow one set of
rules.
"""

from __future__ import annotations

import errno
import os
import re
import unicodedata
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Any

import attrs

from skillweave.frontmatter import normalize_key, parse_frontmatter, read_head, to_frontmatter
from skillweave.model import Diagnostic, DiscoveryResult, RootScan, Skill, SkillSource
from skillweave.safety import is_inside
from skillweave.textguard import text_findings

__all__ = [
    "Discovery",
    "ScanResult",
    "build_skill",
    "check_name",
    "load_skill_file",
    "load_skills_from_dir",
    "scan_skills_dir",
    "skill_from_text",
]

SKILL_FILE = "SKILL.md"
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


def _first_paragraph(body: str | None) -> str:
    if not body:
        return ""
    for block in re.split(r"\n\s*\n", body):
        text = block.strip()
        if not text or text.startswith(("#", "```", "<!--")):
            continue
        text = " ".join(line.strip() for line in text.splitlines())
        if len(text) > 250:
            cut = text[:250].rsplit(" ", 1)[0]
            text = cut + "…"
        return text
    return ""


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
    fm, fm_diags = to_frontmatter(data, path)
    diags.extend(attrs.evolve(d, provider=source.provider) for d in fm_diags)
    name = fm.name or default_name
    why = check_name(name)
    if why is not None:
        diags.append(
            Diagnostic("error", "invalid-name", f"skill skipped: {why}", path, 1, source.provider)
        )
        return None, diags
    if fm.name and fm.name != default_name and source.loaded_from == "disk":
        diags.append(
            Diagnostic(
                "info",
                "name-mismatch",
                f"frontmatter name {fm.name!r} differs from directory name {default_name!r}; "
                f"using {fm.name!r}",
                path,
                None,
                source.provider,
            )
        )
    description = fm.description or ""
    if not description:
        if require_description:
            diags.append(
                Diagnostic(
                    "error",
                    "missing-description",
                    f"skill {name!r} skipped: provider {source.provider!r} requires a description",
                    path,
                    1,
                    source.provider,
                )
            )
            return None, diags
        description = _first_paragraph(body_hint)
    skill = Skill(
        name=name,
        description=description,
        path=path,
        base_dir=base_dir,
        source=source,
        priority=priority,
        frontmatter=fm,
        file_id=file_id,
        body_cache=body_loader,
    )
    for code, message in text_findings(name, description):
        diags.append(Diagnostic("warning", code, message, path, None, source.provider))
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
    diags: list[Diagnostic] = []
    try:
        head, st = read_head(path)
    except FileNotFoundError:
        if os.path.islink(path):
            diags.append(
                Diagnostic(
                    "warning",
                    "broken-symlink",
                    f"SKILL.md is a dangling symlink -> {os.readlink(path)}",
                    path,
                    None,
                    source.provider,
                )
            )
        return None, diags
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
        return None, diags
    if path.name == SKILL_FILE and os.path.islink(path) and not is_inside(path, path.parent):
        # a symlinked SKILL.md that leaves its folder would put an arbitrary
        # file (a key, a password store) into the prompt; refused for project
        # content, reported for the user's own folders
        project = source.level == "project"
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
            return None, diags
    if st.st_size == 0:
        diags.append(
            Diagnostic(
                "warning", "empty-skill-file", "the file is empty", path, None, source.provider
            )
        )
    parsed = parse_frontmatter(head, path)
    diags.extend(attrs.evolve(d, provider=source.provider) for d in parsed.diagnostics)
    if any(d.level == "error" for d in parsed.diagnostics):
        return None, diags
    data = dict(parsed.data)
    if ignore_keys:
        data = {k: v for k, v in data.items() if normalize_key(k) not in ignore_keys}
    return build_skill(
        data,
        default_name=default_name or path.parent.name,
        source=source,
        priority=priority,
        path=path,
        base_dir=path.parent,
        require_description=require_description,
        body_hint=parsed.body,
        file_id=(st.st_dev, st.st_ino),
        diagnostics=diags,
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
        body_hint=body,
        body_loader=loader,
        diagnostics=diags,
    )


@attrs.frozen
class ScanResult:
    """What :func:`scan_skills_dir` found in one root."""

    skills: tuple[Skill, ...]
    diagnostics: tuple[Diagnostic, ...]
    root: RootScan


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
    """
    root = Path(root)
    src = source if source.root == root else attrs.evolve(source, root=root)
    diags: list[Diagnostic] = []
    skills: list[Skill] = []
    try:
        with os.scandir(root) as it:
            entries = sorted(it, key=lambda e: e.name)
    except FileNotFoundError:
        return ScanResult((), (), RootScan(src.provider, src.level, root, False))
    except OSError as exc:
        diags.append(
            Diagnostic(
                "error",
                "unreadable-root",
                f"cannot scan skills root: {_describe_oserror(exc)}",
                root,
                None,
                src.provider,
            )
        )
        return ScanResult((), tuple(diags), RootScan(src.provider, src.level, root, True))
    root_str = os.fspath(root)
    for entry in entries:
        name = entry.name
        if name.startswith("."):
            continue
        try:
            is_dir = entry.is_dir()
        except OSError as exc:
            diags.append(
                Diagnostic(
                    "warning" if entry.is_symlink() else "error",
                    "broken-symlink" if entry.is_symlink() else "unreadable-entry",
                    f"cannot inspect: {_describe_oserror(exc)}",
                    Path(entry.path),
                    None,
                    src.provider,
                )
            )
            continue
        if not is_dir:
            if entry.is_symlink():
                try:
                    os.stat(entry.path)
                except OSError as exc:
                    what = (
                        "symlink loop"
                        if exc.errno == errno.ELOOP
                        else "dangling symlink"
                        if exc.errno == errno.ENOENT
                        else _describe_oserror(exc)
                    )
                    diags.append(
                        Diagnostic(
                            "warning",
                            "broken-symlink",
                            f"skill entry skipped: {what} -> {os.readlink(entry.path)}",
                            Path(entry.path),
                            None,
                            src.provider,
                        )
                    )
            continue
        skill_path = Path(root_str, name, SKILL_FILE)
        skill, sdiags = load_skill_file(
            skill_path,
            src,
            priority=priority,
            require_description=require_description,
            default_name=name,
        )
        diags.extend(sdiags)
        if skill is not None:
            skills.append(skill)
        elif not sdiags:
            _note_nested(Path(entry.path), src, diags)
    return ScanResult(
        tuple(skills), tuple(diags), RootScan(src.provider, src.level, root, True, len(skills))
    )


def _note_nested(folder: Path, source: SkillSource, diags: list[Diagnostic]) -> None:
    """A folder without SKILL.md: say so when it holds nested skills (not discovered)."""
    try:
        with os.scandir(folder) as it:
            nested = sorted(
                e.name
                for e in it
                if not e.name.startswith(".") and os.path.isfile(os.path.join(e.path, SKILL_FILE))
            )
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
    if nested:
        diags.append(
            Diagnostic(
                "info",
                "nested-skills-ignored",
                f"folder has no SKILL.md but holds nested skills ({', '.join(nested[:5])}); "
                "skills are found one level deep only — add this folder to "
                "skills.custom_directories to load them",
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
            d.scan(folder / ".skillweave" / "skills", "project", require_description=True)
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
        """The immutable result to return from ``discover_skills``."""
        return DiscoveryResult(
            provider=self.provider,
            priority=self.priority,
            skills=tuple(self.skills),
            diagnostics=tuple(self.diagnostics),
            roots=tuple(self.roots),
            late=self.late,
        )
