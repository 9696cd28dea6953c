"""The ``skillpath`` command.

Subcommands are imported only when used (a lazy click group), so
``skillpath list`` does not pay for the MCP SDK or anything else it does not
need. Each entry of :data:`COMMANDS` maps a command name to ``module:attribute``.
Plugins add commands of their own with the ``register_commands`` hook (asked
only when a name is not one of :data:`COMMANDS`); :data:`PROVIDED` names the
commands an optional distribution brings, so that without it they say how to
install it instead of "no such command". The tables live in a module of their
own that imports nothing (:mod:`skillpath.cli._commands`), so that the group
reads them without importing this package back.
The group itself (:data:`main`, in :mod:`skillpath.cli._group`) is imported on
first use of the name: the package's helper modules import without click.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillpath.cli._commands import ALIASES, COMMANDS, PROVIDED

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
