"""``skillpath providers`` (alias ``plugins``): every plugin, its origin and its status."""

from __future__ import annotations

from pathlib import Path

import click

from skillpath.cli._common import common_options, echo, emit_json, table
from skillpath.cli._load import host_for, project_context

__all__ = ["providers_cmd"]


@click.command("providers")
@common_options
def providers_cmd(cwd: Path | None, as_json: bool) -> None:
    """List installed providers and plugins: entry-point name, distribution,
    version, entry-point value, priority, hooks and status (builtin, loaded,
    blocked, or failed with the error). A broken plugin is listed, never fatal.

    JSON shape (a contract): {"plugins": [{name, status, distribution, version,
    value, hooks, priority, provider, error}]}, in registration order (the core's
    built-ins first, then entry points by name).
    """
    ctx, _diags = project_context(cwd)
    host = host_for(ctx)
    records = list(host.records)
    if as_json:
        emit_json({"plugins": [r.to_json() for r in records]})
        return
    if not records:
        echo("No plugins.")
        return
    rows = [
        [
            r.name,
            r.status,
            str(r.priority) if r.priority is not None else "-",
            f"{r.distribution or '-'} {r.version or ''}".strip(),
        ]
        for r in records
    ]
    echo(table(["NAME", "STATUS", "PRIO", "DISTRIBUTION"], rows))
    echo("\nEntry points and hooks:")
    width = max(len(r.name) for r in records)
    for r in records:
        hooks = ", ".join(r.hooks) if r.hooks else "no hooks"
        echo(f"  {r.name:<{width}}  {r.value or '(built in)'}: {hooks}")
    failed = [r for r in records if r.status == "failed"]
    if failed:
        echo("\nFailed:")
        for r in failed:
            echo(f"  {r.name}: {r.error}")
    blockers = host.replay_blockers()
    if blockers:
        # what keeps an unchanged `skillpath list` from being replayed (skillpath.depends_on)
        echo("\nNot replayable:")
        for b in blockers:
            echo(f"  {b.message()}")
