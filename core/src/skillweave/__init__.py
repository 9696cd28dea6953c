"""skillweave: find, filter and serve Agent Skills for any AI agent.

Plugins write ``from skillweave import hookimpl``; hosts call
:func:`load_skills`.
"""

from __future__ import annotations

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
from skillweave.frontmatter import ParsedFrontmatter, parse_frontmatter, strip_frontmatter
from skillweave.hookspecs import hookimpl, hookspec
from skillweave.listing import BudgetReport, Listing, render_listing
from skillweave.loader import load_skills, merge_results, order_results
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
from skillweave.plugins import PluginHost, PluginRecord, get_plugin_host, reset_plugin_host, step
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

__version__ = "0.1.0"

__all__ = [
    "BudgetReport",
    "ContextFile",
    "Diagnostic",
    "Discovery",
    "DiscoveryResult",
    "Frontmatter",
    "Invocation",
    "Listing",
    "LoadResult",
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
    "SkillCommand",
    "SkillContext",
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
    "merge_results",
    "order_results",
    "parse_arguments",
    "parse_frontmatter",
    "parse_slash_command",
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
]
