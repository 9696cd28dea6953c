"""Explainable decisions: what happened to every skill, and why.

:func:`build_report` turns a :class:`~skillpath.model.LoadResult` into one
entry per skill file that was found — loaded, hidden, conditional, shadowed or
skipped — each with a stable reason code. :func:`explain` answers the question
for one name, including names that were never found (where it looked, and the
near misses). ``skillpath doctor`` and ``skillpath explain`` print these.

Skip reasons (``SkillReport.reason`` when ``status`` is ``skipped``):

``missing-description``
    the provider requires a description and the skill has none;
``invalid-name``
    the name cannot be a skill name;
``disabled``
    ``skills.disabled_extensions`` has ``skill:<name>``;
``source-disabled``
    the provider/level's source toggle is off;
``ignored``
    the name matches a ``skills.ignored`` glob;
``not-included``
    ``skills.include`` is set and no glob matches;
``vetoed``
    a plugin's ``filter_skill`` dropped it;
``filter-error``
    a ``filter_skill`` raised or returned the wrong type: the skill is dropped
    (filters fail closed);
``quarantined``
    a third-party skill not approved yet, or changed since it was approved
    (:mod:`skillpath.trust`; ``skillpath trust approve NAME``);
``blocked``
    a content finding at or above its trust tier's ``[trust] block`` severity;
``tier-unlisted``
    its trust tier is ``[trust] listed = "no"``;
``duplicate-file``
    the same file (same device and inode) was already loaded through another
    path;
any other diagnostic code
    the file could not be read or parsed (``unreadable-skill``,
    ``broken-symlink``, ``frontmatter-too-large`` …).
"""

from __future__ import annotations

import os
import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from skillpath.frontmatter import parse_frontmatter, read_head
from skillpath.model import Diagnostic, LoadResult, RootScan, Skill

if TYPE_CHECKING:
    from skillpath.context import SkillContext

__all__ = [
    "SKIP_REASONS",
    "STATUSES",
    "Explanation",
    "Report",
    "SkillReport",
    "build_report",
    "describe",
    "explain",
    "find_below",
    "remote_listings",
    "shadow_reason",
]

#: Every status, in display order.
STATUSES = ("loaded", "hidden", "conditional", "shadowed", "skipped")
#: The skip reasons the core itself produces (see the module docstring).
SKIP_REASONS = (
    "missing-description",
    "invalid-name",
    "disabled",
    "source-disabled",
    "ignored",
    "not-included",
    "vetoed",
    "filter-error",
    "duplicate-file",
)
#: Diagnostic codes whose message names the skills it is about.
_NAMES_IN_MESSAGE = frozenset({"nested-skills-ignored", "codex-skills-above"})
#: Diagnostic codes whose path is a skills root that was found but not scanned.
_UNSCANNED_ROOT_CODES = frozenset({"codex-skills-above"})
#: Diagnostic codes that mean "a skill file was found but not loaded".
_NOT_LOADED_CODES = frozenset(
    {
        "missing-description",
        "invalid-name",
        "unreadable-skill",
        "broken-symlink",
        "binary-file",
        "frontmatter-too-large",
        "frontmatter-invalid",
        "frontmatter-too-complex",
        "skill-file-outside",
        "file-outside-project",
    }
)
#: Diagnostic codes for files refused unread: their name is never taken from the file.
_UNREAD_CODES = frozenset({"skill-file-outside", "file-outside-project"})


