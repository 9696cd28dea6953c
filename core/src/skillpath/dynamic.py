"""Nested skill directories found as the agent touches files.

Providers load the skills roots of cwd and its ancestors at start. A monorepo
often has more below cwd (``packages/web/.claude/skills``); they join the
session when a file under them is touched:

- from each touched file (relative to cwd; a path outside cwd is ignored) walk
  up to cwd, *excluding* cwd itself (its roots were loaded at start), and look
  for ``.skillpath/skills``, ``.claude/skills``, ``.agents/skills`` and
  ``.agent/skills`` (the provider that owns each kind, its priority and its
  description rule apply: ``native`` 100 and description required, ``claude``
  80, ``agents`` 70);
- a directory inside a gitignored path is skipped (``.gitignore`` files from
  the repository root — or cwd outside a repository — down to the directory are
  read with pathspec, deeper files overriding shallower ones, as git does;
  ``.git`` itself is always skipped);
- roots already loaded (at start or earlier in the session) are not read
  again; each directory is examined once per session (a skills directory
  created later in an already examined directory is not noticed);
- the nearer the file, the higher the priority: the deepest roots are merged
  first, so they win a name clash among the new roots;
- new skills go through :func:`skillpath.loader.merge_results` with the
  session's skills as ``existing``: the same filters, de-duplication and
  diagnostics as at start (a clash with an already loaded skill is reported as
  ``name-conflict`` and the loaded skill stays);
- they are of the third-party tier (:mod:`skillpath.trust`): a cloned
  repository's nested folders are quarantined until approved.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path

import attrs
from pathspec import GitIgnoreSpec

from skillpath.activation import relative_to_cwd
from skillpath.context import SkillContext, unsafe_dir_reason
from skillpath.loader import merge_results
from skillpath.model import Diagnostic, DiscoveryResult, LoadResult, RootScan, Skill, SkillSource
from skillpath.plugins import PluginHost
from skillpath.safety import MAX_CONFIG_BYTES, describe_oserror, read_bounded
from skillpath.scan import scan_skills_dir

__all__ = ["NESTED_ROOTS", "GitignoreMatcher", "NestedDirs", "discover_dirs_for_paths"]

#: ``(relative root, provider, priority, description required)`` looked for in each directory.
NESTED_ROOTS: tuple[tuple[str, str, int, bool], ...] = (
    (".skillpath/skills", "native", 100, True),
    (".claude/skills", "claude", 80, False),
    (".agents/skills", "agents", 70, False),
    (".agent/skills", "agents", 70, False),
)
#: The entries of a directory those roots are read through.
_NESTED_ENTRIES = tuple(dict.fromkeys(rel.split("/", 1)[0] for rel, *_ in NESTED_ROOTS))


@attrs.define(eq=False)
class GitignoreMatcher:
    """Answers "is this directory inside a gitignored path?" below ``top``.

    ``.gitignore`` files are read once each (an unreadable one is a
    diagnostic and counts as empty).
    """

    top: Path
    diagnostics: list[Diagnostic] = attrs.field(factory=list)
    _specs: dict[Path, GitIgnoreSpec | None] = attrs.field(factory=dict)
    _ignored: dict[Path, bool] = attrs.field(factory=dict)

    def _spec(self, folder: Path) -> GitIgnoreSpec | None:
        if folder in self._specs:
            return self._specs[folder]
        spec = None
        path = folder / ".gitignore"
        try:
            text = read_bounded(path, MAX_CONFIG_BYTES).decode("utf-8", errors="replace")
        except FileNotFoundError:
            pass
        except OSError as exc:
            self.diagnostics.append(
                Diagnostic(
                    "warning", "gitignore-unreadable", f"cannot read: {describe_oserror(exc)}", path
                )
            )
        else:
            spec = GitIgnoreSpec.from_lines(text.splitlines())
        self._specs[folder] = spec
        return spec

    def _component_ignored(self, comp: Path, chain: list[Path]) -> bool:
        cached = self._ignored.get(comp)
        if cached is not None:
            return cached
        decision: bool | None = None
        for folder in chain:  # shallow to deep: the deepest decisive rule wins
            spec = self._spec(folder)
            if spec is None:
                continue
            rel = comp.relative_to(folder).as_posix() + "/"
            result = spec.check_file(rel)
            if result.include is not None:
                decision = result.include
        ignored = bool(decision)
        self._ignored[comp] = ignored
        return ignored

    def is_ignored(self, path: Path) -> bool:
        """Whether ``path`` (a directory below :attr:`top`) is, or is inside, an ignored one."""
        try:
            parts = path.relative_to(self.top).parts
        except ValueError:
            return False
        chain = [self.top]
        for i, part in enumerate(parts):
            comp = chain[-1] / part
            if part == ".git" or self._component_ignored(comp, chain[: i + 1]):
                return True
            chain.append(comp)
        return False


@attrs.define(eq=False)
class NestedDirs:
    """What a session remembers between calls: roots known, directories examined."""

    known: set[str] = attrs.field(factory=set)
    examined: set[str] = attrs.field(factory=set)
    gitignore: GitignoreMatcher | None = None
    lock: threading.Lock = attrs.field(factory=threading.Lock)

    @classmethod
    def for_roots(cls, roots: Iterable[RootScan]) -> NestedDirs:
        """State that treats every root of the initial load as known."""
        state = cls()
        for root in roots:
            state.remember(root.path)
        return state

    def remember(self, root: Path) -> None:
        """Mark ``root`` as loaded."""
        self.known.add(os.path.normpath(root))
        self.known.add(os.path.realpath(root))

    def is_known(self, root: Path) -> bool:
        """Whether ``root`` was loaded already (lexically or by real path)."""
        return os.path.normpath(root) in self.known or os.path.realpath(root) in self.known

    def matcher(self, ctx: SkillContext) -> GitignoreMatcher:
        """The gitignore matcher rooted at the repository root (or cwd)."""
        if self.gitignore is None:
            top = ctx.repo_root
            if top is None or not (ctx.cwd == top or top in ctx.cwd.parents):
                top = ctx.cwd
            self.gitignore = GitignoreMatcher(top)
        return self.gitignore


def _candidate_dirs(paths: Iterable[str | os.PathLike[str]], cwd: Path) -> list[Path]:
    """Directories strictly below ``cwd`` on the way up from each touched path."""
    out: dict[Path, None] = {}
    for raw in paths:
        rel = relative_to_cwd(raw, cwd)
        if rel is None:
            continue
        parts = [p for p in rel.rstrip("/").split("/") if p]
        if not rel.endswith("/"):
            parts = parts[:-1]  # a file: start from its directory
        while parts:
            out.setdefault(cwd.joinpath(*parts), None)
            parts = parts[:-1]
    return list(out)


def discover_dirs_for_paths(
    paths: Iterable[str | os.PathLike[str]],
    ctx: SkillContext,
    host: PluginHost,
    *,
    state: NestedDirs | None = None,
    existing: Iterable[Skill] = (),
) -> LoadResult:
    """Find nested skills roots for ``paths`` and merge their skills.

    :param paths: touched files (relative to ``ctx.cwd``, or absolute).
    :param ctx: the session's context (cwd, repository root, settings).
    :param host: the plugin host whose filters apply.
    :param state: what earlier calls found (updated); build it with
        :meth:`NestedDirs.for_roots` from the initial load's roots, so those
        roots are not loaded twice.
    :param existing: skills already in the session (active and pending); they
        win every clash.
    :returns: a :class:`LoadResult` holding only the new skills (active and
        conditional), their shadowed and skipped ones, diagnostics and the new
        roots.
    """
    if state is None:
        state = NestedDirs()
    with state.lock:
        found: list[tuple[int, int, Path, str, int, bool]] = []
        gi = state.matcher(ctx)
        for folder in _candidate_dirs(paths, ctx.cwd):
            key = os.fspath(folder)
            if key in state.examined:
                continue
            state.examined.add(key)
            if unsafe_dir_reason(folder, _NESTED_ENTRIES) is not None:
                continue  # other users could have planted its skills
            for order, (rel, provider, priority, require) in enumerate(NESTED_ROOTS):
                root = folder / rel
                if state.is_known(root) or not os.path.isdir(root):
                    continue
                if gi.is_ignored(root):
                    state.remember(root)
                    continue
                depth = len(folder.relative_to(ctx.cwd).parts)
                found.append((-depth, order, root, provider, priority, require))
                state.remember(root)
        diags = list(gi.diagnostics)
        gi.diagnostics.clear()
    found.sort(key=lambda t: (t[0], t[1], os.fspath(t[2])))
    results = []
    for _, _, root, provider, priority, require in found:
        source = SkillSource(provider, "project", root, "disk", {"nested": True})
        res = scan_skills_dir(root, source, priority=priority, require_description=require)
        results.append(
            DiscoveryResult(provider, priority, res.skills, res.diagnostics, (res.root,))
        )
    merged = (
        merge_results(results, ctx, host, existing=tuple(existing)) if results else LoadResult()
    )
    if results:
        from skillpath.trust import apply_trust

        merged = apply_trust(merged, ctx)
    if diags:
        merged = attrs.evolve(merged, diagnostics=tuple(diags) + merged.diagnostics)
    return merged
