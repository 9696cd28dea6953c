"""The opencode provider passes the conformance kit."""

from __future__ import annotations

from pathlib import Path

from skillpath_testing import ProviderConformance, Root


class TestOpencodeConformance(ProviderConformance):
    provider_id = "opencode"
    priority = 55
    distribution = "skillpath-opencode"

    def environment(self, home: Path, project: Path) -> dict[str, str]:
        return {"XDG_CONFIG_HOME": str(home / "xdg")}

    def skill_roots(self, home: Path, project: Path) -> list[Root]:
        return [
            Root(home / "xdg" / "opencode" / "skills", "user"),
            Root(home / "xdg" / "opencode" / "skill", "user"),
            Root(project / ".opencode" / "skills", "project"),
            Root(project / ".opencode" / "skill", "project"),
        ]
