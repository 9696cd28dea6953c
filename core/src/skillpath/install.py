"""``skillpath add``, ``update`` and ``remove``: install skills from git, GitHub, a folder
or an archive, in the layout ``npx skills`` uses, so that either tool can update what
the other installed.

**Layout.** Each skill's canonical copy is ``.agents/skills/<name>`` (``~/.agents/skills``
with ``--user``), the folder Codex, OpenCode and Copilot read. Every other agent asked
for (``--agent``, the names of ``export --to``; default ``claude`` and ``agents``) gets
``<its folder>/<name>``: a copy by default, or with ``link`` a relative symbolic link to
the canonical copy (what ``npx skills`` makes by default).

**Locks.** In the project, ``skills-lock.json`` gets one entry per skill in exactly the
fields ``npx skills`` writes (``source``, ``sourceUrl`` for a generic git URL, ``ref``,
``sourceType`` ``git``/``github``/``local``, ``skillPath`` for a repository,
``computedHash``), so ``npx skills update``/``experimental_install``/``list`` work on
it and ``skillpath update`` works on its entries. With ``--user``, git and GitHub
sources are recorded in ``npx skills``' global lock (``~/.agents/.skill-lock.json``, or
``$XDG_STATE_HOME/skills/.skill-lock.json``; version 3, ``skillFolderHash``). An
archive has no place in those locks (``npx skills`` cannot fetch one): it is recorded
only in skillpath's own record below.

**What skillpath wrote.** A lock is shared and may arrive with a cloned repository, so
it is not proof of anything. Every folder or link ``add``/``update`` writes is recorded
in the user's own state, ``<skillpath home>/installed.json``: absolute path, mode,
content hash (or link target), the source. ``remove`` deletes only what that record
names and only while it is what skillpath wrote (same hash or link target; or the hash
the shared lock records after ``npx skills update`` refreshed it from the same source).
Anything else is reported and left alone. ``update`` replaces a folder only when it is
unchanged since it was installed (its hash is the one recorded, by skillpath or by the
lock): an edited copy is kept, with a warning.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import hashlib
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from skillpath.contentscan import ContentFinding
from skillpath.context import SkillContext
from skillpath.errors import SkillpathError
from skillpath.export import AGENTS, agent_folder, files_hash, folder_hash
from skillpath.fetch import (
    SKILL_NAME,
    Found,
    Source,
    discover,
    fetched,
    parse_source,
    skill_folder_files,
)
from skillpath.files import replace_folder, write_atomic
from skillpath.locks import LOCK_FILE, global_lock_path
from skillpath.model import Diagnostic

__all__ = [
    "DEFAULT_AGENTS",
    "RECORD_FILE",
    "Change",
    "InstallReport",
    "add_skills",
    "global_lock_path",
    "list_source",
    "remove_skills",
    "update_skills",
]

#: The agents ``add`` installs for when none is named: Claude Code, and ``.agents/skills``
#: (read by Codex, OpenCode and Copilot).
DEFAULT_AGENTS = ("claude", "agents")
#: skillpath's record of what it wrote, in the skillpath home.
RECORD_FILE = "installed.json"
_CANONICAL = "agents"
_FETCHABLE = ("git", "github", "gitlab", "local")


# -- records -------------------------------------------------------------------------


@attrs.frozen
class Change:
    """What happened (or would happen) to one skill in one folder.

    ``action``: ``install``, ``replace``, ``unchanged``, ``remove``, ``keep`` (left
    alone: not written by skillpath, or edited since), ``clash`` or ``missing``.
    ``files`` lists ``+ path``, ``- path`` and ``~ path`` for what an update changes.
    """

    name: str
    action: str
    path: Path
    mode: str = "copy"
    detail: str = ""
    files: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The JSON shape of one change in ``add``/``update``/``remove --json``."""
        return {
            "name": self.name,
            "action": self.action,
            "path": str(self.path),
            "mode": self.mode,
            "detail": self.detail,
            "files": list(self.files),
        }


