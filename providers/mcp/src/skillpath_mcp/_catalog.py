"""What one MCP server listed, as plain records, and the caps applied to it.

Kept apart from :mod:`skillpath_mcp.client` (which talks to servers through
the SDK and ``asyncio``) so that a listing reused from the cache is rebuilt
without importing either.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs
from skillpath.errors import SkillpathError

if TYPE_CHECKING:
    from skillpath_mcp.config import ServerConfig

__all__ = [
    "DEPTH_VAR",
    "LIST_CHANGED",
    "MAX_DEPTH",
    "MAX_FRONTMATTER",
    "Catalog",
    "PromptArg",
    "RemotePrompt",
    "RemoteSkill",
    "ServerFailure",
    "cap_frontmatter",
    "nesting_depth",
    "on_list_changed",
]

#: Environment variable carrying the MCP nesting depth to stdio servers.
DEPTH_VAR = "SKILLPATH_MCP_DEPTH"
#: Servers are not started from a process this many servers deep.
MAX_DEPTH = 3


class ServerFailure(SkillpathError):
    """An MCP server could not be used; ``reason`` says why in one line."""

    def __init__(self, server: str, reason: str) -> None:
        super().__init__(f"MCP server {server!r}: {reason}")
        self.server = server
        self.reason = reason


@attrs.frozen
class PromptArg:
    """One declared argument of an MCP prompt."""

    name: str
    description: str | None = None
    required: bool = False


@attrs.frozen
class RemotePrompt:
    """One entry of ``prompts/list``."""

    name: str
    title: str | None = None
    description: str | None = None
    arguments: tuple[PromptArg, ...] = ()


@attrs.frozen
class RemoteSkill:
    """One skill served by an MCP server (SEP-2640).

    ``uri`` is the ``SKILL.md`` resource, ``skill_path`` the part between
    ``skill://`` and ``/SKILL.md``; ``frontmatter`` is the JSON frontmatter (from
    ``skills/list``) or what the resource metadata told (``name`` and
    ``description``, when found through ``resources/list``); ``resources`` maps
    each file URI to its ``sha256:`` digest (``None`` when the server did not
    publish digests). ``via`` is ``skills/list`` or ``resources/list``;
    ``files`` are the file URIs seen under the skill in ``resources/list``
    (when there are no digests to list them).
    """

    uri: str
    skill_path: str
    frontmatter: Mapping[str, Any]
    resources: Mapping[str, str] | None
    via: str
    files: tuple[str, ...] = ()


@attrs.frozen
class Catalog:
    """What one server offers: prompts, skills, and problems met while listing.

    ``partial`` is true when one of the list calls failed (its items are
    missing, not just cut to the caps): such a listing is never cached.
    """

    server: str
    server_name: str | None = None
    server_version: str | None = None
    prompts: tuple[RemotePrompt, ...] = ()
    skills: tuple[RemoteSkill, ...] = ()
    problems: tuple[str, ...] = ()
    partial: bool = False


#: Notifications after which a server's listing is no longer current.
LIST_CHANGED = frozenset(
    {"notifications/prompts/list_changed", "notifications/resources/list_changed"}
)
_LISTENERS: list[Callable[[ServerConfig, Mapping[str, str]], None]] = []


def on_list_changed(listener: Callable[[ServerConfig, Mapping[str, str]], None]) -> None:
    """Call ``listener(config, env)`` whenever an open connection's server sends a
    ``list_changed`` notification (on the connection thread; it must not block)."""
    if listener not in _LISTENERS:
        _LISTENERS.append(listener)


def nesting_depth(env: Mapping[str, str]) -> int:
    """How many MCP servers deep this process runs (``SKILLPATH_MCP_DEPTH``, else 0)."""
    try:
        return max(0, int(env.get(DEPTH_VAR, "0")))
    except ValueError:
        return 0


def _cut(text: str | None, limit: int) -> tuple[str | None, bool]:
    """``text`` cut to ``limit`` characters (an ellipsis last), and whether it was."""
    if text is None or len(text) <= limit:
        return text, False
    return text[: max(0, limit - 1)] + "…", True


def cap_frontmatter(fm: Mapping[str, Any], limit: int) -> tuple[dict[str, Any], bool]:
    """``fm`` with its ``description`` and ``title`` cut to ``limit``; whether any was."""
    out = dict(fm)
    cut = False
    for key in ("description", "title"):
        if isinstance(out.get(key), str):
            out[key], was_cut = _cut(out[key], limit)
            cut = cut or was_cut
    return out, cut


#: Characters of one skills/list entry's frontmatter (as JSON), like a local file's.
MAX_FRONTMATTER = 256 * 1024


def _capped_skill(skill: RemoteSkill, config: ServerConfig) -> tuple[RemoteSkill | None, set[str]]:
    """``skill`` within the caps: ``(skill or None when refused, {what was cut})``."""
    cut: set[str] = set()
    fm = dict(skill.frontmatter)
    if len(json.dumps(fm, default=str)) > MAX_FRONTMATTER:
        return None, {"frontmatter"}
    fm, was_cut = cap_frontmatter(fm, config.max_description)
    if was_cut:
        cut.add("description")
    resources = skill.resources
    if resources is not None and len(resources) > config.max_items:
        keep = [skill.uri] if skill.uri in resources else []
        keep += [u for u in resources if u != skill.uri][: config.max_items - len(keep)]
        resources = {u: resources[u] for u in keep}
        cut.add("files")
    files = skill.files
    if len(files) > config.max_items:
        files = files[: config.max_items]
        cut.add("files")
    if not cut:
        return skill, cut
    return attrs.evolve(skill, frontmatter=fm, resources=resources, files=files), cut
