"""``cisco-scanner``: Cisco's open-source AI skill scanner as the ``scan_skill`` hook.

:func:`scan_skill` runs ``skill_scanner``'s core analyzers (static rules,
bytecode, pipeline, correlation: all offline) over a skill's folder and turns
each finding into a :class:`skillpath.contentscan.ContentFinding`: id
``cisco:<RULE_ID>``, severity CRITICAL/HIGH → ``high``, MEDIUM → ``medium``,
LOW → ``low`` (INFO dropped), the file and line, the title as the reason and
the snippet (escaped, at most 80 characters) as the excerpt. A skill that is not
on disk is not scanned (``None``). The scanner itself is built once per process
(building it loads and validates every rule pack) and imported on first use.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from skillpath import SkillContext, hookimpl
from skillpath.contentscan import ContentFinding
from skillpath.model import Skill
from skillpath.textguard import escape_controls

__all__ = ["SEVERITIES", "findings_of", "scan_skill", "scanner_version"]

#: ``skill_scanner`` severity → skillpath severity (``None``: left out).
SEVERITIES: dict[str, str | None] = {
    "CRITICAL": "high",
    "HIGH": "high",
    "MEDIUM": "medium",
    "LOW": "low",
    "INFO": None,
    "SAFE": None,
}

_LOCK = threading.Lock()
_SCANNER: list[Any] = []


def scanner_version() -> str:
    """The installed ``cisco-ai-skill-scanner`` version."""
    from importlib.metadata import version

    return version("cisco-ai-skill-scanner")


def _scanner() -> Any:
    with _LOCK:
        if not _SCANNER:
            from skill_scanner import SkillScanner  # type: ignore[import-not-found,unused-ignore]

            # analyzers=None: the core analyzers only; no LLM, VirusTotal or OSV lookups
            _SCANNER.append(SkillScanner(use_virustotal=False))
        return _SCANNER[0]


def _severity(value: Any) -> str | None:
    name = str(getattr(value, "name", value)).upper()
    return SEVERITIES.get(name, "medium")


def findings_of(result: Any, base: Path) -> list[ContentFinding]:
    """The findings of one ``skill_scanner`` scan result, as skillpath's, worst first."""
    out: list[ContentFinding] = []
    for f in getattr(result, "findings", ()) or ():
        severity = _severity(f.severity)
        if severity is None:
            continue
        rel = f.file_path
        path = base / rel if isinstance(rel, str) and rel else None
        snippet = " ".join(str(f.snippet or "").split())
        out.append(
            ContentFinding(
                f"cisco:{f.rule_id}",
                severity,
                escape_controls(str(f.title or f.description or f.rule_id)),
                path,
                f.line_number if isinstance(f.line_number, int) else None,
                escape_controls(snippet)[:80],
            )
        )
    rank = {"high": 0, "medium": 1, "low": 2}
    return sorted(out, key=lambda c: (rank[c.severity], str(c.path), c.line or 0, c.id))


@hookimpl
def scan_skill(skill: Skill, ctx: SkillContext) -> list[ContentFinding] | None:
    """Scan ``skill``'s folder with the Cisco skill scanner (see the module docstring)."""
    if skill.path is None or skill.base_dir is None:
        return None
    base = Path(skill.base_dir)
    scanner = _scanner()
    with _LOCK:  # one scan at a time through the shared scanner
        result = scanner.scan_skill(base)
    return findings_of(result, base)
