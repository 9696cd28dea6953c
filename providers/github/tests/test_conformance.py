"""The github provider passes the conformance kit."""

from __future__ import annotations

from pathlib import Path

from skillpath_testing import ProviderConformance, Root


class TestGithubConformance(ProviderConformance):
    provider_id = "github"
    priority = 30
    distribution = "skillpath-github"
    requires_description = True

    def skill_roots(self, home: Path, project: Path) -> list[Root]:
        return [
            Root(project / ".github" / "skills", "project"),
            Root(home / ".copilot" / "skills", "user"),
        ]
