"""Trust tiers per source, and the quarantine of third-party skills.

Every loaded skill belongs to one of three tiers, decided by where it came
from (:func:`source_of`), never by what it says about itself:

``hand-written``
    the user's and the project's own folders (``~/.skillpath/skills``,
    ``.claude/skills``, ``.agents/skills`` …), custom directories, auto-learned
    (managed) skills;
``organisation``
    skill packs and Claude Code plugins the user's config names in
    ``[trust] organisation`` (and the skills skillpath ships, ``bundled``);
``third-party``
    installed libraries, MCP servers, Claude Code plugins from marketplaces,
    skill packs not named as trusted, skills added with ``skillpath add``, the
    nested folders of a repository found as files are touched, and any plugin
    provider of level ``package`` or ``remote``.

Each tier has a policy (:data:`DEFAULT_POLICY`; ``[trust] listed``, ``shell``
and ``block`` change it, in the user's config only — a project's config can
never loosen it): whether its skills are listed (``yes``; ``approved``: only
once approved; ``no``), whether they may run inline shell and scripts (still
within ``[shell] levels``), and from which finding severity of
:mod:`skillpath.contentscan` a skill is not loaded.

**Quarantine.** A skill of a tier listed ``approved`` is loaded only when its
content digest (:func:`content_digest`: the folder's files, or the text of a
skill that is not on disk) is approved: recorded by ``skillpath trust approve``
in an approvals file (:func:`approvals_path`), matched by a ``[trust] approve``
rule, or — for a skill ``skillpath add`` installed — equal to the hash that
``add`` recorded in the user's own state. A skill seen for the first time, or
changed since it was approved, is held back: it shows in ``list --all``,
``doctor`` and ``explain`` as skipped with reason ``quarantined``, is in no
listing the model sees, and ``invoke`` refuses it naming the approve command.

The approvals live with the locks: the user's in
``<skillpath home>/trust-lock.json`` (believed only when it is a regular file of
the user's, not writable by others), the project's in
``.skillpath/trust-lock.json`` (read only when the project's config is trusted,
``[trust] projects``: a cloned repository cannot approve its own skills).

The step runs after the merge (:func:`apply_trust`), in
:func:`skillpath.load_skills` and for the nested folders a session finds; it
reads the approvals file on every load that has a skill to judge, so an
unchanged ``skillpath list`` replay sees an approval or a revocation as a
changed file.
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import itertools
import json
import operator
import os
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from skillpath.cache.reuse import TRUST_KEPT
from skillpath.model import Diagnostic, LoadResult, Skill, Skipped

if TYPE_CHECKING:
    from skillpath.contentscan import ContentFinding
    from skillpath.context import SkillContext

__all__ = [
    "APPROVALS_FILE",
    "DEFAULT_APPROVE",
    "DEFAULT_POLICY",
    "DEFAULT_SOURCES",
    "TIERS",
    "Approvals",
    "TierPolicy",
    "TrustPolicy",
    "apply_trust",
    "approvals_path",
    "content_digest",
    "quarantine_message",
    "source_of",
]

#: The tiers, most trusted first.
TIERS = ("hand-written", "organisation", "third-party")
#: ``.skillpath/trust-lock.json`` in the project; ``trust-lock.json`` in the skillpath home.
APPROVALS_FILE = "trust-lock.json"
#: Skip reasons this step gives (``Skipped.reason``).
REASONS = ("quarantined", "blocked", "tier-unlisted")
_LISTED = ("yes", "approved", "no")
_BLOCK = ("high", "medium", "low", "none")
_VERSION = 1
_MAX_DIGESTS = 16

#: The default tier of each kind of source (``[trust] sources`` changes it).
DEFAULT_SOURCES: Mapping[str, str] = {
    "user": "hand-written",
    "project": "hand-written",
    "custom": "hand-written",
    "managed": "hand-written",
    "bundled": "organisation",
    "pack": "third-party",
    "plugin": "third-party",
    "library": "third-party",
    "mcp": "third-party",
    "added": "third-party",
    "nested": "third-party",
    "package": "third-party",
    "remote": "third-party",
}

#: Sources approved by rule unless the user's config says otherwise (``[trust]
#: default_approve``, to which ``approve`` adds): an MCP server and a skill pack are
#: named or installed on purpose.
DEFAULT_APPROVE = ("mcp:*", "pack:*")


@attrs.frozen
class TierPolicy:
    """What one tier's skills may do (see the module docstring)."""

    listed: str
    shell: bool
    block: str


