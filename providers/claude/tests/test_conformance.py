"""The claude provider passes the conformance kit."""

from __future__ import annotations

from pathlib import Path

from skillpath_testing import ProviderConformance, Root


def policy_dir(home: Path) -> Path:
    """The stand-in for /etc/claude-code/.claude/skills, outside the fake home."""
    return home.parent / "etc" / "claude-code" / ".claude" / "skills"


class TestClaudeConformance(ProviderConformance):
    provider_id = "claude"
    priority = 80
    distribution = "skillpath-claude"

    def environment(self, home: Path, project: Path) -> dict[str, str]:
        return {"SKILLPATH_CLAUDE_POLICY_DIR": str(policy_dir(home))}

    def skill_roots(self, home: Path, project: Path) -> list[Root]:
        return [
            Root(policy_dir(home), "managed"),
            Root(home / ".claude" / "skills", "user"),
            Root(project / ".claude" / "skills", "project"),
        ]


class TestClaudeConfigDirConformance(TestClaudeConformance):
    """The same rules with ``CLAUDE_CONFIG_DIR`` moving the user dir."""

    def environment(self, home: Path, project: Path) -> dict[str, str]:
        return {**super().environment(home, project), "CLAUDE_CONFIG_DIR": str(home / "cfg")}

    def skill_roots(self, home: Path, project: Path) -> list[Root]:
        return [
            Root(policy_dir(home), "managed"),
            Root(home / "cfg" / "skills", "user"),
            Root(project / ".claude" / "skills", "project"),
        ]
