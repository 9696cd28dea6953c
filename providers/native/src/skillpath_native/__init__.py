"""Provider ``native``: ``.skillpath/skills`` in the project, then ``~/.skillpath/skills``."""

from __future__ import annotations

from skillpath import Discovery, DiscoveryResult, SkillContext, hookimpl

PROVIDER_ID = "native"
PRIORITY = 100
#: What the hooks here depend on (:func:`skillpath.depends_on`): only files, so an
#: unchanged ``skillpath list`` may be replayed.
DEPENDS_ON = ("files",)


@hookimpl
def discover_skills(ctx: SkillContext) -> DiscoveryResult:
    """Project skills nearest first, then the user's; a description is required."""
    d = Discovery(PROVIDER_ID, PRIORITY)
    user_root = ctx.skillpath_home / "skills"
    for folder in ctx.walk_up(entries=(".skillpath",)):
        root = folder / ".skillpath" / "skills"
        if root == user_root:
            continue
        d.scan(root, "project", require_description=True)
    d.scan(user_root, "user", require_description=True)
    return d.result()
