"""Provider ``claude``: Claude Code's skills and its legacy command files.

Order inside the provider (the first skill of a name wins):

1. the managed policy dir ``/etc/claude-code/.claude/skills`` (level ``managed``;
   ``SKILLPATH_CLAUDE_POLICY_DIR`` moves it, ``SKILLPATH_CLAUDE_MANAGED_DIR`` moves
   ``/etc/claude-code``, as for the managed settings),
2. ``$CLAUDE_CONFIG_DIR/skills`` or ``~/.claude/skills`` (level ``user``),
3. ``.claude/skills`` in every walk-up directory, nearest first, home skipped
   (level ``project``),
4. legacy command files: the managed ``/etc/claude-code/.claude/commands/*.md``
   (``managed``), ``$CLAUDE_CONFIG_DIR/commands/*.md`` or
   ``~/.claude/commands/*.md`` (``user``), then ``.claude/commands/*.md`` in the
   same walk-up directories (``project``).

Command files come after every skill dir, so a skill of the same name always
wins over a command: the command is kept out of the catalog by the loader's
first-wins rule and reported in ``shadowed`` (with a ``name-conflict``
diagnostic naming both files). A command's name is its file name without
``.md``; its frontmatter ``name`` and ``paths`` are ignored. A command in a
sub-folder is named after the folders and the file joined by ``:``, as Claude
Code does (``commands/frontend/component.md`` is ``frontend:component``), down
to :data:`MAX_COMMAND_DEPTH` folders.

In a project, a command file or folder that resolves outside the repository (a
symlink to ``~/.git-credentials``) is refused unread with a ``file-outside-project``
error (:func:`skillpath.safety.project_area`).

A command is one file, not a skill folder: its ``base_dir`` is ``None``, so it
has no resources (the other command files next to it are not its files),
``skill://<command>/<file>`` is refused, and its prompt gets no "Base directory
for this skill" line. ``skill://<command>`` still reads the command file.
"""

from __future__ import annotations

import os
from pathlib import Path

import attrs
from skillpath import Discovery, DiscoveryResult, RootScan, SkillContext, SkillSource, hookimpl
from skillpath.safety import describe_oserror, outside_area, project_area
from skillpath.scan import load_skill_file, outside_project

__all__ = [
    "COMMAND_IGNORED_KEYS",
    "MANAGED_DIR_ENV",
    "MAX_COMMAND_DEPTH",
    "POLICY_DIR",
    "POLICY_DIR_ENV",
    "PRIORITY",
    "PROVIDER_ID",
    "config_dir",
    "discover_skills",
    "managed_root",
    "policy_dir",
    "scan_commands",
]

PROVIDER_ID = "claude"
PRIORITY = 80
#: What the hooks here depend on (:func:`skillpath.depends_on`): only files, so an
#: unchanged ``skillpath list`` may be replayed.
DEPENDS_ON = ("files",)
#: Claude Code's managed-policy skills dir on Linux.
POLICY_DIR = Path("/etc/claude-code/.claude/skills")
#: Environment variable that moves :data:`POLICY_DIR` (the skills dir itself).
POLICY_DIR_ENV = "SKILLPATH_CLAUDE_POLICY_DIR"
#: Environment variable that moves ``/etc/claude-code`` (managed skills, commands, settings).
MANAGED_DIR_ENV = "SKILLPATH_CLAUDE_MANAGED_DIR"
#: Frontmatter keys a legacy command file cannot set.
COMMAND_IGNORED_KEYS = ("name", "paths")
#: Command sub-folders (namespaces) deeper than this are not searched (an ``info`` says so).
MAX_COMMAND_DEPTH = 5


def managed_root(ctx: SkillContext) -> Path:
    """Claude Code's managed ``.claude`` folder: ``$SKILLPATH_CLAUDE_MANAGED_DIR/.claude``
    or ``/etc/claude-code/.claude`` (Claude Code itself reads a fixed path)."""
    return (ctx.env_dir(MANAGED_DIR_ENV) or POLICY_DIR.parent.parent) / ".claude"


def policy_dir(ctx: SkillContext) -> Path:
    """The managed-policy skills dir: ``$SKILLPATH_CLAUDE_POLICY_DIR``, else
    :func:`managed_root` ``/skills``."""
    return ctx.env_dir(POLICY_DIR_ENV) or managed_root(ctx) / "skills"


def config_dir(ctx: SkillContext) -> Path:
    """Claude Code's user config dir: ``$CLAUDE_CONFIG_DIR`` or ``~/.claude``."""
    return ctx.env_dir("CLAUDE_CONFIG_DIR") or ctx.home / ".claude"


