"""Loading helpers shared by the inspection commands (``list``, ``show``, ``doctor`` …)."""

from __future__ import annotations

import gc
from pathlib import Path

import attrs

from skillpath.cache.entrypoints import one_fingerprint
from skillpath.cli._common import check_cwd
from skillpath.context import SkillContext, make_context
from skillpath.loader import load_skills
from skillpath.model import Diagnostic, LoadResult
from skillpath.plugins import PluginHost, get_plugin_host

__all__ = ["host_for", "load", "project_context"]


def project_context(cwd: Path | None) -> tuple[SkillContext, list[Diagnostic]]:
    """The context for ``--cwd`` (exit 1 with a one-line message when it is not a directory)."""
    check_cwd(cwd)
    return make_context(cwd)


def host_for(ctx: SkillContext) -> PluginHost:
    """The plugin host ``load_skills`` would use for ``ctx`` (same switches, same cache)."""
    return get_plugin_host(
        ctx.env,
        blocked=ctx.settings.get("plugins", "blocked", ()),
        strict=True if ctx.settings.get("plugins", "strict") else None,
    )


def load(cwd: Path | None) -> tuple[LoadResult, SkillContext]:
    """Load the skills visible from ``cwd``, settings diagnostics first (as ``load_skills``).

    The cyclic garbage collector is paused during the load: a command line is one
    process doing one load, whose thousands of objects hold almost no reference
    cycles, so the collector would only walk them again and again (``load_skills``
    itself, a library call, leaves the collector as the host process set it).
    The plugin host and the load look at the installed entry points once between
    them (:func:`skillpath.cache.entrypoints.one_fingerprint`).
    """
    ctx, diags = project_context(cwd)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        with one_fingerprint():
            result = load_skills(ctx=ctx, host=host_for(ctx))
    finally:
        if was_enabled:
            gc.enable()
    if diags:
        result = attrs.evolve(result, diagnostics=tuple(diags) + result.diagnostics)
    return result, ctx
