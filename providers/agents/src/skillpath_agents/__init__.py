"""Provider ``agents``: ``.agent/skills`` and ``.agents/skills``, the open-standard locations.

Order inside the provider: ``.agent/skills`` then ``.agents/skills`` in every
walk-up directory, nearest first, home skipped (level ``project``); then
``~/.agent/skills`` and ``~/.agents/skills`` (level ``user``). A description is
optional (the body's first paragraph stands in).
"""

from __future__ import annotations

from skillpath import Discovery, DiscoveryResult, SkillContext, hookimpl

__all__ = ["DIR_NAMES", "PRIORITY", "PROVIDER_ID", "discover_skills"]

PROVIDER_ID = "agents"
PRIORITY = 70
#: What the hooks here depend on (:func:`skillpath.depends_on`): only files, so an
#: unchanged ``skillpath list`` may be replayed.
DEPENDS_ON = ("files",)
#: The two spellings, in scan order.
DIR_NAMES = (".agent", ".agents")


@hookimpl
def discover_skills(ctx: SkillContext) -> DiscoveryResult:
    """Project skills nearest first (``.agent`` before ``.agents``), then the user's."""
    d = Discovery(PROVIDER_ID, PRIORITY)
    for folder in ctx.walk_up(skip_home=True):
        for name in DIR_NAMES:
            d.scan(folder / name / "skills", "project")
    for name in DIR_NAMES:
        d.scan(ctx.home / name / "skills", "user")
    return d.result()
