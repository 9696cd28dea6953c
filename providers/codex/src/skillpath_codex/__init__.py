"""Provider ``codex``: OpenAI Codex skills.

Order inside the provider (the first skill of a name wins):

1. ``$CODEX_HOME/skills`` (default ``~/.codex/skills``, level ``user``),
2. ``<cwd>/.codex/skills`` (level ``project``; the working directory only, no
   walk-up, as the provider table of the specification says),
3. the admin dir ``/etc/codex/skills`` (level ``managed``;
   ``SKILLPATH_CODEX_ADMIN_DIR`` moves it). Codex ranks admin skills below
   the user's and the repository's, so they come last here too.

A description is optional. Skills are found one level deep
(``<root>/<name>/SKILL.md``), where Codex searches up to six levels.

When the working directory is below the repository root and a directory in
between (or the root) holds ``.codex/skills``, that folder is not scanned; an
``info`` diagnostic (``codex-skills-above``) names it and the skills in it, so
``skillpath explain <name>`` can say why such a skill is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

from skillpath import Discovery, DiscoveryResult, SkillContext, hookimpl
from skillpath.context import unsafe_dir_reason

__all__ = [
    "ADMIN_DIR",
    "ADMIN_DIR_ENV",
    "PRIORITY",
    "PROVIDER_ID",
    "admin_dir",
    "codex_home",
    "discover_skills",
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
    """Add a ``codex-skills-above`` info for each ``.codex/skills`` between cwd and the root.

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
            f"found .codex/skills at {folder} ({held}); not loaded: the codex provider "
            "reads project skills from the working directory only "
            f"({ctx.cwd / '.codex' / 'skills'}) — start there, or add the folder to "
            "skills.custom_directories",
            above,
        )


@hookimpl
def discover_skills(ctx: SkillContext) -> DiscoveryResult:
    """The user's Codex skills, the working directory's ``.codex/skills``, then admin skills."""
    d = Discovery(PROVIDER_ID, PRIORITY)
    user = codex_home(ctx) / "skills"
    project = ctx.cwd / ".codex" / "skills"
    admin = admin_dir(ctx)
    scanned = {user}
    d.scan(user, "user")
    if project not in scanned and unsafe_dir_reason(ctx.cwd) is None:
        d.scan(project, "project")
        scanned.add(project)
    if admin not in scanned:
        d.scan(admin, "managed")
        scanned.add(admin)
    skills_above(ctx, d, scanned)
    return d.result()
