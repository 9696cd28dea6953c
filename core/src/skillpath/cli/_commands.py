"""The command table of ``skillpath``: names, the modules that hold them, aliases.

A leaf: it imports nothing, so :mod:`skillpath.cli` (which re-exports these
names) and the group that reads them (:mod:`skillpath.cli._group`) both depend
on it and not on each other.
"""

from __future__ import annotations

__all__ = ["ALIASES", "COMMANDS", "PROVIDED"]

#: command name -> "module:attribute" (imported on first use)
COMMANDS: dict[str, str] = {
    "list": "skillpath.cli.listing:list_cmd",
    "show": "skillpath.cli.show:show_cmd",
    "doctor": "skillpath.cli.doctor:doctor_cmd",
    "explain": "skillpath.cli.doctor:explain_cmd",
    "validate": "skillpath.cli.validate:validate_cmd",
    "providers": "skillpath.cli.plugins:providers_cmd",
    "new": "skillpath.cli.scaffold:new_cmd",
    "new-pack": "skillpath.cli.scaffold:new_pack_cmd",
    "new-provider": "skillpath.cli.scaffold:new_provider_cmd",
    "prompt": "skillpath.cli.runtime:prompt_cmd",
    "read": "skillpath.cli.runtime:read_cmd",
    "invoke": "skillpath.cli.runtime:invoke_cmd",
    "context": "skillpath.cli.runtime:context_cmd",
    "cache": "skillpath.cli.cache:cache_cmd",
    "completion": "skillpath.cli.completion:completion_cmd",
    "export": "skillpath.cli.export:export_cmd",
    "add": "skillpath.cli.add:add_cmd",
    "update": "skillpath.cli.add:update_cmd",
    "remove": "skillpath.cli.add:remove_cmd",
    "search": "skillpath.cli.search:search_cmd",
    "trust": "skillpath.cli.trust:trust_cmd",
}
#: command name -> (what it needs, the install command) for the commands an optional
#: distribution adds through the ``register_commands`` hook
PROVIDED: dict[str, tuple[str, str]] = {
    "serve": ("the MCP support", "pip install 'skillpath[mcp]'"),
}
#: alias -> command name
ALIASES: dict[str, str] = {"plugins": "providers"}
