"""``skillweave doctor`` and ``skillweave explain <name>``: every decision, with its reason."""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Sequence
from pathlib import Path

import click

from skillweave.cli._common import common_options, emit_json, fail, table, terminal_safe
from skillweave.cli._load import load
from skillweave.context import SkillContext
from skillweave.doctor import SkillReport, build_report, describe, explain
from skillweave.model import Diagnostic, RootScan

__all__ = ["doctor_cmd", "explain_cmd", "short_path"]


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
            r.provider,
            r.level,
            "yes" if r.exists else "no",
            str(r.count) if r.exists else "-",
            short_path(r.path, ctx),
        ]
        for r in roots
    ]
    return table(["PROVIDER", "LEVEL", "EXISTS", "SKILLS", "PATH"], rows)


def _detail(e: SkillReport, ctx: SkillContext) -> str:
    if e.status in ("loaded", "hidden"):
        return ""
    if e.status == "conditional":
        return e.detail
    if e.by is not None:
        what = "shadowed by" if e.status == "shadowed" else "same file already loaded as"
        by = e.by
        return (
            f"{what} {by.name!r} from {by.source.provider}/{by.source.level} "
            f"{short_path(by.path, ctx)} (priority {by.priority})"
        )
    return e.detail


def _skills_block(entries: Sequence[SkillReport], ctx: SkillContext) -> list[str]:
    """Each skill on one aligned line, then where it is and why (wrapped to the terminal)."""
    width = shutil.get_terminal_size((80, 24)).columns - 1
    name_w = min(30, max(len(e.name) for e in entries))
    status_w = max(len(_status(e)) for e in entries)
    pad = " " * (4 + name_w)
    lines = []
    for e in entries:
        name = terminal_safe(e.name)
        lines.append(f"  {name:<{name_w}}  {_status(e):<{status_w}}  {e.provider}/{e.level}")
        where = short_path(e.path, ctx) + (f":{e.line}" if e.line else "")
        lines.append(pad + terminal_safe(where))
        detail = terminal_safe(_detail(e, ctx))
        if detail:
            lines.extend(
                textwrap.wrap(
                    detail,
                    width=max(40, width),
                    initial_indent=pad,
                    subsequent_indent=pad,
                    break_long_words=False,
                    break_on_hyphens=False,
                )
            )
    return lines


def _status(e: SkillReport) -> str:
    return f"skipped: {e.reason}" if e.status == "skipped" else e.status


def _diag_line(d: Diagnostic, ctx: SkillContext) -> str:
    loc = ""
    if d.path is not None:
        loc = short_path(d.path, ctx) + (f":{d.line}" if d.line else "") + ": "
    return terminal_safe(f"{d.level}: {loc}{d.message} [{d.code}]")


@click.command("doctor")
@common_options
def doctor_cmd(cwd: Path | None, as_json: bool) -> None:
    """Explain every decision: each root scanned (provider, level, exists), each
    skill found (loaded, hidden, conditional, shadowed by what, skipped and why),
    each diagnostic with file:line. Exits 1 when there are error diagnostics.

    Skip reasons: missing-description, invalid-name, disabled, source-disabled,
    ignored, not-included, vetoed, duplicate-file, or the diagnostic code of a
    file that could not be read.

    JSON shape (a contract): {"roots": [{provider, level, path, exists, count}],
    "skills": [{name, status, reason, detail, provider, level, path, line,
    priority, hidden, shadowed_by: {name, path, provider, level} | null}],
    "diagnostics": [{level, code, message, path, line}], "summary": {loaded,
    hidden, conditional, shadowed, skipped, errors, warnings}}.
    """
    result, ctx = load(cwd)
    report = build_report(result)
    counts = report.counts()
    if as_json:
        emit_json(report.to_json())
    else:
        exist = sum(1 for r in report.roots if r.exists)
        click.echo(f"Roots: {len(report.roots)} scanned, {exist} exist")
        if report.roots:
            click.echo(_roots_table(report.roots, ctx))
        click.echo(f"\nSkills: {len(report.skills)} found")
        if report.skills:
            click.echo("\n".join(_skills_block(report.skills, ctx)))
        click.echo(f"\nDiagnostics: {len(report.diagnostics)}")
        for d in report.diagnostics:
            click.echo("  " + _diag_line(d, ctx))
        parts = [
            f"{counts[s]} {s}" for s in ("loaded", "hidden", "conditional", "shadowed", "skipped")
        ]
        click.echo(f"\nSummary: {', '.join(parts)}")
        click.echo(f"         {counts['errors']} error(s), {counts['warnings']} warning(s)")
    if counts["errors"]:
        fail(f"{counts['errors']} error diagnostic(s)")


@click.command("explain")
@click.argument("name")
@common_options
def explain_cmd(name: str, cwd: Path | None, as_json: bool) -> None:
    """Explain what happened to skill NAME: every copy found and its fate, the
    diagnostics about it, and — when it is not loaded — every root that was
    looked at and the names that come close. Exits 1 when NAME is not loaded.

    JSON shape (a contract): {name, found, available, verdict, entries: [as in
    doctor's "skills"], folders: [entries whose folder is NAME but whose skill
    has another name], near: [names], diagnostics: [...], roots: [as in doctor]}.
    """
    result, ctx = load(cwd)
    ex = explain(build_report(result), name)
    if as_json:
        emit_json(ex.to_json())
    else:
        click.echo(ex.verdict())
        if ex.entries:
            click.echo("\nCopies found (the one that counts first):")
            for i, e in enumerate(ex.entries, 1):
                click.echo(
                    f"  {i}. {_status(e)}  {e.provider}/{e.level}  {short_path(e.path, ctx)}"
                )
                click.echo(f"     {describe(e)}")
        if ex.folders:
            click.echo(f"\nFolders called {name!r} that hold a skill of another name:")
            for e in ex.folders:
                click.echo(f"  {short_path(e.path, ctx)}: name {e.name!r} ({_status(e)})")
        if ex.diagnostics:
            click.echo("\nDiagnostics:")
            for d in ex.diagnostics:
                click.echo("  " + _diag_line(d, ctx))
        if not ex.available:
            click.echo(f"\nLooked in {len(ex.roots)} root(s):")
            if ex.roots:
                click.echo(_roots_table(ex.roots, ctx))
            if ex.near:
                click.echo(f"\nDid you mean: {', '.join(ex.near)}?")
    if not ex.available:
        fail(f"skill {name!r} is not loaded" if ex.found else f"no skill named {name!r} was found")
