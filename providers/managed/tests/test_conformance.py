"""The managed provider passes the conformance kit."""

from __future__ import annotations

from pathlib import Path

from skillpath_testing import ProviderConformance, Root


class TestManagedConformance(ProviderConformance):
    provider_id = "managed"
    priority = 5
    distribution = "skillpath-managed"
    requires_description = True
    late = True

    def skill_roots(self, home: Path, project: Path) -> list[Root]:
        return [Root(home / ".skillpath" / "managed-skills", "user")]


class TestManagedSkillpathHomeConformance(TestManagedConformance):
    """The same rules with ``SKILLPATH_HOME`` moving ``~/.skillpath``."""

    def environment(self, home: Path, project: Path) -> dict[str, str]:
        return {"SKILLPATH_HOME": str(home / "sw")}

    def skill_roots(self, home: Path, project: Path) -> list[Root]:
        return [Root(home / "sw" / "managed-skills", "user")]