def scan_commands(d: Discovery, folder: Path, level: str) -> None:
    """Add every legacy command file under ``folder`` as a skill (``loaded_from="commands"``).

    ``<folder>/<name>.md`` is command ``name``; ``<folder>/<ns>/<name>.md`` is
    ``ns:name`` (down to :data:`MAX_COMMAND_DEPTH` folders). Dot entries are
    skipped, symlinked files and folders followed (a folder reached twice is
    searched once), entries visited in sorted order. A missing folder is
    silent; an unreadable one, a dangling symlink or an unreadable file is a
    diagnostic. Each file goes through the core's one skill builder with its
    name taken from the path, and gets ``base_dir=None`` (a command has no
    skill folder).
    """
    source = SkillSource(PROVIDER_ID, level, folder, "commands")
    # a project's command files, and the folders holding them, must resolve
    # inside its repository: a link to ~/.git-credentials is never read
    area = project_area(folder) if level == "project" else None
    if area is not None and os.path.exists(folder):
        outside = outside_area(folder, area)
        if outside is not None:
            d.diagnostics.append(outside_project(folder, outside, area, PROVIDER_ID))
            d.roots.append(RootScan(PROVIDER_ID, level, folder, True))
            return
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except FileNotFoundError:
        d.roots.append(RootScan(PROVIDER_ID, level, folder, False))
        return
    except OSError as exc:
        d.diagnostic(
            "error",
            "unreadable-root",
            f"cannot scan commands folder: {describe_oserror(exc)}",
            folder,
        )
        d.roots.append(RootScan(PROVIDER_ID, level, folder, True))
        return
    seen = {os.path.realpath(folder)}
    count = _scan_command_entries(d, entries, source, (), seen, area)
    d.roots.append(RootScan(PROVIDER_ID, level, folder, True, count))


def _scan_command_entries(
    d: Discovery,
    entries: list[os.DirEntry[str]],
    source: SkillSource,
    namespace: tuple[str, ...],
    seen: set[str],
    area: str | None,
) -> int:
    """Add the commands among ``entries`` (recursing into folders); return how many.

    With ``area`` (a project's), a symlinked file or folder resolving outside
    it is skipped, unread, with a ``file-outside-project`` error.
    """
    count = 0
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = Path(entry.path)
        if area is not None and entry.is_symlink() and os.path.exists(entry.path):
            outside = outside_area(path, area)
            if outside is not None:
                if entry.is_dir() or entry.name.endswith(".md"):
                    d.diagnostics.append(outside_project(path, outside, area, PROVIDER_ID))
                continue
        try:
            is_dir = entry.is_dir()
            is_file = not is_dir and entry.is_file()
        except OSError as exc:
            d.diagnostic(
                "error", "unreadable-entry", f"cannot inspect: {describe_oserror(exc)}", path
            )
            continue
        if is_dir:
            count += _scan_command_folder(d, path, source, (*namespace, entry.name), seen, area)
            continue
        if not entry.name.endswith(".md"):
            continue
        if not is_file:
            if entry.is_symlink() and not os.path.exists(entry.path):
                d.diagnostic(
                    "warning",
                    "broken-symlink",
                    f"command file skipped: dangling symlink -> {os.readlink(entry.path)}",
                    path,
                )
            continue
        skill, diags = load_skill_file(
            path,
            source,
            priority=PRIORITY,
            default_name=":".join((*namespace, entry.name[: -len(".md")])),
            ignore_keys=COMMAND_IGNORED_KEYS,
        )
        d.diagnostics.extend(diags)
        if skill is not None:
            d.add([attrs.evolve(skill, base_dir=None)])
            count += 1
    return count


def _scan_command_folder(
    d: Discovery,
    folder: Path,
    source: SkillSource,
    namespace: tuple[str, ...],
    seen: set[str],
    area: str | None,
) -> int:
    """Commands in sub-folder ``folder`` (namespace ``namespace``); return how many."""
    real = os.path.realpath(folder)
    if real in seen:
        return 0  # a symlink back to a folder already searched
    if len(namespace) > MAX_COMMAND_DEPTH:
        d.diagnostic(
            "info",
            "commands-too-deep",
            f"command folder not searched: more than {MAX_COMMAND_DEPTH} namespace levels "
            f"({':'.join(namespace)}:…)",
            folder,
        )
        return 0
    seen.add(real)
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        d.diagnostic(
            "warning",
            "unreadable-entry",
            f"cannot scan command folder: {describe_oserror(exc)}",
            folder,
        )
        return 0
    return _scan_command_entries(d, entries, source, namespace, seen, area)


@hookimpl
def discover_skills(ctx: SkillContext) -> DiscoveryResult:
    """Managed, user, then project skills (nearest first); then legacy command files."""
    d = Discovery(PROVIDER_ID, PRIORITY)
    config = config_dir(ctx)
    user_skills = config / "skills"
    d.scan(policy_dir(ctx), "managed")
    d.scan(user_skills, "user")
    projects = [folder / ".claude" for folder in ctx.walk_up(skip_home=True, entries=(".claude",))]
    projects = [p for p in projects if p != config]
    for project in projects:
        d.scan(project / "skills", "project")
    scan_commands(d, managed_root(ctx) / "commands", "managed")
    scan_commands(d, config / "commands", "user")
    for project in projects:
        scan_commands(d, project / "commands", "project")
    return d.result()
