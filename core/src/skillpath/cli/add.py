"""``skillpath add``, ``update`` and ``remove`` (see :mod:`skillpath.install`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import click

from skillpath.cli._common import common_options, echo, emit_json, fail

__all__ = ["add_cmd", "remove_cmd", "update_cmd"]

_AGENTS = ("claude", "agents", "codex", "opencode", "github")


def _tty() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def _pick(found: Sequence[Any]) -> list[str]:
    """A numbered prompt: which of ``found`` to install."""
    echo(f"{len(found)} skills in this source:")
    for i, item in enumerate(found, 1):
        echo(f"  {i:>3}. {item.name} - {item.description[:70]}")
    while True:
        answer = click.prompt(
            "Install which? (numbers or names, separated by spaces or commas; 'all')",
            default="all",
        )
        words = [w for w in answer.replace(",", " ").split() if w]
        if words == ["all"]:
            return [f.name for f in found]
        names, bad = [], []
        for w in words:
            if w.isdigit() and 1 <= int(w) <= len(found):
                names.append(found[int(w) - 1].name)
            elif any(f.name == w for f in found):
                names.append(w)
            else:
                bad.append(w)
        if names and not bad:
            return names
        echo(f"not a choice: {' '.join(bad) or '(nothing)'}", err=True)


def _scanned(report: Any, ctx: Any) -> Any:
    """``report`` with the heavy scanners' findings on what it installed
    (:mod:`skillpath.scanners`; nothing to do when none is installed)."""
    if report.dry_run:
        return report
    from skillpath.cli._load import host_for
    from skillpath.scanners import scan_folders

    written = [c.path for c in report.changes if c.action in ("install", "replace")]
    found = scan_folders(ctx, written, host_for(ctx)) if written else []
    return attrs.evolve(report, diagnostics=report.diagnostics + tuple(found)) if found else report


def _report(report: Any, as_json: bool, verb: str) -> None:
    if as_json:
        emit_json(report.to_json())
    else:
        would = "would " if report.dry_run else ""
        for c in report.changes:
            mode = f" ({c.mode})" if c.action in ("install", "replace") and c.mode == "link" else ""
            echo(f"{would}{c.action:<9} {c.name:<24} {c.path}{mode}")
            for f in c.files:
                echo(f"            {f}")
            if c.detail:
                echo(f"            {c.detail}")
        for d in report.diagnostics:
            where = f" ({d.path})" if d.path else ""
            echo(f"{d.level}: {d.message}{where} [{d.code}]", err=True)
        _echo_findings(report)
        if not report.changes:
            echo(f"nothing to {verb}")
    if not report.ok:
        clashes = [c for c in report.changes if c.action == "clash"]
        fail(
            f"{len(clashes)} folder(s) in the way" if clashes else "some sources could not be read",
            error="clash" if clashes else "error",
        )


def _echo_findings(report: Any) -> None:
    """The high and medium content findings of what was installed (``--json`` has all)."""
    from skillpath.cli._common import terminal_safe

    shown = [(n, f) for n, f in report.findings if f.severity in ("high", "medium")]
    if not shown:
        return
    echo(f"content checks: {len(shown)} finding(s) to read before an agent uses these skills:")
    for name, f in shown:
        excerpt = f": {f.excerpt}" if f.excerpt else ""
        echo(
            terminal_safe(f"  {f.severity:<6} {name}: {f.location()} {f.reason}{excerpt} [{f.id}]")
        )


@click.command("add")
@click.argument("source")
@click.option(
    "--skill", "skills", multiple=True, metavar="NAME", help="Install this skill (repeatable)."
)
@click.option("--all", "all_skills", is_flag=True, help="Install every skill of the source.")
@click.option(
    "--agent",
    "agents",
    multiple=True,
    type=click.Choice(_AGENTS),
    help="Install for this agent (repeatable; default: claude and agents).",
)
@click.option(
    "--user", is_flag=True, help="Install into the user's folders instead of the project's."
)
@click.option(
    "--copy/--link",
    "copy",
    default=True,
    help="Copy (default) or link agents' folders to .agents/skills.",
)
@click.option(
    "--list", "list_only", is_flag=True, help="List the source's skills; install nothing."
)
@click.option("--dry-run", is_flag=True, help="Say what would be written; write nothing.")
@common_options
def add_cmd(
    source: str,
    skills: tuple[str, ...],
    all_skills: bool,
    agents: tuple[str, ...],
    user: bool,
    copy: bool,
    list_only: bool,
    dry_run: bool,
    cwd: Path | None,
    as_json: bool,
) -> None:
    """Install skills from SOURCE: a git URL, owner/repo[/path] (GitHub), a local folder
    (./dir) or an archive (.tar.gz, .zip), in the layout `npx skills` uses: the copy in
    .agents/skills, and each agent's folder (a copy, or with --link a link to it).
    Recorded in skills-lock.json as `npx skills` writes it (with --user, its global lock).

    \b
    skillpath add ./team-skills --all
    skillpath add acme/skills --skill code-review --agent claude
    skillpath add https://git.example.com/skills.git#v2 --all --link
    skillpath add pack.tar.gz --skill deploy --user

    With several skills and neither --skill nor --all, a terminal asks which.
    What gets installed goes through the content checks first (hidden characters,
    instructions to override the agent or hide things from the user, piped or encoded
    downloads run, credential reads, outbound collectors): high and medium findings are
    printed, all of them are in --json.
    JSON shape: {scope, lock, dry_run, changes: [{name, action, path, mode, detail,
    files}], diagnostics: [...], findings: [{skill, id, severity, reason, path, line,
    excerpt}]}.
    """
    from skillpath.cli._load import project_context
    from skillpath.install import add_skills, list_source

    ctx, _diags = project_context(cwd)
    if list_only:
        src, found, diags = list_source(source, ctx)
        if as_json:
            emit_json(
                {
                    "source": src.describe(),
                    "skills": [
                        {"name": f.name, "description": f.description, "skill_path": f.skill_path}
                        for f in found
                    ],
                    "diagnostics": [d.to_json() for d in diags],
                }
            )
            return
        for f in found:
            echo(f"{f.name:<24} {f.description}")
        return
    if skills and all_skills:
        fail("--skill and --all do not combine", error="bad-option")
    report = add_skills(
        source,
        ctx,
        skills=skills,
        all_skills=all_skills,
        agents=agents,
        user=user,
        link=not copy,
        dry_run=dry_run,
        pick=_pick if _tty() and not as_json else None,
    )
    _report(_scanned(report, ctx), as_json, "install")


@click.command("update")
@click.argument("names", nargs=-1)
@click.option("--user", is_flag=True, help="Update the user's skills instead of the project's.")
@click.option("--dry-run", is_flag=True, help="Show what changed upstream; replace nothing.")
@click.option("--yes", "-y", is_flag=True, help="Replace without asking (a terminal asks).")
@common_options
def update_cmd(
    names: tuple[str, ...],
    user: bool,
    dry_run: bool,
    yes: bool,
    cwd: Path | None,
    as_json: bool,
) -> None:
    """Fetch installed skills' sources again and replace what changed, listing each file
    added (+), removed (-) and changed (~) first. Works on what `skillpath add` and
    `npx skills add` installed (the skills-lock.json entries); a copy edited since it
    was installed is left alone.

    \b
    skillpath update                 # every skill in skills-lock.json
    skillpath update code-review --dry-run
    """
    from skillpath.cli._load import project_context
    from skillpath.install import update_skills

    ctx, _diags = project_context(cwd)

    def ask(changes: Any) -> bool:
        for c in changes:
            if c.action == "replace":
                echo(f"replace {c.name:<24} {c.path}")
                for f in c.files:
                    echo(f"            {f}")
        return bool(click.confirm("Replace these?", default=True))

    confirm = ask if _tty() and not yes and not as_json and not dry_run else None
    report = update_skills(ctx, names, user=user, dry_run=dry_run, confirm=confirm)
    _report(_scanned(report, ctx), as_json, "update")


@click.command("remove")
@click.argument("names", nargs=-1, required=True)
@click.option(
    "--user", is_flag=True, help="Remove from the user's folders instead of the project's."
)
@click.option("--dry-run", is_flag=True, help="Say what would be removed; remove nothing.")
@common_options
def remove_cmd(
    names: tuple[str, ...],
    user: bool,
    dry_run: bool,
    cwd: Path | None,
    as_json: bool,
) -> None:
    """Remove skills that `skillpath add` installed: only the folders and links it wrote
    (as recorded in the skillpath home) and unchanged since; anything else is listed and
    left alone.

    \b
    skillpath remove code-review
    """
    from skillpath.cli._load import project_context
    from skillpath.install import remove_skills

    ctx, _diags = project_context(cwd)
    report = remove_skills(ctx, names, user=user, dry_run=dry_run)
    _report(report, as_json, "remove")
