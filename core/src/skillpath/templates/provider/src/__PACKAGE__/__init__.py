"""Provider ``__PROVIDER_ID__``: __DESCRIPTION__.

Order inside the provider: ``.__PROVIDER_ID__/skills`` in every walk-up directory,
nearest first, home skipped (level ``project``); then ``~/.__PROVIDER_ID__/skills``
(level ``user``). Change the roots to the places your agent keeps skills, and keep
``tests/test_conformance.py`` in step.
"""

from __future__ import annotations

from skillpath import Discovery, DiscoveryResult, SkillContext, depends_on, hookimpl

__all__ = ["PRIORITY", "PROVIDER_ID", "discover_skills"]

PROVIDER_ID = "__PROVIDER_ID__"
PRIORITY = __PRIORITY__


@hookimpl
# What the skills found here depend on. "files": only files read through Python
# (and the arguments, directory and environment), so an unchanged `skillpath list`
# may be replayed without calling this hook. If they also depend on the clock, a
# web service, a process or state kept in memory, say so (for example
# depends_on("files", "network")): such a run is then never replayed. Without
# any declaration, every `list` run calls the providers again.
@depends_on("files")
def discover_skills(ctx: SkillContext) -> DiscoveryResult:
    """Project skills nearest first (home skipped), then the user's."""
    d = Discovery(PROVIDER_ID, PRIORITY)
    # name what is read from each folder: a sticky one (/tmp) is judged by it alone
    for folder in ctx.walk_up(skip_home=True, entries=(".__PROVIDER_ID__",)):
        d.scan(folder / ".__PROVIDER_ID__" / "skills", "project")
    d.scan(ctx.home / ".__PROVIDER_ID__" / "skills", "user")
    return d.result()
