"""The codex provider passes the conformance kit."""

from __future__ import annotations

from pathlib import Path

from skillpath_testing import ProviderConformance, Root


def admin_dir(home: Path) -> Path:
    """The stand-in for /etc/codex/skills, outside the fake home."""
    return home.parent / "etc" / "codex" / "skills"


class TestCodexConformance(ProviderConformance):
    provider_id = "codex"
    priority = 70
    distribution = "skillpath-codex"
    nested_depth = 6  # Codex's walk

    def environment(self, home: Path, project: Path) -> dict[str, str]:
        return {"SKILLPATH_CODEX_ADMIN_DIR": str(admin_dir(home))}

    def skill_roots(self, home: Path, project: Path) -> list[Root]:
        return [
            Root(home / ".codex" / "skills", "user"),
            Root(project / ".codex" / "skills", "project"),
            Root(admin_dir(home), "managed"),
        ]


class TestCodexHomeConformance(TestCodexConformance):
    """The same rules with ``CODEX_HOME`` moving the user dir."""

    def environment(self, home: Path, project: Path) -> dict[str, str]:
        return {**super().environment(home, project), "CODEX_HOME": str(home / "codex-home")}

    def skill_roots(self, home: Path, project: Path) -> list[Root]:
        return [
            Root(home / "codex-home" / "skills", "user"),
            Root(project / ".codex" / "skills", "project"),
            Root(admin_dir(home), "managed"),
        ]
