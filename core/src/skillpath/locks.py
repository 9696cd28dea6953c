"""Which lock file holds what.

``skills-lock.json`` at the project root is shared with ``npx skills``: it holds only
entries ``npx skills`` can act on (written by ``npx skills add`` or ``skillpath add``;
``sourceType`` ``git``, ``github``, ``gitlab``, ``local``, ``node_modules``…). What
``skillpath export`` records (skills from Python packages, MCP servers, bundled
skills, custom folders, each with its ``skillpath`` object) lives in skillpath's own
lock, :data:`EXPORT_LOCK_FILE` in the project (``export-lock.json`` in the skillpath
home for the user scope): ``npx skills update`` and ``experimental_install`` would try
to fetch a ``python-package`` entry as a repository, and rewrite or drop entries they
do not know.

Earlier versions wrote export entries into ``skills-lock.json``; :func:`legacy_export_entries`
finds them and :func:`drop_legacy_export_entries` removes them once ``export`` has
moved them into its own lock.

This module is the bottom of the lock code: the file names, their paths and
:func:`read_lock` live here, and :mod:`skillpath.provenance` and :mod:`skillpath.export`
import them (never the reverse). What a load's merge reads of the locks
(:func:`install_lock_names`, :func:`export_records`) is here too, so a name clash no
lock speaks of does not load the export module.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from skillpath.context import SkillContext
from skillpath.errors import SkillpathError
from skillpath.files import write_atomic
from skillpath.model import Diagnostic

__all__ = [
    "EXPORT_LOCK_FILE",
    "EXPORT_LOCK_VERSION",
    "LOCK_FILE",
    "USER_LOCK_FILE",
    "drop_legacy_export_entries",
    "legacy_export_entries",
    "read_lock",
]

#: The project's lock file, as ``npx skills`` names it (``skillpath add`` writes it too).
LOCK_FILE = "skills-lock.json"
#: ``skillpath export``'s lock in the project, relative to its root.
EXPORT_LOCK_FILE = ".skillpath/export-lock.json"
#: The user scope's lock file of ``skillpath export``, in the skillpath home.
USER_LOCK_FILE = "export-lock.json"
#: The ``version`` of the locks ``skillpath export`` writes.
EXPORT_LOCK_VERSION = 1


def read_lock(
    path: Path, diags: list[Diagnostic] | None = None, *, area: Path | None = None
) -> dict[str, Any]:
    """A lock file as ``{"version", "skills"}``; an empty one when missing or unusable
    (reported in ``diags``). Read with :func:`skillpath.safety.read_json_bounded`:
    size- and depth-bounded, regular files only; with ``area`` (the project root),
    a lock whose real path lies outside it (a symbolic link out of the repository)
    is refused."""
    from skillpath.safety import read_json_bounded

    empty: dict[str, Any] = {"version": EXPORT_LOCK_VERSION, "skills": {}}
    try:
        data = read_json_bounded(path, area=area)
    except FileNotFoundError:
        return empty
    except (OSError, ValueError, SkillpathError) as exc:
        if diags is not None:
            from skillpath.safety import describe_oserror

            reason = describe_oserror(exc) if isinstance(exc, OSError) else str(exc)
            diags.append(
                Diagnostic("warning", "lock-unreadable", f"cannot read the lock: {reason}", path)
            )
        return empty
    if not isinstance(data, dict) or not isinstance(data.get("skills"), dict):
        if diags is not None:
            diags.append(
                Diagnostic("warning", "lock-invalid", "not a skills lock (no skills map)", path)
            )
        return empty
    return data


def _shared(ctx: SkillContext) -> tuple[Path, dict[str, Any] | None]:
    path = ctx.project_root / LOCK_FILE
    if not path.is_file() or path.is_symlink():
        return path, None
    data = read_lock(path)
    return path, data


def legacy_export_entries(ctx: SkillContext) -> dict[str, Any]:
    """The entries an earlier ``skillpath export`` wrote into ``skills-lock.json``
    (those with a ``skillpath`` object)."""
    _path, data = _shared(ctx)
    if data is None:
        return {}
    return {
        name: entry
        for name, entry in data.get("skills", {}).items()
        if isinstance(entry, dict) and isinstance(entry.get("skillpath"), dict)
    }


def drop_legacy_export_entries(ctx: SkillContext, names: Iterable[str]) -> None:
    """Remove ``names`` from ``skills-lock.json`` where they still carry a ``skillpath``
    object (moved to the export lock); every other entry is kept as it is."""
    path, data = _shared(ctx)
    if data is None:
        return
    skills = dict(data.get("skills", {}))
    gone = [
        n
        for n in names
        if isinstance(skills.get(n), dict) and isinstance(skills[n].get("skillpath"), dict)
    ]
    if not gone:
        return
    for name in gone:
        del skills[name]
    out = {"version": data.get("version", 1), "skills": dict(sorted(skills.items()))}
    for key, value in data.items():
        out.setdefault(key, value)
    text = json.dumps(out, indent=2, ensure_ascii=False) + "\n"
    write_atomic(path, text.encode("utf-8"), parents=False)


def lock_path(ctx: SkillContext, *, user: bool = False) -> Path:
    """The export lock of the project (``.skillpath/export-lock.json``) or of the user scope."""
    return ctx.skillpath_home / USER_LOCK_FILE if user else ctx.project_root / EXPORT_LOCK_FILE


def global_lock_path(ctx: SkillContext) -> Path:
    """``npx skills``' global lock: ``$XDG_STATE_HOME/skills/.skill-lock.json`` when
    that is set, else ``~/.agents/.skill-lock.json``."""
    state = ctx.env_dir("XDG_STATE_HOME")
    if state is not None:
        return state / "skills" / ".skill-lock.json"
    return ctx.home / ".agents" / ".skill-lock.json"


def install_lock_names(ctx: SkillContext, level: str) -> frozenset[str]:
    """The skills the install lock of ``level`` names: the project's ``skills-lock.json``
    (``skillpath add``, ``npx skills add``), or ``npx skills``' global lock for ``user``;
    empty for other levels or an unusable lock."""
    if level == "project":
        path, area = ctx.project_root / LOCK_FILE, ctx.project_root
    elif level == "user":
        path, area = global_lock_path(ctx), None
    else:
        return frozenset()
    skills = read_lock(path, area=area).get("skills")
    return frozenset(skills) if isinstance(skills, dict) else frozenset()


def export_records(ctx: SkillContext) -> dict[str, tuple[str, str, frozenset[Path]]]:
    """What the project's and the user's locks say ``export`` wrote: skill name ->
    (source, provider, the folders of its copies). Unreadable locks count as empty."""
    out: dict[str, tuple[str, str, frozenset[Path]]] = {}
    for user in (True, False):  # the project's entry wins over the user's
        path = lock_path(ctx, user=user)
        if not path.is_file():
            continue
        entries = read_lock(path).get("skills", {})
        if not isinstance(entries, dict):
            continue
        for name, entry in entries.items():
            if not isinstance(entry, dict) or not isinstance(entry.get("skillpath"), dict):
                continue
            mine = entry["skillpath"]
            targets = mine.get("targets") if isinstance(mine.get("targets"), dict) else {}
            folders = set()
            for target in targets.values():
                where = target.get("path") if isinstance(target, dict) else None
                if isinstance(where, str) and where:
                    folder = Path(where)
                    folders.add(folder if folder.is_absolute() else ctx.project_root / folder)
            out[str(name)] = (
                str(entry.get("source", "")),
                str(mine.get("provider", "")),
                frozenset(folders),
            )
    return out
