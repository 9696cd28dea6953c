"""``skillpath doctor`` and ``skillpath explain <name>``: every decision, with its reason."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import click

from skillpath.cli._agentview import agent_option
from skillpath.cli._common import (
    common_options,
    diagnostic_line,
    display_width,
    echo,
    echo_table,
    emit_json,
    fail,
    refresh_option,
    table,
    terminal_safe,
    terminal_width,
    wrap,
)
from skillpath.cli._load import host_for, load
from skillpath.cli.completion import complete_skill_names
from skillpath.context import SkillContext
from skillpath.doctor import (
    SkillReport,
    build_report,
    describe,
    explain,
    remote_listings,
    shadow_reason,
)
from skillpath.model import Diagnostic, LoadResult, RootScan, Skill

if TYPE_CHECKING:
    from skillpath.search import SearchExplanation
    from skillpath.views import Difference

__all__ = ["doctor_cmd", "explain_cmd", "short_path"]


def _ranking(
    result: LoadResult, ctx: SkillContext, name: str, query: str
) -> SearchExplanation | None:
    """Where ``name`` ranks for ``query`` (hidden skills ranked too), or ``None``."""
    from skillpath.extract import cache_root
    from skillpath.search import index_for

    index = index_for(result.skills, cache_dir=cache_root(ctx.env) / "search")
    try:
        return index.explain(name, query, include_hidden=True)
    except KeyError:
        return None


def short_path(path: Path | None, ctx: SkillContext) -> str:
    """``path`` relative to the working directory (``./…``) or home (``~/…``) when inside."""
    if path is None:
        return "-"
    for base, prefix in ((ctx.cwd, "."), (ctx.home, "~")):
        if path == base:
            return prefix
        if base in path.parents:
            return f"{prefix}/{path.relative_to(base).as_posix()}"
    return str(path)


def _roots_table(roots: Sequence[RootScan], ctx: SkillContext) -> str:
    rows = [
        [
            f"{r.provider} ({r.via})" if r.via else r.provider,
            r.level,
            "yes" if r.exists else "no",
            str(r.count) if r.exists else "-",
            short_path(r.path, ctx),
        ]
        for r in roots
    ]
    return table(["PROVIDER", "LEVEL", "EXISTS", "SKILLS", "PATH"], rows, overflow="wrap")


def _detail(e: SkillReport, ctx: SkillContext) -> str:
    if e.status in ("loaded", "hidden"):
        return ""
    if e.status == "conditional":
        return e.detail
    if e.by is not None:
        by = e.by
        where = f"{by.source.provider}/{by.source.level} {short_path(by.path, ctx)}"
        if e.status == "shadowed" and e.skill is not None:
            return f"shadowed by {by.name!r} from {where} ({shadow_reason(e.skill, by)})"
        return f"same file already loaded as {by.name!r} from {where}"
    return e.detail


def _skills_block(entries: Sequence[SkillReport], ctx: SkillContext) -> list[str]:
    """Each skill on one aligned line, then where it is and why (wrapped to the terminal).

    A name wider than the name column gets a line of its own; paths and
    details wrap (paths after a ``/``), so every line fits the terminal.
    """
    width = terminal_width() - 1
    names = [terminal_safe(e.name) for e in entries]
    name_w = min(30, max(display_width(n) for n in names))
    status_w = max(len(_status(e)) for e in entries)
    pad = " " * (4 + name_w)
    lines = []
    for e, name in zip(entries, names, strict=True):
        rest = f"{_status(e):<{status_w}}  {e.provider}/{e.level}"
        if display_width(name) > name_w:
            lines.extend(wrap(name, width, "  ", "    "))
            lines.append(pad + rest)
        else:
            lines.append(f"  {name}{' ' * (name_w - display_width(name))}  {rest}")
        where = short_path(e.path, ctx) + (f":{e.line}" if e.line else "")
        lines.extend(wrap(terminal_safe(where), width, pad))
        detail = terminal_safe(_detail(e, ctx))
        if detail:
            lines.extend(wrap(detail, width, pad))
    return lines


def _status(e: SkillReport) -> str:
    return f"skipped: {e.reason}" if e.status == "skipped" else e.status


def _diag_line(d: Diagnostic, ctx: SkillContext) -> str:
    loc = ""
    if d.path is not None:
        loc = short_path(d.path, ctx) + (f":{d.line}" if d.line else "")
    return diagnostic_line(d, loc)


def _diag_lines(d: Diagnostic, ctx: SkillContext) -> list[str]:
    """One diagnostic, indented and wrapped to the terminal."""
    return wrap(_diag_line(d, ctx), None, "  ", "    ")


def _fold_nested(diags: Sequence[Diagnostic]) -> tuple[list[Diagnostic], int]:
    """The diagnostics to print, and how many per-file nested-skill notes a group
    entry (``nested-skills-group``: its count and fix) stands for."""
    groups = {d.message.rpartition("; fix: ")[2] for d in diags if d.code == "nested-skills-group"}
    shown: list[Diagnostic] = []
    folded = 0
    for d in diags:
        if d.code == "nested-skills-ignored" and d.message.rpartition("; fix: ")[2] in groups:
            folded += 1
            continue
        shown.append(d)
    return shown, folded


def _agent_differences(result: LoadResult, ctx: SkillContext) -> list[Difference]:
    """How Claude Code, Codex and OpenCode would show the loaded skills differently
    (``skillpath.views.differences``); a failure to build a view is not fatal."""
    from skillpath.views import differences

    try:
        return differences(result.skills, ctx.cwd, home=ctx.home, env=ctx.env)
    except (OSError, ValueError):
        return []


def _plugin_notes(ctx: SkillContext) -> list[Diagnostic]:
    """What doctor adds about the plugins themselves: each one that keeps ``list``
    from being replayed (``replay-off``), and each slow import or hook of this
    run (``plugin-slow``, timing-dependent, so never part of ``list``'s output)."""
    host = host_for(ctx)
    notes = [Diagnostic("info", "replay-off", b.message()) for b in host.replay_blockers()]
    return notes + host.slow_findings()


def _findings(skills: Sequence[Skill], ctx: SkillContext) -> list[tuple[Skill, Any]]:
    """``(skill, finding)`` of every content finding of ``skills`` (worst first per skill)."""
    from skillpath.findings import findings_for_all

    found = findings_for_all(skills, env=ctx.env, home=ctx.home)
    return [(s, f) for s, fs in zip(skills, found, strict=True) for f in fs]


def _finding_json(skill: Skill, f: Any) -> dict[str, Any]:
    from skillpath.cli._listrun import finding_json

    return {"name": skill.name, **finding_json(f)}


def _finding_lines(pairs: Sequence[tuple[Skill, Any]], ctx: SkillContext, pad: str) -> list[str]:
    out = []
    for skill, f in pairs:
        where = short_path(f.path, ctx) if f.path is not None else "(name or description)"
        line = f"{where}:{f.line}" if f.line else where
        text = f"{f.severity} {f.id} {skill.name}: {line}: {f.reason}"
        out.extend(wrap(terminal_safe(text), None, pad, pad + "  "))
    return out


@click.command("doctor")
@refresh_option
@common_options
def doctor_cmd(cwd: Path | None, as_json: bool) -> None:
    """Explain every decision: each root scanned (provider, level, exists), each
    skill found (loaded, hidden, conditional, shadowed by what, skipped and why),
    each diagnostic with file:line. Exits 1 when there are error diagnostics.

    Skip reasons: missing-description, invalid-name, disabled, source-disabled,
    ignored, not-included, vetoed, filter-error, duplicate-file, or the
    diagnostic code of a file that could not be read.

    JSON shape (a contract): {"roots": [{provider, level, path, exists, count}],
    "skills": [{name, status, reason, detail, provider, level, path, line,
    priority, hidden, shadowed_by: {name, path, provider, level} | null}],
    "findings": [{name, id, severity, file, line, reason}] (the content checks
    of the loaded skills, conditional ones included),
    "diagnostics": [{level, code, message, path, line}], "summary": {loaded,
    hidden, conditional, shadowed, skipped, errors, warnings}, "agents": [{name, path,
    agent, how}]}. "agents" (and the "Agents" section) names every loaded skill that
    Claude Code, Codex or OpenCode would show differently, and how (see
    ``skillpath list --agent``).
    """
    result, ctx = load(cwd)
    from skillpath.provenance import ProvenanceIndex

    provenance = ProvenanceIndex.build(ctx)
    loaded = [*result.skills, *result.conditional, *(s.skill for s in result.shadowed)]
    origins = [(s, o) for s in loaded if (o := provenance.origin(s, verify=True)) is not None]
    extra = provenance.diagnostics + provenance.drift_diagnostics(s for s, _o in origins)
    extra += _plugin_notes(ctx)
    if extra:
        result = attrs.evolve(result, diagnostics=result.diagnostics + tuple(extra))
    report = build_report(result)
    counts = report.counts()
    listings = remote_listings(loaded)
    found = _findings([*result.skills, *result.conditional], ctx)
    if as_json:
        data = report.to_json()
        data["findings"] = [_finding_json(s, f) for s, f in found]
        data["origins"] = [
            {"name": s.name, "path": str(s.path) if s.path else None, **o.to_json()}
            for s, o in origins
        ]
        if listings:
            data["listings"] = listings
        data["agents"] = [diff.to_json() for diff in _agent_differences(result, ctx)]
        emit_json(data)
    else:
        exist = sum(1 for r in report.roots if r.exists)
        echo(f"Roots: {len(report.roots)} scanned, {exist} exist")
        if report.roots:
            echo_table(_roots_table(report.roots, ctx))
        echo(f"\nSkills: {len(report.skills)} found")
        if report.skills:
            echo("\n".join(_skills_block(report.skills, ctx)))
        if origins:
            echo(f"\nProvenance: {len(origins)} skill(s) with a recorded origin")
            rows = [
                [
                    s.name,
                    f"{s.source.provider}/{s.source.level}",
                    o.kind,
                    o.source + (f" {o.ref}" if o.ref else ""),
                    o.drift or "-",
                ]
                for s, o in origins
            ]
            headers = ["NAME", "FROM", "KIND", "SOURCE", "DRIFT"]
            echo_table(table(headers, rows, flex=3, overflow="wrap"))
        if listings:
            echo(f"\nRemote listings: {len(listings)}")
            for entry in listings:
                echo("\n".join(wrap(terminal_safe(entry["text"]), None, "  ", "    ")))
        shown_differently = _agent_differences(result, ctx)
        if shown_differently:
            echo(f"\nAgents: {len(shown_differently)} way(s) an agent shows a skill differently")
            for diff in shown_differently:
                line = f"{diff.name}: {diff.how}"
                echo("\n".join(wrap(terminal_safe(line), None, "  ", "    ")))
        echo(f"\nFindings: {len(found)} in {len({id(s) for s, _f in found})} skill(s)")
        if found:
            echo("\n".join(_finding_lines(found, ctx, "  ")))
        echo(f"\nDiagnostics: {len(report.diagnostics)}")
        shown, folded = _fold_nested(report.diagnostics)
        for d in shown:
            echo("\n".join(_diag_lines(d, ctx)))
        if folded:
            note = (
                f"({folded} nested-skills-ignored entries, one per SKILL.md, are summed up "
                "in their groups above; `skillpath list --all --json` names each file)"
            )
            echo("\n".join(wrap(note, None, "  ", "  ")))
        parts = [
            f"{counts[s]} {s}" for s in ("loaded", "hidden", "conditional", "shadowed", "skipped")
        ]
        echo(f"\nSummary: {', '.join(parts)}")
        echo(f"         {counts['errors']} error(s), {counts['warnings']} warning(s)")
    if counts["errors"]:
        fail(f"{counts['errors']} error diagnostic(s)", error="diagnostics")


@click.command("explain")
@click.argument("name", shell_complete=complete_skill_names)
@click.option(
    "--query",
    metavar="WORDS",
    default=None,
    help="Also say where NAME ranks when `skillpath search WORDS` is run, and why.",
)
@agent_option("explain")
@refresh_option
@common_options
def explain_cmd(name: str, query: str | None, cwd: Path | None, as_json: bool) -> None:
    """Explain what happened to skill NAME: every copy found and its fate, the
    diagnostics about it (folders without SKILL.md, a skill.md in other letter
    case, *.md files in a skills root, misspelt root names), and — when it is
    not loaded — every root that was looked at, skill folders of that name
    below the working directory that load only when a file there is touched,
    and the names that come close. Exits 1 when NAME is not loaded.

    JSON shape (a contract): {name, found, available, verdict, entries: [as in
    doctor's "skills"], folders: [entries whose folder is NAME but whose skill
    has another name], near: [names], diagnostics: [...], roots: [as in doctor],
    disabled: bool, below: [{path, touch}], findings: [{name, id, severity, file,
    line, reason}] (the content checks of the copy that counts)}; with --query, "search": {name,
    query, terms, rank, score, matching, fields: {field: [terms]}} (null when
    NAME is not loaded).
    """
    result, ctx = load(cwd)
    ex = explain(build_report(result), name, ctx)
    listings = remote_listings(e.skill for e in ex.entries if e.skill is not None)
    ranking = _ranking(result, ctx, name, query) if query is not None else None
    chosen = result.get(name) if ex.available else None
    found = _findings([chosen], ctx) if chosen is not None else []
    if as_json:
        data = ex.to_json()
        data["findings"] = [_finding_json(s, f) for s, f in found]
        if listings:
            data["listings"] = listings
        if query is not None:
            data["search"] = ranking.to_json() if ranking is not None else None
        emit_json(data)
    else:
        verdict = ex.verdict()
        if ex.below and not ex.entries:
            touch = short_path(ex.below[0][1], ctx)
            verdict = (
                f"{name}: not loaded at start; found below the working directory, it loads "
                f"when a file under {touch} is touched (discover_dirs_for_paths)"
            )
        echo("\n".join(wrap(terminal_safe(verdict), None, "", "  ")))
        if query is not None:
            line = ranking.line() if ranking is not None else f"{name}: not loaded, not searched"
            echo("\n".join(wrap(terminal_safe(f"Search {query!r}: {line}"), None, "", "  ")))
        if ex.entries:
            echo("\nCopies found (the one that counts first):")
            for i, e in enumerate(ex.entries, 1):
                head = f"{i}. {_status(e)}  {e.provider}/{e.level}  {short_path(e.path, ctx)}"
                echo("\n".join(wrap(terminal_safe(head), None, "  ", "     ")))
                why = f"not used: {_detail(e, ctx)}" if e.status == "shadowed" else describe(e)
                echo("\n".join(wrap(terminal_safe(why), None, "     ")))
                if e.skill is not None:
                    for entry in remote_listings([e.skill]):
                        echo("\n".join(wrap(terminal_safe(entry["text"]), None, "     ")))
        if found:
            echo(f"\nFindings: {len(found)} (review before trusting the skill)")
            echo("\n".join(_finding_lines(found, ctx, "  ")))
        if ex.folders:
            echo(f"\nFolders called {name!r} that hold a skill of another name:")
            for e in ex.folders:
                text = f"{short_path(e.path, ctx)}: name {e.name!r} ({_status(e)})"
                echo("\n".join(wrap(terminal_safe(text), None, "  ", "    ")))
        if ex.below and not ex.entries:
            echo("\nFound below the working directory (not loaded at start):")
            for path, folder in ex.below:
                touch = short_path(folder, ctx)
                text = f"{short_path(path, ctx)} (loads when a file under {touch} is touched)"
                echo("\n".join(wrap(terminal_safe(text), None, "  ", "    ")))
        if ex.diagnostics:
            echo("\nDiagnostics:")
            for d in ex.diagnostics:
                echo("\n".join(_diag_lines(d, ctx)))
        if not ex.available and not ex.disabled:
            echo(f"\nLooked in {len(ex.roots)} root(s):")
            if ex.roots:
                echo_table(_roots_table(ex.roots, ctx))
            if ex.near:
                echo(f"\nDid you mean: {terminal_safe(', '.join(ex.near))}?")
    if not ex.available:
        if ex.disabled:
            fail(
                f"skill {name!r} is not loaded: skills are turned off ([skills] enabled = false)",
                error="skills-disabled",
            )
        if ex.found:
            fail(f"skill {name!r} is not loaded", error="not-loaded")
        fail(f"no skill named {name!r} was found", error="not-found")
