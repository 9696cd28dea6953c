"""Provider ``mcp``: skills from MCP servers."""

from __future__ import annotations

PROVIDER_ID = "mcp"
PRIORITY = 20
