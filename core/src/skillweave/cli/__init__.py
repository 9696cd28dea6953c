"""The ``skillweave`` command.

Subcommands are imported only when used (a lazy click group), so
``skillweave list`` does not pay for the MCP SDK or anything else it does not
need. Each entry of :data:`COMMANDS` maps a command name to ``module:attribute``.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

__all__ = ["COMMANDS", "main"]

#: command name -> "module:attribute" (imported on first use)
COMMANDS: dict[str, str] = {
    "list": "skillweave.cli.listing:list_cmd",
    "show": "skillweave.cli.show:show_cmd",
    "doctor": "skillweave.cli.doctor:doctor_cmd",
    "explain": "skillweave.cli.doctor:explain_cmd",
    "validate": "skillweave.cli.validate:validate_cmd",
    "providers": "skillweave.cli.plugins:providers_cmd",
    "new": "skillweave.cli.scaffold:new_cmd",
    "new-pack": "skillweave.cli.scaffold:new_pack_cmd",
    "prompt": "skillweave.cli.runtime:prompt_cmd",
    "read": "skillweave.cli.runtime:read_cmd",
    "invoke": "skillweave.cli.runtime:invoke_cmd",
    "context": "skillweave.cli.runtime:context_cmd",
    "serve": "skillweave.cli.serve:serve_cmd",
}
#: alias -> command name
ALIASES: dict[str, str] = {"plugins": "providers"}


class LazyGroup(click.Group):
    """A click group that imports each subcommand on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(ALIASES.get(cmd_name, cmd_name))
        if target is None:
            return None
        module, _, attr = target.partition(":")
        cmd: Any = getattr(importlib.import_module(module), attr)
        return cmd  # type: ignore[no-any-return]


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="skillweave-core", prog_name="skillweave")
def main() -> None:
    """Find, filter and serve Agent Skills: see what your agent sees, and why."""
