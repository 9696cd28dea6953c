"""Conditional skills: ``paths`` frontmatter, matched gitignore-style against touched files.

A skill whose frontmatter has ``paths`` (a list, or a comma-separated string)
is held back at load time (``LoadResult.conditional``) and becomes active the
first time the agent touches a matching file. Rules (as in Claude Code):

- patterns use gitignore semantics (:class:`pathspec.GitIgnoreSpec`): ``*.py``
  matches at any depth, ``/build`` only at the top, ``docs/`` a directory and
  everything below it, ``!pattern`` re-excludes;
- a trailing ``/**`` is dropped (``src/**`` ≡ ``src``); empty patterns are
  ignored; patterns that are all ``**`` make the skill unconditional (it is
  active from the start);
- touched paths are relative to the session's cwd; absolute paths inside cwd
  are made relative; a path outside cwd (or cwd itself) never matches;
- once active a skill stays active.

:class:`PathActivator` compiles every pattern once. Patterns shared by many
skills are compiled and tested once; one combined spec of all positive
patterns rejects a path that matches nothing in a single pass; a skill is
dropped from matching as soon as it is active.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path

import attrs
from pathspec import GitIgnoreSpec

from skillweave.model import Skill, sort_key

__all__ = ["PathActivator", "normalize_patterns", "relative_to_cwd"]


def normalize_patterns(patterns: Iterable[str]) -> tuple[str, ...] | None:
    """The patterns as matched, or ``None`` when they make a skill unconditional.

    A trailing ``/**`` is dropped and empty patterns are removed; no pattern
    left, or only ``**``, means unconditional.
    """
    out: list[str] = []
    for raw in patterns:
        pat = raw.strip()
        if pat.endswith("/**"):
            pat = pat[:-3]
        if pat:
            out.append(pat)
    if not out or all(p == "**" for p in out):
        return None
    return tuple(out)


def _inside(path: str, base: str) -> str | None:
    rel = os.path.relpath(path, base)
    if rel == "." or rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel):
        return None
    return rel


def relative_to_cwd(path: str | os.PathLike[str], cwd: str | os.PathLike[str]) -> str | None:
    """``path`` relative to ``cwd`` in ``/`` form, or ``None`` when it is not below ``cwd``.

    Relative paths are taken relative to ``cwd``; ``..`` is resolved lexically
    first, then (for a path that seems outside) through real paths, so a
    symlinked spelling of cwd still counts as inside.
    """
    raw = os.fspath(path)
    if not raw:
        return None
    base = os.fspath(cwd)
    trailing = raw.endswith(("/", os.sep))
    full = os.path.normpath(raw if os.path.isabs(raw) else os.path.join(base, raw))
    rel = _inside(full, os.path.normpath(base))
    if rel is None:
        rel = _inside(os.path.realpath(full), os.path.realpath(base))
    if rel is None:
        return None
    rel = rel.replace(os.sep, "/")
    return rel + "/" if trailing else rel


@attrs.define(eq=False)
class PathActivator:
    """The pending conditional skills of a session, compiled for matching.

    Thread-safe. :meth:`add` takes more conditional skills (for example from
    nested skill directories); :meth:`match` returns the skills that a batch
    of touched paths activates, and forgets them.
    """

    _pending: dict[str, Skill] = attrs.field(factory=dict)
    _compiled: dict[str, GitIgnoreSpec] = attrs.field(factory=dict)
    _by_pattern: dict[str, set[str]] = attrs.field(factory=dict)
    _negated: dict[str, GitIgnoreSpec] = attrs.field(factory=dict)
    _combined: GitIgnoreSpec | None = None
    _dirty: bool = False
    _lock: threading.Lock = attrs.field(factory=threading.Lock)

    @classmethod
    def of(cls, skills: Iterable[Skill]) -> PathActivator:
        """An activator holding ``skills`` (the unconditional ones are ignored)."""
        act = cls()
        act.add(skills)
        return act

    def _spec(self, pattern: str) -> GitIgnoreSpec:
        spec = self._compiled.get(pattern)
        if spec is None:
            spec = GitIgnoreSpec.from_lines([pattern])
            self._compiled[pattern] = spec
        return spec

    def add(self, skills: Iterable[Skill]) -> list[Skill]:
        """Hold back ``skills`` until a matching path; returns those taken.

        Skills without conditional ``paths`` and names already pending are skipped.
        """
        taken: list[Skill] = []
        with self._lock:
            for skill in skills:
                pats = normalize_patterns(skill.frontmatter.paths)
                if pats is None or skill.name in self._pending:
                    continue
                self._pending[skill.name] = skill
                taken.append(skill)
                if any(p.startswith("!") for p in pats):
                    self._negated[skill.name] = GitIgnoreSpec.from_lines(pats)
                    continue
                for pat in pats:
                    self._spec(pat)
                    self._by_pattern.setdefault(pat, set()).add(skill.name)
                self._dirty = True
        return taken

    @property
    def pending(self) -> tuple[Skill, ...]:
        """The skills still waiting for a matching path, sorted by name."""
        with self._lock:
            return tuple(sorted(self._pending.values(), key=sort_key))

    def __len__(self) -> int:
        return len(self._pending)

    def _rebuild(self) -> None:
        live = [p for p, names in self._by_pattern.items() if names]
        self._combined = GitIgnoreSpec.from_lines(sorted(live)) if live else None
        self._dirty = False

    def match(self, paths: Iterable[str | os.PathLike[str]], cwd: Path | str) -> list[Skill]:
        """Activate every pending skill one of ``paths`` matches; return them, sorted.

        Each returned skill is no longer pending (it stays active for good).
        """
        rels = [r for r in (relative_to_cwd(p, cwd) for p in paths) if r is not None]
        hit: set[str] = set()
        with self._lock:
            if not self._pending or not rels:
                return []
            if self._dirty:
                self._rebuild()
            for rel in rels:
                new: set[str] = set()
                if self._combined is not None and self._combined.match_file(rel):
                    for pat, names in self._by_pattern.items():
                        if self._compiled[pat].match_file(rel):
                            new.update(names)
                for name, spec in self._negated.items():
                    if spec.match_file(rel):
                        new.add(name)
                if new:
                    hit.update(new)
                    for name in new:
                        self._negated.pop(name, None)
                    for names in self._by_pattern.values():
                        names.difference_update(new)
                    self._by_pattern = {p: n for p, n in self._by_pattern.items() if n}
                    self._rebuild()
                if not self._by_pattern and not self._negated:
                    break
            out = [self._pending.pop(n) for n in hit]
        return sorted(out, key=sort_key)
