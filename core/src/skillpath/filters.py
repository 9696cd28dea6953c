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
from typing import Any

from skillpath.context import SkillContext
from skillpath.hookspecs import hookimpl
from skillpath.model import Skill, Veto

__all__ = ["filter_skill", "source_enabled"]

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


@hookimpl
def filter_skill(skill: Skill, ctx: SkillContext) -> Veto | None:
    """Apply ``disabled_extensions``, source toggles, ``ignored`` and ``include``."""
    s = ctx.settings.skills
    if f"skill:{skill.name}" in s["disabled_extensions"]:
        return Veto(f"disabled: disabled_extensions has 'skill:{skill.name}'")
    on, key = source_enabled(skill.source.provider, skill.source.level, s)
    if not on:
        return Veto(f"source-disabled: {key} is off")
    pat = _match(skill.name, s["ignored"])
    if pat is not None:
        return Veto(f"ignored: matches ignored pattern {pat!r}")
    if s["include"] and _match(skill.name, s["include"]) is None:
        return Veto("not-included: matches no include pattern")
    return None
