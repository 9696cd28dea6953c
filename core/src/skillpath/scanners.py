"""Heavy scanners: the ``scan_skill`` hook, run at install, export and approval time.

The content checks of :mod:`skillpath.contentscan` are cheap enough for every
load. A scanner that takes seconds (a rule engine with hundreds of rules, a
model) is a plugin implementing :func:`skillpath.hookspecs.scan_skill`, and runs
only when a skill is about to be trusted: ``skillpath add``/``update`` (what
was installed), ``skillpath export`` (what is exported), ``skillpath trust
approve`` (refused on a ``high`` finding unless ``--force``) and ``skillpath
trust scan`` (on demand).

:func:`heavy_scan` runs every scanner on one skill. Each scanner's result is
kept in ``<cache>/scans/<digest>/<plugin>.json`` (``digest`` is
:func:`skillpath.trust.content_digest`; the record names the plugin's version,
so an upgraded scanner scans again), so a skill whose content did not change is
never scanned twice by the same scanner. A record that cannot be read is
ignored (the scanner runs again); records are written atomically.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from skillpath.contentscan import ContentFinding
from skillpath.model import Diagnostic, Skill

if TYPE_CHECKING:
    from skillpath.context import SkillContext
    from skillpath.plugins import PluginHost

__all__ = ["ScanReport", "heavy_scan", "heavy_scan_all", "scan_cache_dir", "scan_folders"]

_VERSION = 1
_SAFE = re.compile(r"[^A-Za-z0-9._-]")


@attrs.frozen
class ScanReport:
    """What the heavy scanners said about one skill.

    ``findings`` are ``(scanner, finding)`` pairs, worst first; ``scanners`` the
    scanners that looked at it; ``cached`` those whose answer came from the cache.
    """

    skill: Skill
    digest: str
    findings: tuple[tuple[str, ContentFinding], ...] = ()
    scanners: tuple[str, ...] = ()
    cached: tuple[str, ...] = ()

    def worst(self) -> str | None:
        """The worst severity found, or ``None``."""
        for sev in ("high", "medium", "low"):
            if any(f.severity == sev for _s, f in self.findings):
                return sev
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.skill.name,
            "digest": self.digest,
            "scanners": list(self.scanners),
            "cached": list(self.cached),
            "findings": [dict(f.to_json(), scanner=s) for s, f in self.findings],
        }


def scan_cache_dir(ctx: SkillContext) -> Path:
    """``<cache>/scans``."""
    from skillpath.extract import cache_root

    return cache_root(ctx.env) / "scans"


def _record_path(ctx: SkillContext, digest: str, plugin: str) -> Path:
    name = _SAFE.sub("_", plugin)[:80] + "-" + hashlib.sha256(plugin.encode()).hexdigest()[:8]
    return scan_cache_dir(ctx) / digest[:64] / f"{name}.json"


def _finding(data: Any) -> ContentFinding | None:
    if not isinstance(data, dict):
        return None
    try:
        path = data.get("path")
        line = data.get("line")
        return ContentFinding(
            str(data["id"]),
            str(data["severity"]),
            str(data["reason"]),
            Path(path) if isinstance(path, str) else None,
            line if isinstance(line, int) else None,
            str(data.get("excerpt", "")),
        )
    except KeyError:
        return None


def _read(path: Path, version: str) -> list[ContentFinding] | None:
    from skillpath.boundedjson import read_json_bounded

    try:
        data = read_json_bounded(path, follow=False)
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("version") != _VERSION:
        return None
    if data.get("scanner_version") != version or not isinstance(data.get("findings"), list):
        return None
    found = [_finding(f) for f in data["findings"]]
    if any(f is None for f in found):
        return None
    return [f for f in found if f is not None]


def _write(path: Path, version: str, findings: Iterable[ContentFinding]) -> None:
    body = {
        "version": _VERSION,
        "scanner_version": version,
        "findings": [f.to_json() for f in findings],
    }
    data = (json.dumps(body, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with open(tmp, "xb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError:  # a cache that cannot be written only costs a scan next time
        with contextlib.suppress(OSError):
            tmp.unlink()


def heavy_scan(
    skill: Skill, ctx: SkillContext, host: PluginHost, diags: list[Diagnostic]
) -> ScanReport:
    """Run every ``scan_skill`` implementation on ``skill`` (cached per content digest)."""
    from skillpath.trust import content_digest

    digest = content_digest(skill)
    findings: list[tuple[str, ContentFinding]] = []
    used: list[str] = []
    cached: list[str] = []
    for plugin, version in host.scanners():
        record = _record_path(ctx, digest, plugin)
        got = _read(record, version)
        if got is not None:
            cached.append(plugin)
        else:
            got = host.scan(plugin, skill, ctx, diags)
            if got is None:
                continue
            _write(record, version, got)
        used.append(plugin)
        findings.extend((plugin, f) for f in got)
    rank = {"high": 0, "medium": 1, "low": 2}
    findings.sort(key=lambda p: (rank.get(p[1].severity, 9), p[0], str(p[1].path), p[1].line or 0))
    return ScanReport(skill, digest, tuple(findings), tuple(used), tuple(cached))


def heavy_scan_all(
    skills: Iterable[Skill], ctx: SkillContext, host: PluginHost, diags: list[Diagnostic]
) -> list[ScanReport]:
    """:func:`heavy_scan` of each skill, with one ``scan-finding`` warning per skill
    that has findings (nothing at all when no scanner is installed)."""
    if not host.scanners():
        return []
    out: list[ScanReport] = []
    for skill in skills:
        report = heavy_scan(skill, ctx, host, diags)
        out.append(report)
        if report.findings:
            scanner, first = report.findings[0]
            diags.append(
                Diagnostic(
                    "warning",
                    "scan-finding",
                    f"skill {skill.name!r}: {len(report.findings)} finding(s) from "
                    f"{', '.join(report.scanners)}; worst: {first.severity} {first.id} "
                    f"({scanner}) at {first.location()}: {first.reason}",
                    first.path or skill.path,
                    first.line,
                )
            )
    return out


def scan_folders(
    ctx: SkillContext, folders: Iterable[Path], host: PluginHost | None = None
) -> list[Diagnostic]:
    """Heavy-scan the skill folders a command just wrote (``add``, ``update``): one
    ``scan-finding`` warning per skill with findings; nothing when no scanner is
    installed. A folder reached twice (a link to the canonical copy) is scanned once."""
    from skillpath.model import SkillSource
    from skillpath.plugins import get_plugin_host
    from skillpath.scan import load_skill_file

    host = host if host is not None else get_plugin_host(ctx.env)
    if not host.scanners():
        return []
    diags: list[Diagnostic] = []
    skills: list[Skill] = []
    seen: set[str] = set()
    for folder in folders:
        real = os.path.realpath(folder)
        path = Path(folder) / "SKILL.md"
        if real in seen or not path.is_file():
            continue
        seen.add(real)
        skill, _problems = load_skill_file(
            path, SkillSource("added", "project", Path(folder).parent)
        )
        if skill is not None:
            skills.append(skill)
    heavy_scan_all(skills, ctx, host, diags)
    return diags
