"""Provider ``github``: ``<cwd>/.github/skills`` (GitHub's Agent Skills layout).

Project level only, the working directory only; a description is required.
"""

from __future__ import annotations

from skillweave import Discovery, DiscoveryResult, SkillContext, hookimpl

__all__ = ["PRIORITY", "PROVIDER_ID", "discover_skills"]

PROVIDER_ID = "github"
PRIORITY = 30


@hookimpl
def discover_skills(ctx: SkillContext) -> DiscoveryResult:
    """Skills in ``.github/skills`` of the working directory (description required)."""
    d = Discovery(PROVIDER_ID, PRIORITY)
    d.scan(ctx.cwd / ".github" / "skills", "project", require_description=True)
    return d.result()
