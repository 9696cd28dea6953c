"""The built-in ``filter_skill`` implementation: the seed's four filters, in order.

1. not disabled by a ``disabled_extensions`` entry ``skill:<name>``;
2. source enabled (per-provider toggles, with the fallback rule below);
3. not matched by an ``ignored`` glob;
4. matched by an ``include`` glob when any is given (empty keeps all).

Source toggles: ``native``, ``claude`` and ``agents`` have a user and a project
switch, ``codex`` one switch for all its skills, ``libraries`` (skills installed
Python libraries ship) ``enable_libraries``. Claude Code's managed-policy
level follows ``enable_claude_user``. A provider with no switch of its own is
enabled when any of the native, claude or codex switches is on (the agents
switches do not count, and turning the others off never turns agents off).
Custom directories (provider ``custom``) and managed skills (``managed``) are
exempt from source toggles.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from skillpath.hookspecs import hookimpl
from skillpath.model import Skill, Veto

if TYPE_CHECKING:
    from skillpath.context import SkillContext

__all__ = ["filter_skill", "idle", "source_enabled"]

#: What the hooks here depend on (:func:`skillpath.depends_on`): only files, so
#: an unchanged ``skillpath list`` may be replayed.
DEPENDS_ON = ("files",)

_EXEMPT = {"custom", "managed"}
_FALLBACK_KEYS = (
    "enable_codex_user",
    "enable_claude_user",
    "enable_claude_project",
    "enable_native_user",
    "enable_native_project",
)


def source_enabled(provider: str, level: str, skills: Mapping[str, Any]) -> tuple[bool, str]:
    """Whether skills of ``provider`` at ``level`` are enabled, and the deciding key."""
    if provider in _EXEMPT:
        return True, ""
    if provider == "codex":
        return bool(skills["enable_codex_user"]), "enable_codex_user"
    if provider == "libraries":
        return bool(skills["enable_libraries"]), "enable_libraries"
    if provider in ("claude", "native", "agents"):
        which = "project" if level == "project" else "user"
        key = f"enable_{provider}_{which}"
        return bool(skills[key]), key
    on = any(skills[k] for k in _FALLBACK_KEYS)
    return on, "any of " + ", ".join(_FALLBACK_KEYS)


def _match(name: str, patterns: tuple[str, ...] | list[str]) -> str | None:
    for pat in patterns:
        if fnmatch.fnmatchcase(name, pat):
            return pat
    return None


class _Rules:
    """One ``[skills]`` section's filters, prepared once (the filter runs per skill)."""

    __slots__ = ("disabled", "ignored", "include", "section", "sources")

    def __init__(self, section: Mapping[str, Any]) -> None:
        self.section = section
        self.disabled = frozenset(v for v in section["disabled_extensions"] if isinstance(v, str))
        self.ignored = tuple(section["ignored"])
        self.include = tuple(section["include"])
        # (provider, level) -> the source toggle's verdict
        self.sources: dict[tuple[str, str], tuple[bool, str]] = {}


_LAST: list[_Rules] = []
#: The switches that turn a source off (see :func:`source_enabled`): with all of
#: them on, every provider and level is enabled.
_SOURCE_KEYS = (
    "enable_codex_user",
    "enable_libraries",
    "enable_claude_user",
    "enable_claude_project",
    "enable_native_user",
    "enable_native_project",
    "enable_agents_user",
    "enable_agents_project",
)


def _rules(section: Mapping[str, Any]) -> _Rules:
    # a section view is made once per settings object (Settings.section), so
    # the same view means the same values
    last = _LAST[0] if _LAST else None
    if last is not None and last.section is section:
        return last
    rules = _Rules(section)
    _LAST[:] = [rules]
    return rules


def idle(ctx: SkillContext) -> bool:
    """Whether :func:`filter_skill` vetoes no skill at all under ``ctx``'s settings.

    True when ``disabled_extensions``, ``ignored`` and ``include`` are empty and
    every source switch is on (the defaults): then :func:`filter_skill` returns
    ``None`` for every skill, and a load may leave it out of its filter chain
    (:meth:`skillpath.plugins.PluginHost.filter_chain`).
    """
    rules = _rules(ctx.settings.skills)
    if rules.disabled or rules.ignored or rules.include:
        return False
    section = rules.section
    return all(section[key] for key in _SOURCE_KEYS)


@hookimpl
def filter_skill(skill: Skill, ctx: SkillContext) -> Veto | None:
    """Apply ``disabled_extensions``, source toggles, ``ignored`` and ``include``."""
    rules = _rules(ctx.settings.skills)
    name = skill.name
    if rules.disabled and f"skill:{name}" in rules.disabled:
        return Veto(f"disabled: disabled_extensions has 'skill:{name}'")
    src = skill.source
    where = (src.provider, src.level)
    verdict = rules.sources.get(where)
    if verdict is None:
        verdict = rules.sources[where] = source_enabled(src.provider, src.level, rules.section)
    if not verdict[0]:
        return Veto(f"source-disabled: {verdict[1]} is off")
    if rules.ignored:
        pat = _match(name, rules.ignored)
        if pat is not None:
            return Veto(f"ignored: matches ignored pattern {pat!r}")
    if rules.include and _match(name, rules.include) is None:
        return Veto("not-included: matches no include pattern")
    return None
