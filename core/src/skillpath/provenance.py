"""Where a skill came from, read from what the tools that installed it recorded.

Nothing here is guessed: each origin names the record it was read from.

======================  ===============================================================
``kind``                record
======================  ===============================================================
``python-package``      the distribution behind a pack or library skill (name, version)
``mcp``                 the MCP server a skill was fetched from
``claude-plugin``       Claude Code's ``installed_plugins.json`` (plugin, marketplace,
                        version, commit, last update)
``skillpath-export``    this project's export lock (``.skillpath/export-lock.json``; or the
                        user export lock) entry that ``skillpath export`` wrote
``gh-skill``            ``metadata.github-repo``, ``github-path``, ``github-ref`` and
                        ``github-tree-sha`` in the skill's frontmatter (``gh skill install``)
``npx-skills``          ``skills-lock.json`` in the project, or ``~/.agents/.skill-lock.json``
                        (``npx skills``: source, ref, type, hash, install time)
``openskills``          ``.openskills.json`` in the skill's folder (openskills)
======================  ===============================================================

A lock entry's ``computedHash`` is compared with the folder on disk when asked
(:meth:`ProvenanceIndex.origin` with ``verify=True``): ``drift`` is then ``"none"`` or
``"changed"``; ``None`` means not checked (``list --json`` does not hash folders).
Every file is read through the bounded, regular-file-only JSON reader
(:func:`skillpath.safety.read_json_bounded`: size and nesting depth bounded); the
project's ``skills-lock.json`` and a folder's ``.openskills.json`` are refused when
they are links out of the repository (or the skill's folder).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from skillpath.context import SkillContext
from skillpath.locks import EXPORT_LOCK_FILE, LOCK_FILE, USER_LOCK_FILE
from skillpath.model import Diagnostic, Skill
from skillpath.safety import lexists

__all__ = ["OPENSKILLS_FILE", "Origin", "ProvenanceIndex"]

#: What openskills writes into every skill folder it installs.
OPENSKILLS_FILE = ".openskills.json"

#: Providers whose skills live in agent folders that installers write into.
_AGENT_FOLDER_PROVIDERS = frozenset({"claude", "agents", "codex", "opencode", "github", "native"})


@attrs.frozen
class Origin:
    """Where one skill came from (see the module docstring for ``kind``)."""

    kind: str
    source: str
    ref: str | None = None
    installed_at: str | None = None
    record: Path | None = None
    hash: str | None = None
    drift: str | None = None
    detail: Mapping[str, Any] = attrs.field(factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The ``origin`` object of ``list --json``, ``show --json`` and ``doctor --json``."""
        return {
            "kind": self.kind,
            "source": self.source,
            "ref": self.ref,
            "installed_at": self.installed_at,
            "record": str(self.record) if self.record is not None else None,
            "hash": self.hash,
            "drift": self.drift,
            "detail": dict(self.detail),
        }

    def summary(self) -> str:
        """One line for people: ``acme-skills 1.0.0 (python-package)``."""
        text = self.source + (f" {self.ref}" if self.ref else "")
        text += f" ({self.kind}"
        if self.installed_at:
            text += f", installed {self.installed_at}"
        text += ")"
        if self.drift == "changed":
            text += "; its files changed since (the recorded hash differs)"
        return text


def _read_json(path: Path, diags: list[Diagnostic], area: Path | str | None = None) -> Any:
    """A record's JSON, or ``None`` (missing; unreadable, too large, nested too deep,
    or, with ``area``, a link out of that folder: a warning in ``diags``)."""
    from skillpath.safety import describe_oserror, read_json_bounded

    try:
        return read_json_bounded(path, area=area)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        reason = describe_oserror(exc) if isinstance(exc, OSError) else str(exc)
        diags.append(Diagnostic("warning", "provenance-unreadable", f"cannot read: {reason}", path))
        return None


def _skills_map(data: Any) -> dict[str, Any]:
    if isinstance(data, dict) and isinstance(data.get("skills"), dict):
        return {k: v for k, v in data["skills"].items() if isinstance(v, dict)}
    return {}


