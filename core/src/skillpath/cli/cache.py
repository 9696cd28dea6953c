"""``skillpath cache``: where the cache is, what it holds, and emptying it."""

from __future__ import annotations

import click

from skillpath.cli._common import echo, emit_json, fail, table

__all__ = ["cache_cmd"]


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KB", "MB", "GB"):
        value /= 1024
        if value < 1024 or unit == "GB":
            break
    return f"{value:.1f} {unit}"


@click.group("cache", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")
@click.pass_context
def cache_cmd(ctx: click.Context, as_json: bool) -> None:
    """Show skillpath's cache: the discovery index, `list` snapshots, files
    extracted from skill packs and bundled skills, and each folder a plugin
    declares (MCP server listings, with skillpath-mcp).
    Everything there is rebuilt on demand; `skillpath cache clean` empties it.

    JSON shape: {"parts": [{name, path, exists, files, bytes}]}.
    """
    if ctx.invoked_subcommand is not None:
        return
    from skillpath.cache import cache_parts

    parts = cache_parts()
    if as_json:
        emit_json({"parts": [p.to_json() for p in parts]})
        return
    rows = [
        [
            p.name,
            str(p.files) if p.exists else "-",
            _size(p.bytes) if p.exists else "-",
            str(p.path),
        ]
        for p in parts
    ]
    echo(table(["PART", "FILES", "SIZE", "PATH"], rows))


@cache_cmd.command("clean")
@click.option(
    "--part",
    "parts",
    multiple=True,
    metavar="PART",
    help="Only this part (repeatable; default: all of them): index, snapshots, packs, "
    "bundled, or a folder a plugin declares (see `skillpath cache`).",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")
def clean_cmd(parts: tuple[str, ...], as_json: bool) -> None:
    """Empty the cache (or the parts named with --part). Only skillpath's own
    parts are removed, whatever SKILLPATH_CACHE_DIR points to.

    JSON shape: {"removed": [{name, path, exists, files, bytes}]} (sizes before removal).
    """
    from skillpath.cache import cache_part_names, clean_cache

    unknown = sorted(set(parts) - set(cache_part_names()))
    if unknown:
        known = ", ".join(cache_part_names())
        raise click.BadParameter(
            f"unknown part(s) {', '.join(map(repr, unknown))} (known: {known})",
            param_hint="'--part'",
        )
    try:
        removed = clean_cache(parts=parts or None)
    except OSError as exc:
        fail(f"cannot clean the cache: {exc}", error="os-error", path=exc.filename)
    if as_json:
        emit_json({"removed": [p.to_json() for p in removed]})
        return
    if not removed:
        echo("The cache is already empty.")
        return
    total = sum(p.bytes for p in removed)
    files = sum(p.files for p in removed)
    for p in removed:
        echo(f"removed {p.name}: {p.path} ({p.files} files, {_size(p.bytes)})")
    echo(f"{len(removed)} part(s), {files} files, {_size(total)} removed")
