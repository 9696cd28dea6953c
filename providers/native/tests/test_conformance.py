"""The native provider passes the conformance kit."""

from __future__ import annotations

from pathlib import Path

from skillpath_testing import ProviderConformance, Root


class TestNativeConformance(ProviderConformance):
    provider_id = "native"
    priority = 100
    distribution = "skillpath-native"
    requires_description = True

    def skill_roots(self, home: Path, project: Path) -> list[Root]:
        return [
            Root(project / ".skillpath" / "skills", "project"),
            Root(home / ".skillpath" / "skills", "user"),
        ]
