"""Provider ``codex``: OpenAI Codex skills.

Order inside the provider: ``$CODEX_HOME/skills`` (default ``~/.codex/skills``,
level ``user``), then ``<cwd>/.codex/skills`` (level ``project``; the working
directory only, no walk-up). A description is optional.
"""

from __future__ import annotations

from pathlib import Path

from skillweave import Discovery, DiscoveryResult, SkillContext, hookimpl

__all__ = ["PRIORITY", "PROVIDER_ID", "codex_home", "discover_skills"]

PROVIDER_ID = "codex"
PRIORITY = 70


def codex_home(ctx: SkillContext) -> Path:
    """``$CODEX_HOME`` (``~`` is the context's home; relative to cwd) or ``~/.codex``."""
    value = ctx.env.get("CODEX_HOME", "")
    if not value:
        return ctx.home / ".codex"
    if value == "~" or value.startswith("~/"):
        return ctx.home / value[2:]
    path = Path(value)
    return path if path.is_absolute() else ctx.cwd / path


@hookimpl
def discover_skills(ctx: SkillContext) -> DiscoveryResult:
    """The user's Codex skills, then the working directory's ``.codex/skills``."""
    d = Discovery(PROVIDER_ID, PRIORITY)
    user = codex_home(ctx) / "skills"
    project = ctx.cwd / ".codex" / "skills"
    d.scan(user, "user")
    if project != user:
        d.scan(project, "project")
    return d.result()
