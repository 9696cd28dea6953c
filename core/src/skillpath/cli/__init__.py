"""The ``skillpath`` command.

Subcommands are imported only when used (a lazy click group), so
``skillpath list`` does not pay for the MCP SDK or anything else it does not
need. Each entry of :data:`COMMANDS` maps a command name to ``module:attribute``.
Plugins add commands of their own with the ``register_commands`` hook (asked
only when a name is not one of :data:`COMMANDS`); :data:`PROVIDED` names the
commands an optional distribution brings, so that without it they say how to
install it instead of "no such command".
The group itself (:data:`main`, in :mod:`skillpath.cli._group`) is imported on
first use of the name: the package's helper modules import without click.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skillpath.cli._common import check_cwd, echo, error_code, fail
    from skillpath.cli._group import main

__all__ = [
    "ALIASES",
    "COMMANDS",
    "PROVIDED",
    "check_cwd",
    "echo",
    "error_code",
    "fail",
    "main",
]

#: The printers a plugin's command (``register_commands``) uses to behave like the
#: core's: the one ``skillpath: error:`` line, ``--json`` errors, terminal-safe output.
_HELPERS = ("check_cwd", "echo", "error_code", "fail")

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


def __getattr__(name: str) -> Any:
    """``main``, ``LazyGroup`` and ``UsageProblem``, from :mod:`skillpath.cli._group`;
    the output helpers of :data:`_HELPERS`, from :mod:`skillpath.cli._common`."""
    if name in ("main", "LazyGroup", "UsageProblem"):
        from skillpath.cli import _group

        return getattr(_group, name)
    if name in _HELPERS:
        from skillpath.cli import _common

        return getattr(_common, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
