"""skillpath: find, filter and serve Agent Skills for any AI agent.

Plugins write ``from skillpath import hookimpl``; hosts call
:func:`load_skills`.
"""

from __future__ import annotations

import importlib

# ``typing`` costs several milliseconds to import, and an unchanged ``list``
# (skillpath.cache.replay) imports nothing else of skillpath
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from skillpath.adapters import call_skill_tool, model_skills, read_skill_url
    from skillpath.agent import AgentSkills, error_text, paths_in_arguments, unknown_for_model
    from skillpath.bundled import BundledSkill, register_bundled_skill
    from skillpath.commands import (
        RenderedPrompt,
        SkillCommand,
        SlashInvocation,
        UnknownSkillError,
        delivery_queue,
        parse_slash_command,
        skill_tool_schema,
    )
    from skillpath.contentscan import ContentFinding
    from skillpath.context import SkillContext, find_repo_root, make_context, walk_up_dirs
    from skillpath.context_files import ContextFile, discover_context_files
    from skillpath.errors import PluginError, PromptError, ResolveError, SkillpathError
    from skillpath.extract import materialize
    from skillpath.files import atomic_path, replace_folder, write_atomic
    from skillpath.findings import findings_for
    from skillpath.frontmatter import ParsedFrontmatter, parse_frontmatter, strip_frontmatter
    from skillpath.hookspecs import hookimpl, hookspec
    from skillpath.listing import BudgetReport, Listing, render_listing
    from skillpath.loader import load_skills, merge_results, order_results
    from skillpath.managed import ManagedSkillError, write_managed_skill
    from skillpath.model import (
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
    from skillpath.plugins import (
        PluginHost,
        PluginRecord,
        depends_on,
        get_plugin_host,
        reset_plugin_host,
        step,
    )
    from skillpath.prompt import Invocation
    from skillpath.resources import Resource
    from skillpath.safety import (
        ContainmentError,
        check_relative,
        describe_oserror,
        is_inside,
        outside_area,
        project_area,
        resolve_inside,
    )
    from skillpath.scan import (
        Discovery,
        ScanResult,
        build_skill,
        check_name,
        load_skill_file,
        load_skills_from_dir,
        outside_project,
        scan_skills_dir,
        skill_from_text,
    )
    from skillpath.search import SearchHit, SearchIndex, search_skills
    from skillpath.session import SkillSession
    from skillpath.settings import Settings, SettingSpec, load_settings
    from skillpath.shell import ShellPolicy
    from skillpath.transforms import parse_arguments, substitute_arguments, substitute_variables
    from skillpath.urls import resolve_skill_url
    from skillpath.watch import (
        SkillAdded,
        SkillChanged,
        SkillChanges,
        SkillRemoved,
        watch_skills,
    )

#: Public name -> the module that defines it. ``import skillpath`` imports
#: nothing else: each name is imported on first use (PEP 562), so a plugin's
#: ``from skillpath import hookimpl`` or ``skillpath list`` does not pay for
#: the runtime, the MCP pieces or the listing renderer. Add new public names
#: here (and to the ``TYPE_CHECKING`` imports above and ``__all__`` below).
_EXPORTS: dict[str, str] = {
    "BudgetReport": "skillpath.listing",
    "BundledSkill": "skillpath.bundled",
    "ContentFinding": "skillpath.contentscan",
    "ContextFile": "skillpath.context_files",
    "Diagnostic": "skillpath.model",
    "Discovery": "skillpath.scan",
    "DiscoveryResult": "skillpath.model",
    "Frontmatter": "skillpath.model",
    "Invocation": "skillpath.prompt",
    "Listing": "skillpath.listing",
    "LoadResult": "skillpath.model",
    "ManagedSkillError": "skillpath.managed",
    "ParsedFrontmatter": "skillpath.frontmatter",
    "PluginError": "skillpath.errors",
    "PluginHost": "skillpath.plugins",
    "PluginRecord": "skillpath.plugins",
    "PromptError": "skillpath.errors",
    "RenderedPrompt": "skillpath.commands",
    "ResolveError": "skillpath.errors",
    "Resource": "skillpath.resources",
    "SearchHit": "skillpath.search",
    "SearchIndex": "skillpath.search",
    "search_skills": "skillpath.search",
    "RootScan": "skillpath.model",
    "ScanResult": "skillpath.scan",
    "SettingSpec": "skillpath.settings",
    "Settings": "skillpath.settings",
    "Shadowed": "skillpath.model",
    "ShellPolicy": "skillpath.shell",
    "Skill": "skillpath.model",
    "SkillCommand": "skillpath.commands",
    "SkillContext": "skillpath.context",
    "SkillSession": "skillpath.session",
    "SkillSource": "skillpath.model",
    "SkillpathError": "skillpath.errors",
    "Skipped": "skillpath.model",
    "SlashInvocation": "skillpath.commands",
    "UnknownSkillError": "skillpath.commands",
    "Veto": "skillpath.model",
    "build_skill": "skillpath.scan",
    "check_name": "skillpath.scan",
    "delivery_queue": "skillpath.commands",
    "discover_context_files": "skillpath.context_files",
    "find_repo_root": "skillpath.context",
    "findings_for": "skillpath.findings",
    "get_plugin_host": "skillpath.plugins",
    "hookimpl": "skillpath.hookspecs",
    "hookspec": "skillpath.hookspecs",
    "load_settings": "skillpath.settings",
    "load_skills": "skillpath.loader",
    "load_skills_from_dir": "skillpath.scan",
    "make_context": "skillpath.context",
    "materialize": "skillpath.extract",
    "merge_results": "skillpath.loader",
    "order_results": "skillpath.loader",
    "parse_arguments": "skillpath.transforms",
    "parse_frontmatter": "skillpath.frontmatter",
    "parse_slash_command": "skillpath.commands",
    "register_bundled_skill": "skillpath.bundled",
    "render_listing": "skillpath.listing",
    "reset_plugin_host": "skillpath.plugins",
    "resolve_skill_url": "skillpath.urls",
    "scan_skills_dir": "skillpath.scan",
    "skill_tool_schema": "skillpath.commands",
    "step": "skillpath.plugins",
    "depends_on": "skillpath.plugins",
    "strip_frontmatter": "skillpath.frontmatter",
    "substitute_arguments": "skillpath.transforms",
    "substitute_variables": "skillpath.transforms",
    "walk_up_dirs": "skillpath.context",
    "watch_skills": "skillpath.watch",
    "SkillAdded": "skillpath.watch",
    "SkillChanged": "skillpath.watch",
    "SkillChanges": "skillpath.watch",
    "SkillRemoved": "skillpath.watch",
    "write_managed_skill": "skillpath.managed",
    "load_skill_file": "skillpath.scan",
    "skill_from_text": "skillpath.scan",
    "outside_project": "skillpath.scan",
    "ContainmentError": "skillpath.safety",
    "check_relative": "skillpath.safety",
    "describe_oserror": "skillpath.safety",
    "is_inside": "skillpath.safety",
    "outside_area": "skillpath.safety",
    "project_area": "skillpath.safety",
    "resolve_inside": "skillpath.safety",
    "AgentSkills": "skillpath.agent",
    "error_text": "skillpath.agent",
    "paths_in_arguments": "skillpath.agent",
    "unknown_for_model": "skillpath.agent",
    "call_skill_tool": "skillpath.adapters",
    "model_skills": "skillpath.adapters",
    "read_skill_url": "skillpath.adapters",
    "atomic_path": "skillpath.files",
    "replace_folder": "skillpath.files",
    "write_atomic": "skillpath.files",
}


#: The documented public modules, beside the names above: a provider, an adapter or
#: a plugin may import any name in the ``__all__`` of one of these (``from
#: skillpath.safety import read_bounded``) and rely on it as on ``skillpath.__all__``.
#: Everything else (a module or a name with a leading underscore, a module not
#: listed here) is internal and may change in any release. The API page documents
#: every one of them, and ``tests/test_public_api.py`` checks that the
#: distributions of this repository import nothing else.
PUBLIC_MODULES: tuple[str, ...] = (
    "skillpath.adapters",
    "skillpath.agent",
    "skillpath.bundled",
    "skillpath.cache.changes",
    "skillpath.cache.files",
    "skillpath.cli",
    "skillpath.commands",
    "skillpath.contentscan",
    "skillpath.context",
    "skillpath.errors",
    "skillpath.extract",
    "skillpath.files",
    "skillpath.frontmatter",
    "skillpath.hookspecs",
    "skillpath.index",
    "skillpath.listing",
    "skillpath.managed",
    "skillpath.model",
    "skillpath.plugin_writer",
    "skillpath.plugins",
    "skillpath.prompt",
    "skillpath.resources",
    "skillpath.safety",
    "skillpath.scan",
    "skillpath.search",
    "skillpath.session",
    "skillpath.settings",
    "skillpath.shell",
    "skillpath.textguard",
    "skillpath.transforms",
    "skillpath.urls",
    "skillpath.views",
    "skillpath.watch",
)


def __getattr__(name: str) -> Any:
    """Import a public name (or a submodule) from its module on first access."""
    module = _EXPORTS.get(name)
    if module is None:
        if not name.startswith("_"):
            try:  # ``skillpath.scan`` after a bare ``import skillpath``
                return importlib.import_module(f"skillpath.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"skillpath.{name}":
                    raise
        raise AttributeError(f"module 'skillpath' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__version__ = "0.1.0"

__all__ = [
    "AgentSkills",
    "BudgetReport",
    "BundledSkill",
    "ContainmentError",
    "ContentFinding",
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
    "SearchHit",
    "SearchIndex",
    "SettingSpec",
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
    "SkillpathError",
    "Skipped",
    "SlashInvocation",
    "UnknownSkillError",
    "Veto",
    "__version__",
    "atomic_path",
    "build_skill",
    "call_skill_tool",
    "check_name",
    "check_relative",
    "delivery_queue",
    "depends_on",
    "describe_oserror",
    "discover_context_files",
    "error_text",
    "find_repo_root",
    "findings_for",
    "get_plugin_host",
    "hookimpl",
    "hookspec",
    "is_inside",
    "load_settings",
    "load_skill_file",
    "load_skills",
    "load_skills_from_dir",
    "make_context",
    "materialize",
    "merge_results",
    "model_skills",
    "order_results",
    "outside_area",
    "outside_project",
    "parse_arguments",
    "parse_frontmatter",
    "parse_slash_command",
    "paths_in_arguments",
    "project_area",
    "read_skill_url",
    "register_bundled_skill",
    "render_listing",
    "replace_folder",
    "reset_plugin_host",
    "resolve_inside",
    "resolve_skill_url",
    "scan_skills_dir",
    "search_skills",
    "skill_from_text",
    "skill_tool_schema",
    "step",
    "strip_frontmatter",
    "substitute_arguments",
    "substitute_variables",
    "unknown_for_model",
    "walk_up_dirs",
    "watch_skills",
    "write_atomic",
    "write_managed_skill",
]
