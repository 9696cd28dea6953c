"""``skillpath validate <path>…``: the cross-agent lint (pre-commit and CI friendly)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from skillpath.cli._agentview import agent_option
from skillpath.cli._common import common_options, echo, emit_json, fail, terminal_safe
from skillpath.contentscan import to_sarif
from skillpath.lint import DEFAULT_TARGET, TARGETS, Finding, iter_skill_dirs, lint_paths
from skillpath.safety import describe_oserror

__all__ = ["content_findings", "project_skill_dirs", "validate_cmd"]

_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
#: content-check severity -> lint level
_LEVEL = {"high": "error", "medium": "warning", "low": "info"}


def content_findings(dirs: list[Path], targets: tuple[str, ...]) -> list[Finding]:
    """The content checks of each skill folder in ``dirs``, as lint findings
    (``content-<id>``; high → error, medium → warning, low → info)."""
    from skillpath.contentscan import scan_skill
    from skillpath.model import SkillSource
    from skillpath.scan import load_skill_file

    out: list[Finding] = []
    for folder in dirs:
        skill_file = folder / "SKILL.md" if folder.is_dir() else folder
        skill, _diags = load_skill_file(skill_file, SkillSource("validate", "project", folder))
        if skill is None:
            continue
        for f in scan_skill(skill):
            message = f"{f.reason}: {f.excerpt}" if f.excerpt else f.reason
            level = _LEVEL.get(f.severity, "info")
            out.append(
                Finding(
                    f"content-{f.id}",
                    level,  # type: ignore[arg-type]
                    message,
                    f.path or skill_file,
                    f.line,
                    targets,
                )
            )
    return sorted(out, key=lambda f: (str(f.path), f.line or 0, f.code, f.message))


def _relative(path: Path, base: Path) -> str:
    """``path`` relative to ``base`` when it is inside it (text output), else as is."""
    try:
        return path.relative_to(base.absolute()).as_posix()
    except ValueError:
        return str(path)


def project_skill_dirs(cwd: Path | None, base: Path) -> tuple[list[Path], list[Path]]:
    """The skill folders a bare ``validate`` lints, and the roots it looked in.

    The folder itself when it is a skill folder or a skills root, then every
    skill folder in the project-level skills roots the project's load scans
    (``.skillpath/skills``, ``.claude/skills``, ``.agents/skills`` … from cwd
    up to the repository root) and in custom directories inside the project.
    MCP servers are not contacted.
    """
    from skillpath.cli._load import host_for
    from skillpath.context import make_context
    from skillpath.loader import load_skills

    dirs: dict[Path, None] = dict.fromkeys(iter_skill_dirs(base)[0])
    ctx, _diags = make_context(cwd, settings={"mcp": {"servers": []}})
    result = load_skills(ctx=ctx, host=host_for(ctx))
    project = ctx.project_root
    roots: list[Path] = []
    for root in result.roots:
        inside = root.path == project or project in root.path.parents
        if not root.exists or not (root.level == "project" or inside):
            continue
        if root.path in roots:
            continue
        roots.append(root.path)
        dirs.update(dict.fromkeys(iter_skill_dirs(root.path)[0]))
    return list(dirs), roots


@click.command("validate")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--target",
    "targets",
    multiple=True,
    type=click.Choice(TARGETS),
    help="Agent whose rules apply (repeatable; default: agents, what the agents skillpath "
    "supports would load; agentskills is the strict open standard).",
)
@click.option("--strict", is_flag=True, help="Treat warnings as errors.")
@agent_option("validate")
@click.option(
    "--sarif",
    "sarif",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Also write the findings as SARIF 2.1.0 to this file (CI code scanning).",
)
@click.option(
    "--no-content",
    "no_content",
    is_flag=True,
    help="Skip the content checks (invisible characters, pipe-to-shell, credential reads …).",
)
@common_options
def validate_cmd(
    paths: tuple[Path, ...],
    targets: tuple[str, ...],
    strict: bool,
    sarif: Path | None,
    no_content: bool,
    cwd: Path | None,
    as_json: bool,
) -> None:
    """Lint skill folders against the open Agent Skills rules and each agent's limits.

    Each PATH is a skill folder, a skills root (its sub-folders are skills) or a
    SKILL.md file (as pre-commit passes them); relative paths resolve against
    --cwd. Without PATH, every skill of the project is linted: the current
    directory when it is a skill folder or a skills root, and the skill folders
    of every project skills root (.skillpath/skills, .claude/skills,
    .agents/skills … from here up to the repository root). Exits 1 when there
    is an error finding (or a warning with --strict).

    Content checks (see `skillpath.contentscan`) read each skill's text and its
    folder's text files: a high-severity finding is an error, a medium one a
    warning; their codes start with `content-`.

    JSON shape (a contract): {"findings": [{code, level, message, path, line,
    targets}], "summary": {errors, warnings, infos, skills}, "targets": [...]}.
    """
    base = (cwd if cwd is not None else Path.cwd()).absolute()
    chosen = tuple(dict.fromkeys(targets)) or (DEFAULT_TARGET,)
    if paths:
        resolved = [p if p.is_absolute() else base / p for p in paths]
        findings = lint_paths(resolved, chosen)
        dirs = list(dict.fromkeys(d for p in resolved for d in iter_skill_dirs(p)[0]))
        skills = len(dirs)
    else:
        resolved, roots = project_skill_dirs(cwd, base)
        findings = lint_paths(resolved, chosen)
        dirs = resolved
        skills = len(resolved)
        if not resolved:
            where = ", ".join(_relative(r, base) for r in roots) or "none exists"
            findings.append(
                Finding(
                    "no-skills",
                    "error",
                    "no skills in this project: no SKILL.md here, and the project's skills "
                    f"roots hold no skill folder (roots: {where}); pass a skill folder or a "
                    "skills root",
                    base,
                    None,
                    chosen,
                )
            )
    if not no_content:
        findings = findings + content_findings(dirs, chosen)
    counts = {
        "errors": sum(1 for f in findings if f.level == "error"),
        "warnings": sum(1 for f in findings if f.level == "warning"),
        "infos": sum(1 for f in findings if f.level == "info"),
        "skills": skills,
    }
    if sarif is not None:
        log = to_sarif(
            [
                (
                    f.code,
                    _SARIF_LEVEL.get(f.level, "note"),
                    f.message,
                    Path(_relative(f.path, base)),
                    f.line,
                )
                for f in findings
            ]
        )
        try:
            sarif.write_text(json.dumps(log, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        except OSError as exc:
            fail(f"cannot write {sarif}: {describe_oserror(exc)}", error="os-error")
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
            echo(terminal_safe(f"{where}: {f.level}: {f.message} [{f.code}]{who}"))
        echo(
            f"{skills} skill(s) checked for {', '.join(chosen)}: {counts['errors']} error(s), "
            f"{counts['warnings']} warning(s), {counts['infos']} note(s)"
        )
    bad = counts["errors"] + (counts["warnings"] if strict else 0)
    if bad:
        what = "error(s)" if not strict else "error(s) or warning(s)"
        fail(f"validation failed: {bad} {what}", error="validation-failed")
