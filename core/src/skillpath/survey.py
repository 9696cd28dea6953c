"""Why a folder is not a skill: the survey of near-miss layouts beside the scanner.

:func:`skillpath.scan.scan_skills_dir` reads ``<root>/<name>/SKILL.md`` and
nothing else; this module says what it did not take and why, as ``info``
diagnostics ``doctor`` and ``explain`` show: a ``*.md`` file directly in a
root (:func:`note_flat_file`), a folder without ``SKILL.md``, with
``skill.md`` in another letter case, or with skills nested below it
(:func:`note_nested`, :class:`Survey`, :func:`nested_fix_patterns`), and a
root whose name is close to a known one (:func:`near_miss_roots`). None of it
changes which skills are found.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import attrs

from skillpath.model import Diagnostic, RootScan, SkillSource
from skillpath.safety import describe_oserror

__all__ = [
    "SKILL_FILE",
    "SURVEY_DEPTH",
    "SURVEY_MAX_DIRS",
    "Survey",
    "child_path",
    "describe_scan_error",
    "near_miss_roots",
    "nested_fix_patterns",
    "note_flat_file",
    "note_nested",
]

SKILL_FILE = "SKILL.md"


def _slow_child(base: Path, name: str) -> Path:
    return base / name


# ``base / name`` re-parses the whole path; pathlib's own helper for names that
# come from a directory listing does not (checked once, with a fallback)
_fast_child: Any = getattr(Path, "_make_child_relpath", None)
#: ``base / name`` for a ``name`` from a directory listing (the scanner's paths).
child_path: Callable[[Path, str], Path] = (
    _fast_child
    if _fast_child is not None and str(_fast_child(Path("/a"), "b")) == "/a/b" == os.sep + "a/b"
    else _slow_child
)


#: the one short reason for a failed scan or stat (:func:`skillpath.safety.describe_oserror`)
describe_scan_error = describe_oserror


#: Documentation files that often sit in a skills root and are not meant as skills.
_ROOT_DOC_FILES = frozenset(
    {"readme", "changelog", "license", "contributing", "agents", "claude", "index", "notes"}
)


def note_flat_file(root: Path, name: str, source: SkillSource, diags: list[Diagnostic]) -> None:
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
        Diagnostic("info", "not-a-skill", message, child_path(root, name), None, source.provider)
    )


def note_nested(
    folder: Path, source: SkillSource, diags: list[Diagnostic], survey: Survey | None = None
) -> None:
    """A folder without SKILL.md: say why it is not a skill.

    A ``skill.md`` in other letter case, nested skills (not discovered: one level
    deep only; ``survey`` walks the folder and reports each ``SKILL.md`` it
    holds, see :class:`Survey`), or simply no ``SKILL.md`` — each an info
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
                f"cannot inspect skill folder: {describe_scan_error(exc)}",
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
                child_path(folder, variant),
                None,
                source.provider,
            )
        )
        return
    if SKILL_FILE in names:
        return  # the file itself was reported when it was read
    if survey is None:
        survey = Survey(folder.parent, source.provider)
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
class Survey:
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
