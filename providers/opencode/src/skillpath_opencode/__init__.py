"""Provider ``opencode``: OpenCode skills.

Order inside the provider: ``$XDG_CONFIG_HOME/opencode/skills`` then
``…/opencode/skill`` (default ``~/.config/opencode``, level ``user``), then
``.opencode/skills`` and ``.opencode/skill`` in every directory from the
working directory up to the repository root (OpenCode walks up to the git
worktree), nearest first, home itself skipped (level ``project``). A relative
``XDG_CONFIG_HOME`` is ignored, as the XDG spec requires. A description is
optional.
"""

from __future__ import annotations

from pathlib import Path

from skillpath import Discovery, DiscoveryResult, SkillContext, hookimpl

__all__ = ["DIR_NAMES", "PRIORITY", "PROVIDER_ID", "config_dir", "discover_skills"]

PROVIDER_ID = "opencode"
PRIORITY = 55
#: What the hooks here depend on (:func:`skillpath.depends_on`): only files, so an
#: unchanged ``skillpath list`` may be replayed.
DEPENDS_ON = ("files",)
#: Both spellings OpenCode accepts, in scan order.
DIR_NAMES = ("skills", "skill")


def config_dir(ctx: SkillContext) -> Path:
    """``$XDG_CONFIG_HOME/opencode`` when it is absolute, else ``~/.config/opencode``."""
    value = ctx.env.get("XDG_CONFIG_HOME", "")
    if value == "~" or value.startswith("~/"):
        return ctx.home / value[2:] / "opencode"
    if value and Path(value).is_absolute():
        return Path(value) / "opencode"
    return ctx.home / ".config" / "opencode"


@hookimpl
def discover_skills(ctx: SkillContext) -> DiscoveryResult:
    """User skills first, then ``.opencode`` skills from cwd up to the repository root."""
    d = Discovery(PROVIDER_ID, PRIORITY)
    user = config_dir(ctx)
    for name in DIR_NAMES:
        d.scan(user / name, "user")
    for folder in ctx.walk_up(skip_home=True, entries=(".opencode",)):
        project = folder / ".opencode"
        if project == user:
            continue
        for name in DIR_NAMES:
            d.scan(project / name, "project")
    return d.result()
