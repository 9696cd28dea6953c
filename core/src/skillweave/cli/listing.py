"""``skillweave list``."""

from __future__ import annotations

import gc
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from skillweave.cli._common import common_options, emit_json, table, terminal_safe
from skillweave.cli._load import load
from skillweave.model import Diagnostic

if TYPE_CHECKING:
    from skillweave.doctor import SkillReport


def _keep(
    provider: str | None, level: str | None, providers: Sequence[str], levels: Sequence[str]
) -> bool:
    return (not providers or provider in providers) and (not levels or level in levels)


def _skipped_json(e: SkillReport) -> dict[str, Any]:
    return {
        "name": e.name,
        "path": str(e.path) if e.path is not None else None,
        "line": e.line,
        "provider": e.provider,
        "level": e.level,
        "reason": e.reason,
        "detail": e.detail,
    }


def _status(e: SkillReport) -> str:
    return f"skipped:{e.reason}" if e.status == "skipped" else e.status


def _print_diagnostics(diagnostics: Sequence[Diagnostic]) -> None:
    for d in diagnostics:
        if d.level != "info":
            loc = f"{d.location()}: " if d.path else ""
            click.echo(terminal_safe(f"{d.level}: {loc}{d.message} [{d.code}]"), err=True)


@click.command("list")
@click.option(
    "--all",
    "show_all",
    is_flag=True,
    help="Also show shadowed, conditional and skipped skills, with their status.",
)
@click.option(
    "--provider",
    "providers",
    multiple=True,
    metavar="ID",
    help="Only skills from this provider (repeatable).",
)
@click.option(
    "--level",
    "levels",
    multiple=True,
    metavar="LEVEL",
    help="Only skills at this level: user, project, managed, package … (repeatable).",
)
@click.option(
    "--no-index",
    "no_index",
    is_flag=True,
    help="Do not use the discovery index (cache): read every SKILL.md.",
)
@common_options
def list_cmd(
    show_all: bool,
    providers: tuple[str, ...],
    levels: tuple[str, ...],
    no_index: bool,
    cwd: Path | None,
    as_json: bool,
) -> None:
    """List the skills an agent started in the project would see.

    JSON shape (a contract): {"skills": [{name, description, path, base_dir,
    provider, level, hidden}], "shadowed": [{name, path, provider, level,
    shadowed_by, shadowed_by_provider, reason}], "diagnostics": [{level, code,
    message, path, line}]}. With --all two keys are added: "conditional" (same
    shape as "skills") and "skipped" ([{name, path, line, provider, level,
    reason, detail}]). --provider/--level filter every list but "diagnostics".
    """
    # a one-shot command: the cyclic collector would only walk the thousands of
    # objects a large catalog is made of, and free nothing
    gc.disable()
    if no_index:
        from skillweave.index import disabled

        with disabled():
            result, _ctx = load(cwd)
    else:
        result, _ctx = load(cwd)

    def keep(provider: str | None, level: str | None) -> bool:
        return _keep(provider, level, providers, levels)

    skills = [s for s in result.skills if keep(s.provider, s.level)]
    shadowed = [s for s in result.shadowed if keep(s.skill.provider, s.skill.level)]
    report = None
    if show_all:
        from skillweave.doctor import build_report

        report = build_report(result)
    if as_json:
        data: dict[str, Any] = {
            "skills": [s.to_json() for s in skills],
            "shadowed": [s.to_json() for s in shadowed],
            "diagnostics": [d.to_json() for d in result.diagnostics],
        }
        if report is not None:
            data["conditional"] = [
                s.to_json() for s in result.conditional if keep(s.provider, s.level)
            ]
            data["skipped"] = [
                _skipped_json(e)
                for e in report.skills
                if e.status == "skipped" and keep(e.provider, e.level)
            ]
        emit_json(data)
        return
    if report is not None:
        entries = [e for e in report.skills if keep(e.provider, e.level)]
        if not entries:
            click.echo("No skills found.")
        else:
            rows = [
                [
                    e.name,
                    _status(e),
                    f"{e.provider}/{e.level}",
                    e.skill.description if e.status != "skipped" and e.skill else e.detail,
                ]
                for e in entries
            ]
            click.echo(table(["NAME", "STATUS", "SOURCE", "DETAIL"], rows))
        _print_diagnostics(result.diagnostics)
        return
    if not skills:
        click.echo("No skills found.")
    else:
        rows = [
            [s.name + (" (hidden)" if s.hidden else ""), f"{s.provider}/{s.level}", s.description]
            for s in skills
        ]
        click.echo(table(["NAME", "SOURCE", "DESCRIPTION"], rows))
    conditional = [s for s in result.conditional if keep(s.provider, s.level)]
    filtered = [s for s in result.skipped if keep(s.skill.provider, s.skill.level)]
    if shadowed or conditional or filtered:
        click.echo(
            f"\n{len(shadowed)} shadowed, {len(conditional)} conditional, "
            f"{len(filtered)} filtered out (see `skillweave list --all`)."
        )
    _print_diagnostics(result.diagnostics)
