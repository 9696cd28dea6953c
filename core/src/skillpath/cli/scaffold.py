"""``skillpath new <name>``, ``skillpath new-pack <dist-name>`` and
``skillpath new-provider <name>``: valid scaffolds."""

from __future__ import annotations

import re
from pathlib import Path

import click

from skillpath.cli._common import common_options, echo, emit_json, fail, terminal_safe
from skillpath.cli._load import project_context
from skillpath.lint import has_errors, lint_paths, name_problems
from skillpath.safety import destination_problem

__all__ = [
    "PACK_ENTRY_POINT_GROUP",
    "new_cmd",
    "new_pack_cmd",
    "new_provider_cmd",
    "pack_files",
    "skill_text",
]

#: The entry-point group skill packs register in (read by the ``packs`` provider).
PACK_ENTRY_POINT_GROUP = "skillpath.packs"
_DIST_NAME = re.compile(r"^([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])$")
_DEFAULT_DESCRIPTION = (
    "Describe what this skill does and when to use it: the model decides from this text alone."
)


def skill_text(name: str, description: str) -> str:
    """The ``SKILL.md`` of a new skill: valid frontmatter and a body outline."""
    title = name.replace("-", " ").capitalize()
    desc = description.replace("\\", "\\\\").replace('"', '\\"')
    return f"""---
name: {name}
description: "{desc}"
---

# {title}

## When to use

Say when the agent should reach for this skill, and when it should not.

## Steps

1. The first thing to do.
2. The next thing to do.

## Files

Put helpers next to this file, in `scripts/`, `references/` or `assets/`, and refer
to them by relative path (for example `references/checklist.md`).
"""


def _check_name(name: str) -> None:
    problems = name_problems(name)
    if problems:
        fail(f"invalid skill name {name!r}: {'; '.join(problems)}", error="invalid-name")


def _write_new(path: Path, content: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "x", encoding="utf-8", newline="\n") as fh:
        fh.write(content)


#: ``new --agent``: the agents of ``export --to`` (their project folders).
_NEW_AGENTS = ("agents", "claude", "codex", "opencode", "github")


@click.command("new")
@click.argument("name")
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Skills root to create the folder in (instead of an agent's, see --agent).",
)
@click.option(
    "--agent",
    type=click.Choice(sorted([*_NEW_AGENTS, "skillpath"])),
    default=None,
    help="Whose project folder gets the skill (the names of `export --to`; default: agents, "
    ".agents/skills, which Codex, Copilot, OpenCode and `npx skills` read; claude: "
    ".claude/skills; skillpath: .skillpath/skills, read by skillpath only).",
)
@click.option("--description", default=None, help="The skill's description (what and when).")
@common_options
def new_cmd(
    name: str,
    directory: Path | None,
    agent: str | None,
    description: str | None,
    cwd: Path | None,
    as_json: bool,
) -> None:
    """Create the skill folder NAME with a valid SKILL.md.

    NAME must be 1–64 lowercase letters, digits and single hyphens. The folder
    goes into the project's .agents/skills (the project is the repository root,
    or --cwd), or into the folder of the agent --agent names (claude:
    .claude/skills, codex: .codex/skills, …), or into the skills root --dir
    names; an existing folder is never touched. Nothing is written
    through a symbolic link out of the project or into a folder another user owns or can
    write to.

    JSON shape: {"name", "path" (the folder), "skill_file", "findings": [as in
    `validate --json`]}.
    """
    _check_name(name)
    if directory is not None and agent is not None:
        fail("--dir and --agent name two places; give one", code=2, error="usage")
    ctx, _diags = project_context(cwd)
    if directory is None:
        base = ctx.project_root
        if agent == "skillpath":
            root = ctx.project_root / ".skillpath" / "skills"
        else:
            from skillpath.export import agent_folder

            root = agent_folder(agent or "agents", ctx)
    else:
        root = directory if directory.is_absolute() else ctx.cwd / directory
        base = root
    folder = root / name
    refused = destination_problem(folder, base)
    if refused is not None:
        fail(f"not writing {folder}: {refused}", error="unsafe-destination", path=folder)
    if folder.exists() or folder.is_symlink():
        fail(
            f"{folder} already exists; choose another name or remove it",
            error="exists",
            path=folder,
        )
    skill_file = folder / "SKILL.md"
    try:
        folder.mkdir(parents=True)
        _write_new(skill_file, skill_text(name, description or _DEFAULT_DESCRIPTION))
    except OSError as exc:
        fail(f"cannot create {folder}: {exc.strerror or exc}", error="os-error", path=folder)
    findings = lint_paths([folder])
    if as_json:
        emit_json(
            {
                "name": name,
                "path": str(folder),
                "skill_file": str(skill_file),
                "findings": [f.to_json() for f in findings],
            }
        )
    else:
        echo(f"Created {skill_file}")
        for f in findings:
            echo(terminal_safe(f"{f.location()}: {f.level}: {f.message} [{f.code}]"))
        if description is None:
            echo("Next: write the description (what the skill does and when to use it).")
    if has_errors(findings):  # pragma: no cover - the template is valid by construction
        fail("the new skill does not pass validation", error="validation-failed")


