"""``skillpath list``: its options; :func:`skillpath.cli._listrun.run_list` does the work."""

from __future__ import annotations

from pathlib import Path

import click

from skillpath.cli._agentview import agent_option
from skillpath.cli._common import common_options, refresh_option
from skillpath.cli._listrun import BASE_LEVELS, known_values, run_list

__all__ = ["BASE_LEVELS", "known_values", "list_cmd"]


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
@agent_option("list")
@refresh_option
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
    provider, level, hidden, origin (when known: {kind, source, ref, installed_at,
    record, hash, drift, detail})}], "shadowed": [{name, path, provider, level,
    shadowed_by, shadowed_by_provider, reason}], "diagnostics": [{level, code,
    message, path, line}]}. With --all two keys are added: "conditional" (same
    shape as "skills") and "skipped" ([{name, path, line, provider, level,
    reason, detail}]). --provider/--level filter every list but "diagnostics";
    an unknown provider or level is an error that lists the known ones. Under
    the table: the conditional, shadowed and skipped counts, as doctor counts
    them.
    """
    run_list(show_all, providers, levels, no_index, cwd, as_json)