#: The policy of each tier.
DEFAULT_POLICY: Mapping[str, TierPolicy] = {
    "hand-written": TierPolicy("yes", True, "none"),
    "organisation": TierPolicy("yes", True, "high"),
    "third-party": TierPolicy("approved", False, "high"),
}

_SEVERITY_RANK = {"high": 0, "medium": 1, "low": 2}


def source_of(skill: Skill, added: Mapping[str, Any] | None = None) -> tuple[str, str]:
    """``(kind, id)`` of the place ``skill`` came from.

    Kinds: ``mcp`` (id: the server), ``pack`` (the pack's entry-point name),
    ``plugin`` (``plugin@marketplace``), ``library`` (the distribution),
    ``nested`` (the root), ``added`` (what ``skillpath add`` installed it from;
    ``added`` maps folders to the records of the user's ``installed.json``),
    ``bundled``, ``managed``, ``custom``; otherwise the level (``user``,
    ``project``, ``package``, ``remote`` …) with the provider as id.
    """
    src = skill.source
    detail = src.detail
    provider = src.provider
    if provider == "mcp" or src.loaded_from == "mcp":
        return "mcp", str(detail.get("server") or "")
    if provider == "packs":
        return "pack", str(detail.get("pack") or detail.get("distribution") or "")
    if provider == "claude-plugins":
        return "plugin", f"{detail.get('plugin') or ''}@{detail.get('marketplace') or ''}"
    if provider == "libraries":
        return "library", str(detail.get("distribution") or detail.get("package") or "")
    if detail.get("nested"):
        return "nested", str(src.root or "")
    if added and skill.base_dir is not None:
        entry = added.get(os.path.abspath(skill.base_dir))
        if entry is not None:
            origin = entry.get("source")
            where = origin.get("location") if isinstance(origin, Mapping) else None
            return "added", str(where or "")
    if provider in ("bundled", "managed", "custom"):
        return provider, ""
    return src.level, provider


def _matches(patterns: Iterable[str], kind: str, ident: str, name: str) -> str | None:
    full = f"{kind}:{ident}"
    for pat in patterns:
        if fnmatch.fnmatchcase(full, pat) or fnmatch.fnmatchcase(f"skill:{name}", pat):
            return pat
    return None


@attrs.frozen
class TrustPolicy:
    """The ``[trust]`` settings as one object: tiers, rules and the per-tier policy."""

    organisation: tuple[str, ...] = ()
    approve: tuple[str, ...] = DEFAULT_APPROVE
    sources: Mapping[str, str] = attrs.field(factory=lambda: dict(DEFAULT_SOURCES), hash=False)
    policy: Mapping[str, TierPolicy] = attrs.field(factory=lambda: dict(DEFAULT_POLICY), hash=False)

    @classmethod
    def from_settings(cls, settings: Any) -> TrustPolicy:
        """Build the policy from merged settings (unknown tiers and values are ignored,
        reported by :func:`policy_diagnostics`)."""
        sec = settings.section("trust")
        sources = dict(DEFAULT_SOURCES)
        for kind, tier in dict(sec["sources"]).items():
            if tier in TIERS:
                sources[str(kind)] = tier
        policy = dict(DEFAULT_POLICY)
        for tier in TIERS:
            base = policy[tier]
            listed = dict(sec["listed"]).get(tier, base.listed)
            shell = dict(sec["shell"]).get(tier, base.shell)
            block = dict(sec["block"]).get(tier, base.block)
            policy[tier] = TierPolicy(
                listed if listed in _LISTED else base.listed,
                shell if isinstance(shell, bool) else base.shell,
                block if block in _BLOCK else base.block,
            )
        approve = (*sec["default_approve"], *sec["approve"])
        return cls(tuple(sec["organisation"]), approve, sources, policy)

    def tier(self, skill: Skill, added: Mapping[str, Any] | None = None) -> str:
        """The tier of ``skill`` (see the module docstring)."""
        kind, ident = source_of(skill, added)
        return self.tier_of(kind, ident, skill.name)

    def tier_of(self, kind: str, ident: str, name: str) -> str:
        """The tier of a skill ``name`` from source ``kind:ident``."""
        if kind in ("pack", "plugin", "library", "mcp") and _matches(
            self.organisation, kind, ident, name
        ):
            return "organisation"
        return self.sources.get(kind, "third-party")

    def shell_refusal(self, skill: Skill) -> str | None:
        """Why ``skill``'s tier may not run inline shell or scripts, or ``None``."""
        tier = self.tier(skill)
        marked = _marked_tier(skill)
        if marked is not None and TIERS.index(marked) > TIERS.index(tier):
            tier = marked  # a mark can only lower the tier (an added skill's)
        if self.policy[tier].shell:
            return None
        return f"skills of the {tier} tier may not run inline shell or scripts ([trust] shell)"


