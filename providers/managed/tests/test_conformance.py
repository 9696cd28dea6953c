"""The managed provider passes the conformance kit."""

from __future__ import annotations

from pathlib import Path

from skillweave_testing import ProviderConformance, Root


class TestManagedConformance(ProviderConformance):
    provider_id = "managed"
    priority = 5
    distribution = "skillweave-managed"
    requires_description = True
    late = True

    def skill_roots(self, home: Path, project: Path) -> list[Root]:
        return [Root(home / ".skillweave" / "managed-skills", "user")]


class TestManagedSkillweaveHomeConformance(TestManagedConformance):
    """The same rules with ``SKILLWEAVE_HOME`` moving ``~/.skillweave``."""

    def environment(self, home: Path, project: Path) -> dict[str, str]:
        return {"SKILLWEAVE_HOME": str(home / "sw")}

    def skill_roots(self, home: Path, project: Path) -> list[Root]:
        return [Root(home / "sw" / "managed-skills", "user")]
