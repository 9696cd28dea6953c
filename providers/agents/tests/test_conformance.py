"""The agents provider passes the conformance kit."""

from __future__ import annotations

from pathlib import Path

from skillpath_testing import ProviderConformance, Root


class TestAgentsConformance(ProviderConformance):
    provider_id = "agents"
    priority = 70
    distribution = "skillpath-agents"

    def skill_roots(self, home: Path, project: Path) -> list[Root]:
        return [
            Root(project / ".agents" / "skills", "project"),
            Root(project / ".agent" / "skills", "project"),
            Root(home / ".agents" / "skills", "user"),
            Root(home / ".agent" / "skills", "user"),
        ]
