"""The __PROVIDER_ID__ provider passes the skillpath provider conformance kit."""

from __future__ import annotations

from pathlib import Path

from skillpath_testing import ProviderConformance, Root


class TestConformance(ProviderConformance):
    provider_id = "__PROVIDER_ID__"
    priority = __PRIORITY__
    distribution = "__DISTRIBUTION__"

    def skill_roots(self, home: Path, project: Path) -> list[Root]:
        return [
            Root(project / ".__PROVIDER_ID__" / "skills", "project"),
            Root(home / ".__PROVIDER_ID__" / "skills", "user"),
        ]
