"""The codex provider passes the conformance kit."""

from __future__ import annotations

from pathlib import Path

from skillweave_testing import ProviderConformance, Root


class TestCodexConformance(ProviderConformance):
    provider_id = "codex"
    priority = 70
    distribution = "skillweave-codex"

    def skill_roots(self, home: Path, project: Path) -> list[Root]:
        return [
            Root(home / ".codex" / "skills", "user"),
            Root(project / ".codex" / "skills", "project"),
        ]


class TestCodexHomeConformance(TestCodexConformance):
    """The same rules with ``CODEX_HOME`` moving the user dir."""

    def environment(self, home: Path, project: Path) -> dict[str, str]:
        return {"CODEX_HOME": str(home / "codex-home")}

    def skill_roots(self, home: Path, project: Path) -> list[Root]:
        return [
            Root(home / "codex-home" / "skills", "user"),
            Root(project / ".codex" / "skills", "project"),
        ]
