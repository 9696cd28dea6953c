"""``skillpath show <name>``: every fact about one loaded skill."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path
from typing import Any

import click

from skillpath.cli._common import (
    common_options,
    echo,
    emit_json,
    fail,
    refresh_option,
    terminal_safe,
)
from skillpath.cli._load import load
from skillpath.cli.completion import complete_skill_names
from skillpath.doctor import build_report, describe, explain
from skillpath.model import LoadResult, Skill
from skillpath.resources import walk_skill_files

__all__ = ["MAX_RESOURCES", "resources", "show_cmd", "skill_details"]

#: At most this many files are listed under ``resources``.
MAX_RESOURCES = 1000


def _json_value(value: Any) -> Any:
    """Source details as JSON values (nested MCP details stay structured, not reprs)."""
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return str(value)
    return value


def resources(base_dir: Path | None) -> tuple[list[dict[str, Any]], bool]:
    """Files in the skill folder (relative path and size), sorted, as
    :func:`skillpath.resources.walk_skill_files` finds them: dot entries, refused names
    (:func:`skillpath.textguard.name_refusal`; the findings name them) and links
    leaving the folder left out. Returns ``(files, truncated)``.
    """
    if base_dir is None or not base_dir.is_dir():
        return [], False
    walk = walk_skill_files(base_dir, max_files=MAX_RESOURCES)
    out: list[dict[str, Any]] = []
    for entry in walk.entries:
        try:
            size: int | None = entry.path.lstat().st_size
        except OSError:
            size = None
        out.append({"path": entry.rel, "size": size})
    return sorted(out, key=lambda r: r["path"]), walk.truncated


def skill_details(skill: Skill, result: LoadResult) -> dict[str, Any]:
    """The JSON shape of ``skillpath show --json`` (a documented contract)."""
    size = None
    if skill.path is not None:
        try:
            size = skill.path.stat().st_size
        except OSError:
            size = None
    files, truncated = resources(skill.base_dir)
    copies = [s for s in result.shadowed if skill.name in (s.skill.name, s.by.name)]
    status = "conditional" if skill.conditional else "hidden" if skill.hidden else "loaded"
    src = skill.source
    return {
        "name": skill.name,
        "description": skill.description,
        "status": status,
        "path": str(skill.path) if skill.path is not None else None,
        "base_dir": str(skill.base_dir) if skill.base_dir is not None else None,
        "provider": src.provider,
        "level": src.level,
        "root": str(src.root) if src.root is not None else None,
        "loaded_from": src.loaded_from,
        "source_detail": {k: _json_value(v) for k, v in sorted(src.detail.items())},
        "priority": skill.priority,
        "hidden": skill.hidden,
        "conditional": skill.conditional,
        "paths": list(skill.frontmatter.paths),
        "size": size,
        "frontmatter": dict(skill.frontmatter.raw),
        "resources": files,
        "resources_truncated": truncated,
        "shadowed": [s.to_json() for s in copies],
    }


def _fmt_value(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items())
    return str(value)


def _wrap(label: str, value: str, *, indent: int | None = None) -> str:
    """``label`` + ``value`` wrapped to the terminal width (paths are never broken)."""
    width = shutil.get_terminal_size((80, 24)).columns
    pad = " " * (len(label) if indent is None else indent)
    return textwrap.fill(
        terminal_safe(value),
        width=max(40, width - 1),
        initial_indent=label,
        subsequent_indent=pad,
        break_long_words=False,
        break_on_hyphens=False,
    )


@click.command("show")
@click.argument("name", shell_complete=complete_skill_names)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option(
    "--body", is_flag=True, help="Also print the body (the Markdown after the frontmatter)."
)
@refresh_option
@common_options
def show_cmd(name: str, args: tuple[str, ...], body: bool, cwd: Path | None, as_json: bool) -> None:
    """Show every field of skill NAME: source, priority, path, size, the files in its
    folder and the copies it shadows.

    JSON shape (a contract): {name, description, status, path, base_dir, provider,
    level, root, loaded_from, source_detail, priority, hidden, conditional, paths,
    size, frontmatter, resources: [{path, size}], resources_truncated, shadowed:
    [same shape as in `list --json`], origin: {kind, source, ref, installed_at,
    record, hash, drift, detail} or null}, plus "body" with --body. The origin is
    read from what installed the skill (a distribution, `npx skills` and
    `skillpath export` locks, `.openskills.json`, Claude's plugin registry); a
    recorded hash is checked (drift: "none" or "changed"). A name that is not
    loaded exits 1 (see `skillpath explain NAME`).

    Options may come anywhere (`show NAME --json`, `show NAME --body`). Other
    words after NAME are shown as the argument string the skill would receive
    ("args" in JSON, present only then); put `--` before words that start with
    `-` (`show fix-issue -- --max 3`).
    """
    result, ctx = load(cwd)
    skill = result.get(name)
    if skill is None:
        ex = explain(build_report(result), name)
        if ex.entries:
            why = describe(ex.entries[0])
            fail(
                f"skill {name!r} is not loaded: {terminal_safe(why)} "
                f"(see `skillpath explain {terminal_safe(name)}`)",
                error="not-loaded",
                path=ex.entries[0].path,
            )
        hint = f"; did you mean {', '.join(repr(n) for n in ex.near[:3])}?" if ex.near else ""
        fail(
            f"no skill named {name!r}{hint} (see `skillpath explain {terminal_safe(name)}`)",
            error="not-found",
        )
    data = skill_details(skill, result)
    if args:
        data["args"] = " ".join(args)
    from skillpath.provenance import ProvenanceIndex

    origin = ProvenanceIndex.build(ctx).origin(skill, verify=True)
    data["origin"] = origin.to_json() if origin is not None else None
    if body:
        data["body"] = skill.body
    from skillpath.contentscan import scan_skill

    data["findings"] = [f.to_json() for f in scan_skill(skill)]
    if as_json:
        emit_json(data)
        return
    fields = [
        ("name", data["name"]),
        ("description", data["description"]),
        ("status", data["status"]),
        ("source", f"{data['provider']}/{data['level']} (priority {data['priority']})"),
        ("path", data["path"]),
        ("base dir", data["base_dir"]),
        ("root", data["root"]),
        ("loaded from", data["loaded_from"]),
        ("size", f"{data['size']} bytes" if data["size"] is not None else None),
        ("arguments", data.get("args")),
        ("origin", origin.summary() if origin is not None else None),
    ]
    if data["paths"]:
        fields.append(("paths", ", ".join(data["paths"])))
    for key, value in data["source_detail"].items():
        text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
        fields.append((key, text))
    for label, value in fields:
        if value is not None:
            echo(_wrap(f"{label + ':':<13}", str(value)))
    fm = data["frontmatter"]
    if fm:
        echo("\nfrontmatter:")
        for key in fm:
            echo(_wrap(f"  {key}: ", _fmt_value(fm[key]), indent=4))
    if data["resources"]:
        echo(f"\nresources ({len(data['resources'])}{'+' if data['resources_truncated'] else ''}):")
        for r in data["resources"]:
            echo(terminal_safe(f"  {r['path']}  ({r['size']} bytes)"))
    if data["findings"]:
        echo(f"\ncontent findings ({len(data['findings'])}; `skillpath validate` checks them):")
        for f in data["findings"]:
            where = Path(f["path"]).name if f["path"] else "?"
            line = f":{f['line']}" if f["line"] else ""
            text = f"  {f['severity']}: {f['id']} at {where}{line}: {f['reason']}"
            echo(_wrap("", terminal_safe(text), indent=4))
    if data["shadowed"]:
        echo("\nshadowed copies:")
        for s in data["shadowed"]:
            echo(terminal_safe(f"  {s['provider']}/{s['level']} {s['path']} ({s['reason']})"))
    if body:
        lines = data["body"].rstrip("\n").split("\n")
        echo("\n" + "\n".join(terminal_safe(line) for line in lines))
