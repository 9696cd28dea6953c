"""Provider ``agents``: ``.agents/skills`` (the open-standard location) and ``.agent/skills``.

Order inside the provider: ``.agents/skills`` then ``.agent/skills`` in every
walk-up directory, nearest first, home skipped (level ``project``); then
``~/.agents/skills`` and ``~/.agent/skills`` (level ``user``). A description is
optional (the body's first paragraph stands in).

``.agent/skills`` (singular) is read by skillpath alone: Claude Code 2.1.332,
Codex CLI 0.171.0 and OpenCode 1.18.33 all ignore it (``tests/counterparts``).
skillpath keeps reading it for the projects that use it, but after
``.agents/skills`` in the same directory, so it never wins a name against a copy
the agents read; ``skillpath list --agent …`` and ``doctor``'s Agents section show
that no agent reads such a skill.
"""

from __future__ import annotations

from skillpath import Discovery, DiscoveryResult, SkillContext, hookimpl

__all__ = ["DIR_NAMES", "PRIORITY", "PROVIDER_ID", "discover_skills"]

PROVIDER_ID = "agents"
PRIORITY = 70
#: What the hooks here depend on (:func:`skillpath.depends_on`): only files, so an
#: unchanged ``skillpath list`` may be replayed.
DEPENDS_ON = ("files",)
#: The two spellings, in scan order: the one the agents read first.
DIR_NAMES = (".agents", ".agent")


@hookimpl
def discover_skills(ctx: SkillContext) -> DiscoveryResult:
    """Project skills nearest first (``.agents`` before ``.agent``), then the user's."""
    d = Discovery(PROVIDER_ID, PRIORITY)
    places = [(folder, "project") for folder in ctx.walk_up(skip_home=True, entries=DIR_NAMES)]
    places.append((ctx.home, "user"))
    for folder, level in places:
        for name in DIR_NAMES:
            root = folder / name / "skills"
            d.scan(root, level)
    return d.result()
