"""The click group of the ``skillpath`` command (see :mod:`skillpath.cli`)."""

from __future__ import annotations

import contextlib
import importlib
import json
import os
from collections.abc import Iterator
from typing import Any

import click

from skillpath.cli._commands import ALIASES, COMMANDS, PROVIDED

if "_SKILLPATH_COMPLETE" in os.environ:
    # the shell is asking for completions: use skillpath's bash class (``:`` in words)
    import skillpath.cli.completion  # noqa: F401

__all__ = ["LazyGroup", "UsageProblem", "main"]


class UsageProblem(click.UsageError):
    """A usage error shown as the one documented error line (exit status 2).

    ``skillpath: error: <command>: <problem> (see `<command> --help`)`` on
    stderr instead of click's usage block; see :meth:`LazyGroup.invoke`.
    """

    #: the command line asked for ``--json``: the error is also a JSON object on stdout
    as_json: bool = False

    def show(self, file: Any = None) -> None:
        """Print the one-line message on stderr (and the JSON error object on
        stdout when the command line has ``--json``)."""
        where = self.ctx.command_path if self.ctx is not None else "skillpath"
        root = self.ctx.find_root().command_path if self.ctx is not None else where
        command = where[len(root) :].strip()
        message = " ".join(self.format_message().split()).rstrip(".")
        prefix = f"{command}: " if command else ""
        from skillpath.cli._common import terminal_safe

        if self.as_json:
            from skillpath.cli._common import error_object

            text = json.dumps(error_object("usage", f"{prefix}{message}"), indent=2)
            click.echo(text, color=True)
        line = f"skillpath: error: {prefix}{message} (see `{where} --help`)"
        click.echo(terminal_safe(line), err=True, file=file)


#: ``click.Context.meta`` key: the command line the group was given.
_ARGV = "skillpath.argv"


def _asks_json(args: list[str]) -> bool:
    """``--json`` among ``args`` (before a ``--``)."""
    return "--json" in (args[: args.index("--")] if "--" in args else args)


def _one_line(exc: click.UsageError) -> UsageProblem:
    problem = UsageProblem(exc.format_message(), exc.ctx)
    problem.exit_code = exc.exit_code  # type: ignore[misc]  # click declares it per class
    return problem


@contextlib.contextmanager
def _usage_errors_in_one_line(args: list[str]) -> Iterator[None]:
    """Turn click's usage errors (but a bare command's help) into :class:`UsageProblem`;
    ``args`` is the command line (a ``--json`` there makes the error JSON too)."""
    try:
        yield
    except click.exceptions.NoArgsIsHelpError:
        raise
    except click.UsageError as exc:
        problem = exc if isinstance(exc, UsageProblem) else _one_line(exc)
        problem.as_json = _asks_json(args)
        if problem is exc:
            raise
        raise problem from exc


class LazyGroup(click.Group):
    """A click group that imports each subcommand on first use.

    Usage errors (an unknown command or option, a missing argument, a bad
    value) are shown as one ``skillpath: error:`` line and exit with status
    2; an unknown command suggests the nearest ones.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *PROVIDED, *_plugin_commands()})

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        argv = list(args)
        with _usage_errors_in_one_line(argv):
            ctx = super().make_context(info_name, args, parent, **extra)
        ctx.meta[_ARGV] = argv
        return ctx

    def invoke(self, ctx: click.Context) -> Any:
        with _usage_errors_in_one_line(ctx.meta.get(_ARGV, [])):
            return super().invoke(ctx)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if args and not name.startswith("-") and self.get_command(ctx, name) is None:
            import difflib

            known = [*COMMANDS, *ALIASES, *PROVIDED, *_plugin_commands()]
            near = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
            hint = f"; did you mean {' or '.join(repr(n) for n in near)}?" if near else ""
            raise UsageProblem(f"no such command {name!r}{hint}", ctx)
        return super().resolve_command(ctx, args)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        name = ALIASES.get(cmd_name, cmd_name)
        target = COMMANDS.get(name)
        cmd: Any
        if target is not None:
            module, _, attr = target.partition(":")
            cmd = getattr(importlib.import_module(module), attr)
        else:
            cmd = _plugin_commands().get(name)
            if cmd is None:
                if name not in PROVIDED:
                    return None
                cmd = _not_installed(name, *PROVIDED[name])
        from skillpath._startup import resume_gc

        resume_gc()  # the command runs with the collector as the process had it
        return cmd  # type: ignore[no-any-return]


def _plugin_commands() -> dict[str, click.Command]:
    """The commands plugins add with the ``register_commands`` hook (asked once per
    process, and only for a name that is not one of the core's own); a plugin's
    failure or clash is printed as one warning line on stderr, once."""
    from skillpath.plugins import get_plugin_host

    host = get_plugin_host()
    commands, problems = host.commands(taken=[*COMMANDS, *ALIASES])
    if problems and id(host) not in _WARNED:
        _WARNED.add(id(host))
        from skillpath.cli._common import echo_diagnostics

        echo_diagnostics(problems)
    return commands


#: the plugin hosts whose ``register_commands`` problems were printed
_WARNED: set[int] = set()


def _not_installed(name: str, what: str, install: str) -> click.Command:
    """A stand-in for a command an uninstalled distribution provides: whatever it is
    given, it prints the one error line saying what to install, and exits 1."""

    @click.command(
        name,
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
        add_help_option=False,
        help=f"Needs {what}, which is not installed: {install}",
    )
    def missing() -> None:
        from skillpath.cli._common import fail

        fail(
            f"skillpath {name} needs {what}, which is not installed: {install}",
            error="missing-dependency",
        )

    return missing


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="skillpath-core", prog_name="skillpath")
def main() -> None:
    """Find, filter and serve Agent Skills: see what your agent sees, and why."""
