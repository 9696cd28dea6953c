"""``skillpath prompt``, ``read``, ``invoke`` and ``context``: what an agent gets at run time."""

from __future__ import annotations

import json
from pathlib import Path

import click

from skillpath.cli._agentview import agent_option
from skillpath.cli._common import (
    common_options,
    echo,
    echo_diagnostics,
    emit_json,
    refresh_option,
)
from skillpath.cli.completion import complete_skill_names, complete_skill_urls
from skillpath.context_files import discover_context_files
from skillpath.listing import FORMATS
from skillpath.model import Diagnostic
from skillpath.session import SkillSession

__all__ = ["context_cmd", "invoke_cmd", "prompt_cmd", "read_cmd"]


@click.command("prompt")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default=None,
    help="Listing format (default: [listing] format, normally `skills`).",
)
@click.option(
    "--budget",
    type=int,
    default=None,
    help="Character budget (default: [listing] budget, normally 8000; 0 = no limit).",
)
@click.option(
    "--no-read-tool",
    is_flag=True,
    help="Render as for an agent without a read tool (the listing is then empty).",
)
@click.option(
    "--search-tool",
    "search_tool",
    is_flag=True,
    help="Render as for an agent that also has the search_skills tool: the listing keeps "
    "a byte-stable order and leaves what does not fit to search.",
)
@click.option(
    "--tool-schema",
    type=click.Choice(["anthropic", "openai", "openai-chat"]),
    default=None,
    help="Print the Skill tool definition for function calling instead of the listing.",
)
@agent_option("prompt")
@refresh_option
@common_options
def prompt_cmd(
    cwd: Path | None,
    as_json: bool,
    fmt: str | None,
    budget: int | None,
    no_read_tool: bool,
    search_tool: bool,
    tool_schema: str | None,
) -> None:
    """Print the system-prompt listing of skills, as the model would see it.

    When the budget or the per-entry cap shortened or dropped skills, a note
    naming them goes to stderr. JSON shape: {"text": str, "report": {budget,
    length, total, listed, shortened, dropped, hidden, neutralised, omitted,
    capped, entry_cap}}.
    """
    session = SkillSession.open(cwd)
    if tool_schema is not None:
        echo(json.dumps(session.skill_tool(format=tool_schema), indent=2, sort_keys=True))
        return
    listing = session.listing(
        format=fmt,
        budget=budget,
        read_tool=not no_read_tool,
        search_tool="search_skills" if search_tool else None,
    )
    if as_json:
        emit_json({"text": listing.text, "report": listing.report.to_json()})
        return
    if listing.text:
        echo(listing.text)
    summary = listing.report.summary()
    if summary:
        echo(f"skillpath: note: {summary}", err=True)


@click.command("read")
@click.argument("url", shell_complete=complete_skill_urls)
@refresh_option
@common_options
def read_cmd(cwd: Path | None, as_json: bool, url: str) -> None:
    """Print the content behind URL (for example skill://pdf/reference.md).

    Errors (unknown skill, path outside the skill, missing file) go to stderr
    with exit status 1. JSON shape: {url, content, mime_type, path, skill,
    is_directory}.
    """
    session = SkillSession.open(cwd)
    res = session.resolve(url)
    if as_json:
        emit_json(
            {
                "url": res.url,
                "content": res.content,
                "mime_type": res.mime_type,
                "path": str(res.path) if res.path is not None else None,
                "skill": res.skill,
                "is_directory": res.is_directory,
            }
        )
        return
    echo(res.content, nl=False)


@click.command("invoke", context_settings={"allow_interspersed_args": False})
@click.argument("name", shell_complete=complete_skill_names)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@click.option(
    "--tool",
    "as_tool",
    is_flag=True,
    help="Render as the model's Skill tool would receive it (instead of the /skill: message).",
)
@click.option("--session-id", default=None, help="Session id for ${SESSION_ID}.")
@refresh_option
@common_options
def invoke_cmd(
    cwd: Path | None,
    as_json: bool,
    name: str,
    args: tuple[str, ...],
    as_tool: bool,
    session_id: str | None,
) -> None:
    """Render skill NAME as `/skill:NAME ARGS…` injects it (or, with --tool, as the Skill tool).

    Options go before NAME; everything after NAME is passed through verbatim,
    words starting with `-` included (skillpath invoke fix-issue --max 3).
    ARGS are joined with single spaces into the argument string, exactly as if
    typed after the command; quote inside one argument to group words
    (skillpath invoke fix '"two words" next'). Inline shell runs only where the
    [shell] policy allows. JSON shape: {name, path, base_dir, args, trigger,
    content, line_count, already_loaded, session_id, diagnostics}.
    """
    session = SkillSession.open(cwd, session_id=session_id)
    rendered = session.invoke(name, " ".join(args), trigger="tool" if as_tool else "command")
    if as_json:
        emit_json(rendered.to_json())
        return
    echo(rendered.content.rstrip("\n"))
    echo_diagnostics(rendered.diagnostics)


@click.command("context")
@common_options
def context_cmd(cwd: Path | None, as_json: bool) -> None:
    """List the AGENTS.md context files an agent started here would load, nearest first.

    One line per file: its full path, its depth (0 = the working directory)
    and its number of lines.

    JSON shape: {"files": [{path, depth, directory, content}], "diagnostics": [...]}.
    """
    diags: list[Diagnostic] = []
    files = discover_context_files(cwd, diagnostics=diags)
    if as_json:
        emit_json(
            {"files": [f.to_json() for f in files], "diagnostics": [d.to_json() for d in diags]}
        )
        return
    if not files:
        echo("No context files found.")
    else:
        for f in files:
            lines = len(f.content.splitlines())
            echo(f"{f.path}  (depth {f.depth}, {lines} line{'s' if lines != 1 else ''})")
    echo_diagnostics(diags)
