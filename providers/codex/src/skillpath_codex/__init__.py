"""Provider ``codex``: OpenAI Codex skills.

Order inside the provider (the first skill of a name wins):

1. ``$CODEX_HOME/skills`` (default ``~/.codex/skills``, level ``user``),
2. ``.codex/skills`` in every directory from the working directory up to the
   repository root, nearest first (level ``project``), as Codex CLI 0.171
   reads them; outside a git repository the working directory's only,
3. the admin dir ``/etc/codex/skills`` (level ``managed``;
   ``SKILLPATH_CODEX_ADMIN_DIR`` moves it). Codex ranks admin skills below
   the user's and the repository's, so they come last here too.

A description is optional. Skills are found one level deep
(``<root>/<name>/SKILL.md``), where Codex searches up to six levels
(``skillpath list --agent codex`` shows Codex's own walk).

Outside a git repository, a ``.codex/skills`` between the working directory
and home is not read by Codex; an ``info`` diagnostic (``codex-skills-above``)
names it and the skills in it, so ``skillpath explain <name>`` can say why
such a skill is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

from skillpath import Discovery, DiscoveryResult, SkillContext, hookimpl
from skillpath.context import unsafe_dir_reason, walk_up_dirs

__all__ = [
    "ADMIN_DIR",
    "ADMIN_DIR_ENV",
    "PRIORITY",
    "PROVIDER_ID",
    "admin_dir",
    "codex_home",
    "discover_skills",
    "project_dirs",
    "skills_above",
]

PROVIDER_ID = "codex"
PRIORITY = 70
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
    for folder in ctx.walk_up(skip_home=True)[1:]:
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


def project_dirs(ctx: SkillContext) -> list[Path]:
    """The folders whose ``.codex/skills`` Codex reads: cwd up to the repository root,
    nearest first (home skipped); outside a repository cwd alone. Unsafe folders
    (other users can write them) are left out."""
    if ctx.repo_root is None:
        dirs = [ctx.cwd] if ctx.cwd != ctx.home else []
    else:
        dirs = walk_up_dirs(ctx.cwd, ctx.home, ctx.repo_root, skip_home=True)
    return [d for d in dirs if unsafe_dir_reason(d) is None]


@hookimpl
def discover_skills(ctx: SkillContext) -> DiscoveryResult:
    """The user's Codex skills, ``.codex/skills`` from cwd up to the repository root, then
    admin skills."""
    d = Discovery(PROVIDER_ID, PRIORITY)
    user = codex_home(ctx) / "skills"
    admin = admin_dir(ctx)
    scanned = {user}
    d.scan(user, "user")
    for folder in project_dirs(ctx):
        project = folder / ".codex" / "skills"
        if project not in scanned:
            d.scan(project, "project")
            scanned.add(project)
    if admin not in scanned:
        d.scan(admin, "managed")
        scanned.add(admin)
    skills_above(ctx, d, scanned)
    return d.result()