def _marked_tier(skill: Skill) -> str | None:
    """The tier :func:`apply_trust` recorded on ``skill``, when it did."""
    mark = skill.source.detail.get("trust")
    tier = mark.get("tier") if isinstance(mark, Mapping) else None
    return tier if tier in TIERS else None


# -- digests ----------------------------------------------------------------------


def content_digest(skill: Skill) -> str:
    """The content digest an approval records: the SHA-256 of the skill's folder
    (every file, as ``skillpath export`` hashes it) for a skill on disk, else of its
    name, description and body."""
    if skill.path is not None and skill.base_dir is not None:
        from skillpath.files import folder_hash

        digest = folder_hash(skill.base_dir)
        if digest is not None:
            return digest
    try:
        body = skill.body
    except Exception:  # noqa: BLE001 - a plugin's body loader may raise anything
        body = ""
    h = hashlib.sha256()
    for part in (skill.name, skill.description or "", body):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


# -- approvals --------------------------------------------------------------------


def approvals_path(ctx: SkillContext, *, user: bool = False) -> Path:
    """The approvals file of the project (``.skillpath/trust-lock.json``) or of the user."""
    if user:
        return ctx.skillpath_home / APPROVALS_FILE
    return ctx.project_root / ".skillpath" / APPROVALS_FILE


def _private(st: os.stat_result) -> bool:
    if not hasattr(os, "geteuid"):
        return True
    return st.st_uid == os.geteuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


