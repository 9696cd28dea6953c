"""``load_skills()``: the discovery pipeline.

1. ``skills.enabled = false`` → an empty result.
2. Pass 1: every provider's ``discover_skills`` result except late ones
   (managed), in priority order.
3. Pass 2: the ``SKILLPATH`` environment variable's directories (level ``user``),
   then ``skills.custom_directories`` (both with glob patterns expanded by
   :func:`expand_directory_entries`; one level deep, description required,
   provider ``custom``, no source toggle; level ``project`` when the project's
   config set them, ``user`` when the user config or arguments did).
4. Pass 3: late results — installed skill packs, the skills installed libraries
   ship, then managed skills — so any hand-written skill wins over a package's or
   an auto-learned one.

Each candidate goes through the ``filter_skill`` veto chain, then the same file
reached twice (by ``(st_dev, st_ino)``, i.e. realpath-safe) loads once, then the
first skill of a name wins; every loser is kept in ``shadowed`` with a
diagnostic naming both files. Output is sorted by name (case-insensitive, then
exact, then path). Last, :func:`skillpath.trust.apply_trust` judges each skill by
its source's trust tier: quarantined or blocked skills move to ``skipped``.

During the load a persistent discovery index (:mod:`skillpath.index`) is current,
so every provider's ``scan_skills_dir`` reads only what changed since the last
load (``[index] enabled = false`` or ``SKILLPATH_NO_INDEX=1`` turn it off). The
garbage collector is left as the host process set it (the command line pauses
it around its one load).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from skillpath import _env
from skillpath.cache import reuse as _reuse
from skillpath.cache.index import activate as activate_index
from skillpath.cache.index import open_index
from skillpath.context import SkillContext, make_context
from skillpath.filters import filter_skill
from skillpath.model import (
    Diagnostic,
    DiscoveryResult,
    LoadResult,
    RootScan,
    Shadowed,
    Skill,
    SkillSource,
    Skipped,
    sort_key,
)
from skillpath.plugins import FilterEntry, PluginHost, argument_only, get_plugin_host
from skillpath.scan import scan_skills_dir
from skillpath.trust import apply_trust

__all__ = [
    "BUILTIN_ORDER",
    "CUSTOM_PRIORITY",
    "expand_directory_entries",
    "load_skills",
    "merge_results",
    "order_results",
    "skillpath_entries",
]

#: Tie order for providers of equal priority.
BUILTIN_ORDER = (
    "native",
    "bundled",
    "claude",
    "claude-plugins",
    "agents",
    "codex",
    "opencode",
    "github",
    "mcp",
    "packs",
    "libraries",
    "managed",
)
#: The built-in providers that are distributions of their own (all but the core's
#: ``bundled``): :data:`skillpath.known.KNOWN_PROVIDERS` has a row for each.
_BUILTIN_PROVIDERS = frozenset(BUILTIN_ORDER) - {"bundled"}
#: Priority recorded on custom-directory skills (they merge in pass 2).
CUSTOM_PRIORITY = 0


def order_results(results: Iterable[DiscoveryResult]) -> list[DiscoveryResult]:
    """Sort provider results: priority (high first), then the fixed tie order, then id."""

    def key(r: DiscoveryResult) -> tuple[int, int, str]:
        tie = BUILTIN_ORDER.index(r.provider) if r.provider in BUILTIN_ORDER else len(BUILTIN_ORDER)
        return (-r.priority, tie, r.provider)

    return sorted(results, key=key)


def skillpath_entries(ctx: SkillContext) -> tuple[list[Path], list[Diagnostic]]:
    """The directories named by the ``SKILLPATH`` environment variable, in order.

    ``SKILLPATH`` is a list of extra skills roots separated by ``os.pathsep``, as
    ``PYTHONPATH`` is for modules: ``~`` expands against ``ctx.home``. A relative
    entry is taken against ``ctx.home``, never the working directory (where every
    repository's own ``skills/`` would load at level ``user``), with a
    ``skillpath-relative-entry`` warning naming it. An empty entry is ignored with a
    ``skillpath-empty-entry`` diagnostic (unlike ``PYTHONPATH``, it does not mean the
    working directory); a missing or non-directory entry is kept (its root shows as
    not existing) and reported as ``skillpath-missing-entry``.
    """
    raw = ctx.env.get("SKILLPATH")
    if raw is None or raw == "":
        return [], []
    out: list[Path] = []
    diags: list[Diagnostic] = []
    for position, entry in enumerate(raw.split(os.pathsep), 1):
        if not entry.strip():
            diags.append(
                Diagnostic(
                    "warning",
                    "skillpath-empty-entry",
                    f"SKILLPATH entry {position} is empty and is ignored "
                    f"(entries are separated by {os.pathsep!r})",
                    None,
                    None,
                    "custom",
                )
            )
            continue
        if entry == "~" or entry.startswith("~/"):
            path = ctx.home / entry[2:] if len(entry) > 1 else ctx.home
        else:
            path = Path(entry)
            if not path.is_absolute():
                path = ctx.home / path
                diags.append(
                    _relative_warning(
                        "skillpath-relative-entry", f"SKILLPATH entry {position} ({entry!r})", path
                    )
                )
        if not _GLOB_CHARS.isdisjoint(entry):
            found, pdiags = expand_directory_entries([os.fspath(path)], ctx)
            out.extend(found)
            diags.extend(
                attrs.evolve(d, message=f"SKILLPATH entry {position}: {d.message}") for d in pdiags
            )
            continue
        if not os.path.isdir(path):
            what = "does not exist" if not os.path.lexists(path) else "is not a directory"
            diags.append(
                Diagnostic(
                    "warning",
                    "skillpath-missing-entry",
                    f"SKILLPATH entry {position} ({entry!r}) {what}",
                    path,
                    None,
                    "custom",
                )
            )
        out.append(path)
    return out, diags


def _relative_warning(code: str, what: str, path: Path) -> Diagnostic:
    return Diagnostic(
        "warning",
        code,
        f"{what} is a relative path: taken against your home, as {path}, not against "
        "the current folder (write it absolute or with ~/ to silence this)",
        path,
        None,
        "custom",
    )


def _user_relative(entries: list[str], ctx: SkillContext) -> tuple[list[str], list[Diagnostic]]:
    """The user's ``custom_directories`` with relative entries made absolute against
    ``ctx.home`` (each with a ``custom-directory-relative`` warning): a relative entry
    in the user's config must not mean a folder of whichever repository is current."""
    out: list[str] = []
    diags: list[Diagnostic] = []
    for raw in entries:
        if raw == "~" or raw.startswith("~/") or os.path.isabs(raw):
            out.append(raw)
            continue
        path = ctx.home / raw
        out.append(os.fspath(path))
        diags.append(
            _relative_warning(
                "custom-directory-relative", f"[skills] custom_directories entry {raw!r}", path
            )
        )
    return out, diags


def _custom_results(ctx: SkillContext) -> DiscoveryResult:
    """Pass 2: the ``SKILLPATH`` directories, then ``[skills] custom_directories``.

    ``SKILLPATH`` comes from the user's environment, so its skills are user-level;
    directories named by the project's own config hold project skills (the shell
    policy and the toggles treat them so), whatever path they point to.
    """
    skills: list[Skill] = []
    roots: list[RootScan] = []
    env_roots, diags = skillpath_entries(ctx)
    from_project = ctx.settings.origin("skills", "custom_directories") == "project"
    entries: list[tuple[Path, str, str]] = [(root, "user", "SKILLPATH") for root in env_roots]
    level = "project" if from_project else "user"
    named = list(ctx.settings.skills["custom_directories"])
    if ctx.settings.origin("skills", "custom_directories") == "user":
        # the user's own config: relative means against home, not the current repository
        named, rdiags = _user_relative(named, ctx)
        diags.extend(rdiags)
    roots_found, edias = expand_directory_entries(named, ctx)
    diags.extend(edias)
    entries.extend((root, level, "custom_directories") for root in roots_found)
    seen: set[str] = set()
    for root, root_level, via in entries:
        key = os.path.normpath(os.fspath(root))
        if key in seen:  # a directory named twice is scanned once, at its first place
            continue
        seen.add(key)
        res = scan_skills_dir(
            root,
            SkillSource("custom", root_level, root, detail={"via": via}),
            priority=CUSTOM_PRIORITY,
            require_description=True,
        )
        skills.extend(res.skills)
        diags.extend(res.diagnostics)
        roots.append(attrs.evolve(res.root, via=via))
    return DiscoveryResult("custom", CUSTOM_PRIORITY, tuple(skills), tuple(diags), tuple(roots))


def _missing_providers(ctx: SkillContext) -> list[Diagnostic]:
    """Hints for the folders of built-in providers not installed (:mod:`skillpath.known`)."""
    from skillpath.plugins import ENTRY_POINT_GROUP, entry_points

    installed = {ep.name for ep in entry_points(ENTRY_POINT_GROUP, ctx.env)}
    if installed.issuperset(_BUILTIN_PROVIDERS):
        return []  # every one installed: nothing to hint at (and no table to import)
    from skillpath.known import missing_provider_diagnostics

    packs = (
        [ep.name for ep in entry_points(ENTRY_POINT_GROUP + ".packs", ctx.env)]
        if "packs" not in installed
        else []
    )
    return missing_provider_diagnostics(ctx, installed, packs)


_GLOB_CHARS = frozenset("*?[")


def expand_directory_entries(
    entries: Iterable[str], ctx: SkillContext
) -> tuple[list[Path], list[Diagnostic]]:
    """The skills roots named by directory entries (``custom_directories``, ``SKILLPATH``).

    Each entry is expanded by :meth:`SkillContext.expand` (``~``, relative to
    the project root). An entry holding a glob pattern (``*``, ``?``, ``[…]``;
    ``**`` matches any number of folders) stands for every existing directory
    it matches, in sorted order: ``"~/src/claude-skills/plugins/*/skills"``
    makes each plugin's ``skills`` folder a root. As in a shell, ``*`` does not
    match names starting with ``.``. A pattern that matches no directory gets
    an info diagnostic; a plain entry is kept as is (a missing root is silent).
    A directory reached by two entries is scanned once, at its first place.
    """
    out: list[Path] = []
    diags: list[Diagnostic] = []
    seen: set[str] = set()
    for raw in entries:
        path = ctx.expand(raw)
        text = os.fspath(path)
        if _GLOB_CHARS.isdisjoint(text):
            matches = [path]
        else:
            import glob as _glob  # only for entries that hold a pattern

            matches = [
                Path(m) for m in sorted(_glob.glob(text, recursive=True)) if os.path.isdir(m)
            ]
            if not matches:
                diags.append(
                    Diagnostic(
                        "info",
                        "pattern-no-match",
                        f"directory pattern {raw!r} matches no directory",
                        path,
                        None,
                        "custom",
                    )
                )
        for m in matches:
            key = os.path.normpath(os.fspath(m))
            if key in seen:
                continue
            seen.add(key)
            out.append(m)
    return out, diags


_NESTED_CODES = frozenset({"nested-skills-ignored", "nested-skills-group"})


def _fix_of(d: Diagnostic) -> str:
    return d.message.rpartition("; fix: ")[2]


def _drop_found_elsewhere(diags: list[Diagnostic], found: set[Path]) -> list[Diagnostic]:
    """Drop the nested-skill notes of one root about files another root loaded.

    A ``SKILL.md`` two levels below ``.claude/skills`` that a
    ``custom_directories`` pattern loads is accounted for by that load; the
    note of its group goes when none of the group's files is left.
    """
    if not found or not any(d.code in _NESTED_CODES for d in diags):
        return diags
    kept = [d for d in diags if not (d.code == "nested-skills-ignored" and d.path in found)]
    open_fixes = {_fix_of(d) for d in kept if d.code == "nested-skills-ignored"}
    return [d for d in kept if d.code != "nested-skills-group" or _fix_of(d) in open_fixes]


def _describe(skill: Skill) -> str:
    where = str(skill.path) if skill.path is not None else f"<{skill.source.loaded_from}>"
    return f"{skill.source.provider}/{skill.source.level} {where}"


@attrs.define(eq=False)
class _Merger:
    host: PluginHost
    ctx: SkillContext
    by_name: dict[str, Skill] = attrs.field(factory=dict)
    by_file: dict[tuple[int, int], Skill] = attrs.field(factory=dict)
    shadowed: list[Shadowed] = attrs.field(factory=list)
    skipped: list[Skipped] = attrs.field(factory=list)
    diags: list[Diagnostic] = attrs.field(factory=list)
    # plugins whose failing filter was already reported during this merge
    failed_filters: set[str] = attrs.field(factory=set)
    # what the export locks record (read at the first name clash)
    exports: dict[str, Any] | None = None
    # the skills each level's install lock names (read at its first name clash)
    installs: dict[str, frozenset[str]] = attrs.field(factory=dict)
    # the filter chain of this merge's context (PluginHost.filter_chain); None: all
    chain: list[FilterEntry] | None = None

    def _installed(self, copy: Skill, other: Skill) -> bool:
        """Whether ``copy`` and ``other`` are two folders of one ``skillpath add`` (or
        ``npx skills add``): its lock names the skill and both hold the same files."""
        if copy.level not in self.installs:
            from skillpath.locks import install_lock_names

            try:
                self.installs[copy.level] = install_lock_names(self.ctx, copy.level)
            except Exception:  # noqa: BLE001 - a bad lock must not break the load
                self.installs[copy.level] = frozenset()
        if copy.name not in self.installs[copy.level]:
            return False  # not in the lock: the export module is not loaded for it
        from skillpath.export import is_installed_copy

        return is_installed_copy(copy, other, self.installs[copy.level])

    def _exported(self, copy: Skill, source: Skill) -> bool:
        """Whether ``copy`` is the folder ``skillpath export`` wrote from ``source``
        (the locks are read at the first name clash of the merge, once)."""
        if self.exports is None:
            from skillpath.locks import export_records

            try:
                self.exports = export_records(self.ctx)
            except Exception:  # noqa: BLE001 - a bad lock must not break the load
                self.exports = {}
        if copy.name not in self.exports:
            return False
        from skillpath.export import is_exported_copy

        return is_exported_copy(copy, source, self.exports)

    def vetoed(self, skill: Skill) -> bool:
        """Run the filter chain on ``skill``; a vetoed one goes to ``skipped``."""
        if self.chain is not None and not self.chain:
            return False  # no filter to run under this context
        verdict = self.host.filter(
            skill, self.ctx, self.diags, reported=self.failed_filters, chain=self.chain
        )
        if verdict is None:
            return False
        self.skipped.append(Skipped(skill, verdict[0], verdict[1]))
        return True

    def place(self, skill: Skill) -> bool:
        """Keep ``skill`` (which passed the filters) unless an earlier skill has its
        file or its name; a loser is recorded in ``shadowed``."""
        if skill.file_id is not None:
            first = self.by_file.get(skill.file_id)
            if first is not None:
                self.shadowed.append(Shadowed(skill, first, "duplicate-file"))
                self.diags.append(
                    Diagnostic(
                        "info",
                        "duplicate-file",
                        f"same file already loaded as {first.name!r} from {_describe(first)}",
                        skill.path,
                        None,
                        skill.source.provider,
                    )
                )
                return False
        winner = self.by_name.get(skill.name)
        if winner is not None:
            self.shadowed.append(Shadowed(skill, winner, "name"))
            if self._exported(winner, skill) or self._exported(skill, winner):
                # the copy `skillpath export` wrote of this very skill: one skill, two places
                self.diags.append(
                    Diagnostic(
                        "info",
                        "exported-copy",
                        f"skill {skill.name!r} from {_describe(skill)} is served by its "
                        f"exported copy {_describe(winner)}",
                        skill.path,
                        None,
                        skill.source.provider,
                    )
                )
                return False
            if self._installed(winner, skill):
                # one install, in two agents' folders
                self.diags.append(
                    Diagnostic(
                        "info",
                        "installed-copy",
                        f"skill {skill.name!r} from {_describe(skill)} is installed in "
                        f"{_describe(winner)} too (the lock's one skill)",
                        skill.path,
                        None,
                        skill.source.provider,
                    )
                )
                return False
            self.diags.append(
                Diagnostic(
                    "warning",
                    "name-conflict",
                    f"skill {skill.name!r} from {_describe(skill)} is shadowed by "
                    f"{_describe(winner)}",
                    skill.path,
                    None,
                    skill.source.provider,
                )
            )
            return False
        self.by_name[skill.name] = skill
        if skill.file_id is not None:
            self.by_file[skill.file_id] = skill
        return True


def merge_results(
    results: Iterable[DiscoveryResult],
    ctx: SkillContext,
    host: PluginHost,
    *,
    existing: Iterable[Skill] = (),
) -> LoadResult:
    """Run filters and de-duplication over ordered results (the pipeline's core).

    ``results`` must already be in pass order. ``existing`` skills are treated as
    already loaded (they win every clash), which is how skills found later in a
    session join the same rules.
    """
    chain = host.filter_chain(ctx)
    merger = _Merger(host, ctx, chain=chain)
    by_name, by_file = merger.by_name, merger.by_file
    for skill in existing:
        by_name[skill.name] = skill
        if skill.file_id is not None:
            by_file[skill.file_id] = skill
    diags: list[Diagnostic] = []
    roots: list[RootScan] = []
    inputs: set[Path] = set()
    offered: list[Skill] = []
    vetoed, place = merger.vetoed, merger.place
    for result in results:
        diags.extend(result.diagnostics)
        roots.extend(result.roots)
        inputs.update(result.inputs)
        offered.extend(result.skills)
        for skill in result.skills:
            if chain and vetoed(skill):
                continue
            # the usual skill, a new file of a new name: kept here (place() does the rest)
            file_id = skill.file_id
            name = skill.name
            if name in by_name or (file_id is not None and file_id in by_file):
                place(skill)
                continue
            by_name[name] = skill
            if file_id is not None:
                by_file[file_id] = skill
    if any(d.code in _NESTED_CODES for d in diags):
        # the paths are hashed only when a nested-skill note may have to go
        found = {s.path for s in offered if s.path is not None}
        diags = _drop_found_elsewhere(diags, found)
    existing_names = {s.name for s in existing}
    kept = [s for n, s in merger.by_name.items() if n not in existing_names]
    active = sorted((s for s in kept if not s.conditional), key=sort_key)
    conditional = sorted((s for s in kept if s.conditional), key=sort_key)
    return LoadResult(
        skills=tuple(active),
        conditional=tuple(conditional),
        shadowed=tuple(merger.shadowed),
        skipped=tuple(merger.skipped),
        diagnostics=tuple(diags + merger.diags),
        roots=tuple(roots),
        inputs=tuple(sorted(inputs)),
    )


def _findings_kept(cold: bool, ctx: SkillContext) -> contextlib.AbstractContextManager[None]:
    """Without the discovery index (whose records keep them), the content findings of
    the ``SKILL.md`` files the load reads are kept by ``stat`` in the findings store."""
    if not cold or _env.flag(ctx.env, "SKILLPATH_NO_CONTENT_CHECKS"):
        return contextlib.nullcontext()
    from skillpath.findings import load_store

    return load_store(ctx.env, ctx.home)


def load_skills(
    cwd: str | os.PathLike[str] | None = None,
    *,
    home: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    settings: Mapping[str, Any] | None = None,
    host: PluginHost | None = None,
    ctx: SkillContext | None = None,
) -> LoadResult:
    """Discover, filter and de-duplicate every skill visible from ``cwd``.

    :param cwd: the working directory (default: the process's).
    :param home: the home directory (default: ``Path.home()``).
    :param env: the environment (default: ``os.environ``).
    :param settings: overrides applied on top of the config files, as
        ``{"skills": {"include": [...]}}`` or ``{"skills.include": [...]}``.
    :param host: the plugin host (default: the process-wide one).
    :param ctx: a ready context (then ``cwd``/``home``/``env``/``settings`` are ignored).
    :returns: a :class:`LoadResult`; problems are diagnostics, never exceptions
        (unless strict mode is on).
    """
    diags: list[Diagnostic] = []
    if ctx is None:
        ctx, sdiags = make_context(cwd, home=home, env=env, settings=settings, host=host)
        diags.extend(sdiags)
    if host is None:
        host = get_plugin_host(
            ctx.env,
            blocked=ctx.settings.get("plugins", "blocked", ()),
            strict=True if ctx.settings.get("plugins", "strict") else None,
        )
    diags.extend(host.diagnostics)
    if not ctx.settings.skills["enabled"]:
        diags.append(
            Diagnostic("info", "skills-disabled", "skills.enabled is false; nothing loaded")
        )
        return LoadResult(diagnostics=tuple(diags))
    index = open_index(ctx)
    reuse = index is not None and index.reuse
    with activate_index(index), _findings_kept(index is None, ctx):
        results, hdiags = host.discover(ctx)
        custom = _custom_results(ctx)
        missing = _missing_providers(ctx)  # the entry points as the providers saw them
    if index is not None:
        index.flush()
        index = None  # its records are not needed past this point
    diags.extend(hdiags)
    diags.extend(missing)
    ordered = order_results(results)
    passes = [r for r in ordered if not r.late]
    passes.append(custom)
    passes.extend(r for r in ordered if r.late)
    # the same results, settings and core filter as the last load: the same merge
    key = _reuse.merge_key(ctx, host, filter_skill, argument_only) if reuse else None
    merged = None
    if key is not None:
        merged = _reuse.merged(key, host, ctx, passes, _drop_found_elsewhere)
    if merged is None:
        merged = merge_results(passes, ctx, host)
        if key is not None:
            _reuse.keep_merged(
                key,
                host,
                _reuse.merge_state(key, ctx, host),
                passes,
                merged,
                _drop_found_elsewhere,
            )
    # trust tiers and quarantine (skillpath.trust): after the merge, so a reused merge
    # is judged against the approvals as they are now
    merged = apply_trust(merged, ctx, keep=reuse)
    return attrs.evolve(merged, diagnostics=tuple(diags) + merged.diagnostics)
