"""Exceptions raised by skillpath's public API."""

from __future__ import annotations

__all__ = ["NoProviderError", "PluginError", "PromptError", "ResolveError", "SkillpathError"]


class SkillpathError(Exception):
    """Base class of every error skillpath raises on purpose."""


class PluginError(SkillpathError):
    """A plugin failed (raised only in strict mode; otherwise it is a diagnostic)."""

    def __init__(self, plugin: str, message: str) -> None:
        super().__init__(f"plugin {plugin!r}: {message}")
        self.plugin = plugin


class ResolveError(SkillpathError):
    """A URL was refused or could not be read (unknown skill, traversal, missing file)."""


class PromptError(SkillpathError):
    """A skill invocation could not be rendered (for example an inline shell command failed)."""


class NoProviderError(SkillpathError):
    """An agent's skills were opened with no skill provider installed and none found.

    ``skillpath-core`` alone reads no agent's skills folder: without a provider
    distribution the agent would see no skills at all. The message names the
    command that installs the providers.
    """
