"""Provider ``managed``: auto-learned skills in ``~/.skillpath/managed-skills``.

``SKILLPATH_HOME`` moves ``~/.skillpath``. Managed skills are always
discovered (no source toggle applies), merge last (``late=True``: after every
provider and the custom directories), so they never override a hand-written
skill of the same name. Rules on top of the usual scan:

- a description is required;
- the name must match ``[a-z0-9][a-z0-9-]{0,63}`` (else a diagnostic and the
  skill is skipped);
- the description loses control characters (whitespace ones become a space),
  ``<``, ``>`` and backticks, so text written by a model cannot inject markup
  into a prompt; a changed description is reported as an ``info`` diagnostic.
"""

from __future__ import annotations

import attrs
from skillpath import (
    Discovery,
    DiscoveryResult,
    Skill,
    SkillContext,
    SkillSource,
    hookimpl,
    scan_skills_dir,
)
from skillpath.managed import NAME_RE, managed_root, sanitize_description

__all__ = [
    "NAME_RE",
    "PRIORITY",
    "PROVIDER_ID",
    "discover_skills",
    "sanitize_description",
]

PROVIDER_ID = "managed"
PRIORITY = 5
#: What the hooks here depend on (:func:`skillpath.depends_on`): only files, so an
#: unchanged ``skillpath list`` may be replayed.
DEPENDS_ON = ("files",)


def _clean(skill: Skill, d: Discovery) -> Skill | None:
    if not NAME_RE.fullmatch(skill.name):
        d.diagnostic(
            "error",
            "invalid-managed-name",
            f"managed skill {skill.name!r} skipped: the name must match "
            "[a-z0-9][a-z0-9-]{0,63} (lowercase letters, digits and '-')",
            skill.path,
        )
        return None
    clean = sanitize_description(skill.description)
    if clean == skill.description:
        return skill
    if not clean:
        d.diagnostic(
            "error",
            "missing-description",
            f"managed skill {skill.name!r} skipped: its description is empty once "
            "control characters, '<', '>' and backticks are removed",
            skill.path,
        )
        return None
    d.diagnostic(
        "info",
        "description-sanitized",
        f"managed skill {skill.name!r}: control characters, '<', '>' or backticks "
        "removed from the description",
        skill.path,
    )
    return attrs.evolve(
        skill,
        description=clean,
        frontmatter=attrs.evolve(skill.frontmatter, description=clean),
    )


@hookimpl
def discover_skills(ctx: SkillContext) -> DiscoveryResult:
    """Scan ``<SKILLPATH_HOME>/managed-skills``; invalid names skipped, descriptions cleaned."""
    d = Discovery(PROVIDER_ID, PRIORITY, late=True)
    root = managed_root(ctx)
    res = scan_skills_dir(
        root, SkillSource(PROVIDER_ID, "user", root), priority=PRIORITY, require_description=True
    )
    d.diagnostics.extend(res.diagnostics)
    kept = [s for s in (_clean(skill, d) for skill in res.skills) if s is not None]
    d.add(kept)
    d.roots.append(attrs.evolve(res.root, count=len(kept)))
    return d.result()
