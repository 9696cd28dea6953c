"""``skillpath trust``: the trust tier of each skill, and approving quarantined ones."""

from __future__ import annotations

from pathlib import Path

import click

from skillpath.cli._common import common_options, echo, echo_diagnostics, emit_json, fail, table
from skillpath.cli._load import host_for, load
from skillpath.model import Diagnostic

__all__ = ["trust_cmd"]


@click.group("trust")
def trust_cmd() -> None:
    """Trust tiers and the quarantine of third-party skills (see Security in the docs).

    A third-party skill (an installed library's, a marketplace plugin's, a
    repository's nested folder's …) is not listed for the model until its
    content is approved; approving records its content digest, and a change of
    content quarantines it again.
    """


@trust_cmd.command("list")
@common_options
def list_cmd(cwd: Path | None, as_json: bool) -> None:
    """Every skill outside the hand-written tier: its tier, source and status
    (listed, approved, rule, quarantined, blocked, tier-unlisted).

    JSON shape: {"skills": [{name, tier, source, status, detail, path, digest}]}.
    """
    from skillpath.trust import trust_entries

    result, ctx = load(cwd)
    entries = trust_entries(result, ctx)
    if as_json:
        emit_json({"skills": [e.to_json() for e in entries]})
        return
    if not entries:
        echo("No skills outside the hand-written tier.")
        return
    rows = [[e.name, e.tier, e.source, e.status, e.detail] for e in entries]
    echo(table(["NAME", "TIER", "SOURCE", "STATUS", "DETAIL"], rows))


def _scan_or_refuse(skill: object, ctx: object, force: bool, diags: list[Diagnostic]) -> str | None:
    """Run the heavy scanners; the refusal when one has a high finding and not ``force``."""
    from skillpath.scanners import heavy_scan_all

    reports = heavy_scan_all([skill], ctx, host_for(ctx), diags)  # type: ignore[list-item,arg-type]
    for report in reports:
        if report.worst() == "high" and not force:
            scanner, first = report.findings[0]
            return (
                f"not approved: {scanner} found {first.id} ({first.severity}) at "
                f"{first.location()}: {first.reason} (--force approves it anyway)"
            )
    return None


@trust_cmd.command("approve")
@click.argument("names", nargs=-1, required=True)
@click.option("--user", "user", is_flag=True, help="Record in the user's approvals file.")
@click.option("--force", is_flag=True, help="Approve despite a heavy scanner's high finding.")
@common_options
def approve_cmd(
    names: tuple[str, ...], user: bool, force: bool, cwd: Path | None, as_json: bool
) -> None:
    """Approve skills NAMES as they are now: record their content digests, so they
    are listed for the model until their content changes.

    The heavy scanners (`scan_skill` plugins) look at each skill first; a high
    finding refuses it unless --force. A skill blocked by a content finding
    ([trust] block) stays blocked. Approvals go to the project's
    `.skillpath/trust-lock.json` when the project's config is trusted ([trust]
    projects), else (and with --user) to `~/.skillpath/trust-lock.json`.

    JSON shape: {"approved": [{name, file, new}], "refused": [{name, reason}]}.
    """
    from skillpath.trust import find_skill, held_back, record_approval

    result, ctx = load(cwd)
    approved: list[dict[str, object]] = []
    refused: list[dict[str, str]] = []
    diags: list[Diagnostic] = []
    for name in names:
        skill = find_skill(result, name)
        if skill is None:
            refused.append({"name": name, "reason": "no such skill (see `skillpath list --all`)"})
            continue
        held = held_back(result, name)
        if held is not None and held.reason != "quarantined":
            refused.append({"name": name, "reason": f"{held.reason}: {held.detail}"})
            continue
        why = _scan_or_refuse(skill, ctx, force, diags)
        if why is not None:
            refused.append({"name": name, "reason": why})
            continue
        try:
            path, new = record_approval(ctx, skill, user=user)
        except OSError as exc:
            fail(f"cannot record the approval: {exc}", error="os-error", path=exc.filename)
        approved.append({"name": name, "file": str(path), "new": new})
    if as_json:
        emit_json({"approved": approved, "refused": refused})
    else:
        echo_diagnostics(diags)
        for a in approved:
            what = "approved" if a["new"] else "already approved"
            echo(f"{what}: {a['name']} (recorded in {a['file']})")
        for r in refused:
            echo(f"refused: {r['name']}: {r['reason']}", err=True)
    if refused:
        raise SystemExit(1)


@trust_cmd.command("revoke")
@click.argument("names", nargs=-1, required=True)
@click.option("--user", "user", is_flag=True, help="Only the user's approvals file.")
@common_options
def revoke_cmd(names: tuple[str, ...], user: bool, cwd: Path | None, as_json: bool) -> None:
    """Forget the recorded approvals of skills NAMES: they are quarantined again
    (unless a [trust] approve rule covers them).

    JSON shape: {"revoked": [{name, files}], "unknown": [name]}.
    """
    from skillpath.cli._load import project_context
    from skillpath.trust import revoke_approval

    ctx, _diags = project_context(cwd)
    revoked: list[dict[str, object]] = []
    unknown: list[str] = []
    for name in names:
        try:
            files = revoke_approval(ctx, name, user=user)
        except OSError as exc:
            fail(f"cannot revoke the approval: {exc}", error="os-error", path=exc.filename)
        if files:
            revoked.append({"name": name, "files": [str(f) for f in files]})
        else:
            unknown.append(name)
    if as_json:
        emit_json({"revoked": revoked, "unknown": unknown})
    else:
        for r in revoked:
            echo(f"revoked: {r['name']}")
        for name in unknown:
            echo(f"no approval recorded for {name!r}", err=True)
    if unknown and not revoked:
        raise SystemExit(1)


@trust_cmd.command("scan")
@click.argument("names", nargs=-1)
@common_options
def scan_cmd(names: tuple[str, ...], cwd: Path | None, as_json: bool) -> None:
    """Run the heavy scanners (`scan_skill` plugins) on skills NAMES (default:
    every skill outside the hand-written tier); results are cached per content
    digest. Exits 1 when a high finding is found.

    JSON shape: {"scanners": [name], "reports": [{name, digest, scanners, cached,
    findings: [{id, severity, reason, path, line, excerpt, scanner}]}]}.
    """
    from skillpath.scanners import heavy_scan
    from skillpath.trust import find_skill, trust_entries

    result, ctx = load(cwd)
    host = host_for(ctx)
    scanners = [n for n, _v in host.scanners()]
    chosen = list(names) or [e.name for e in trust_entries(result, ctx)]
    diags: list[Diagnostic] = []
    reports = []
    for name in chosen:
        skill = find_skill(result, name)
        if skill is None:
            fail(f"no such skill {name!r} (see `skillpath list --all`)", error="not-found")
        reports.append(heavy_scan(skill, ctx, host, diags))
    if as_json:
        emit_json({"scanners": scanners, "reports": [r.to_json() for r in reports]})
    else:
        echo_diagnostics(diags)
        if not scanners:
            echo("No heavy scanner is installed (a plugin implementing scan_skill).")
        rows = [
            [r.skill.name, scanner, f.severity, f.id, f.location(), f.reason]
            for r in reports
            for scanner, f in r.findings
        ]
        if rows:
            echo(table(["NAME", "SCANNER", "SEVERITY", "ID", "WHERE", "REASON"], rows))
        elif scanners:
            echo(f"No findings in {len(reports)} skill(s).")
    if any(r.worst() == "high" for r in reports):
        raise SystemExit(1)