@attrs.frozen
class InstallReport:
    """The outcome of ``add``, ``update`` or ``remove``."""

    scope: str
    lock: Path | None
    changes: tuple[Change, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    dry_run: bool = False
    #: ``(skill name, finding)``: the content checks (:mod:`skillpath.contentscan`) of
    #: what was (or would be) installed, each path where the file now is.
    findings: tuple[tuple[str, ContentFinding], ...] = ()

    @property
    def ok(self) -> bool:
        """No clash and no error diagnostic."""
        return not any(c.action == "clash" for c in self.changes) and not any(
            d.level == "error" for d in self.diagnostics
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON document of ``--json``."""
        return {
            "scope": self.scope,
            "lock": str(self.lock) if self.lock is not None else None,
            "dry_run": self.dry_run,
            "changes": [c.to_json() for c in self.changes],
            "diagnostics": [d.to_json() for d in self.diagnostics],
            "findings": [{"skill": name, **f.to_json()} for name, f in self.findings],
        }


def _content_findings(found: Found) -> list[ContentFinding]:
    """The content checks of a fetched skill folder, each path relative to it."""
    from skillpath.contentscan import scan_skill
    from skillpath.model import SkillSource
    from skillpath.scan import load_skill_file

    skill, _diags = load_skill_file(
        found.folder / "SKILL.md", SkillSource("add", "project", found.folder)
    )
    if skill is None:
        return []
    out = []
    for f in scan_skill(skill):
        rel = None
        if f.path is not None:
            with contextlib.suppress(ValueError):
                rel = Path(f.path).relative_to(found.folder)
        out.append(attrs.evolve(f, path=rel))
    return out


# -- files on disk -------------------------------------------------------------------


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _read_json(path: Path, diags: list[Diagnostic]) -> dict[str, Any] | None:
    """A JSON object file that is about to be rewritten: ``None`` when missing.

    :raises SkillpathError: when it is there but unreadable or not an object (it is
        never overwritten then: it may hold what someone needs).
    """
    from skillpath.boundedjson import read_json_bounded

    if not os.path.lexists(path):
        return None
    try:
        data = read_json_bounded(path)
    except (OSError, ValueError, RecursionError, SkillpathError) as exc:
        raise SkillpathError(f"{path}: cannot read it ({exc}); fix or move it first") from exc
    if not isinstance(data, dict):
        raise SkillpathError(f"{path}: not a JSON object; fix or move it first")
    return data


def _write_json(path: Path, data: Mapping[str, Any], *, newline: bool = True) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False) + ("\n" if newline else "")
    if path.is_symlink():
        raise SkillpathError(f"{path}: is a symbolic link; refusing to write through it")
    write_atomic(path, text.encode("utf-8"))


def _lock_file(ctx: SkillContext, user: bool) -> Path:
    return global_lock_path(ctx) if user else ctx.project_root / LOCK_FILE


def _read_shared(path: Path, user: bool, diags: list[Diagnostic]) -> dict[str, Any]:
    data = _read_json(path, diags)
    if data is None:
        return {"version": 3 if user else 1, "skills": {}}
    if not isinstance(data.get("skills"), dict):
        raise SkillpathError(f"{path}: not a skills lock (no skills map); fix or move it first")
    if not isinstance(data.get("version"), int):
        data = {**data, "version": 3 if user else 1}
    return data


def _write_shared(path: Path, lock: Mapping[str, Any], user: bool) -> None:
    skills = lock.get("skills", {})
    if user:  # npx skills writes the global lock as it holds it
        _write_json(path, {**lock, "skills": dict(skills)}, newline=False)
        return
    out: dict[str, Any] = {
        "version": lock.get("version", 1),
        "skills": dict(sorted(skills.items())),
    }
    for key, value in lock.items():
        out.setdefault(key, value)
    _write_json(path, out)


@contextlib.contextmanager
def _exclusive(ctx: SkillContext) -> Iterator[None]:
    """One ``add``/``update``/``remove`` at a time per user (they share the record); the
    wait is bounded (``SKILLPATH_LOCK_WAIT``), another user's lock is refused at once."""
    from skillpath.ownership import exclusive, lock_wait

    home = ctx.skillpath_home
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    with exclusive(
        home / f".{RECORD_FILE}.lock",
        wait=lock_wait(ctx.env),
        what=f"skillpath add/update/remove recorded in {home / RECORD_FILE}",
    ):
        yield


@attrs.define
class _Record:
    """``<skillpath home>/installed.json``: ``{"version": 1, "paths": {abs path: {...}}}``."""

    path: Path
    paths: dict[str, dict[str, Any]]
    dirty: bool = False

    @classmethod
    def read(cls, ctx: SkillContext, diags: list[Diagnostic]) -> _Record:
        path = ctx.skillpath_home / RECORD_FILE
        data = _read_json(path, diags) or {}
        raw = data.get("paths")
        paths = (
            {k: v for k, v in raw.items() if isinstance(v, dict)} if isinstance(raw, dict) else {}
        )
        return cls(path, paths)

    def get(self, where: Path) -> dict[str, Any] | None:
        return self.paths.get(os.path.abspath(where))

    def put(self, where: Path, entry: dict[str, Any]) -> None:
        self.paths[os.path.abspath(where)] = entry
        self.dirty = True

    def drop(self, where: Path) -> None:
        if self.paths.pop(os.path.abspath(where), None) is not None:
            self.dirty = True

    def save(self) -> None:
        if self.dirty:
            _write_json(self.path, {"version": 1, "paths": dict(sorted(self.paths.items()))})


def _stage_copy(final: Path, files: Mapping[str, bytes]) -> None:
    """Write ``files`` as the folder ``final``: built next to it, then renamed in."""
    replace_folder(final, files, executable_scripts=True, refuse_linked_parent=True)


def _stage_link(final: Path, target: str) -> None:
    """Make ``final`` a link to ``target``: made next to it, then renamed in."""
    replace_folder(final, link_to=target, refuse_linked_parent=True)


def _discard(path: Path) -> None:
    if path.is_symlink():
        path.unlink()
    elif path.is_dir():
        import shutil

        shutil.rmtree(path, ignore_errors=True)


def _discard_dir(folder: Path) -> None:
    aside = folder.with_name(f".{folder.name}.{os.getpid()}.{os.urandom(4).hex()}.old")
    os.replace(folder, aside)
    _discard(aside)


def _digest_files(files: Mapping[str, bytes]) -> dict[str, str]:
    return {rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()}


def _diff(old: Mapping[str, str], new: Mapping[str, str]) -> tuple[str, ...]:
    out = [f"+ {p}" for p in sorted(set(new) - set(old))]
    out += [f"- {p}" for p in sorted(set(old) - set(new))]
    out += [f"~ {p}" for p in sorted(set(old) & set(new)) if old[p] != new[p]]
    return tuple(out)


def _current_digests(folder: Path) -> dict[str, str]:
    scratch: list[Diagnostic] = []
    try:
        return _digest_files(skill_folder_files(folder, scratch))
    except (OSError, SkillpathError):
        return {}


# -- where a skill goes ----------------------------------------------------------------


def _targets(
    name: str, agents: Sequence[str], ctx: SkillContext, user: bool
) -> list[tuple[str, Path]]:
    """``(agent, folder)`` for ``name``: the canonical copy first, then each other agent's."""
    out = [(_CANONICAL, agent_folder(_CANONICAL, ctx, user=user) / name)]
    for agent in agents:
        if agent == _CANONICAL:
            continue
        where = agent_folder(agent, ctx, user=user) / name
        if all(where != w for _a, w in out):
            out.append((agent, where))
    return out


def _check_inside(targets: Sequence[tuple[str, Path]], ctx: SkillContext, user: bool) -> None:
    """Refuse a project target whose folder resolves (through links) outside the
    project: the write would land somewhere else. (The user's folders may live
    anywhere: ``CLAUDE_CONFIG_DIR``, ``XDG_CONFIG_HOME``.)"""
    if user:
        return
    root = os.path.realpath(ctx.project_root)
    for _agent, where in targets:
        real = os.path.realpath(where.parent)
        if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
            raise SkillpathError(
                f"{where.parent}: leads outside the project "
                f"(to {real}) through a symbolic link; refusing to write there"
            )


def _check_agents(agents: Sequence[str]) -> tuple[str, ...]:
    for agent in agents:
        if agent not in AGENTS:
            raise SkillpathError(f"unknown agent {agent!r} (known: {', '.join(AGENTS)})")
    return tuple(dict.fromkeys(agents or DEFAULT_AGENTS))


def _lock_entry(source: Source, found: Found, digest: str, user: bool) -> dict[str, Any]:
    """The shared lock's entry for ``found``, field for field as ``npx skills`` writes it."""
    entry: dict[str, Any] = {"source": source.lock_source}
    if user:
        entry["sourceType"] = source.lock_type
        entry["sourceUrl"] = source.location
        if source.ref:
            entry["ref"] = source.ref
        entry["skillPath"] = found.skill_path
        entry["skillFolderHash"] = digest
        return entry
    if source.lock_url:
        entry["sourceUrl"] = source.lock_url
    if source.ref:
        entry["ref"] = source.ref
    entry["sourceType"] = source.lock_type
    if source.kind in ("git", "github"):
        entry["skillPath"] = found.skill_path
    entry["computedHash"] = digest
    return entry


def _source_record(source: Source) -> dict[str, Any]:
    return {
        "kind": source.kind,
        "location": source.location,
        "ref": source.ref,
        "subpath": source.subpath,
    }


def _source_from_record(data: Mapping[str, Any]) -> Source | None:
    kind, location = data.get("kind"), data.get("location")
    if kind not in ("local", "archive", "git", "github") or not isinstance(location, str):
        return None
    ref = data.get("ref") if isinstance(data.get("ref"), str) else None
    sub = data.get("subpath") if isinstance(data.get("subpath"), str) else None
    return Source(str(kind), location, ref, sub)


def _source_from_lock(entry: Mapping[str, Any], user: bool) -> Source | None:
    """The source a shared lock entry names (``None`` for one skillpath cannot fetch)."""
    kind = entry.get("sourceType")
    source = entry.get("source")
    url = entry.get("sourceUrl")
    ref = entry.get("ref") if isinstance(entry.get("ref"), str) and entry.get("ref") else None
    if kind == "github" and isinstance(source, str):
        location = url if user and isinstance(url, str) else f"https://github.com/{source}.git"
        if "://" in source:
            location = source
        return Source("github", location, ref)
    if kind in ("git", "gitlab") and isinstance(url or source, str):
        return Source("git", str(url or source), ref)
    if kind == "local" and isinstance(source, str) and os.path.isabs(source):
        return Source("local", source)
    return None


# -- add -------------------------------------------------------------------------------


def list_source(text: str, ctx: SkillContext) -> tuple[Source, list[Found], list[Diagnostic]]:
    """Fetch ``text`` and return the skills it holds (for ``add --list`` and pickers)."""
    source = parse_source(text, ctx.cwd)
    with fetched(source, ctx.env) as (root, _commit):
        found, diags = discover(root, source.subpath)
    return source, found, diags


def add_skills(
    text: str,
    ctx: SkillContext,
    *,
    skills: Sequence[str] = (),
    all_skills: bool = False,
    agents: Sequence[str] = (),
    user: bool = False,
    link: bool = False,
    dry_run: bool = False,
    pick: Any = None,
) -> InstallReport:
    """Install skills from the source ``text`` (see :mod:`skillpath.fetch`).

    :param skills: names to install; with ``all_skills`` every skill found; with neither,
        the only skill, else ``pick(found)`` chooses (a callable returning names), else
        an error listing them.
    :param agents: agent ids of :data:`skillpath.export.AGENTS` (default
        :data:`DEFAULT_AGENTS`); ``link``: link agents' folders to the canonical copy.
    :raises SkillpathError: for a bad source, an unknown name or agent, a failed fetch.
    """
    chosen_agents = _check_agents(agents)
    source = parse_source(text, ctx.cwd)
    diags: list[Diagnostic] = []
    lock_file = _add_lock_file(source, ctx, user)
    planned = _fetch_selected(source, ctx, skills, all_skills, pick, diags)
    guard = contextlib.nullcontext() if dry_run else _exclusive(ctx)
    with guard:
        record = _Record.read(ctx, diags)
        shared = _read_shared(lock_file, user, diags) if lock_file is not None else None
        run = _Add(
            source,
            ctx,
            chosen_agents,
            user=user,
            link=link,
            dry_run=dry_run,
            lock_file=lock_file,
            record=record,
            shared=shared,
        )
        for each in planned:
            run.add(each)
        if not dry_run:
            run.save()
    return InstallReport(
        "user" if user else "project",
        lock_file,
        tuple(run.changes),
        tuple(diags),
        dry_run,
        tuple(run.findings),
    )


def _add_lock_file(source: Source, ctx: SkillContext, user: bool) -> Path | None:
    """The shared lock ``add`` records ``source``'s skills in: none for an archive (``npx
    skills`` cannot fetch one), nor in the user scope for a local folder (``npx skills``
    keeps no global entry for one either)."""
    if source.kind == "archive" or (user and source.kind == "local"):
        return None
    return _lock_file(ctx, user)


@attrs.frozen
class _Fetched:
    """A skill fetched for ``add``: its files, their hash and its content findings."""

    item: Found
    files: dict[str, bytes]
    digest: str
    scanned: list[ContentFinding]


def _fetch_selected(
    source: Source,
    ctx: SkillContext,
    skills: Sequence[str],
    all_skills: bool,
    pick: Any,
    diags: list[Diagnostic],
) -> list[_Fetched]:
    """Fetch ``source`` and read the skills chosen in it (see :func:`add_skills`)."""
    with fetched(source, ctx.env) as (root, _commit):
        found, found_diags = discover(root, source.subpath)
        diags += found_diags
        out = []
        for item in _select(source, found, skills, all_skills, pick):
            files = skill_folder_files(item.folder, diags)
            out.append(_Fetched(item, files, files_hash(files), _content_findings(item)))
        return out


def _select(
    source: Source, found: Sequence[Found], skills: Sequence[str], all_skills: bool, pick: Any
) -> list[Found]:
    """The skills of ``found`` to install (see :func:`add_skills`).

    :raises SkillpathError: when none was found, a name is unknown, or the choice is
        left open.
    """
    if not found:
        raise SkillpathError(f"{source.describe()}: no skills found (no SKILL.md with a name)")
    by_name = {f.name: f for f in found}
    if skills:
        unknown = [n for n in skills if n not in by_name]
        if unknown:
            raise SkillpathError(
                f"{source.describe()}: no skill named {', '.join(map(repr, unknown))} "
                f"(found: {', '.join(by_name)})"
            )
        return [by_name[n] for n in dict.fromkeys(skills)]
    if all_skills or len(found) == 1:
        return list(found)
    if pick is not None:
        return [by_name[n] for n in pick(found) if n in by_name]
    raise SkillpathError(
        f"{source.describe()} holds {len(found)} skills ({', '.join(by_name)}): "
        "name them with --skill, or pass --all"
    )


def _present(where: Path) -> bool:
    return where.exists() or where.is_symlink()


def _blocked(targets: Sequence[tuple[str, Path]], record: _Record, lock_entry: Any) -> list[Path]:
    """The targets ``add`` may not replace: there, and not (unchanged) skillpath's or the
    lock's; a link (another tool's) to the canonical copy is replaced anyway when the
    canonical copy is."""
    canonical = targets[0][1]
    canonical_free = not _present(canonical) or _replaceable(canonical, record, lock_entry)
    return [
        w
        for _a, w in targets
        if _present(w)
        and not _replaceable(w, record, lock_entry)
        and not (canonical_free and w != canonical and _links_to(w, canonical))
    ]


@attrs.define(eq=False)
class _Add:
    """One run of :func:`add_skills` under the lock: the record and the shared lock's
    entries as they become, and what it did."""

    source: Source
    ctx: SkillContext
    agents: tuple[str, ...]
    user: bool
    link: bool
    dry_run: bool
    lock_file: Path | None
    record: _Record
    shared: dict[str, Any] | None
    entries: dict[str, Any] = attrs.field(init=False)
    changes: list[Change] = attrs.Factory(list)
    findings: list[tuple[str, ContentFinding]] = attrs.Factory(list)

    def __attrs_post_init__(self) -> None:
        self.entries = dict(self.shared["skills"]) if self.shared is not None else {}

    def add(self, planned: _Fetched) -> None:
        """Install one fetched skill in every target, unless one of them is in the way."""
        item = planned.item
        targets = _targets(item.name, self.agents, self.ctx, self.user)
        _check_inside(targets, self.ctx, self.user)
        canonical = targets[0][1]
        blocked = _blocked(targets, self.record, self.entries.get(item.name))
        if blocked:
            for where in blocked:
                self.changes.append(
                    Change(
                        item.name,
                        "clash",
                        where,
                        detail=f"{where} exists and skillpath did not write it (or it was "
                        "edited since); left alone. Remove it first, or `skillpath update`",
                    )
                )
            return
        self.findings += [
            (item.name, attrs.evolve(f, path=canonical / f.path if f.path else canonical))
            for f in planned.scanned
        ]
        for agent, where in targets:
            self._put(planned, agent, where, canonical)
        if not self.dry_run and self.shared is not None:
            self.entries[item.name] = self._new_lock_entry(planned)

    def _put(self, planned: _Fetched, agent: str, where: Path, canonical: Path) -> None:
        """Write one target (a copy, or a link to the canonical copy) and record it."""
        mode = "link" if (self.link and agent != _CANONICAL) else "copy"
        action = "replace" if _present(where) else "install"
        self.changes.append(Change(planned.item.name, action, where, mode))
        if self.dry_run:
            return
        entry: dict[str, Any] = {
            "skill": planned.item.name,
            "mode": mode,
            "scope": "user" if self.user else "project",
            "lock": str(self.lock_file) if self.lock_file is not None else None,
            "source": _source_record(self.source),
            "skillPath": planned.item.skill_path,
            "written_at": _now(),
        }
        if mode == "link":
            rel = os.path.relpath(canonical, where.parent)
            _stage_link(where, rel)
            entry["target"] = rel
        else:
            _stage_copy(where, planned.files)
            entry["hash"] = planned.digest
        if agent == _CANONICAL:
            entry["canonical"] = True
        self.record.put(where, entry)

    def _new_lock_entry(self, planned: _Fetched) -> dict[str, Any]:
        new = _lock_entry(self.source, planned.item, planned.digest, self.user)
        if self.user:
            old = self.entries.get(planned.item.name)
            stamp = _now()
            new["installedAt"] = old.get("installedAt", stamp) if isinstance(old, dict) else stamp
            new["updatedAt"] = stamp
        return new

    def save(self) -> None:
        """Write the shared lock (when something was installed) and the record."""
        if (
            self.shared is not None
            and self.lock_file is not None
            and any(c.action in ("install", "replace") for c in self.changes)
        ):
            _write_shared(self.lock_file, {**self.shared, "skills": self.entries}, self.user)
        self.record.save()


def _lock_hash(entry: Any) -> str | None:
    if not isinstance(entry, dict):
        return None
    value = entry.get("computedHash") or entry.get("skillFolderHash")
    return value if isinstance(value, str) else None


def _ours(where: Path, record: _Record, lock_entry: Any) -> bool:
    """Whether ``where`` is still what skillpath wrote there (see the module docstring)."""
    mine = record.get(where)
    if mine is None:
        return False
    if mine.get("mode") == "link":
        return where.is_symlink() and os.readlink(where) == mine.get("target")
    if where.is_symlink() or not where.is_dir():
        return False
    now = folder_hash(where)
    if now is not None and now == mine.get("hash"):
        return True
    # refreshed since by a tool that read the same source (``npx skills update``)
    recorded = _source_from_record(mine.get("source") or {})
    lock_src = _source_from_lock(lock_entry, False) if isinstance(lock_entry, dict) else None
    return (
        now is not None
        and now == _lock_hash(lock_entry)
        and recorded is not None
        and lock_src is not None
        and lock_src.location == recorded.location
    )


def _replaceable(where: Path, record: _Record, lock_entry: Any) -> bool:
    """Whether ``add``/``update`` may replace ``where``: skillpath wrote it and it is
    unchanged, or it is an untouched install whose hash the lock records."""
    if _ours(where, record, lock_entry):
        return True
    if where.is_symlink() or not where.is_dir():
        return False
    recorded = _lock_hash(lock_entry)
    return recorded is not None and folder_hash(where) == recorded


# -- update ----------------------------------------------------------------------------


def _installed(name: str, ctx: SkillContext, user: bool) -> list[tuple[str, Path]]:
    """Real folders (not links) holding ``name`` in the agents' folders, canonical first."""
    out = []
    for agent in sorted(AGENTS, key=lambda a: (a != _CANONICAL, a)):
        where = agent_folder(agent, ctx, user=user) / name
        if where.is_dir() and not where.is_symlink():
            out.append((agent, where))
    return out


def update_skills(
    ctx: SkillContext,
    names: Sequence[str] = (),
    *,
    user: bool = False,
    dry_run: bool = False,
    confirm: Any = None,
) -> InstallReport:
    """Fetch the sources of installed skills again and replace what changed.

    The skills are the shared lock's entries (any tool's) whose source skillpath can
    fetch, and those skillpath installed from archives; ``names`` narrows them. Each
    change lists the files added, removed and changed. ``confirm(changes)`` (when
    given) is asked before anything is replaced and may return ``False`` to stop.
    :raises SkillpathError: for a name that is not installed.
    """
    diags: list[Diagnostic] = []
    lock_file = _lock_file(ctx, user)
    scope = "user" if user else "project"
    record = _Record.read(ctx, diags)
    entries: dict[str, Any] = dict(_read_shared(lock_file, user, diags)["skills"])
    wanted = _wanted_from_lock(entries, user, names, lock_file, diags)
    _add_archives(wanted, record, scope)
    wanted = _narrowed(wanted, names)
    changes: list[Change] = []
    plans = _fetch_updates(wanted, ctx, diags, changes)
    work = [
        (plan, where)
        for plan in plans
        for where in _plan_update(plan, ctx, user, record, entries, changes)
    ]
    if dry_run or not work or (confirm is not None and not confirm(changes)):
        return InstallReport(
            scope, lock_file, tuple(changes), tuple(diags), True if work else dry_run
        )
    _apply_updates(work, changes, ctx, lock_file, user, diags)
    return InstallReport(scope, lock_file, tuple(changes), tuple(diags), False)


#: What ``update`` fetches for one skill: the source, the skill's path in it (when
#: recorded) and whether the shared lock has an entry for it.
_Wanted = dict[str, tuple[Source, str | None, bool]]


def _wanted_from_lock(
    entries: Mapping[str, Any],
    user: bool,
    names: Sequence[str],
    lock_file: Path,
    diags: list[Diagnostic],
) -> _Wanted:
    """The shared lock's entries whose source skillpath can fetch (the others named or
    not narrowed out are reported, ``update-not-fetchable``)."""
    wanted: _Wanted = {}
    for name, entry in sorted(entries.items()):
        if not isinstance(entry, dict):
            continue
        src = _source_from_lock(entry, user)
        if src is None:
            if not names or name in names:
                diags.append(
                    Diagnostic(
                        "info",
                        "update-not-fetchable",
                        f"skill {name!r}: source type {entry.get('sourceType')!r} is not one "
                        "skillpath fetches; left as it is",
                        lock_file,
                    )
                )
            continue
        sp = entry.get("skillPath")
        wanted[name] = (src, sp if isinstance(sp, str) else None, True)
    return wanted


def _add_archives(wanted: _Wanted, record: _Record, scope: str) -> None:
    """Add to ``wanted`` the skills skillpath installed in ``scope`` from archives (the
    canonical copies its record names), unless the lock names them already."""
    for _path, mine in sorted(record.paths.items()):
        src = _source_from_record(mine.get("source") or {})
        owner = mine.get("skill")
        if (
            src is not None
            and src.kind == "archive"
            and mine.get("scope") == scope
            and mine.get("canonical")
            and isinstance(owner, str)
            and owner not in wanted
        ):
            sp = mine.get("skillPath")
            wanted[owner] = (src, sp if isinstance(sp, str) else None, False)


def _narrowed(wanted: _Wanted, names: Sequence[str]) -> _Wanted:
    """``wanted`` narrowed to ``names`` (all of it without names).

    :raises SkillpathError: for a name not in ``wanted``.
    """
    if not names:
        return wanted
    missing = [n for n in names if n not in wanted]
    if missing:
        raise SkillpathError(
            f"not installed from a source skillpath can fetch: {', '.join(missing)}"
        )
    return {n: wanted[n] for n in names}


@attrs.frozen
class _Update:
    """A skill fetched again: its new files, their hash, whether the lock names it."""

    name: str
    files: dict[str, bytes]
    digest: str
    in_lock: bool


def _fetch_updates(
    wanted: _Wanted, ctx: SkillContext, diags: list[Diagnostic], changes: list[Change]
) -> list[_Update]:
    """Fetch each source once and read its wanted skills; a skill no longer there is a
    ``missing`` change, a source that cannot be fetched an ``update-fetch`` error."""
    groups: dict[tuple[str, str, str | None], list[str]] = {}
    for name, (src, _sp, _in_lock) in wanted.items():
        groups.setdefault((src.kind, src.location, src.ref), []).append(name)
    plans: list[_Update] = []
    for (kind, location, ref), group in groups.items():
        try:
            with fetched(Source(kind, location, ref), ctx.env) as (root, _commit):
                found, found_diags = discover(root)
                diags += [d for d in found_diags if d.level != "info"]
                _read_group(found, group, wanted, location, plans, diags, changes)
        except SkillpathError as exc:
            diags.append(Diagnostic("error", "update-fetch", str(exc), None))
    return plans


def _read_group(
    found: Sequence[Found],
    group: Sequence[str],
    wanted: _Wanted,
    location: str,
    plans: list[_Update],
    diags: list[Diagnostic],
    changes: list[Change],
) -> None:
    """Find each of ``group`` in one fetched source (by its path there, else by name)
    and append its files to ``plans``."""
    by_path = {f.skill_path: f for f in found}
    by_name = {f.name: f for f in found}
    for name in group:
        _src, skill_path, in_lock = wanted[name]
        item = by_path.get(skill_path or "") or by_name.get(name)
        if item is None:
            changes.append(
                Change(name, "missing", Path(location), detail="no longer in the source")
            )
            continue
        files = skill_folder_files(item.folder, diags)
        plans.append(_Update(name, files, files_hash(files), in_lock))


def _plan_update(
    plan: _Update,
    ctx: SkillContext,
    user: bool,
    record: _Record,
    entries: Mapping[str, Any],
    changes: list[Change],
) -> list[Path]:
    """The installed folders of ``plan``'s skill to replace; every folder's fate
    (``unchanged``, ``keep`` when edited, ``replace`` with the files it changes, or
    ``missing``) is appended to ``changes``."""
    places = _installed(plan.name, ctx, user)
    if not places:
        changes.append(
            Change(
                plan.name,
                "missing",
                agent_folder(_CANONICAL, ctx, user=user) / plan.name,
                detail="not installed in any agent folder",
            )
        )
        return []
    new = _digest_files(plan.files)
    out = []
    for _agent, where in places:
        if folder_hash(where) == plan.digest:
            changes.append(Change(plan.name, "unchanged", where))
        elif not _replaceable(where, record, entries.get(plan.name)):
            changes.append(
                Change(
                    plan.name,
                    "keep",
                    where,
                    detail="edited since it was installed (its hash is not the recorded "
                    "one); left alone",
                )
            )
        else:
            changes.append(
                Change(plan.name, "replace", where, files=_diff(_current_digests(where), new))
            )
            out.append(where)
    return out


def _apply_updates(
    work: Sequence[tuple[_Update, Path]],
    changes: Sequence[Change],
    ctx: SkillContext,
    lock_file: Path,
    user: bool,
    diags: list[Diagnostic],
) -> None:
    """Replace each folder of ``work`` under the lock, and refresh the record and the
    shared lock's hashes (the record and the lock are read again: they may have moved)."""
    with _exclusive(ctx):
        record = _Record.read(ctx, diags)
        shared = _read_shared(lock_file, user, diags)
        entries = dict(shared["skills"])
        lock_dirty = False
        # a name with a copy left alone keeps its lock entry: the lock describes what is there
        kept = {c.name for c in changes if c.action == "keep"}
        for plan, where in work:
            _stage_copy(where, plan.files)
            wrote = record.get(where)
            if wrote is not None:
                record.put(
                    where, {**wrote, "mode": "copy", "hash": plan.digest, "written_at": _now()}
                )
            if plan.in_lock and plan.name not in kept:
                lock_dirty = _refresh_hash(entries, plan, user) or lock_dirty
        if lock_dirty:
            _write_shared(lock_file, {**shared, "skills": entries}, user)
        record.save()


def _refresh_hash(entries: dict[str, Any], plan: _Update, user: bool) -> bool:
    """Record ``plan``'s new hash in its lock entry; whether the entry changed."""
    entry = entries.get(plan.name)
    key = "skillFolderHash" if user else "computedHash"
    if not isinstance(entry, dict) or entry.get(key) == plan.digest:
        return False
    updated = {**entry, key: plan.digest}
    if user:
        updated["updatedAt"] = _now()
    entries[plan.name] = updated
    return True


# -- remove ----------------------------------------------------------------------------


def _links_to(where: Path, folder: Path) -> bool:
    """Whether ``where`` is a symbolic link that resolves to ``folder``."""
    if not where.is_symlink():
        return False
    try:
        return os.path.realpath(where) == os.path.realpath(folder)
    except OSError:
        return False


def remove_skills(
    ctx: SkillContext,
    names: Sequence[str],
    *,
    user: bool = False,
    dry_run: bool = False,
) -> InstallReport:
    """Remove the folders and links skillpath wrote for ``names`` (and their lock entries
    when skillpath wrote those); anything else is reported (``keep``) and left alone."""
    diags: list[Diagnostic] = []
    lock_file = _lock_file(ctx, user)
    changes: list[Change] = []
    for name in names:
        if not SKILL_NAME.fullmatch(name):
            raise SkillpathError(f"{name!r} is not a skill name")
    guard = contextlib.nullcontext() if dry_run else _exclusive(ctx)
    with guard:
        record = _Record.read(ctx, diags)
        shared = _read_shared(lock_file, user, diags)
        entries: dict[str, Any] = dict(shared["skills"])
        lock_dirty = False
        for name in names:
            entry = entries.get(name)
            places = [agent_folder(a, ctx, user=user) / name for a in AGENTS]
            # links first, so no link is left pointing at a removed canonical copy
            places.sort(key=lambda w: (not w.is_symlink(), str(w)))
            ours_lock = False
            seen = False
            canonical = agent_folder(_CANONICAL, ctx, user=user) / name
            canonical_ours = _ours(canonical, record, entry)
            for where in places:
                mine = record.get(where)
                present = where.exists() or where.is_symlink()
                if canonical_ours and _links_to(where, canonical):
                    # a link another tool made to the copy removed here would dangle
                    seen = True
                    changes.append(
                        Change(name, "remove", where, "link", "a link to the copy removed here")
                    )
                    if not dry_run:
                        where.unlink()
                        record.drop(where)
                    continue
                if mine is None:
                    if present:
                        seen = True
                        changes.append(
                            Change(
                                name, "keep", where, detail="not written by skillpath; left alone"
                            )
                        )
                    continue
                seen = True
                if not present:
                    changes.append(Change(name, "missing", where, mine.get("mode", "copy")))
                    if (
                        mine.get("canonical")
                        and mine.get("lock") == str(lock_file)
                        and _lock_hash(entry) == mine.get("hash")
                    ):
                        ours_lock = True  # the entry skillpath wrote, for a folder now gone
                    if not dry_run:
                        record.drop(where)
                    continue
                if not _ours(where, record, entry):
                    changes.append(
                        Change(
                            name,
                            "keep",
                            where,
                            mine.get("mode", "copy"),
                            "changed since skillpath wrote it; left alone (remove it by hand)",
                        )
                    )
                    continue
                changes.append(Change(name, "remove", where, mine.get("mode", "copy")))
                if mine.get("canonical") and mine.get("lock") == str(lock_file):
                    ours_lock = True
                if dry_run:
                    continue
                if where.is_symlink():
                    where.unlink()
                else:
                    _discard_dir(where)
                record.drop(where)
            if not seen:
                diags.append(
                    Diagnostic(
                        "warning", "remove-unknown", f"skill {name!r} is not installed", None
                    )
                )
            if ours_lock and name in entries and not dry_run:
                del entries[name]
                lock_dirty = True
        if not dry_run:
            if lock_dirty:
                _write_shared(lock_file, {**shared, "skills": entries}, user)
            record.save()
    return InstallReport(
        "user" if user else "project", lock_file, tuple(changes), tuple(diags), dry_run
    )
