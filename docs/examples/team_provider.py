"""A third-party provider: skills from the directories a team lists in its config.

Reads ``[team] roots = ["~/team-skills", ...]`` from the skillpath config
files (an unknown section is kept for plugins) and the ``TEAM_SKILLS``
environment variable (``os.pathsep``-separated). Registered through the
``skillpath`` entry-point group::

    [project.entry-points.skillpath]
    team = "team_provider"
"""

from __future__ import annotations

from skillpath import Discovery, DiscoveryResult, SkillContext, depends_on, hookimpl

PROVIDER_ID = "team"
PRIORITY = 60  # below claude (80) and the .agents/codex family (70), above opencode (55)


@hookimpl
@depends_on("files")  # config files, the environment and the folders it scans: replayable
def discover_skills(ctx: SkillContext) -> DiscoveryResult:
    """One root per configured directory, in the order given; descriptions required."""
    d = Discovery(PROVIDER_ID, PRIORITY)
    section = ctx.settings.data.get("team", {})
    roots = section.get("roots", [])
    if not isinstance(roots, list) or not all(isinstance(r, str) for r in roots):
        d.diagnostic("error", "team-bad-roots", "[team] roots must be a list of strings")
        roots = []
    for raw in roots:
        d.scan(ctx.expand(raw), "user", require_description=True, origin="config")
    for path in ctx.iter_env_paths("TEAM_SKILLS"):
        d.scan(path, "user", require_description=True, origin="TEAM_SKILLS")
    return d.result()
