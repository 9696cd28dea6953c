"""Provider ``github``: GitHub Copilot's skills (``.github/skills``).

Order inside the provider (the first skill of a name wins):

1. ``<cwd>/.github/skills`` (level ``project``),
2. ``<repository root>/.github/skills`` when cwd is below the repository root
   (level ``project``; Copilot reads ``.github`` from the root of the repo, so
   a monorepo user starting in ``packages/api`` still gets the repo's skills),
3. ``~/.copilot/skills`` (level ``user``; Copilot's personal skills; home is
   the context's home).

A description is required everywhere. The project dirs come before the user
dir, as in the ``agents`` provider (which serves the ``.agents/skills`` dirs
Copilot also reads).
"""

from __future__ import annotations

from pathlib import Path

from skillpath import Discovery, DiscoveryResult, SkillContext, hookimpl
from skillpath.context import unsafe_dir_reason

__all__ = ["PRIORITY", "PROVIDER_ID", "discover_skills", "project_dirs", "user_dir"]

PROVIDER_ID = "github"
PRIORITY = 30
#: What the hooks here depend on (:func:`skillpath.depends_on`): only files, so an
#: unchanged ``skillpath list`` may be replayed.
DEPENDS_ON = ("files",)


def project_dirs(ctx: SkillContext) -> list[Path]:
    """``<cwd>/.github/skills`` and, below the repository root, the root's one (nearest first).

    A directory other users can write to or own supplies none
    (:func:`skillpath.context.unsafe_dir_reason`).
    """
    bases = [ctx.cwd]
    root = ctx.repo_root
    if root is not None and root != ctx.cwd:
        bases.append(root)
    return [
        base / ".github" / "skills"
        for base in bases
        if unsafe_dir_reason(base, (".github",)) is None
    ]


def user_dir(ctx: SkillContext) -> Path:
    """Copilot's personal skills dir, ``~/.copilot/skills``."""
    return ctx.home / ".copilot" / "skills"


@hookimpl
def discover_skills(ctx: SkillContext) -> DiscoveryResult:
    """Project ``.github/skills`` (cwd, then the repository root), then ``~/.copilot/skills``."""
    d = Discovery(PROVIDER_ID, PRIORITY)
    user = user_dir(ctx)
    for folder in project_dirs(ctx):
        if folder != user:
            d.scan(folder, "project", require_description=True)
    d.scan(user, "user", require_description=True)
    return d.result()
