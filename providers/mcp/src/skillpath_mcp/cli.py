"""``skillpath serve``: the project's skills as an MCP server.

The command is added to the ``skillpath`` command line by this distribution's
``register_commands`` hook (:func:`skillpath_mcp.register_commands`); without
``skillpath-mcp`` installed, the core's stand-in says how to install it.
"""

from __future__ import annotations

import os
import signal
import warnings
from pathlib import Path

import click
from skillpath.cli import check_cwd, echo, error_code, fail

__all__ = ["CLIENTS", "client_config", "serve_cmd", "serve_command"]

#: The MCP clients ``--print-config`` knows, and where their snippet goes.
CLIENTS = {
    "claude-code": "run in the project (or add --scope user / --scope project)",
    "codex": "~/.codex/config.toml",
    "cursor": ".cursor/mcp.json in the project (or ~/.cursor/mcp.json)",
    "vscode": ".vscode/mcp.json in the project",
}


def serve_command(cwd: Path | None) -> list[str]:
    """The command line that starts ``skillpath serve`` over stdio for ``cwd``: the
    ``skillpath`` on ``PATH`` (absolute, since a client may start it with another
    ``PATH``), else this Python with ``-m skillpath``; ``--cwd`` absolute."""
    import shutil
    import sys

    script = sys.argv[0] if sys.argv else ""
    if os.path.basename(script) == "skillpath" and os.path.isfile(script):
        found: str | None = script  # the console script running now
    else:
        found = shutil.which("skillpath")
    head = [os.path.abspath(found)] if found else [sys.executable, "-m", "skillpath"]
    project = (cwd if cwd is not None else Path.cwd()).resolve()
    return [*head, "serve", "--cwd", str(project)]


def client_config(client: str, cwd: Path | None) -> str:
    """What registers ``skillpath serve`` (stdio) with ``client`` (see :data:`CLIENTS`):
    a ``claude mcp add`` command line, or a config snippet (JSON or TOML)."""
    import json
    import shlex

    command, *args = serve_command(cwd)
    if client == "claude-code":
        return shlex.join(["claude", "mcp", "add", "skillpath", "--", command, *args])
    if client == "codex":
        items = ", ".join(json.dumps(a) for a in args)
        return (
            f"# {CLIENTS[client]}\n[mcp_servers.skillpath]\n"
            f"command = {json.dumps(command)}\nargs = [{items}]"
        )
    entry: dict[str, object] = {"command": command, "args": args}
    if client == "vscode":
        data: dict[str, object] = {"servers": {"skillpath": {"type": "stdio", **entry}}}
    else:
        data = {"mcpServers": {"skillpath": entry}}
    return json.dumps(data, indent=2)


_MISSING = (
    "skillpath serve needs the MCP support, which is not installed: pip install 'skillpath[mcp]'"
)


@click.command("serve")
@click.option(
    "--cwd",
    type=click.Path(path_type=Path),
    default=None,
    help="Project directory to serve (default: the current directory).",
)
@click.option(
    "--http",
    "http_port",
    type=click.IntRange(0, 65535),
    default=None,
    metavar="PORT",
    help="Serve streamable HTTP on 127.0.0.1:PORT (0: any free port) instead of stdio.",
)
@click.option(
    "--poll",
    type=click.FloatRange(min=0),
    default=2.0,
    show_default=True,
    help="Skill folders are watched (list_changed at once); this is how often what cannot "
    "be watched is checked (the settings files, roots that do not exist yet), and the "
    "polling interval where the system's file watcher is refused. 0: no list_changed.",
)
@click.option(
    "--no-shell",
    is_flag=True,
    help="Never run inline shell while rendering prompts, whatever [shell] says.",
)
@click.option(
    "--allow-shell",
    is_flag=True,
    help="With --http: run inline shell as [shell] allows (off over HTTP by default).",
)
@click.option(
    "--limit",
    "limits",
    multiple=True,
    metavar="NAME=VALUE",
    help="Change a bound (repeatable): max_connections, request_timeout, keep_alive, "
    "max_sessions, session_idle_timeout, max_request_bytes, max_argument_chars, "
    "max_in_flight, max_line_bytes (see the MCP guide).",
)
@click.option(
    "--print-config",
    "print_config",
    type=click.Choice(sorted(CLIENTS)),
    default=None,
    help="Print what registers this server (stdio, for --cwd) with an MCP client, and exit: "
    "the `claude mcp add` command for claude-code, the config snippet for the others.",
)
def serve_cmd(
    cwd: Path | None,
    http_port: int | None,
    poll: float,
    no_shell: bool,
    allow_shell: bool,
    limits: tuple[str, ...],
    print_config: str | None,
) -> None:
    """Serve the project's skills over MCP: prompts, skill:// resources, skills/list,
    a load_skill tool, and list_changed notifications when skills change.

    stdio by default (for an agent that starts it); --http PORT for streamable
    HTTP bound to 127.0.0.1 (the URL is printed on stderr). Over stdio, prompts
    run inline shell as the [shell] policy allows; over HTTP — which any local
    process can reach — only with --allow-shell.
    """
    check_cwd(cwd)
    if print_config is not None:
        echo(client_config(print_config, cwd))
        return
    # stopped by a signal, the event loop may close while a call the SDK scheduled from
    # a worker thread is still pending; Python's "coroutine ... was never awaited" note
    # about it would follow the one-line error on stderr
    warnings.filterwarnings("ignore", r"coroutine .* was never awaited", RuntimeWarning)
    if no_shell and allow_shell:
        fail("--no-shell and --allow-shell contradict each other", error="bad-option")
    try:
        from skillpath_mcp.server import ServeLimits, serve
    except ImportError as exc:
        if (exc.name or "").split(".")[0] in ("skillpath_mcp", "mcp", "uvicorn", "anyio"):
            fail(_MISSING, error="missing-dependency")
        raise
    from skillpath.errors import SkillpathError

    try:
        bounds = ServeLimits.parse(limits)
    except ValueError as exc:
        fail(f"--limit: {exc}", code=2, error="usage")
    try:
        shell = False if no_shell else (True if allow_shell else None)
        stopped_by = serve(cwd, http=http_port, poll=poll, shell=shell, limits=bounds)
    except SkillpathError as exc:
        fail(str(exc), error=error_code(exc))
    except KeyboardInterrupt:  # before the server's own handler was in place
        stopped_by = signal.SIGINT
    if stopped_by is not None:
        name = signal.Signals(stopped_by).name
        fail(f"serve stopped by {name}", code=128 + int(stopped_by), error="stopped")
