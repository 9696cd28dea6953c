"""Provider ``mcp``: skills from MCP servers, and the ``skillpath serve`` server.

Configure servers in ``[[mcp.servers]]`` (see :mod:`skillpath_mcp.config`).
Each server's prompts and SEP-2640 skills load as skills with
``source.loaded_from == "mcp"`` and ``source.detail["server"]`` naming the
server. Their priority (20) is below every local provider and their result is
merged after custom directories, so a local skill of the same name always wins
(the pipeline reports the clash).

It also adds ``skillpath serve`` to the command line (:func:`register_commands`)
and declares its cache folder, ``mcp`` (:func:`cache_folders`).

The MCP SDK is imported only when a server is configured or ``serve`` runs:
with no ``[mcp] servers`` these hooks return at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillpath import depends_on, hookimpl, step

if TYPE_CHECKING:
    from collections.abc import Mapping

    import click
    from skillpath import DiscoveryResult, Invocation, Resource, SkillContext

__all__ = [
    "PRIORITY",
    "PROVIDER_ID",
    "cache_folders",
    "discover_skills",
    "register_commands",
    "resolve_url",
    "transform_prompt",
]

PROVIDER_ID = "mcp"
#: Below every local provider (native is 100); only managed skills rank lower.
PRIORITY = 20
#: What the hooks here depend on (:func:`skillpath.depends_on`): only files, so an
#: unchanged ``skillpath list`` may be replayed.
DEPENDS_ON = ("files",)


def _mcp_skill(skill: object) -> bool:
    source = getattr(skill, "source", None)
    return (
        source is not None
        and source.provider == PROVIDER_ID
        and source.loaded_from == "mcp"
        and "server" in source.detail
    )


@hookimpl
def discover_skills(ctx: SkillContext) -> DiscoveryResult | None:
    """Skills from every ``[[mcp.servers]]`` entry; ``None`` when none is configured."""
    if not ctx.settings.get("mcp", "servers", ()):
        return None
    from skillpath_mcp.provider import discover

    return discover(ctx)


@hookimpl
@step(order=150)
@depends_on("process", "network")  # the server's prompt, asked at each invocation
def transform_prompt(text: str, invocation: Invocation, ctx: SkillContext) -> str | None:
    """For MCP skills: the server's prompt (``prompts/get``) or ``SKILL.md`` body.

    Runs early (order 150, after the frontmatter strip) and replaces the text;
    the core's argument, inline-shell and base-directory steps leave MCP skills
    alone, so nothing from a remote server is executed locally.
    """
    if not _mcp_skill(invocation.skill):
        return None
    from skillpath_mcp.provider import transform

    return transform(text, invocation, ctx)


@hookimpl(tryfirst=True)
def resolve_url(url: str, ctx: SkillContext) -> Resource | None:
    """``skill://<name>/<path>`` for MCP skills, read from the originating server only."""
    if url[:8].lower() != "skill://":
        return None
    from urllib.parse import unquote

    name = unquote(url[8:].partition("/")[0])
    if not _mcp_skill(ctx.skills.get(name)):
        return None
    from skillpath_mcp.provider import resolve

    return resolve(url, ctx)


@hookimpl
def register_commands(cli: click.Group) -> None:
    """Add ``skillpath serve`` (:mod:`skillpath_mcp.cli`) to the command line."""
    from skillpath_mcp.cli import serve_cmd

    cli.add_command(serve_cmd)


#: The folder of skillpath's cache directory that holds the servers' listings.
CACHE_FOLDER = "mcp"


@hookimpl
def cache_folders() -> Mapping[str, str]:
    """The listings of MCP servers are kept in the cache's ``mcp`` folder."""
    return {CACHE_FOLDER: "listings of MCP servers"}
