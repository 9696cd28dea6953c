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

:class:`PathActivator` compiles each distinct pattern once, on first use
(patterns shared by many skills are tested once); every pattern is indexed by
a necessary condition (a literal path component or a file extension), so a
touched path is tested only against the patterns that can match it; a skill
leaves matching as soon as it is active.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from skillpath.model import Skill, normalize_patterns, sort_key

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

__all__ = ["PathActivator", "normalize_patterns", "relative_to_cwd"]


def _gitignore_spec(lines: Iterable[str]) -> GitIgnoreSpec:
    # pathspec is imported on first use: listing a catalog that holds
    # conditional skills only asks whether they are conditional
    from pathspec import GitIgnoreSpec

    return GitIgnoreSpec.from_lines(lines)


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


_GLOB = frozenset("*?[\\")


def _is_literal(segment: str) -> bool:
    return bool(segment) and not (_GLOB & set(segment)) and segment != "**"


def _index_keys(pattern: str) -> tuple[str, str] | None:
    """A necessary condition for ``pattern`` to match, as an index key.

    ``("c", seg)``: some path component must equal ``seg`` (a literal segment of
    the pattern); ``("e", ext)``: some component must have extension ``ext``
    (a last segment ``*.<literal>``). ``None``: no cheap condition.
    """
    segments = [s for s in pattern.strip("/").split("/") if s]
    literals = [s for s in segments if _is_literal(s)]
    if literals:
        return ("c", max(literals, key=len))
    last = segments[-1] if segments else ""
    if last.startswith("*.") and _is_literal(last[2:]):
        return ("e", last.rsplit(".", 1)[1])
    return None


def _path_keys(rel: str) -> set[tuple[str, str]]:
    keys: set[tuple[str, str]] = set()
    for comp in rel.split("/"):
        if not comp:
            continue
        keys.add(("c", comp))
        if "." in comp:
            keys.add(("e", comp.rsplit(".", 1)[1]))
    return keys


@attrs.define(eq=False)
class PathActivator:
    """The pending conditional skills of a session, compiled for matching.

    Thread-safe. :meth:`add` takes more conditional skills (for example from
    nested skill directories); :meth:`match` returns the skills that a batch
    of touched paths activates, and forgets them.

    Each distinct pattern is indexed by a necessary condition (a literal path
    component, or a file extension), so a touched path is only tested against
    the few patterns that can match it; patterns are compiled on first test.
    Skills whose patterns include a negation (``!…``) are matched as a whole
    with their own :class:`~pathspec.GitIgnoreSpec`.
    """

    _pending: dict[str, Skill] = attrs.field(factory=dict)
    _compiled: dict[str, GitIgnoreSpec] = attrs.field(factory=dict)
    _by_pattern: dict[str, set[str]] = attrs.field(factory=dict)
    _index: dict[tuple[str, str], set[str]] = attrs.field(factory=dict)
    _unindexed: set[str] = attrs.field(factory=set)
    _negated: dict[str, GitIgnoreSpec] = attrs.field(factory=dict)
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
            spec = _gitignore_spec([pattern])
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
                    self._negated[skill.name] = _gitignore_spec(pats)
                    continue
                for pat in pats:
                    names = self._by_pattern.get(pat)
                    if names is None:
                        names = self._by_pattern[pat] = set()
                        key = _index_keys(pat)
                        if key is None:
                            self._unindexed.add(pat)
                        else:
                            self._index.setdefault(key, set()).add(pat)
                    names.add(skill.name)
        return taken

    @property
    def pending(self) -> tuple[Skill, ...]:
        """The skills still waiting for a matching path, sorted by name."""
        with self._lock:
            return tuple(sorted(self._pending.values(), key=sort_key))

    def __len__(self) -> int:
        return len(self._pending)

    def holds_exactly(self, skills: Sequence[Skill]) -> bool:
        """Whether the skills still waiting are exactly ``skills`` (the very objects, in
        any order): no sort, one look-up each."""
        with self._lock:
            pending = self._pending
            if len(skills) != len(pending):
                return False
            return all(pending.get(s.name) is s for s in skills)

    def _drop_pattern(self, pat: str) -> None:
        del self._by_pattern[pat]
        key = _index_keys(pat)
        if key is None:
            self._unindexed.discard(pat)
            return
        bucket = self._index.get(key)
        if bucket is not None:
            bucket.discard(pat)
            if not bucket:
                del self._index[key]

    def match(self, paths: Iterable[str | os.PathLike[str]], cwd: Path | str) -> list[Skill]:
        """Activate every pending skill one of ``paths`` matches; return them, sorted.

        Each returned skill is no longer pending (it stays active for good).
        """
        rels = [r for r in (relative_to_cwd(p, cwd) for p in paths) if r is not None]
        hit: set[str] = set()
        with self._lock:
            for rel in rels:
                if not self._pending:
                    break
                candidates = set(self._unindexed)
                for key in _path_keys(rel):
                    bucket = self._index.get(key)
                    if bucket:
                        candidates.update(bucket)
                new: set[str] = set()
                for pat in candidates:
                    if self._spec(pat).match_file(rel):
                        new.update(self._by_pattern[pat])
                for name, spec in self._negated.items():
                    if spec.match_file(rel):
                        new.add(name)
                if not new:
                    continue
                hit.update(new)
                for name in new:
                    self._negated.pop(name, None)
                for pat in [p for p, n in self._by_pattern.items() if n & new]:
                    self._by_pattern[pat].difference_update(new)
                    if not self._by_pattern[pat]:
                        self._drop_pattern(pat)
            out = [self._pending.pop(n) for n in hit]
        return sorted(out, key=sort_key)
