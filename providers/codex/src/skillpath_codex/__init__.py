"""Provider ``codex``: OpenAI Codex skills.

Order inside the provider (the first skill of a name wins):

1. ``$CODEX_HOME/skills`` (default ``~/.codex/skills``, level ``user``),
2. ``.codex/skills`` in every directory from the working directory up to the
   repository root, nearest first (level ``project``), as Codex CLI 0.171
   reads them; outside a git repository the working directory's only,
3. the admin dir ``/etc/codex/skills`` (level ``managed``;
   ``SKILLPATH_CODEX_ADMIN_DIR`` moves it). Codex ranks admin skills below
   the user's and the repository's, so they come last here too.

A description is optional. Skills are found as Codex finds them (the walk of
:func:`skillpath.views.codex_skill_files`): up to six folders deep, dot entries
skipped, a skill inside another skill's folder included; the first level through
the core scanner (its index, containment and diagnostics), the deeper ones after
it, in Codex's breadth-first order. Two deliberate differences from Codex (see
``docs/agents.md``): below the first level a folder reached through a symbolic
link is not followed (a link could lead the walk anywhere, and the first level
already covers the layouts that link a skill in), and a project skill whose real
path leaves the project is refused, as everywhere in skillpath.

The ``.agents/skills`` folders Codex also reads are the ``agents`` provider's;
it walks them up from cwd even outside git (OpenCode reads them there too), where
Codex reads cwd's alone: ``skillpath list --agent codex`` shows Codex's rule.

Outside a git repository, a ``.codex/skills`` between the working directory
and home is not read by Codex; an ``info`` diagnostic (``codex-skills-above``)
names it and the skills in it, so ``skillpath explain <name>`` can say why
such a skill is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

from skillpath import (
    Discovery,
    DiscoveryResult,
    SkillContext,
    SkillSource,
    hookimpl,
    load_skill_file,
)
from skillpath.cache.changes import kept_while_unchanged
from skillpath.context import unsafe_dir_reason, walk_up_dirs
from skillpath.safety import outside_area, project_area

__all__ = [
    "ADMIN_DIR",
    "ADMIN_DIR_ENV",
    "PRIORITY",
    "PROVIDER_ID",
    "admin_dir",
    "codex_home",
    "discover_skills",
    "nested_skills",
    "project_dirs",
    "skills_above",
]

PROVIDER_ID = "codex"
PRIORITY = 70
#: What the hooks here depend on (:func:`skillpath.depends_on`): only files, so an
#: unchanged ``skillpath list`` may be replayed.
DEPENDS_ON = ("files",)
#: Codex's admin (system-wide) skills dir on Linux.
ADMIN_DIR = Path("/etc/codex/skills")
#: Environment variable that moves :data:`ADMIN_DIR` (the skills dir itself).
ADMIN_DIR_ENV = "SKILLPATH_CODEX_ADMIN_DIR"
#: At most this many skill names are quoted in a ``codex-skills-above`` message.
MAX_NAMES_SHOWN = 10


def codex_home(ctx: SkillContext) -> Path:
    """``$CODEX_HOME`` (``~`` is the context's home; relative to cwd) or ``~/.codex``."""
    return ctx.env_dir("CODEX_HOME") or ctx.home / ".codex"


def admin_dir(ctx: SkillContext) -> Path:
    """The admin skills dir: ``$SKILLPATH_CODEX_ADMIN_DIR`` or :data:`ADMIN_DIR`."""
    return ctx.env_dir(ADMIN_DIR_ENV) or ADMIN_DIR


def _skill_names(folder: Path) -> list[str] | None:
    """Sorted names of the ``<folder>/<name>/SKILL.md`` folders; ``None`` when unreadable."""
    try:
        with os.scandir(folder) as it:
            return sorted(
                e.name
                for e in it
                if not e.name.startswith(".") and os.path.isfile(os.path.join(e.path, "SKILL.md"))
            )
    except OSError:
        return None


def skills_above(ctx: SkillContext, d: Discovery, scanned: set[Path]) -> None:
    """Add a ``codex-skills-above`` info for each ``.codex/skills`` above cwd that Codex
    does not read (outside a git repository: between cwd and home).

    Only directories above cwd on the walk up (home skipped) that exist and are
    not already scanned are reported, nearest first. The message names up to
    :data:`MAX_NAMES_SHOWN` skills held there.
    """
    for folder in ctx.walk_up(skip_home=True, entries=(".codex",))[1:]:
        above = folder / ".codex" / "skills"
        if above in scanned or not above.is_dir():
            continue
        names = _skill_names(above)
        if names is None:
            held = "cannot be listed"
        elif not names:
            held = "holds no skills"
        else:
            shown = ", ".join(names[:MAX_NAMES_SHOWN])
            more = len(names) - MAX_NAMES_SHOWN
            held = f"holds {shown}" + (f" and {more} more" if more > 0 else "")
        d.diagnostic(
            "info",
            "codex-skills-above",
            f"found .codex/skills at {folder} ({held}); not loaded: outside a git "
            "repository Codex reads project skills from the working directory only "
            f"({ctx.cwd / '.codex' / 'skills'}) — start there, make the project a git "
            "repository, or add the folder to skills.custom_directories",
            above,
        )


def _nested_files(root: Path) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """The ``SKILL.md`` files of :func:`~skillpath.views.codex_skill_files` below the first
    level of ``root`` (the first level is the core scanner's), in its order, and every
    path the walk depends on but ``root`` (each folder it listed, each link it met); the
    walk is done again only when one of those changed (a session's refresh lists none of
    them otherwise). The folders are kept as paths: a refresh declares each as an input
    again without making a path object of each (hundreds in a large root)."""

    def walk() -> tuple[tuple[tuple[Path, ...], tuple[Path, ...]], list[str]]:
        top = os.fspath(root)
        if not os.path.isdir(top):  # what the walk finds there: nothing, root its one input
            return ((), ()), [top]
        # the agent views are imported only when a root is there to walk
        from skillpath.views import codex_skill_files

        seen: list[str] = []
        files = codex_skill_files(root, seen)
        # below the first level: two separators after ``root/`` (a string test: the
        # walk's paths all start with ``root``'s text, and a root of thousands of
        # skills made a relative path of each)
        cut = len(os.path.join(top, ""))
        nested = tuple(f for f in files if os.fspath(f).count(os.sep, cut) > 1)
        return (nested, tuple(Path(p) for p in seen if p != top)), seen

    return kept_while_unchanged((PROVIDER_ID, "nested", os.fspath(root)), walk)


def nested_skills(d: Discovery, root: Path, level: str) -> None:
    """Add the skills Codex finds below the first level of ``root`` (nested up to six
    folders deep, skills inside skills), in its breadth-first order; folders reached
    through a link are not followed, project skills that leave the project refused.

    The folders the walk listed and the nested ``SKILL.md`` files are declared as
    inputs (:meth:`skillpath.Discovery.input`): a long-running host watches a root and
    its first level only, so a skill added, edited or removed deeper is seen through
    them."""
    area = project_area(root) if level == "project" else None
    loaded: set[Path] = set()
    files, folders = _nested_files(root)
    d.inputs.extend(folders)  # as d.input(folder) for each: they are paths already
    for skill_md in files:
        d.input(skill_md)
        rel = skill_md.relative_to(root)
        if any((root / Path(*rel.parts[:n])).is_symlink() for n in range(2, len(rel.parts))):
            continue
        if area is not None and outside_area(skill_md, area) is not None:
            d.diagnostic(
                "warning",
                "outside-project",
                "a nested skill whose real path leaves the project: not loaded",
                skill_md,
            )
            continue
        skill, diags = load_skill_file(
            skill_md, SkillSource(PROVIDER_ID, level, root), priority=PRIORITY
        )
        d.diagnostics.extend(diags)
        if skill is not None:
            d.add([skill])
            loaded.add(skill_md)
    if not loaded:
        return
    # the core scanner noted these as not loaded (it reads one level): they are now
    kept = [
        x for x in d.diagnostics if not (x.code == "nested-skills-ignored" and x.path in loaded)
    ]
    if not any(
        x.code == "nested-skills-ignored" and x.path is not None and x.path.is_relative_to(root)
        for x in kept
    ):
        kept = [
            x
            for x in kept
            if not (
                x.code == "nested-skills-group"
                and x.path is not None
                and x.path.is_relative_to(root)
            )
        ]
    d.diagnostics[:] = kept


def project_dirs(ctx: SkillContext) -> list[Path]:
    """The folders whose ``.codex/skills`` Codex reads: cwd up to the repository root,
    nearest first (home skipped); outside a repository cwd alone. Unsafe folders
    (other users can write them) are left out."""
    if ctx.repo_root is None:
        dirs = [ctx.cwd] if ctx.cwd != ctx.home else []
    else:
        dirs = walk_up_dirs(ctx.cwd, ctx.home, ctx.repo_root, skip_home=True)
    return [d for d in dirs if unsafe_dir_reason(d, (".codex",)) is None]


@hookimpl
def discover_skills(ctx: SkillContext) -> DiscoveryResult:
    """The user's Codex skills, ``.codex/skills`` from cwd up to the repository root, then
    admin skills."""
    d = Discovery(PROVIDER_ID, PRIORITY)
    user = codex_home(ctx) / "skills"
    admin = admin_dir(ctx)
    scanned = {user}
    d.scan(user, "user")
    nested_skills(d, user, "user")
    for folder in project_dirs(ctx):
        project = folder / ".codex" / "skills"
        if project not in scanned:
            d.scan(project, "project")
            nested_skills(d, project, "project")
            scanned.add(project)
    if admin not in scanned:
        d.scan(admin, "managed")
        nested_skills(d, admin, "managed")
        scanned.add(admin)
    skills_above(ctx, d, scanned)
    return d.result()
