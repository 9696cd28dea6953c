"""ACME's skill policy, as a skillpath plugin.

Configured in the user's ``~/.skillpath/config.toml`` under ``[acme_policy]``;
without that section (or with it empty) the plugin does nothing::

    [acme_policy]
    # Keep only skills from these sources (empty or absent: every source).
    # An entry is "<provider>", "<provider>/<level>" or "packs:<distribution>".
    allowed_sources = ["native", "claude/project", "packs:acme-skills"]
    # Drop skills whose name matches one of these globs.
    denied_names = ["experimental-*", "*-unsafe"]
    # Appended to every skill prompt (after the base-directory line).
    footer = "Follow the ACME engineering handbook: https://handbook.acme.example"
    # Replace secrets-looking strings in prompts with [REDACTED:<kind>] (default true).
    redact = true
    # Extra regular expressions to redact (each match becomes [REDACTED:custom]).
    redact_patterns = ["ACME-INT-[0-9]{6}"]

The policy is read with ``ctx.settings.trusted_section()``: a project's own
``.skillpath/config.toml`` — which anyone who publishes a repository can write —
counts only when the user trusts the project (``[trust] projects``), so a cloned
repository can neither loosen the policy nor set one. The policy fails closed: an
invalid ``[acme_policy]`` section vetoes every skill (the reason names the bad key)
and aborts invocations.

The section is declared (``settings_schema``) without keys: the plugin validates it
itself, so that a bad value fails closed instead of falling back to a default.

Hooks: ``settings_schema``, ``filter_skill`` (allow-list of sources, deny-list of names) and
``transform_prompt`` at step 950 — after inline shell (400) and the
base-directory prefix (900), so command output is redacted too.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs
from skillpath import PromptError, Skill, SkillContext, Veto, hookimpl, step

if TYPE_CHECKING:  # an annotation only: registering the plugin does not import the prompt code
    from skillpath import Invocation

__all__ = [
    "SECTION",
    "Policy",
    "PolicyError",
    "filter_skill",
    "load_policy",
    "redact",
    "settings_schema",
    "transform_prompt",
]

#: The hooks read nothing but their arguments: the policy comes from ``ctx.settings``
#: (:func:`skillpath.depends_on`), so an unchanged ``skillpath list`` may be replayed
#: and a process that loads again may keep the verdicts on unchanged skills.
DEPENDS_ON = ("arguments",)

SECTION = "acme_policy"

#: ``(kind, pattern)`` of the built-in redactions, applied in this order.
SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "private-key",
        re.compile(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?-----END [A-Z0-9 ]*PRIVATE KEY-----",
            re.S,
        ),
    ),
    ("aws-access-key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("github-token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b")),
    ("github-token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b")),
    ("slack-token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b")),
    ("api-key", re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}")),
    ("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
)
_ASSIGNMENT = re.compile(
    r"(?i)\b(password|passwd|pwd|secret|client[_-]?secret|token|api[_-]?key|access[_-]?key)"
    r"(\s*[:=]\s*)([\"']?)([^\s\"']{8,})\3"
)


class PolicyError(ValueError):
    """The ``[acme_policy]`` section is invalid."""


@attrs.frozen
class Policy:
    """The parsed ``[acme_policy]`` section."""

    allowed_sources: tuple[str, ...] = ()
    denied_names: tuple[str, ...] = ()
    footer: str = ""
    redact: bool = True
    redact_patterns: tuple[re.Pattern[str], ...] = ()

    def source_allowed(self, skill: Skill) -> bool:
        """Whether ``skill``'s source matches one ``allowed_sources`` entry (or none are set)."""
        if not self.allowed_sources:
            return True
        src = skill.source
        for entry in self.allowed_sources:
            if entry.startswith("packs:"):
                dist = str(src.detail.get("distribution", ""))
                if src.provider == "packs" and _norm(dist) == _norm(entry[6:]):
                    return True
            elif "/" in entry:
                provider, _, level = entry.partition("/")
                if src.provider == provider and src.level == level:
                    return True
            elif src.provider == entry:
                return True
        return False

    def denied_by(self, name: str) -> str | None:
        """The ``denied_names`` glob that ``name`` matches, if any."""
        for pat in self.denied_names:
            if fnmatch.fnmatchcase(name, pat):
                return pat
        return None


