"""The claude-plugins provider passes the conformance kit."""

from __future__ import annotations

import json
from pathlib import Path

from skillpath_testing import ProviderConformance, Root


def register(registry: Path, plugins: dict[str, Path]) -> None:
    """Write an installed_plugins.json (version 2) listing ``plugins`` in order."""
    registry.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "version": 2,
        "plugins": {
            key: [{"scope": "user", "installPath": str(root), "version": "1.0.0"}]
            for key, root in plugins.items()
        },
    }
    registry.write_text(json.dumps(data), encoding="utf-8")


class TestClaudePluginsConformance(ProviderConformance):
    provider_id = "claude-plugins"
    priority = 70
    distribution = "skillpath-claude-plugins"

    def skill_roots(self, home: Path, project: Path) -> list[Root]:
        store = home / ".claude" / "plugins" / "cache"
        first, second, third = store / "first", store / "second", home / "sw-plugin"
        for root in (first, second, third):
            root.mkdir(parents=True)
        manifest = first / ".claude-plugin" / "plugin.json"
        manifest.parent.mkdir()
        manifest.write_text(json.dumps({"name": "first", "skills": "./extra"}), encoding="utf-8")
        register(
            home / ".claude" / "plugins" / "installed_plugins.json",
            {"first@market": first, "second@market": second},
        )
        register(home / ".skillpath" / "plugins" / "installed_plugins.json", {"third@x": third})
        # enabled as `claude plugin install` leaves them; the kit names skills by their own
        # names (Claude Code's `plugin:skill` names are tested in test_claude_plugins.py)
        settings = {"enabledPlugins": {"first@market": True, "second@market": True}}
        (home / ".claude" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        config = home / ".skillpath" / "config.toml"
        config.write_text("[skills]\nnamespace_plugin_skills = false\n", encoding="utf-8")
        return [
            Root(first / "skills", "user"),
            Root(first / "extra", "user"),
            Root(second / "skills", "user"),
            Root(third / "skills", "user"),
        ]