def pack_files(dist: str, package: str, pack: str, skill: str) -> dict[str, str]:
    """Relative path → content of a new skill-pack distribution.

    The distribution registers ``pack = "package.skills"`` in the
    ``skillpath.packs`` entry-point group; ``package/skills/`` is the package
    directory that holds one ``<name>/SKILL.md`` folder per skill.
    """
    skills_pkg = f"{package}.skills"
    return {
        "pyproject.toml": f"""[project]
name = "{dist}"
version = "0.1.0"
description = "Agent Skills packaged for skillpath"
readme = "README.md"
requires-python = ">=3.11"
dependencies = ["skillpath-packs>=0.1,<0.2"]

# skillpath's packs provider lists the skills in this package directory
# (<name>/SKILL.md folders) without writing anything to disk, and extracts a
# skill's files to the user cache the first time they are needed.
[project.entry-points."{PACK_ENTRY_POINT_GROUP}"]
{pack} = "{skills_pkg}"

[build-system]
requires = ["hatchling>=1.27"]
build-backend = "hatchling.build"

[tool.hatch.build.targets.wheel]
packages = ["src/{package}"]
""",
        "README.md": f"""# {dist}

A skill pack: the Agent Skills in `src/{package}/skills/`, one folder per skill,
installable with pip and found by skillpath through the `{PACK_ENTRY_POINT_GROUP}`
entry point `{pack}`.

```sh
pip install .
skillpath list --provider packs
skillpath validate src/{package}/skills
```

It depends on `skillpath-packs`: until skillpath is published on PyPI, install the pack
into an environment that already has skillpath (for example a skillpath checkout's
`.venv`: `uv pip install -e .`).

Add a skill: `skillpath new my-skill --dir src/{package}/skills`.
""",
        f"src/{package}/__init__.py": (
            f'"""The {dist} skill pack (skills live in ``{skills_pkg}``)."""\n'
        ),
        f"src/{package}/skills/__init__.py": (
            '"""Skill folders: one ``<name>/SKILL.md`` per skill (package data)."""\n'
        ),
        f"src/{package}/skills/{skill}/SKILL.md": skill_text(
            skill,
            f"Example skill of the {dist} pack: replace with what it does and when to use it.",
        ),
        "tests/test_skills.py": f'''"""Every skill in the pack passes the Agent Skills lint."""

from pathlib import Path

from skillpath.lint import has_errors, lint_paths

SKILLS = Path(__file__).resolve().parents[1] / "src" / "{package}" / "skills"


def test_skills_are_valid() -> None:
    findings = lint_paths([SKILLS], ["agentskills", "claude", "codex"])
    assert not has_errors(findings), [f.to_json() for f in findings]
''',
    }


