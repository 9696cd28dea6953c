"""``skillweave validate <path>…``: the cross-agent lint (pre-commit and CI friendly)."""

from __future__ import annotations

from pathlib import Path

import click

from skillweave.cli._common import common_options, emit_json, fail, terminal_safe
from skillweave.lint import TARGETS, iter_skill_dirs, lint_paths

__all__ = ["validate_cmd"]


def _relative(path: Path, base: Path) -> str:
    """``path`` relative to ``base`` when it is inside it (text output), else as is."""
    try:
        return path.relative_to(base.absolute()).as_posix()
    except ValueError:
        return str(path)


@click.command("validate")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--target",
    "targets",
    multiple=True,
    type=click.Choice(TARGETS),
    help="Agent whose rules apply (repeatable; default: agentskills, the open standard).",
)
@click.option("--strict", is_flag=True, help="Treat warnings as errors.")
@common_options
def validate_cmd(
    paths: tuple[Path, ...],
    targets: tuple[str, ...],
    strict: bool,
    cwd: Path | None,
    as_json: bool,
) -> None:
    """Lint skill folders against the open Agent Skills rules and each agent's limits.

    Each PATH is a skill folder, a skills root (its sub-folders are skills) or a
    SKILL.md file (as pre-commit passes them); relative paths resolve against
    --cwd. Without PATH the current directory is linted. Exits 1 when there is an
    error finding (or a warning with --strict).

    JSON shape (a contract): {"findings": [{code, level, message, path, line,
    targets}], "summary": {errors, warnings, infos, skills}, "targets": [...]}.
    """
    base = (cwd if cwd is not None else Path.cwd()).absolute()
    if cwd is not None and not cwd.is_dir():
        fail(f"--cwd {cwd}: no such directory")
    chosen = tuple(dict.fromkeys(targets)) or ("agentskills",)
    resolved = [p if p.is_absolute() else base / p for p in (paths or (Path("."),))]
    findings = lint_paths(resolved, chosen)
    skills = len({d for p in resolved for d in iter_skill_dirs(p)[0]})
    counts = {
        "errors": sum(1 for f in findings if f.level == "error"),
        "warnings": sum(1 for f in findings if f.level == "warning"),
        "infos": sum(1 for f in findings if f.level == "info"),
        "skills": skills,
    }
    if as_json:
        emit_json(
            {
                "findings": [f.to_json() for f in findings],
                "summary": counts,
                "targets": list(chosen),
            }
        )
    else:
        for f in findings:
            who = "" if len(chosen) == 1 else f" ({', '.join(f.targets)})"
            where = _relative(f.path, base) + (f":{f.line}" if f.line else "")
            click.echo(terminal_safe(f"{where}: {f.level}: {f.message} [{f.code}]{who}"))
        click.echo(
            f"{skills} skill(s) checked for {', '.join(chosen)}: {counts['errors']} error(s), "
            f"{counts['warnings']} warning(s), {counts['infos']} note(s)"
        )
    bad = counts["errors"] + (counts["warnings"] if strict else 0)
    if bad:
        what = "error(s)" if not strict else "error(s) or warning(s)"
        fail(f"validation failed: {bad} {what}")