def _norm(dist: str) -> str:
    return re.sub(r"[-_.]+", "-", dist).lower()


def _strings(section: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = section.get(key, ())
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise PolicyError(f"[{SECTION}] {key} must be a list of strings, got {value!r}")
    return tuple(value)


def load_policy(ctx: SkillContext) -> Policy | None:
    """The policy as the user's config sets it (``None`` when it sets none).

    The section comes from ``ctx.settings.trusted_section()``: what an untrusted
    project's config set is left out, so a cloned repository cannot loosen it.

    :raises PolicyError: for a section with bad values.
    """
    section = ctx.settings.trusted_section(SECTION)
    if not section:
        return None
    known = {"allowed_sources", "denied_names", "footer", "redact", "redact_patterns"}
    unknown = sorted(set(section) - known)
    if unknown:
        raise PolicyError(f"[{SECTION}] has unknown keys: {', '.join(unknown)}")
    footer = section.get("footer", "")
    if not isinstance(footer, str):
        raise PolicyError(f"[{SECTION}] footer must be a string")
    do_redact = section.get("redact", True)
    if not isinstance(do_redact, bool):
        raise PolicyError(f"[{SECTION}] redact must be true or false")
    patterns = []
    for raw in _strings(section, "redact_patterns"):
        try:
            patterns.append(re.compile(raw))
        except re.error as exc:
            raise PolicyError(
                f"[{SECTION}] redact_patterns: {raw!r} is not a regex: {exc}"
            ) from exc
    return Policy(
        _strings(section, "allowed_sources"),
        _strings(section, "denied_names"),
        footer,
        do_redact,
        tuple(patterns),
    )


def redact(text: str, extra: tuple[re.Pattern[str], ...] = ()) -> tuple[str, int]:
    """``text`` with secrets-looking strings replaced, and how many were replaced."""
    count = 0
    for kind, pattern in SECRET_PATTERNS:
        text, n = pattern.subn(f"[REDACTED:{kind}]", text)
        count += n
    text, n = _ASSIGNMENT.subn(lambda m: f"{m[1]}{m[2]}{m[3]}[REDACTED:secret]{m[3]}", text)
    count += n
    for pattern in extra:
        text, n = pattern.subn("[REDACTED:custom]", text)
        count += n
    return text, count


@hookimpl
def settings_schema() -> dict[str, dict[str, Any]]:
    """Declare ``[acme_policy]`` (validated here, by :func:`load_policy`)."""
    return {SECTION: {}}


@hookimpl
def filter_skill(skill: Skill, ctx: SkillContext) -> Veto | None:
    """Veto skills from sources not allowed, or with denied names."""
    try:
        policy = load_policy(ctx)
    except PolicyError as exc:
        return Veto(f"invalid policy, every skill is refused: {exc}")
    if policy is None:
        return None
    pat = policy.denied_by(skill.name)
    if pat is not None:
        return Veto(f"name matches [{SECTION}] denied_names {pat!r}")
    if not policy.source_allowed(skill):
        src = skill.source
        dist = src.detail.get("distribution")
        where = f"{src.provider}/{src.level}" + (f" ({dist})" if dist else "")
        return Veto(f"source {where} is not in [{SECTION}] allowed_sources")
    return None


@hookimpl
@step(order=950)
def transform_prompt(text: str, invocation: Invocation, ctx: SkillContext) -> str | None:
    """Redact secrets-looking strings and append the footer."""
    try:
        policy = load_policy(ctx)
    except PolicyError as exc:
        raise PromptError(str(exc)) from exc
    if policy is None:
        return None
    if policy.redact:
        text, _ = redact(text, policy.redact_patterns)
    if policy.footer:
        text = f"{text.rstrip()}\n\n---\n{policy.footer}\n"
    return text
