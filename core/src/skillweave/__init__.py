"""skillweave: find, filter and serve Agent Skills for any AI agent.

Plugins write ``from skillweave import hookimpl``; hosts call
:func:`load_skills`.
"""

from __future__ import annotations

import importlib

# ``typing`` costs several milliseconds to import, and an unchanged ``list``
# (skillweave._replay) imports nothing else of skillweave
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from skillweave.bundled import BundledSkill, register_bundled_skill
    from skillweave.commands import (
        RenderedPrompt,
        SkillCommand,
        SlashInvocation,
        UnknownSkillError,
        delivery_queue,
        parse_slash_command,
        skill_tool_schema,
    )
    from skillweave.context import SkillContext, find_repo_root, make_context, walk_up_dirs
    from skillweave.context_files import ContextFile, discover_context_files
    from skillweave.errors import PluginError, PromptError, ResolveError, SkillweaveError
    from skillweave.extract import materialize
    from skillweave.frontmatter import ParsedFrontmatter, parse_frontmatter, strip_frontmatter
    from skillweave.hookspecs import hookimpl, hookspec
    from skillweave.listing import BudgetReport, Listing, render_listing
    from skillweave.loader import load_skills, merge_results, order_results
    from skillweave.managed import ManagedSkillError, write_managed_skill
    from skillweave.model import (
        Diagnostic,
        DiscoveryResult,
        Frontmatter,
        LoadResult,
        RootScan,
        Shadowed,
        Skill,
        SkillSource,
        Skipped,
        Veto,
    )
    from skillweave.plugins import (
        PluginHost,
        PluginRecord,
        get_plugin_host,
        reset_plugin_host,
        step,
    )
    from skillweave.prompt import Invocation
    from skillweave.resources import Resource
    from skillweave.scan import (
        Discovery,
        ScanResult,
        build_skill,
        check_name,
        load_skills_from_dir,
        scan_skills_dir,
    )
    from skillweave.session import SkillSession
    from skillweave.settings import Settings, load_settings
    from skillweave.shell import ShellPolicy
    from skillweave.transforms import parse_arguments, substitute_arguments, substitute_variables
    from skillweave.urls import resolve_skill_url
    from skillweave.watch import (
        SkillAdded,
        SkillChanged,
        SkillChanges,
        SkillRemoved,
        watch_skills,
    )

