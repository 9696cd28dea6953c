"""skillweave: find, filter and serve Agent Skills for any AI agent.

Plugins write ``from skillweave import hookimpl``; hosts call
:func:`load_skills`.
"""

from __future__ import annotations

from skillweave.context import SkillContext, find_repo_root, make_context, walk_up_dirs
from skillweave.errors import PluginError, PromptError, ResolveError, SkillweaveError
from skillweave.frontmatter import ParsedFrontmatter, parse_frontmatter, strip_frontmatter
from skillweave.hookspecs import hookimpl, hookspec
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
from skillweave.settings import Settings, load_settings

__version__ = "0.1.0"

__all__ = [
    "Diagnostic",
    "Discovery",
    "DiscoveryResult",
    "Frontmatter",
    "Invocation",
    "LoadResult",
    "ParsedFrontmatter",
    "PluginError",
    "PluginHost",
    "PluginRecord",
    "PromptError",
    "ResolveError",
    "Resource",
    "RootScan",
    "ScanResult",
    "Settings",
    "Shadowed",
    "Skill",
    "SkillContext",
    "SkillSource",
    "SkillweaveError",
    "Skipped",
    "Veto",
    "__version__",
    "build_skill",
    "check_name",
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
    "parse_frontmatter",
    "reset_plugin_host",
    "scan_skills_dir",
    "step",
    "strip_frontmatter",
    "walk_up_dirs",
]