def _within(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or inside it (``folder in path.parents``,
    or equal), comparing the text of the two absolute paths: one string test
    per skill instead of building and comparing every parent."""
    if os.sep != "/" or not (path.is_absolute() and folder.is_absolute()):
        return folder == path or folder in path.parents
    inner = str(path)
    outer = str(folder)
    if inner == outer:
        return True
    return inner.startswith(outer if outer.endswith("/") else outer + "/")


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _gh_skill(skill: Skill) -> Origin | None:
    """The origin ``gh skill install`` writes into the frontmatter's ``metadata``."""
    meta = skill.frontmatter.metadata
    repo = _str(meta.get("github-repo"))
    if repo is None:
        return None
    return Origin(
        "gh-skill",
        repo,
        _str(meta.get("github-ref")),
        record=skill.path,
        hash=_str(meta.get("github-tree-sha")),
        detail={
            "path": _str(meta.get("github-path")),
            "tree_sha": _str(meta.get("github-tree-sha")),
        },
    )


@attrs.define(eq=False)
class ProvenanceIndex:
    """The installers' records for one context, read once; :meth:`origin` per skill."""

    ctx: SkillContext
    diagnostics: list[Diagnostic] = attrs.field(factory=list)
    _project_lock: dict[str, Any] = attrs.field(factory=dict)
    _project_lock_path: Path | None = None
    _export_lock: dict[str, Any] = attrs.field(factory=dict)
    _export_lock_path: Path | None = None
    _user_lock: dict[str, Any] = attrs.field(factory=dict)
    _user_lock_path: Path | None = None
    _global_lock: dict[str, Any] = attrs.field(factory=dict)
    _global_lock_path: Path | None = None

    @classmethod
    def build(cls, ctx: SkillContext) -> ProvenanceIndex:
        """Read the lock files that apply to ``ctx`` (missing ones are simply absent)."""
        index = cls(ctx)
        diags = index.diagnostics
        project = ctx.project_root / LOCK_FILE
        index._project_lock = _skills_map(_read_json(project, diags, ctx.project_root))
        index._project_lock_path = project
        exported = ctx.project_root / EXPORT_LOCK_FILE
        index._export_lock = _skills_map(_read_json(exported, diags))
        index._export_lock_path = exported
        user = ctx.skillpath_home / USER_LOCK_FILE
        index._user_lock = _skills_map(_read_json(user, diags))
        index._user_lock_path = user
        glob = ctx.home / ".agents" / ".skill-lock.json"
        index._global_lock = _skills_map(_read_json(glob, diags))
        index._global_lock_path = glob
        return index

    def origin(self, skill: Skill, *, verify: bool = False) -> Origin | None:
        """Where ``skill`` came from, or ``None`` when nothing recorded it; with
        ``verify``, a recorded content hash is compared with the folder now."""
        src = skill.source
        detail = src.detail
        if detail.get("distribution"):
            return Origin(
                "python-package",
                str(detail["distribution"]),
                _str(detail.get("version")),
                detail={"provider": src.provider, "package": detail.get("package")},
            )
        if src.provider == "mcp" or src.loaded_from == "mcp":
            return Origin("mcp", str(detail.get("server") or "?"), detail=dict(detail))
        if detail.get("plugin") and detail.get("registry"):
            return self._claude_plugin(detail)
        if src.provider not in _AGENT_FOLDER_PROVIDERS or skill.base_dir is None:
            return None
        base = skill.base_dir
        if self._any_lock():  # else nothing to find
            found = self._from_lock(skill, base, verify)
            if found is not None:
                return found
        gh = _gh_skill(skill)
        return gh if gh is not None else self._openskills(base)

    def _any_lock(self) -> bool:
        return bool(self._project_lock or self._export_lock or self._user_lock or self._global_lock)

    def origins(self, skills: Iterable[Skill]) -> list[Origin | None]:
        """:meth:`origin` of each of ``skills`` (without ``verify``), in order.

        The usual skill — in an agent folder, with no lock file to look in and
        no ``.openskills.json`` next to it — costs one ``faccessat`` here and no
        further call (``list --json`` asks this of every skill it prints).
        """
        if self._any_lock():
            return [self.origin(skill) for skill in skills]
        agent_folders = _AGENT_FOLDER_PROVIDERS
        exists = lexists
        marker = os.sep + OPENSKILLS_FILE
        out: list[Origin | None] = []
        for skill in skills:
            src = skill.source
            base = skill.base_dir
            if (
                src.provider in agent_folders
                and base is not None
                and src.loaded_from != "mcp"
                and not src.detail
                and not skill.frontmatter.metadata.get("github-repo")
                and not exists(str(base) + marker)
            ):
                out.append(None)  # what origin() finds: no record of any kind
                continue
            out.append(self.origin(skill))
        return out

    def _claude_plugin(self, detail: Mapping[str, Any]) -> Origin:
        registry = Path(str(detail["registry"]))
        extra: dict[str, Any] = {"marketplace": detail.get("marketplace")}
        installed = None
        data = _read_json(registry, self.diagnostics) if registry.is_file() else None
        plugins = data.get("plugins") if isinstance(data, dict) else None
        key = f"{detail['plugin']}@{detail.get('marketplace')}"
        entries = plugins.get(key) if isinstance(plugins, dict) else None
        if isinstance(entries, dict):
            entries = [entries]
        for entry in entries or []:
            if isinstance(entry, dict) and str(entry.get("installPath")) == str(
                detail.get("plugin_root")
            ):
                installed = _str(entry.get("installedAt"))
                extra["last_updated"] = _str(entry.get("lastUpdated"))
                extra["commit"] = _str(entry.get("gitCommitSha"))
                break
        return Origin(
            "claude-plugin",
            str(detail["plugin"]),
            _str(detail.get("version")),
            installed,
            registry,
            detail=extra,
        )

    def _from_lock(self, skill: Skill, base: Path, verify: bool) -> Origin | None:
        inside_project = _within(base, self.ctx.project_root)
        candidates: list[tuple[dict[str, Any], Path | None, bool]] = []
        if inside_project:
            candidates.append((self._export_lock, self._export_lock_path, True))
            candidates.append((self._project_lock, self._project_lock_path, True))
        else:
            candidates.append((self._user_lock, self._user_lock_path, True))
            candidates.append((self._global_lock, self._global_lock_path, False))
        folder = base.name
        for lock, path, local in candidates:
            entry = lock.get(folder) or lock.get(skill.name)
            if entry is None:
                continue
            ours = isinstance(entry.get("skillpath"), dict)
            if ours and not self._exported_here(entry, base):
                continue
            recorded = _str(entry.get("computedHash")) if local else None
            drift = None
            if verify and recorded is not None:
                from skillpath.files import folder_hash

                drift = "none" if folder_hash(base) == recorded else "changed"
            return Origin(
                "skillpath-export" if ours else "npx-skills",
                str(entry.get("source", "?")),
                _str(entry.get("ref")) or (_str(entry.get("skillPath")) if not local else None),
                _str(entry.get("installedAt")),
                path,
                recorded or _str(entry.get("skillFolderHash")),
                drift,
                {
                    "source_type": entry.get("sourceType"),
                    "source_url": entry.get("sourceUrl"),
                    "updated_at": entry.get("updatedAt"),
                    "provider": (entry.get("skillpath") or {}).get("provider") if ours else None,
                },
            )
        return None

    def _exported_here(self, entry: Mapping[str, Any], base: Path) -> bool:
        targets = entry["skillpath"].get("targets")
        if not isinstance(targets, dict):
            return False
        for target in targets.values():
            where = target.get("path") if isinstance(target, dict) else None
            if not isinstance(where, str):
                continue
            full = Path(where) if os.path.isabs(where) else self.ctx.project_root / where
            if full == base:
                return True
        return False

    def _openskills(self, base: Path) -> Origin | None:
        if not lexists(os.path.join(os.fspath(base), OPENSKILLS_FILE)):
            return None
        record = base / OPENSKILLS_FILE
        data = _read_json(record, self.diagnostics, base)
        if not isinstance(data, dict):
            return None
        return Origin(
            "openskills",
            str(data.get("source") or data.get("repoUrl") or "?"),
            _str(data.get("subpath")),
            _str(data.get("installedAt")),
            record,
            detail={"source_type": data.get("sourceType"), "repo_url": data.get("repoUrl")},
        )

    def drift_diagnostics(self, skills: Iterable[Skill]) -> list[Diagnostic]:
        """A warning for every skill whose lock entry's content hash no longer matches."""
        out = []
        for skill in skills:
            origin = self.origin(skill, verify=True)
            if origin is not None and origin.drift == "changed":
                out.append(
                    Diagnostic(
                        "warning",
                        "lock-hash-mismatch",
                        f"skill {skill.name!r}: its folder no longer matches the hash "
                        f"{origin.record} recorded ({origin.kind}, {origin.source})",
                        skill.path,
                        None,
                        skill.source.provider,
                    )
                )
        return out