@attrs.frozen
class SkillReport:
    """What happened to one skill file.

    ``status`` is one of :data:`STATUSES`; ``reason`` is ``""`` for loaded
    skills, ``name`` for shadowed ones and a skip reason for skipped ones;
    ``detail`` is the human explanation; ``by`` is the winning skill for
    shadowed and ``duplicate-file`` entries; ``skill`` is the skill object when
    one was built.
    """

    name: str
    status: str
    reason: str = ""
    detail: str = ""
    provider: str | None = None
    level: str | None = None
    path: Path | None = None
    line: int | None = None
    priority: int | None = None
    hidden: bool = False
    by: Skill | None = None
    skill: Skill | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON shape used by ``doctor --json`` and ``explain --json``."""
        by = None
        if self.by is not None:
            by = {
                "name": self.by.name,
                "path": str(self.by.path) if self.by.path is not None else None,
                "provider": self.by.source.provider,
                "level": self.by.source.level,
            }
        return {
            "name": self.name,
            "status": self.status,
            "reason": self.reason,
            "detail": self.detail,
            "provider": self.provider,
            "level": self.level,
            "path": str(self.path) if self.path is not None else None,
            "line": self.line,
            "priority": self.priority,
            "hidden": self.hidden,
            "shadowed_by": by,
        }


def _root_json(r: RootScan) -> dict[str, Any]:
    return {
        "provider": r.provider,
        "level": r.level,
        "path": str(r.path),
        "exists": r.exists,
        "count": r.count,
        "via": r.via,
    }


@attrs.frozen
class Report:
    """Everything ``doctor`` shows: roots, one entry per skill file, diagnostics."""

    roots: tuple[RootScan, ...] = ()
    skills: tuple[SkillReport, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def errors(self) -> list[Diagnostic]:
        """Diagnostics at level ``error``."""
        return [d for d in self.diagnostics if d.level == "error"]

    def counts(self) -> dict[str, int]:
        """Number of entries per status, plus ``errors`` and ``warnings``."""
        out = {s: 0 for s in STATUSES}
        for entry in self.skills:
            out[entry.status] += 1
        out["errors"] = sum(1 for d in self.diagnostics if d.level == "error")
        out["warnings"] = sum(1 for d in self.diagnostics if d.level == "warning")
        return out

    def names(self) -> list[str]:
        """Every distinct name in the report, sorted."""
        return sorted({e.name for e in self.skills}, key=lambda n: (n.casefold(), n))

    def to_json(self) -> dict[str, Any]:
        """The JSON shape of ``skillpath doctor --json`` (a documented contract)."""
        return {
            "roots": [_root_json(r) for r in self.roots],
            "skills": [e.to_json() for e in self.skills],
            "diagnostics": [d.to_json() for d in self.diagnostics],
            "summary": self.counts(),
        }


def _level_for(path: Path, provider: str | None, roots: Sequence[RootScan]) -> str | None:
    best: RootScan | None = None
    for r in roots:
        if provider is not None and r.provider != provider:
            continue
        inside = r.path == path or r.path in path.parents
        if inside and (best is None or len(r.path.parts) > len(best.path.parts)):
            best = r
    return best.level if best is not None else None


def _name_from_file(path: Path) -> str:
    """The frontmatter name of a skill file that did not load (or its folder name)."""
    fallback = path.parent.name if path.name == "SKILL.md" else path.stem
    if path.name != "SKILL.md" and path.suffix != ".md":
        return path.name
    try:
        head, _st = read_head(path)
    except OSError:
        return fallback
    name = parse_frontmatter(head, path).data.get("name")
    return name.strip() if isinstance(name, str) and name.strip() else fallback


def _entry(skill: Skill, status: str, **kw: Any) -> SkillReport:
    return SkillReport(
        name=skill.name,
        status=status,
        provider=skill.source.provider,
        level=skill.source.level,
        path=skill.path,
        priority=skill.priority,
        hidden=skill.hidden,
        skill=skill,
        **kw,
    )


def _where(skill: Skill) -> str:
    where = str(skill.path) if skill.path is not None else f"<{skill.source.loaded_from}>"
    return f"{skill.source.provider}/{skill.source.level} {where}"


def _scanned(skill: Skill) -> str:
    """What of ``skill``'s provider was scanned: its root's level, or legacy commands."""
    if skill.source.loaded_from == "commands":
        return "legacy command files"
    return f"{skill.source.level} dir"


def shadow_reason(loser: Skill, winner: Skill) -> str:
    """Why ``winner`` beat ``loser`` (same name), as a short clause.

    A pack skill loses to any other provider's skill (packs merge late, see
    ``docs/concepts.md``). Higher priority wins; at equal priority the fixed provider order decides,
    and inside one provider its own scan order (for ``claude``, the user dir
    before project dirs; for ``native``, project dirs before the user's).
    """
    lp, wp = loser.priority, winner.priority
    wprov, lprov = winner.source.provider, loser.source.provider
    if lprov == "packs" and wprov != "packs":
        return (
            "installed skill packs merge after every hand-written skill (project, user, "
            "custom directories), so a skill a person wrote wins over a package's skill "
            "of the same name"
        )
    if wp > lp:
        return f"priority {wp} beats {lp}"
    if wp < lp:
        if lprov == "managed":
            return (
                f"priority {wp}; auto-learned (managed) skills merge last, so any "
                "hand-written skill of the same name wins"
            )
        return f"priority {wp}, but it was loaded first (an earlier pass or already loaded)"
    if wprov != lprov:
        return (
            f"same priority {wp}; at equal priority {wprov} comes before {lprov} "
            "(the fixed provider order)"
        )
    wl, ll = _scanned(winner), _scanned(loser)
    if wl != ll:
        plural = ll if ll.endswith("files") else ll + "s"
        return f"same priority {wp}; within {wprov}, the {wl} is scanned before {plural}"
    wroot, lroot = winner.source.root, loser.source.root
    if wroot is not None and lroot is not None and wroot != lroot:
        return f"same priority {wp}; within {wprov}, {wroot} is scanned before {lroot}"
    return f"same priority {wp}; within {wprov}, it was found first"


def build_report(result: LoadResult, *, include_loaded: bool = True) -> Report:
    """One :class:`SkillReport` per skill file found, sorted by name then status.

    With ``include_loaded=False`` the loaded and hidden skills are left out
    (the counts ``list`` shows under its table need only the others).
    """
    entries: list[SkillReport] = []
    known: set[Path] = set()
    for s in result.skills if include_loaded else ():
        entries.append(_entry(s, "hidden" if s.hidden else "loaded"))
    for s in result.conditional:
        paths = ", ".join(s.frontmatter.paths)
        entries.append(
            _entry(s, "conditional", detail=f"activates when a file matching {paths} is touched")
        )
    for sh in result.shadowed:
        if sh.reason == "duplicate-file":
            entries.append(
                _entry(
                    sh.skill,
                    "skipped",
                    reason="duplicate-file",
                    detail=f"same file already loaded as {sh.by.name!r} from {_where(sh.by)}",
                    by=sh.by,
                )
            )
        else:
            entries.append(
                _entry(
                    sh.skill,
                    "shadowed",
                    reason=sh.reason,
                    detail=f"shadowed by {_where(sh.by)} ({shadow_reason(sh.skill, sh.by)})",
                    by=sh.by,
                )
            )
    for sk in result.skipped:
        entries.append(_entry(sk.skill, "skipped", reason=sk.reason, detail=sk.detail))
    for e in entries:
        if e.path is not None:
            known.add(e.path)
    for d in result.diagnostics:
        if d.path is None or d.path in known:
            continue
        generic = d.level == "error" and d.path.suffix == ".md" and d.code != "name-conflict"
        if d.code not in _NOT_LOADED_CODES and not generic:
            continue
        known.add(d.path)
        if d.code == "broken-symlink" or d.code in _UNREAD_CODES:
            # a skill folder, or the SKILL.md in one; a refused file is never
            # read, not even for the name in its frontmatter
            name = d.path.parent.name if d.path.name == "SKILL.md" else d.path.name
            if d.code in _UNREAD_CODES and d.path.suffix == ".md" and d.path.name != "SKILL.md":
                name = d.path.stem
        else:
            name = _name_from_file(d.path)
        entries.append(
            SkillReport(
                name=name,
                status="skipped",
                reason=d.code,
                detail=d.message,
                provider=d.provider,
                level=_level_for(d.path, d.provider, result.roots),
                path=d.path,
                line=d.line,
            )
        )
    order = {s: i for i, s in enumerate(STATUSES)}
    entries.sort(
        key=lambda e: (e.name.casefold(), e.name, order[e.status], str(e.path) if e.path else "")
    )
    return Report(result.roots, tuple(entries), result.diagnostics)


def _age(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    if seconds < 172800:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} days"


def remote_listings(skills: Iterable[Skill], now: float | None = None) -> list[dict[str, Any]]:
    """Where the listings of remote skills (MCP servers) came from, one entry per server.

    Each entry: ``server``, ``listed_at`` (when the server was listed, UTC),
    ``cached`` (whether this load took the listing from the cache),
    ``age_seconds`` and ``text`` (one sentence for people). Skills whose
    provider records no ``listed_at`` are not remote listings and are left out.
    """
    import calendar
    import time

    current = time.time() if now is None else now
    out: dict[str, dict[str, Any]] = {}
    for skill in skills:
        detail = skill.source.detail
        stamp = detail.get("listed_at")
        server = detail.get("server")
        if not isinstance(stamp, str) or not isinstance(server, str) or server in out:
            continue
        try:
            fetched = calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ"))
        except ValueError:
            continue
        age = current - fetched
        cached = bool(detail.get("cached"))
        if cached:
            text = (
                f"MCP server {server!r}: listing from the cache, fetched {stamp} "
                f"({_age(age)} ago); --refresh lists the server again"
            )
        else:
            text = f"MCP server {server!r}: listed by this run ({stamp})"
        out[server] = {
            "server": server,
            "listed_at": stamp,
            "cached": cached,
            "age_seconds": max(0, int(age)),
            "text": text,
        }
    return [out[k] for k in sorted(out)]


def describe(entry: SkillReport) -> str:
    """One sentence saying what happened to ``entry`` and why."""
    where = f"{entry.provider}/{entry.level}"
    via = entry.skill.source.detail.get("via") if entry.skill is not None else None
    if via == "SKILLPATH":
        where += " (a directory in the SKILLPATH environment variable)"
    elif via == "custom_directories":
        where += " (a directory in [skills] custom_directories)"
    if entry.status == "loaded":
        return f"loaded from {where} (priority {entry.priority}) and listed for the model"
    if entry.status == "hidden":
        return (
            f"loaded from {where} but hidden from the model's listing (hide or "
            "disable-model-invocation); still usable as /skill:<name> and skill://"
        )
    if entry.status == "conditional":
        return f"loaded from {where} and held back: {entry.detail}"
    if entry.status == "shadowed":
        return f"not used: {entry.detail}"
    reasons = {
        "missing-description": "skipped: the provider requires a description",
        "disabled": "skipped: disabled by skills.disabled_extensions",
        "source-disabled": "skipped: source toggled off",
        "ignored": "skipped: matches skills.ignored",
        "not-included": "skipped: skills.include is set and matches no pattern",
        "duplicate-file": "skipped: duplicate file",
        "invalid-name": "skipped: invalid name",
        "vetoed": "skipped: vetoed by a plugin",
        "filter-error": "skipped: a plugin's filter failed on it (filters fail closed)",
        "quarantined": "quarantined: not listed for the model until approved "
        f"(`skillpath trust approve {entry.name}`)",
        "blocked": "skipped: a content finding blocks its trust tier ([trust] block)",
        "tier-unlisted": "skipped: its trust tier is not listed ([trust] listed)",
    }
    head = reasons.get(entry.reason, f"skipped ({entry.reason})")
    return f"{head} — {entry.detail}" if entry.detail else head


@attrs.frozen
class Explanation:
    """The answer to "what happened to skill ``name``?".

    ``entries`` are the report entries of that name (all copies, winner
    first; for a ``plugin:skill`` spelling, the copies of ``skill`` shipped by
    that plugin); ``folders`` entries whose folder is called ``name`` but whose
    skill has another name; ``near`` similar names that do exist;
    ``diagnostics`` the diagnostics about those files (and, when the skill is
    not loaded, about misspelt roots and skills being turned off); ``roots``
    every root that was looked at; ``disabled`` whether ``[skills] enabled``
    is false; ``below`` the ``(SKILL.md, folder)`` pairs of skill folders of
    this name below the working directory that load only when a file under
    ``folder`` is touched (see :func:`find_below`).
    """

    name: str
    entries: tuple[SkillReport, ...] = ()
    folders: tuple[SkillReport, ...] = ()
    near: tuple[str, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    roots: tuple[RootScan, ...] = ()
    disabled: bool = False
    below: tuple[tuple[Path, Path], ...] = ()

    @property
    def found(self) -> bool:
        """True when a skill file of this name was found at all."""
        return bool(self.entries)

    @property
    def available(self) -> bool:
        """True when the skill is loaded (listed, hidden or conditional)."""
        return any(e.status in ("loaded", "hidden", "conditional") for e in self.entries)

    def verdict(self) -> str:
        """One line: available, not loaded, or not found."""
        what = self.name
        if self.entries and self.entries[0].name != self.name and ":" not in self.name:
            what = f"{self.name} = the folder of skill {self.entries[0].name!r}"
        elif self.entries and self.entries[0].name != self.name:
            plugin = self.name.partition(":")[0]
            what = (
                f"{self.name} = skill {self.entries[0].name!r} of plugin {plugin!r} "
                "(skillpath does not prefix plugin skills)"
            )
        if self.available:
            winner = next(
                e for e in self.entries if e.status in ("loaded", "hidden", "conditional")
            )
            return f"{what}: {describe(winner)}"
        if self.disabled:
            return f"{self.name}: not loaded: skills are turned off ([skills] enabled = false)"
        if self.entries:
            return f"{what}: found {len(self.entries)} time(s), none loaded"
        why_not = [d for d in self.diagnostics if d.code == "not-a-skill"]
        if why_not:
            return f"{self.name}: found, but not a skill: {why_not[0].message}"
        for d in self.diagnostics:
            if d.code not in ("near-miss-root", "provider-not-installed") or d.path is None:
                continue
            if (d.path / self.name / "SKILL.md").is_file() or (
                d.path / f"{self.name}.md"
            ).is_file():
                return f"{self.name}: found in {d.path}, which no provider reads: {d.message}"
        if self.below:
            folder = self.below[0][1]
            return (
                f"{self.name}: not loaded at start; found below the working directory, it "
                f"loads when a file under {folder} is touched (discover_dirs_for_paths)"
            )
        return f"{self.name}: no skill of this name was found"

    def to_json(self) -> dict[str, Any]:
        """The JSON shape of ``skillpath explain --json`` (a documented contract)."""
        return {
            "name": self.name,
            "found": self.found,
            "available": self.available,
            "verdict": self.verdict(),
            "entries": [e.to_json() for e in self.entries],
            "folders": [e.to_json() for e in self.folders],
            "near": list(self.near),
            "diagnostics": [d.to_json() for d in self.diagnostics],
            "roots": [_root_json(r) for r in self.roots],
            "disabled": self.disabled,
            "below": [{"path": str(p), "touch": str(f)} for p, f in self.below],
        }


#: Diagnostics about roots or the whole load that explain shows for a name not loaded.
_GENERAL_CODES = frozenset({"near-miss-root", "skills-disabled", "provider-not-installed"})


def _about(d: Diagnostic, name: str, paths: Iterable[Path]) -> bool:
    if d.path is None:
        return False
    if d.code == "not-a-skill" and (
        d.path.stem == name or (d.path.name.lower() == "skill.md" and d.path.parent.name == name)
    ):
        return True
    for p in paths:
        if d.path == p or (p.name == "SKILL.md" and p.parent in (d.path, *d.path.parents)):
            return True
    if d.path.name == name or (d.path.name == "SKILL.md" and d.path.parent.name == name):
        return True
    word = rf"(?<![\w-]){re.escape(name)}(?![\w-])"
    if d.code in _NAMES_IN_MESSAGE and re.search(word, d.message) is not None:
        return True
    if d.code in _UNSCANNED_ROOT_CODES and "/" not in name and name not in ("", ".", ".."):
        # a skills root that was found but not scanned; its message quotes a few names only
        return (d.path / name / "SKILL.md").is_file()
    return False


def _plugin_spelling(report: Report, name: str) -> list[SkillReport]:
    """Entries of skill ``y`` from plugin ``x`` when ``name`` is spelled ``x:y``.

    Claude Code names plugin skills ``plugin:skill``; skillpath keeps the
    skill's own name and records the plugin in ``source.detail["plugin"]``.
    """
    plugin, sep, short = name.partition(":")
    if not sep or not plugin or not short:
        return []
    return [
        e
        for e in report.skills
        if e.name == short and e.skill is not None and e.skill.source.detail.get("plugin") == plugin
    ]


def _nested_named(
    diags: Sequence[Diagnostic], name: str, already: Sequence[Diagnostic]
) -> list[Diagnostic]:
    """The ``nested-skills-ignored`` notes about a ``SKILL.md`` whose frontmatter
    ``name`` is ``name`` (its folder name is matched by :func:`_about`).

    Those files are not loaded, so their names are known only by reading them:
    each file's head is read here, when a name is explained and found nowhere
    else; a file that cannot be read or parsed is passed over.
    """
    out: list[Diagnostic] = []
    for d in diags:
        if d.code != "nested-skills-ignored" or d.path is None or d in already:
            continue
        try:
            head, _st = read_head(d.path)
        except OSError:
            continue
        data = parse_frontmatter(head, d.path).data
        if isinstance(data, Mapping) and data.get("name") == name:
            out.append(d)
    return out


#: Directory names never searched by :func:`find_below`.
_BELOW_SKIP = frozenset({"node_modules", "__pycache__", "venv", "site-packages"})


def find_below(
    name: str, ctx: SkillContext, *, max_depth: int = 6, max_dirs: int = 4000
) -> list[tuple[Path, Path]]:
    """Skill folders called ``name`` in nested skills roots below ``ctx.cwd``.

    The roots :func:`skillpath.dynamic.discover_dirs_for_paths` would load
    (``.skillpath/skills``, ``.claude/skills``, ``.agents/skills``,
    ``.agent/skills``) in every directory strictly below cwd, breadth first,
    at most ``max_depth`` levels down and ``max_dirs`` directories in all;
    hidden, gitignored and dependency directories (``node_modules`` …) are
    not entered. Returns ``(SKILL.md, directory to touch a file under)``.
    """
    from skillpath.dynamic import NESTED_ROOTS, GitignoreMatcher

    if not name or "/" in name or name in (".", ".."):
        return []
    top = ctx.repo_root
    if top is None or not (ctx.cwd == top or top in ctx.cwd.parents):
        top = ctx.cwd
    ignored = GitignoreMatcher(top)
    found: list[tuple[Path, Path]] = []
    queue: deque[tuple[Path, int]] = deque([(ctx.cwd, 0)])
    visited = 0
    while queue and visited < max_dirs:
        folder, depth = queue.popleft()
        visited += 1
        if depth:
            for rel, *_rest in NESTED_ROOTS:
                skill_file = folder / rel / name / "SKILL.md"
                if os.path.isfile(skill_file):
                    found.append((skill_file, folder))
        if depth >= max_depth:
            continue
        try:
            with os.scandir(folder) as it:
                children = sorted(
                    e.name
                    for e in it
                    if not e.name.startswith(".")
                    and e.name not in _BELOW_SKIP
                    and e.is_dir(follow_symlinks=False)
                )
        except OSError:
            continue
        for child in children:
            path = folder / child
            if not ignored.is_ignored(path):
                queue.append((path, depth + 1))
    return found


def explain(report: Report, name: str, ctx: SkillContext | None = None) -> Explanation:
    """Everything known about ``name`` in ``report``; see :class:`Explanation`.

    A name spelled ``plugin:skill`` (Claude Code's spelling of a plugin skill)
    that matches no skill finds skill ``skill`` of plugin ``plugin``. With
    ``ctx``, a name found nowhere is also looked for in nested skills roots
    below the working directory (:func:`find_below`).
    """
    entries, folders = _entries_named(report, name)
    diags = _diagnostics_about(report, name, entries, folders)
    disabled = any(d.code == "skills-disabled" for d in report.diagnostics)
    below = find_below(name, ctx) if ctx is not None and not entries and not disabled else []
    return Explanation(
        name=name,
        entries=tuple(entries),
        folders=tuple(folders),
        near=tuple(_near_names(report, name, entries, folders)),
        diagnostics=tuple(diags),
        roots=report.roots,
        disabled=disabled,
        below=tuple(below),
    )


def _by_status(entries: list[SkillReport]) -> list[SkillReport]:
    """``entries`` in the order of :data:`STATUSES` (skipped last), higher priority first."""
    order = {s: i for i, s in enumerate(STATUSES)}
    return sorted(
        entries,
        key=lambda e: (order[e.status] if e.status != "skipped" else 9, -(e.priority or 0)),
    )


def _entries_named(report: Report, name: str) -> tuple[list[SkillReport], list[SkillReport]]:
    """The entries of ``name`` and the other skills in a folder called ``name``; when
    ``name`` is no skill's and such a folder holds one skill, the folder name is an
    alias of it and its entries are ``name``'s."""
    entries = [e for e in report.skills if e.name == name] or _plugin_spelling(report, name)
    folders = [
        e
        for e in report.skills
        if e.name != name and e.path is not None and e.path.parent.name == name
    ]
    if not entries and len({e.name for e in folders}) == 1:
        entries = [e for e in report.skills if e.name == folders[0].name]
    return _by_status(entries), folders


def _diagnostics_about(
    report: Report, name: str, entries: list[SkillReport], folders: list[SkillReport]
) -> list[Diagnostic]:
    """The diagnostics about ``name`` or its files, then (when it is not loaded) the
    general ones that can keep any skill out."""
    paths = [e.path for e in (*entries, *folders) if e.path is not None]
    diags = [d for d in report.diagnostics if _about(d, name, paths)]
    if not entries:
        diags += _nested_named(report.diagnostics, name, diags)
    if not any(e.status in ("loaded", "hidden", "conditional") for e in entries):
        diags += [d for d in report.diagnostics if d.code in _GENERAL_CODES and d not in diags]
    return diags


def _near_names(
    report: Report, name: str, entries: list[SkillReport], folders: list[SkillReport]
) -> list[str]:
    """Names ``name`` may have meant: the skills of its folder, other casings, the
    ``skill`` of ``plugin:skill``, then close spellings."""
    others = [n for n in report.names() if n != name]
    near = sorted({e.name for e in folders} - {e.name for e in entries})
    near += [n for n in others if n.casefold() == name.casefold() and n not in near]
    short = name.partition(":")[2]
    if short and short in others and short not in near:
        near.append(short)  # ``plugin:skill`` spelled for a skill of another source
    import difflib  # here: list imports this module for its footer

    near += [n for n in difflib.get_close_matches(name, others, n=5, cutoff=0.6) if n not in near]
    return near
