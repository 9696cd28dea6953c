"""An organisation policy plugin: which skills may load, and what every prompt carries.

Configuration (in ``~/.skillpath/config.toml``; a project's own config counts only
when the user trusts the project, as for skillpath's own sensitive keys)::

    [policy]
    allow_providers = ["native", "packs", "claude"]   # empty: every provider
    deny = ["experimental-*"]                          # name globs never loaded
    footer = "Follow the ACME engineering handbook."  # appended to every invocation

``filter_skill`` vetoes with a reason (shown by ``skillpath doctor`` and
``skillpath explain``); ``transform_prompt`` runs after the built-in steps
(order 950) and redacts anything that looks like a secret.
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any

from skillpath import Invocation, Skill, SkillContext, Veto, hookimpl, step

_SECRET = re.compile(r"\b(?:sk|ghp|xox[abp])[-_][A-Za-z0-9_-]{16,}\b")


def _policy(ctx: SkillContext) -> dict[str, Any]:
    """``[policy]`` as the user (or a project the user trusts) set it: a cloned
    repository's own config must not be able to loosen the organisation's policy."""
    return dict(ctx.settings.trusted_section("policy"))


@hookimpl
def filter_skill(skill: Skill, ctx: SkillContext) -> Veto | None:
    """Drop skills from providers that are not allowed and names on the deny-list."""
    policy = _policy(ctx)
    allowed = policy.get("allow_providers") or []
    if allowed and skill.source.provider not in allowed:
        return Veto(f"provider {skill.source.provider!r} is not in [policy] allow_providers")
    for pattern in policy.get("deny") or []:
        if fnmatch.fnmatchcase(skill.name, str(pattern)):
            return Veto(f"name matches [policy] deny pattern {pattern!r}")
    return None


@hookimpl
@step(order=950)
def transform_prompt(text: str, invocation: Invocation, ctx: SkillContext) -> str:
    """Redact secrets and append the organisation footer."""
    text = _SECRET.sub("[redacted]", text)
    footer = _policy(ctx).get("footer")
    return f"{text.rstrip()}\n\n{footer}\n" if footer else text
