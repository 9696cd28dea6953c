"""``skillweave list``."""

from __future__ import annotations

from pathlib import Path

import click

from skillweave.cli._common import common_options, emit_json, table
from skillweave.loader import load_skills


@click.command("list")
@common_options
def list_cmd(cwd: Path | None, as_json: bool) -> None:
    """List the skills an agent started in the project would see.

    JSON shape (a contract): {"skills": [{name, description, path, base_dir,
    provider, level, hidden}], "shadowed": [{name, path, provider, level,
    shadowed_by}], "diagnostics": [{level, code, message, path}]}.
    """
    result = load_skills(cwd)
    if as_json:
        emit_json(result.to_json())
        return
    if not result.skills:
        click.echo("No skills found.")
    else:
        rows = [
            [s.name + (" (hidden)" if s.hidden else ""), f"{s.provider}/{s.level}", s.description]
            for s in result.skills
        ]
        click.echo(table(["NAME", "SOURCE", "DESCRIPTION"], rows))
    if result.shadowed:
        click.echo(f"\n{len(result.shadowed)} shadowed (see `skillweave list --json`).")
    for d in result.diagnostics:
        if d.level != "info":
            loc = f"{d.location()}: " if d.path else ""
            click.echo(f"{d.level}: {loc}{d.message} [{d.code}]", err=True)