@attrs.define(eq=False)
class Approvals:
    """One approvals file: ``{"version": 1, "skills": {name: {"source", "digests"}}}``."""

    path: Path
    skills: dict[str, dict[str, Any]] = attrs.field(factory=dict)

    @classmethod
    def read(cls, path: Path, diags: list[Diagnostic] | None = None, *, private: bool) -> Approvals:
        """The file at ``path`` (empty when missing). With ``private``, a file that is
        not the user's or that others may write is not believed (reported)."""
        from skillpath.boundedjson import read_json_bounded

        try:
            st = os.lstat(path)
        except OSError:
            return cls(path)
        problem = None
        if not stat.S_ISREG(st.st_mode):
            problem = "is not a regular file"
        elif private and not _private(st):
            problem = "is not yours or others may write it"
        data: Any = None
        if problem is None:
            try:
                data = read_json_bounded(path, follow=False)
            except (OSError, ValueError, RecursionError) as exc:
                problem = f"cannot be read ({exc})"
        raw = data.get("skills") if isinstance(data, dict) else None
        if problem is None and not isinstance(raw, dict):
            problem = "is not an approvals file"
        if problem is not None:
            if diags is not None:
                diags.append(
                    Diagnostic(
                        "warning",
                        "trust-lock-unusable",
                        f"approvals file {problem}; its approvals are ignored",
                        path,
                    )
                )
            return cls(path)
        assert isinstance(raw, dict)
        skills = {
            str(k): v
            for k, v in raw.items()
            if isinstance(v, dict) and isinstance(v.get("digests"), list)
        }
        return cls(path, skills)

    def approved(self, name: str, digest: str) -> bool:
        entry = self.skills.get(name)
        return entry is not None and digest in entry["digests"]

    def approve(self, name: str, digest: str, source: str) -> bool:
        """Record ``digest`` for ``name``; ``False`` when it was already recorded."""
        entry = self.skills.setdefault(name, {"source": source, "digests": []})
        entry["source"] = source
        digests = [d for d in entry["digests"] if isinstance(d, str)]
        if digest in digests:
            return False
        digests.append(digest)
        entry["digests"] = digests[-_MAX_DIGESTS:]
        return True

    def revoke(self, name: str) -> bool:
        return self.skills.pop(name, None) is not None

    def write(self) -> None:
        """Write the file atomically (a temporary file renamed into place, mode 0600)."""
        body = {"version": _VERSION, "skills": dict(sorted(self.skills.items()))}
        data = (json.dumps(body, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        try:
            fd = os.open(
                tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600
            )
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise


def read_approvals(ctx: SkillContext, diags: list[Diagnostic] | None = None) -> list[Approvals]:
    """The approvals in force: the user's, then the project's when its config is trusted."""
    out = [Approvals.read(approvals_path(ctx, user=True), diags, private=True)]
    if ctx.settings.trusted:
        out.append(Approvals.read(approvals_path(ctx), diags, private=False))
    return out


#: The user's record of what ``skillpath add`` installed (``skillpath.install.RECORD_FILE``;
#: named here so that trust does not import the installer).
ADD_RECORD_FILE = "installed.json"


def added_records(ctx: SkillContext) -> dict[str, Any]:
    """What ``skillpath add`` recorded in the user's ``installed.json``: folder → record."""
    from skillpath.boundedjson import read_json_bounded

    path = ctx.skillpath_home / ADD_RECORD_FILE
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or not _private(st):
            return {}
        data = read_json_bounded(path, follow=False)
    except (OSError, ValueError, RecursionError):
        return {}
    raw = data.get("paths") if isinstance(data, dict) else None
    return {k: v for k, v in raw.items() if isinstance(v, dict)} if isinstance(raw, dict) else {}


# -- the step ---------------------------------------------------------------------


def quarantine_message(name: str, detail: str, where: Path | None = None) -> str:
    """The refusal ``invoke`` and ``skill://`` give for a quarantined skill."""
    review = f"review {where} and its folder, then " if where is not None else "once reviewed, "
    return (
        f"Skill {name!r} is quarantined ({detail}); {review}approve it with "
        f"`skillpath trust approve {name}`"
    )


def _mark(skill: Skill, tier: str, kind: str, ident: str) -> Skill:
    detail = dict(skill.source.detail)
    detail["trust"] = {"tier": tier, "source": f"{kind}:{ident}"}
    return attrs.evolve(skill, source=attrs.evolve(skill.source, detail=detail))


def _blocking(skill: Skill, threshold: str, ctx: SkillContext) -> str | None:
    """The first finding of ``skill`` at or above ``threshold``, described, or ``None``."""
    if threshold == "none":
        return None
    limit = _SEVERITY_RANK[threshold]
    if skill.path is None:
        # off disk (an MCP server's, a zipped pack's): its name and description only, so
        # a load never fetches a body; the body is checked when it is rendered
        from skillpath.findings import text_findings

        # the description as written (``skill.description`` is cleaned at load)
        written = skill.frontmatter.raw.get("description")
        head = f"{skill.name}\n{written if isinstance(written, str) else skill.description or ''}"
        found: Sequence[ContentFinding] = text_findings(head, env=ctx.env, home=ctx.home)
    elif skill.file_findings is not None:
        # its SKILL.md as the scan checked it (not opened again), and its other files
        from skillpath.contentscan import resource_findings, sort_findings
        from skillpath.findings import findings_for

        found = sort_findings([*findings_for(skill, resources=False), *resource_findings(skill)])
    else:
        from skillpath.contentscan import scan_skill

        found = scan_skill(skill)
    for f in found:
        if _SEVERITY_RANK.get(f.severity, 9) <= limit:
            return f"{f.severity} finding {f.id} at {f.location()}: {f.reason}"
    return None


@attrs.define(eq=False)
class _Judge:
    ctx: SkillContext
    policy: TrustPolicy
    diags: list[Diagnostic]
    _added: dict[str, Any] | None = None
    _approvals: list[Approvals] | None = None

    @property
    def added(self) -> dict[str, Any]:
        if self._added is None:
            self._added = added_records(self.ctx)
        return self._added

    @property
    def approvals(self) -> list[Approvals]:
        if self._approvals is None:
            self._approvals = read_approvals(self.ctx, self.diags)
        return self._approvals

    def judge(self, skill: Skill) -> tuple[Skill, Skipped | None]:
        kind, ident = source_of(skill, self.added or None)
        tier = self.policy.tier_of(kind, ident, skill.name)
        rules = self.policy.policy[tier]
        if rules.listed == "yes" and rules.block == "none" and kind != "added":
            return skill, None
        # only a tier the source alone does not show is marked on the skill (an added
        # skill's), so the shell policy sees it; other records stay as providers made them
        marked = _mark(skill, tier, kind, ident) if kind == "added" else skill
        where = f"{tier} tier, {kind}:{ident}" if ident else f"{tier} tier, {kind}"
        if rules.listed == "no":
            return marked, Skipped(marked, "tier-unlisted", f"{where}: [trust] listed is 'no'")
        blocked = _blocking(skill, rules.block, self.ctx)
        if blocked is not None:
            return marked, Skipped(marked, "blocked", f"{where}: {blocked}")
        if rules.listed == "approved":
            why = self._unapproved(skill, kind, ident)
            if why is not None:
                return marked, Skipped(marked, "quarantined", f"{where}: {why}")
        return marked, None

    def _unapproved(self, skill: Skill, kind: str, ident: str) -> str | None:
        if _matches(self.policy.approve, kind, ident, skill.name):
            return None
        # the digest (every file of the folder read) only where a record can match it
        digest = None
        if kind == "added" and skill.base_dir is not None:
            # the folder add wrote, or — for a link it made — the canonical copy
            digest = content_digest(skill)
            entry = self.added.get(os.path.abspath(skill.base_dir), {})
            canonical = self.added.get(os.path.realpath(skill.base_dir), {})
            if digest in (entry.get("hash"), canonical.get("hash")):
                return None
        known = any(skill.name in a.skills for a in self.approvals)
        if known:
            if digest is None:
                digest = content_digest(skill)
            if any(a.approved(skill.name, digest) for a in self.approvals):
                return None
            return "its content changed since it was approved"
        if kind == "added":
            return "its content changed since `skillpath add` installed it"
        return "new, not approved yet"


#: Kinds whose tier depends on neither the skill's name nor its source detail.
_PLAIN_KINDS = frozenset({"user", "project", "custom", "managed"})


#: The last judgement of :func:`apply_trust` with ``keep=True``: ``(policy, skills,
#: conditional, positions)``, the skills and conditional skills it was given and, for
#: each of the two, the positions of the skills that were judged one by one (every
#: other skill was listed as it is by its plain source); ``None``: none kept.
_LAST: list[tuple[Any, ...] | None] = TRUST_KEPT  # let go by skillpath.cache.reuse.clear


def apply_trust(result: LoadResult, ctx: SkillContext, *, keep: bool = False) -> LoadResult:
    """``result`` with each skill judged by its tier: skills held back move to
    ``skipped`` (reasons :data:`REASONS`) with an ``info`` diagnostic each, and every
    skill outside the hand-written tier carries ``source.detail["trust"]``.

    ``keep`` (a load with the in-process reuse on): the judgement is kept for the
    next call, which, under the same policy and with no skill added by ``skillpath
    add``, judges again only the skills that are not the very same objects in the
    same places and those that were judged one by one (their approvals and contents
    are looked at again); the others were listed as they are for their source alone,
    and still are. The result is the same as without it.
    """
    policy = TrustPolicy.from_settings(ctx.settings)
    diags: list[Diagnostic] = []
    judge = _Judge(ctx, policy, diags)
    skipped: list[Skipped] = []
    changed = False

    added = judge.added
    # (provider, level, loaded_from) of plain folders whose tier lists them as they are:
    # decided once, for every skill with no source detail (none can be an added one)
    plain: dict[tuple[str, str, str], bool] = {}

    def as_is(skill: Skill) -> bool:
        """Whether ``skill``'s plain source lists it as it is (no judgement needed)."""
        src = skill.source
        if added or src.detail:
            return False
        key = (src.provider, src.level, src.loaded_from)
        found = plain.get(key)
        if found is None:
            kind, _ident = source_of(skill)
            rules = policy.policy[policy.tier_of(kind, _ident, skill.name)]
            found = plain[key] = kind in _PLAIN_KINDS and (
                rules.listed == "yes" and rules.block == "none"
            )
        return found

    last = _LAST[0]
    _LAST[0] = None
    if keep and not added and last is not None and last[0] == policy:
        positions = _judged_again(last, result, as_is, judge)
        if positions is not None:
            _LAST[0] = (policy, result.skills, result.conditional, positions)
            return result
        # something is held back or marked now: judged in full below (by the same
        # judge: the approvals it read are the ones a full judgement reads)

    def sift(skills: Sequence[Skill], judged: list[int]) -> tuple[Skill, ...]:
        nonlocal changed
        kept: list[Skill] = []
        for i, skill in enumerate(skills):
            src = skill.source
            if not added and not src.detail:
                key = (src.provider, src.level, src.loaded_from)
                found = plain.get(key)
                if found is None:
                    found = as_is(skill)
                if found:
                    kept.append(skill)
                    continue
            judged.append(i)
            now, held = judge.judge(skill)
            if now is not skill:
                changed = True
            if held is None:
                kept.append(now)
                continue
            changed = True
            skipped.append(held)
            diags.append(
                Diagnostic(
                    "info",
                    held.reason,
                    f"skill {skill.name!r} is not listed: {held.detail}"
                    + (
                        f"; approve it with `skillpath trust approve {skill.name}`"
                        if held.reason == "quarantined"
                        else ""
                    ),
                    skill.path,
                    None,
                    skill.source.provider,
                )
            )
        return tuple(kept)

    judged_active: list[int] = []
    judged_conditional: list[int] = []
    active = sift(result.skills, judged_active)
    conditional = sift(result.conditional, judged_conditional)
    if keep and not added:
        _LAST[0] = (
            policy,
            result.skills,
            result.conditional,
            (tuple(judged_active), tuple(judged_conditional)),
        )
    if not changed:
        return result
    return attrs.evolve(
        result,
        skills=active,
        conditional=conditional,
        skipped=result.skipped + tuple(skipped),
        diagnostics=result.diagnostics + tuple(diags),
    )


def _judged_again(
    last: tuple[Any, ...],
    result: LoadResult,
    as_is: Callable[[Skill], bool],
    judge: _Judge,
) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The positions judged one by one when every skill of ``result`` is kept as it is,
    judging again only what :func:`apply_trust` must (see ``keep``); ``None`` when
    the skills are not as many as last time, or one is held back or marked now."""
    _policy, old_skills, old_conditional, old_positions = last
    out: list[tuple[int, ...]] = []
    for old, new, judged in (
        (old_skills, result.skills, old_positions[0]),
        (old_conditional, result.conditional, old_positions[1]),
    ):
        if len(old) != len(new):
            return None
        # the very same objects in the same places are found in C
        moved = itertools.compress(range(len(new)), map(operator.is_not, old, new))
        positions: list[int] = []
        for i in sorted({*moved, *judged}):
            skill = new[i]
            if as_is(skill):
                continue
            positions.append(i)
            now, held = judge.judge(skill)
            if now is not skill or held is not None:
                return None
        out.append(tuple(positions))
    return out[0], out[1]


def held_back(result: LoadResult, name: str) -> Skipped | None:
    """The skip record of ``name`` when the trust step held it back."""
    return next((s for s in result.skipped if s.skill.name == name and s.reason in REASONS), None)


def refusal(held: Skipped) -> str:
    """The one-line error for using a skill the trust step held back."""
    if held.reason == "quarantined":
        return quarantine_message(held.skill.name, held.detail, held.skill.path)
    return f"Skill {held.skill.name!r} is not loaded ({held.reason}: {held.detail})"


# -- the ``skillpath trust`` commands ----------------------------------------------


@attrs.frozen
class TrustEntry:
    """One skill outside the hand-written tier, as ``skillpath trust list`` shows it.

    ``status``: ``listed`` (its tier is listed as is), ``approved`` (its digest is
    recorded), ``rule`` (a ``[trust] approve`` rule, in ``detail``), ``quarantined``,
    ``blocked`` or ``tier-unlisted``.
    """

    name: str
    tier: str
    source: str
    status: str
    detail: str
    path: Path | None
    digest: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "tier": self.tier,
            "source": self.source,
            "status": self.status,
            "detail": self.detail,
            "path": str(self.path) if self.path is not None else None,
            "digest": self.digest,
        }


def trust_entries(result: LoadResult, ctx: SkillContext) -> list[TrustEntry]:
    """Every loaded or held-back skill outside the hand-written tier, by name (with its
    content digest when it is approved or quarantined)."""
    policy = TrustPolicy.from_settings(ctx.settings)
    judge = _Judge(ctx, policy, [])
    out: list[TrustEntry] = []
    held = {id(s.skill): s for s in result.skipped if s.reason in REASONS}
    for skill in (*result.skills, *result.conditional, *(s.skill for s in held.values())):
        added = judge.added or None
        kind, ident = source_of(skill, added)
        tier = policy.tier(skill, added)
        if tier == "hand-written" and id(skill) not in held:
            continue
        source = f"{kind}:{ident}" if ident else kind
        skip = held.get(id(skill))
        if skip is not None:
            digest = content_digest(skill) if skip.reason == "quarantined" else None
            out.append(
                TrustEntry(skill.name, tier, source, skip.reason, skip.detail, skill.path, digest)
            )
            continue
        rule = _matches(policy.approve, kind, ident, skill.name)
        if policy.policy[tier].listed != "approved":
            status, detail = "listed", f"[trust] listed = {policy.policy[tier].listed!r}"
        elif rule is not None:
            status, detail = "rule", f"[trust] approve {rule!r}"
        elif kind == "added" and judge._unapproved(skill, kind, ident) is None:
            status, detail = "approved", "installed by `skillpath add`, unchanged"
        else:
            status, detail = "approved", "digest recorded"
        digest = content_digest(skill) if status == "approved" else None
        out.append(TrustEntry(skill.name, tier, source, status, detail, skill.path, digest))
    return sorted(out, key=lambda e: (e.name.casefold(), e.name))


def approvals_target(ctx: SkillContext, *, user: bool = False) -> Path:
    """Where ``trust approve`` records: the project's file when its config is trusted
    (``[trust] projects``) and ``user`` is false, else the user's."""
    return approvals_path(ctx, user=user or not ctx.settings.trusted)


def find_skill(result: LoadResult, name: str) -> Skill | None:
    """The loaded skill ``name``, or the one the trust step held back."""
    skill = result.get(name)
    if skill is not None:
        return skill
    held = held_back(result, name)
    return held.skill if held is not None else None


def record_approval(ctx: SkillContext, skill: Skill, *, user: bool = False) -> tuple[Path, bool]:
    """Record ``skill``'s current content digest as approved: ``(file, newly recorded)``."""
    path = approvals_target(ctx, user=user)
    approvals = Approvals.read(path, None, private=path == approvals_path(ctx, user=True))
    kind, ident = source_of(skill, added_records(ctx) or None)
    new = approvals.approve(skill.name, content_digest(skill), f"{kind}:{ident}")
    if new:
        approvals.write()
    return path, new


def revoke_approval(ctx: SkillContext, name: str, *, user: bool = False) -> list[Path]:
    """Forget every recorded approval of ``name`` (the user's file, and the
    project's when its config is trusted and ``user`` is false); the files changed."""
    paths = [approvals_path(ctx, user=True)]
    if ctx.settings.trusted and not user:
        paths.append(approvals_path(ctx))
    changed: list[Path] = []
    for path in paths:
        approvals = Approvals.read(path, None, private=path == paths[0])
        if approvals.revoke(name):
            approvals.write()
            changed.append(path)
    return changed
