"""Provider ``opencode``: OpenCode skills.

Order inside the provider: ``$XDG_CONFIG_HOME/opencode/skills`` then
``…/opencode/skill`` (default ``~/.config/opencode``, level ``user``), then
``<cwd>/.opencode/skills`` and ``<cwd>/.opencode/skill`` (level ``project``; the
working directory only). A relative ``XDG_CONFIG_HOME`` is ignored, as the XDG
spec requires. A description is optional.
"""

from __future__ import annotations

from pathlib import Path

from skillweave import Discovery, DiscoveryResult, SkillContext, hookimpl

__all__ = ["DIR_NAMES", "PRIORITY", "PROVIDER_ID", "config_dir", "discover_skills"]

PROVIDER_ID = "opencode"
PRIORITY = 55
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
    """User skills first, then the working directory's ``.opencode`` skills."""
    d = Discovery(PROVIDER_ID, PRIORITY)
    user = config_dir(ctx)
    project = ctx.cwd / ".opencode"
    for name in DIR_NAMES:
        d.scan(user / name, "user")
    for name in DIR_NAMES:
        d.scan(project / name, "project")
    return d.result()
