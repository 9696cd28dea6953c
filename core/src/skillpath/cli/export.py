"""``skillpath export``: skills other agents cannot see, written into their folders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
import click

from skillpath.cli._common import common_options, echo, emit_json, fail

__all__ = ["export_cmd"]

_AGENTS = ("claude", "agents", "codex", "opencode", "github")


def _scanned(report: Any, skills: list[Any], ctx: Any) -> Any:
    """``report`` with the heavy scanners' findings on what it exported
    (:mod:`skillpath.scanners`; cached per content digest)."""
    from skillpath.cli._load import host_for
    from skillpath.scanners import heavy_scan_all

    host = host_for(ctx)
    if not host.scanners():
        return report
    names = {a.name for a in report.actions if a.action in ("write", "unchanged")}
    chosen = {s.name: s for s in reversed(skills) if s.name in names}  # the first wins
    found: list[Any] = []
    heavy_scan_all(list(chosen.values()), ctx, host, found)
    return attrs.evolve(report, diagnostics=report.diagnostics + tuple(found)) if found else report


@click.command("export")
@click.option(
    "--to",
    "to",
    required=True,
    type=click.Choice([*_AGENTS, "claude-plugin"]),
    help="The agent whose folder receives the skills (claude-plugin: a local plugin in DIR).",
)
@click.argument("dest", required=False, type=click.Path(path_type=Path))
@click.option("--user", is_flag=True, help="Write the user's folder instead of the project's.")
@click.option(
    "--from",
    "providers",
    multiple=True,
    metavar="PROVIDER",
    help="Export skills of this provider (repeatable; default: packs, libraries, mcp, "
    "bundled, custom).",
)
@click.option(
    "--select", "select", multiple=True, metavar="GLOB", help="Only names matching (repeatable)."
)
@click.option("--copy/--link", "copy", default=True, help="Copy (default) or link folders.")
@click.option("--dry-run", is_flag=True, help="Say what would change; change nothing.")
@click.option("--check", is_flag=True, help="Exit 1 when copies, sources and lock disagree.")
@click.option("--prune", is_flag=True, help="Remove earlier exports no longer selected.")
@common_options
def export_cmd(
    to: str,
    dest: Path | None,
    user: bool,
    providers: tuple[str, ...],
    select: tuple[str, ...],
    copy: bool,
    dry_run: bool,
    check: bool,
    prune: bool,
    cwd: Path | None,
    as_json: bool,
) -> None:
    """Write the skills other agents cannot see (packs, libraries, MCP, bundled, custom
    directories) into an agent's skills folder, and record them in the lock
    (.skillpath/export-lock.json in the project, in the format `npx skills` writes; with
    --user, the lock in the skillpath home). A folder skillpath did not write is never
    overwritten. The
    lock is a claim: only your own records of what skillpath wrote let it replace or
    prune a folder, and nothing is written through a link out of the project.

    \b
    skillpath export --to claude                 # .claude/skills in the project
    skillpath export --to agents --user          # ~/.agents/skills
    skillpath export --to claude --check         # exit 1 on drift
    skillpath export --to claude-plugin DIR      # a local Claude Code plugin

    JSON shape: {agent, scope, folder, lock, dry_run, actions: [{name, action, path,
    source, detail}], drift: [{name, kind, path, detail}], diagnostics: [...]}.
    """
    from skillpath.cli._load import load
    from skillpath.export import check_export, export_skills

    if to == "claude-plugin":
        _plugin(dest, user, providers, select, copy, dry_run, check, prune, cwd, as_json)
        return
    if dest is not None:
        fail(f"DEST is only for --to claude-plugin (got {dest})", error="bad-option")
    if check and (dry_run or prune):
        fail("--check does not combine with --dry-run or --prune", error="bad-option")
    result, ctx = load(cwd)
    # the shadowed copies too: once exported, a pack's skill is shadowed by its copy
    # in the agent's folder (what a person's folder holds wins), and stays the source
    skills = [*result.skills, *result.conditional, *(s.skill for s in result.shadowed)]
    if check:
        report = check_export(skills, ctx, to=to, user=user, providers=providers, select=select)
    else:
        report = export_skills(
            skills,
            ctx,
            to=to,
            user=user,
            providers=providers,
            select=select,
            link=not copy,
            dry_run=dry_run,
            prune=prune,
        )
        report = _scanned(report, skills, ctx)
    if as_json:
        emit_json(report.to_json())
    else:
        verb = "would " if dry_run else ""
        for a in report.actions:
            line = f"{verb}{a.action:<11} {a.name:<24} {a.path}"
            if a.action == "clash":
                line += f"\n            {a.detail}"
            echo(line)
        for item in report.drift:
            echo(f"drift  {item.kind:<15} {item.name:<24} {item.detail}")
        for d in report.diagnostics:
            echo(f"{d.level}: {d.message} [{d.code}]", err=True)
        if check:
            echo("in sync" if report.ok else f"{len(report.drift)} difference(s)")
        elif not report.actions and report.ok:
            echo("nothing to export (see --from and --select)")
    if not report.ok:
        if check:
            fail(
                f"{len(report.drift)} difference(s) between the lock, the copies and their sources",
                error="drift",
                path=report.lock,
            )
        clashes = sum(1 for a in report.actions if a.action == "clash")
        errors = sum(1 for d in report.diagnostics if d.level == "error")
        parts = [f"{clashes} folder(s) in the way"] if clashes else []
        parts += [f"{errors} error(s)"] if errors or not clashes else []
        fail(" and ".join(parts), error="export-failed", path=report.folder)


def _plugin(
    dest: Path | None,
    user: bool,
    providers: tuple[str, ...],
    select: tuple[str, ...],
    copy: bool,
    dry_run: bool,
    check: bool,
    prune: bool,
    cwd: Path | None,
    as_json: bool,
) -> None:
    from skillpath.cli._load import load
    from skillpath.errors import SkillpathError
    from skillpath.export import select_skills
    from skillpath.plugin_writer import write_claude_plugin
    from skillpath.shell import ShellPolicy

    if dest is None:
        fail(
            "--to claude-plugin needs the plugin folder: skillpath export --to claude-plugin DIR",
            error="bad-option",
        )
    if user or check or dry_run or not copy:
        fail(
            "--to claude-plugin takes no --user, --check, --dry-run or --link (the plugin "
            "records and prunes its own folders)",
            error="bad-option",
        )
    del prune  # the plugin writer always removes what it wrote and no longer exports
    result, ctx = load(cwd)
    every = [*result.skills, *result.conditional, *(s.skill for s in result.shadowed)]
    chosen = select_skills(every, providers, select)
    target = dest if dest.is_absolute() else ctx.cwd / dest
    try:
        done = write_claude_plugin(
            target, chosen, shell_policy=ShellPolicy.from_settings(ctx.settings)
        )
    except SkillpathError as exc:
        fail(str(exc), error="export-failed", path=target)
    if as_json:
        emit_json(
            {
                "agent": "claude-plugin",
                "folder": str(done.root),
                "skills": list(done.skills),
                "written": list(done.written),
                "unchanged": list(done.unchanged),
                "removed": list(done.removed),
                "diagnostics": [d.to_json() for d in done.diagnostics],
            }
        )
        return
    for name in done.written:
        echo(f"write      {name}")
    for name in done.removed:
        echo(f"remove     {name}")
    for d in done.diagnostics:
        echo(f"{d.level}: {d.message} [{d.code}]", err=True)
    echo(f"{len(done.skills)} skill(s) in {done.root}")