@click.command("new-pack")
@click.argument("dist_name")
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where to create the distribution folder (default: the current directory).",
)
@click.option("--pack-name", default=None, help="Entry-point name (default: from DIST_NAME).")
@click.option("--skill", "skill", default="example", show_default=True, help="First skill's name.")
@common_options
def new_pack_cmd(
    dist_name: str,
    directory: Path | None,
    pack_name: str | None,
    skill: str,
    cwd: Path | None,
    as_json: bool,
) -> None:
    """Create a skill-pack distribution DIST_NAME: a pyproject.toml that registers
    the pack in the "skillpath.packs" entry-point group, a package whose skills/
    directory holds one <name>/SKILL.md folder per skill, a README and a test.

    JSON shape: {"distribution", "package", "pack", "path", "files": [relative
    paths]}.
    """
    if not _DIST_NAME.match(dist_name):
        fail(
            f"invalid distribution name {dist_name!r} (letters, digits, '.', '_', '-')",
            error="invalid-name",
        )
    _check_name(skill)
    norm = re.sub(r"[-_.]+", "-", dist_name).lower()
    package = norm.replace("-", "_")
    if not package.isidentifier():
        package = "pack_" + package
    pack = pack_name or norm
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", pack):
        fail(f"invalid pack (entry-point) name {pack!r}", error="invalid-name")
    ctx, _diags = project_context(cwd)
    base = (
        ctx.cwd
        if directory is None
        else (directory if directory.is_absolute() else ctx.cwd / directory)
    )
    target = base / dist_name
    if target.exists() or target.is_symlink():
        fail(
            f"{target} already exists; choose another name or remove it",
            error="exists",
            path=target,
        )
    files = pack_files(dist_name, package, pack, skill)
    try:
        for rel, content in files.items():
            _write_new(target / rel, content)
    except OSError as exc:
        fail(f"cannot create {target}: {exc.strerror or exc}", error="os-error", path=target)
    if as_json:
        emit_json(
            {
                "distribution": dist_name,
                "package": package,
                "pack": pack,
                "path": str(target),
                "files": sorted(files),
            }
        )
        return
    echo(f"Created {target}")
    for rel in sorted(files):
        echo(f"  {rel}")
    group = f'[project.entry-points."{PACK_ENTRY_POINT_GROUP}"]'
    echo(f'Entry point: {group} {pack} = "{package}.skills"')


@click.command("new-provider")
@click.argument("provider_id", metavar="NAME")
@click.option(
    "--dest",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder to create (default: ./skillpath-NAME); it must not exist.",
)
@click.option("--priority", type=int, default=50, show_default=True, help="Provider priority.")
@click.option("--description", default=None, help="One line for the README and pyproject.")
@common_options
def new_provider_cmd(
    provider_id: str,
    dest: Path | None,
    priority: int,
    description: str | None,
    cwd: Path | None,
    as_json: bool,
) -> None:
    """Create a provider distribution NAME (skillpath-NAME) from the template
    shipped with skillpath: a pyproject.toml registering the entry point NAME in
    the "skillpath" group, a module with PROVIDER_ID, PRIORITY and a
    discover_skills hook, a README, and tests (the skillpath-testing
    conformance kit plus the provider's own rules) that pass as generated.

    NAME is lowercase letters, digits and single dashes (e.g. acme-tools).
    JSON shape: {"provider", "distribution", "package", "priority", "path",
    "files": [relative paths]}.
    """

    from skillpath.provider_template import TemplateError, make_provider, placeholders

    ctx, _diags = project_context(cwd)
    target = Path(f"skillpath-{provider_id}") if dest is None else dest
    if not target.is_absolute():
        target = ctx.cwd / target
    text = description or f"skills for {provider_id}"
    try:
        files = make_provider(target, provider_id, priority, text)
    except TemplateError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot create {target}: {exc.strerror or exc}")
    values = placeholders(provider_id, priority, text)
    rels = sorted(str(f.relative_to(target)) for f in files)
    if as_json:
        emit_json(
            {
                "provider": provider_id,
                "distribution": values["__DISTRIBUTION__"],
                "package": values["__PACKAGE__"],
                "priority": priority,
                "path": str(target),
                "files": rels,
            }
        )
        return
    echo(terminal_safe(f"Created {target}"))
    for rel in rels:
        echo(terminal_safe(f"  {rel}"))
    echo(_install_hint(target))


def _install_hint(target: Path) -> str:
    """How to install the new provider into the environment this skillpath runs in and
    run its tests: with that Python's pip when it has one, else with uv (an environment
    uv made has no pip), naming the environment (``uv pip`` alone picks the system's)."""
    import importlib.util
    import shlex
    import sys

    py, where = shlex.quote(sys.executable), shlex.quote(str(target))
    if importlib.util.find_spec("pip") is not None:
        install = f"{py} -m pip install -e {where}"
    else:
        install = f"python3 -m uv pip install --python {py} -e {where}"
    lines = [
        "Next: install it (editable) into an environment with skillpath-core and "
        f"skillpath-testing — this skillpath runs in {terminal_safe(sys.executable)} — "
        "and run its tests:",
        f"  {install}",
    ]
    if importlib.util.find_spec("skillpath_testing") is None:
        lines.append(f"  {install.split(' -e ')[0]} skillpath-testing   (its tests need it)")
    lines.append(f"  {py} -m pytest {where}")
    return "\n".join(lines)