#: Public name -> the module that defines it. ``import skillweave`` imports
#: nothing else: each name is imported on first use (PEP 562), so a plugin's
#: ``from skillweave import hookimpl`` or ``skillweave list`` does not pay for
#: the runtime, the MCP pieces or the listing renderer. Add new public names
#: here (and to the ``TYPE_CHECKING`` imports above and ``__all__`` below).
_EXPORTS: dict[str, str] = {
    "BudgetReport": "skillweave.listing",
    "BundledSkill": "skillweave.bundled",
    "ContextFile": "skillweave.context_files",
    "Diagnostic": "skillweave.model",
    "Discovery": "skillweave.scan",
    "DiscoveryResult": "skillweave.model",
    "Frontmatter": "skillweave.model",
    "Invocation": "skillweave.prompt",
    "Listing": "skillweave.listing",
    "LoadResult": "skillweave.model",
    "ManagedSkillError": "skillweave.managed",
    "ParsedFrontmatter": "skillweave.frontmatter",
    "PluginError": "skillweave.errors",
    "PluginHost": "skillweave.plugins",
    "PluginRecord": "skillweave.plugins",
    "PromptError": "skillweave.errors",
    "RenderedPrompt": "skillweave.commands",
    "ResolveError": "skillweave.errors",
    "Resource": "skillweave.resources",
    "RootScan": "skillweave.model",
    "ScanResult": "skillweave.scan",
    "Settings": "skillweave.settings",
    "Shadowed": "skillweave.model",
    "ShellPolicy": "skillweave.shell",
    "Skill": "skillweave.model",
    "SkillCommand": "skillweave.commands",
    "SkillContext": "skillweave.context",
    "SkillSession": "skillweave.session",
    "SkillSource": "skillweave.model",
    "SkillweaveError": "skillweave.errors",
    "Skipped": "skillweave.model",
    "SlashInvocation": "skillweave.commands",
    "UnknownSkillError": "skillweave.commands",
    "Veto": "skillweave.model",
    "build_skill": "skillweave.scan",
    "check_name": "skillweave.scan",
    "delivery_queue": "skillweave.commands",
    "discover_context_files": "skillweave.context_files",
    "find_repo_root": "skillweave.context",
    "get_plugin_host": "skillweave.plugins",
    "hookimpl": "skillweave.hookspecs",
    "hookspec": "skillweave.hookspecs",
    "load_settings": "skillweave.settings",
    "load_skills": "skillweave.loader",
    "load_skills_from_dir": "skillweave.scan",
    "make_context": "skillweave.context",
    "materialize": "skillweave.extract",
    "merge_results": "skillweave.loader",
    "order_results": "skillweave.loader",
    "parse_arguments": "skillweave.transforms",
    "parse_frontmatter": "skillweave.frontmatter",
    "parse_slash_command": "skillweave.commands",
    "register_bundled_skill": "skillweave.bundled",
    "render_listing": "skillweave.listing",
    "reset_plugin_host": "skillweave.plugins",
    "resolve_skill_url": "skillweave.urls",
    "scan_skills_dir": "skillweave.scan",
    "skill_tool_schema": "skillweave.commands",
    "step": "skillweave.plugins",
    "strip_frontmatter": "skillweave.frontmatter",
    "substitute_arguments": "skillweave.transforms",
    "substitute_variables": "skillweave.transforms",
    "walk_up_dirs": "skillweave.context",
    "watch_skills": "skillweave.watch",
    "SkillAdded": "skillweave.watch",
    "SkillChanged": "skillweave.watch",
    "SkillChanges": "skillweave.watch",
    "SkillRemoved": "skillweave.watch",
    "write_managed_skill": "skillweave.managed",
}


def __getattr__(name: str) -> Any:
    """Import a public name (or a submodule) from its module on first access."""
    module = _EXPORTS.get(name)
    if module is None:
        if not name.startswith("_"):
            try:  # ``skillweave.scan`` after a bare ``import skillweave``
                return importlib.import_module(f"skillweave.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"skillweave.{name}":
                    raise
        raise AttributeError(f"module 'skillweave' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__version__ = "0.1.0"

__all__ = [
    "BudgetReport",
    "BundledSkill",
    "ContextFile",
    "Diagnostic",
    "Discovery",
    "DiscoveryResult",
    "Frontmatter",
    "Invocation",
    "Listing",
    "LoadResult",
    "ManagedSkillError",
    "ParsedFrontmatter",
    "PluginError",
    "PluginHost",
    "PluginRecord",
    "PromptError",
    "RenderedPrompt",
    "ResolveError",
    "Resource",
    "RootScan",
    "ScanResult",
    "Settings",
    "Shadowed",
    "ShellPolicy",
    "Skill",
    "SkillAdded",
    "SkillChanged",
    "SkillChanges",
    "SkillCommand",
    "SkillContext",
    "SkillRemoved",
    "SkillSession",
    "SkillSource",
    "SkillweaveError",
    "Skipped",
    "SlashInvocation",
    "UnknownSkillError",
    "Veto",
    "__version__",
    "build_skill",
    "check_name",
    "delivery_queue",
    "discover_context_files",
    "find_repo_root",
    "get_plugin_host",
    "hookimpl",
    "hookspec",
    "load_settings",
    "load_skills",
    "load_skills_from_dir",
    "make_context",
    "materialize",
    "merge_results",
    "order_results",
    "parse_arguments",
    "parse_frontmatter",
    "parse_slash_command",
    "register_bundled_skill",
    "render_listing",
    "reset_plugin_host",
    "resolve_skill_url",
    "scan_skills_dir",
    "skill_tool_schema",
    "step",
    "strip_frontmatter",
    "substitute_arguments",
    "substitute_variables",
    "walk_up_dirs",
    "watch_skills",
    "write_managed_skill",
]
