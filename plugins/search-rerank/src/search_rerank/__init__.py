"""Example skillpath plugin: re-rank skill search results with a rule of your own.

skillpath ranks search results with BM25 (:mod:`skillpath.search`); this plugin
shows the ``rank_skills`` hook that replaces or refines that ranking — the place
for an embedding model or a cross-encoder reranker. Its rule is small on purpose:
the skills a team prefers (``prefer``) move up by ``boost`` when they match.

It does nothing until configured, so installing it changes no result::

    # ~/.skillpath/config.toml
    [search-rerank]
    prefer = ["deploy-docs", "release"]
    boost = 10.0
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import attrs
from skillpath import SettingSpec, hookimpl

if TYPE_CHECKING:  # a plugin is imported by every command: import search only when ranking
    from skillpath import SearchHit, SkillContext

__all__ = ["rank_skills", "settings_schema"]


@hookimpl
def settings_schema() -> Mapping[str, Mapping[str, SettingSpec]]:
    """Declare ``[search-rerank] prefer`` (skill names) and ``boost`` (a float)."""
    return {
        "search-rerank": {
            "prefer": SettingSpec(list, (), "Skill names moved up when they match (empty: off)."),
            "boost": SettingSpec(float, 10.0, "Score added to a preferred skill's match."),
        }
    }


@hookimpl
def rank_skills(
    query: str, hits: Sequence[SearchHit], ctx: SkillContext
) -> Sequence[SearchHit] | None:
    """Add ``boost`` to the preferred hits, then sort again (score, then name)."""
    section = ctx.settings.section("search-rerank")
    prefer = set(section.get("prefer", ()))
    boost = section.get("boost", 10.0)
    if not prefer or not hits:
        return None

    def moved(hit: SearchHit) -> SearchHit:
        if hit.name not in prefer:
            return hit
        return attrs.evolve(hit, score=round(hit.score + float(boost), 6))

    return sorted((moved(h) for h in hits), key=lambda h: (-h.score, h.name))
