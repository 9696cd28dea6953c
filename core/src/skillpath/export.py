"""``skillpath export``: put skills other agents cannot see into their own folders.

Claude Code, Codex, OpenCode and Copilot read skills only from their own folders, so
a skill from a pip-installed pack, a library's ``.agents/skills``, an MCP server, a
bundled skill or a custom directory is invisible to them. :func:`export_skills`
writes such skills into an agent's folder and records what it wrote in a lock file:

========  ==================  ==========================================
``--to``  project folder      user folder (``--user``)
========  ==================  ==========================================
claude    ``.claude/skills``  ``$CLAUDE_CONFIG_DIR/skills`` (``~/.claude/skills``)
agents    ``.agents/skills``  ``~/.agents/skills``
codex     ``.codex/skills``   ``$CODEX_HOME/skills`` (``~/.codex/skills``)
opencode  ``.opencode/skills`` ``$XDG_CONFIG_HOME/opencode/skills``
github    ``.github/skills``  ``~/.copilot/skills``
========  ==================  ==========================================

The project is the repository root (or the working directory outside a repository).

**The lock.** In the project, ``.skillpath/export-lock.json``, in the format of
``npx skills``' ``skills-lock.json`` (``{"version": 1, "skills": {name: {"source", "ref",
"sourceType", "computedHash"}}}``; ``computedHash`` is a SHA-256 over each file's
relative path and bytes, as ``npx skills`` computes it) plus one field of skillpath's
own, ``"skillpath": {"provider", "targets": {agent: {"path", "mode"}}, …}``. It is not
``skills-lock.json`` itself: ``npx skills`` would try to fetch a ``python-package``
entry (see :mod:`skillpath.locks`); entries an earlier version wrote there are moved
on the next export. In the user scope the lock is ``<skillpath home>/export-lock.json``.

**Safety.** The lock is a claim, not proof: a folder is replaced or deleted only
when the user's own records (:mod:`skillpath.written`, in the skillpath home, out
of any repository's reach) say skillpath wrote it, and it is still the kind of thing
it wrote (a folder, or a link pointing where it made it point). Anything else in the
way is a clash naming both; a lock entry whose name is not a single folder name is
reported (``export-lock-refused``) and never acted on; nothing is deleted through a
symbolic link. The destination is checked before anything is written
(:func:`skillpath.safety.destination_problem`: no link out of the project or the
user's agent folder, every folder on the way the user's and not writable by others).
A lock that cannot be read (special file, too large or deep, a link out of the
repository) stops the export rather than being replaced. Each skill folder is built
next to its place and renamed in; the lock is written to a temporary file and
renamed; one export at a time per lock file (an inter-process lock). ``dry_run``
changes nothing. ``prune`` removes only folders this tool wrote that are no longer
selected, and keeps (with a warning) a copy that was edited since. A selected skill
with the name of one of the person's own skills is not exported (the copy would beat
it). Hashes stream each file in chunks.

**What lands.** Copies by default. ``link`` makes a symbolic link to the skill's own
folder instead, for skills that live on disk outside skillpath's cache (an extracted
pack could be pruned and the link would dangle), and whose copy needs no
neutralising (a link shows the agent the source itself). Inline shell that the
``[shell]`` policy would not run for the skill (packs and libraries: level
``package``) is neutralised in the copy, with a warning: the agent reading the copy
would otherwise run it; for such a skill the frontmatter that grants powers in the
agent (``hooks``, ``allowed-tools``, ``context``, ``agent``, ``mcp-servers``) is left
out, with a warning naming each field (:mod:`skillpath.powers`). ``${SKILL_DIR}`` is
written ``${CLAUDE_SKILL_DIR}`` for Claude Code; for the other agents, which substitute
nothing, it becomes the folder's path (relative to the project root in the project
scope, absolute in the user scope). Sibling files are copied, symbolic links inside a
skill are not.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import attrs

from skillpath import written as ownership
from skillpath.context import SkillContext
from skillpath.errors import SkillpathError
from skillpath.files import folder_hash, replace_folder, write_atomic
from skillpath.locks import (
    EXPORT_LOCK_VERSION,
    LOCK_FILE,
    USER_LOCK_FILE,
    drop_legacy_export_entries,
    legacy_export_entries,
    lock_path,
    read_lock,
)
from skillpath.model import Diagnostic, Skill, sort_key
from skillpath.shell import ShellPolicy
from skillpath.written import Ownership

__all__ = [
    "AGENTS",
    "DEFAULT_PROVIDERS",
    "LOCK_FILE",
    "USER_LOCK_FILE",
    "DriftItem",
    "ExportAction",
    "ExportReport",
    "check_export",
    "export_skills",
    "folder_hash",
    "read_lock",
    "skill_source",
]

#: Agents ``export`` writes for: id -> (project folder, user folder relative to home).
AGENTS: dict[str, tuple[str, str]] = {
    "claude": (".claude/skills", ".claude/skills"),
    "agents": (".agents/skills", ".agents/skills"),
    "codex": (".codex/skills", ".codex/skills"),
    "opencode": (".opencode/skills", ".config/opencode/skills"),
    "github": (".github/skills", ".copilot/skills"),
}
#: Providers whose skills the agents above cannot see themselves (the default selection).
DEFAULT_PROVIDERS = ("packs", "libraries", "mcp", "bundled", "custom")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


# -- records -------------------------------------------------------------------------


@attrs.frozen
class ExportAction:
    """What happened (or, in a dry run, would happen) to one skill.

    ``action`` is ``write`` (created or replaced), ``unchanged``, ``prune`` (an
    earlier export removed), ``keep-edited`` (not pruned: the copy was edited),
    ``clash`` (a folder skillpath cannot prove it wrote is in the way) or ``skip``
    (``detail`` ``shadowed``: the person's own skill has that name; else the
    source could not be read).
    """

    name: str
    action: str
    path: Path
    source: str = ""
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        """The JSON shape used by ``skillpath export --json``."""
        return {
            "name": self.name,
            "action": self.action,
            "path": str(self.path),
            "source": self.source,
            "detail": self.detail,
        }


@attrs.frozen
class DriftItem:
    """One difference ``--check`` found: ``kind`` is ``source-changed``,
    ``copy-edited``, ``copy-missing``, ``source-gone`` or ``not-exported``."""

    name: str
    kind: str
    path: Path
    detail: str

    def to_json(self) -> dict[str, Any]:
        """The JSON shape used by ``skillpath export --check --json``."""
        return {"name": self.name, "kind": self.kind, "path": str(self.path), "detail": self.detail}


@attrs.frozen
class ExportReport:
    """What one export (or check) did: the agent folder, the lock, each skill's fate."""

    agent: str
    scope: str
    folder: Path
    lock: Path
    actions: tuple[ExportAction, ...] = ()
    drift: tuple[DriftItem, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    dry_run: bool = False

    @property
    def ok(self) -> bool:
        """No clash, no error diagnostic and no drift."""
        return (
            not self.drift
            and not any(a.action == "clash" for a in self.actions)
            and not any(d.level == "error" for d in self.diagnostics)
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON shape of ``skillpath export --json``."""
        return {
            "agent": self.agent,
            "scope": self.scope,
            "folder": str(self.folder),
            "lock": str(self.lock),
            "dry_run": self.dry_run,
            "actions": [a.to_json() for a in self.actions],
            "drift": [d.to_json() for d in self.drift],
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }


# -- sources, hashes, locks ------------------------------------------------------------


def skill_source(skill: Skill) -> dict[str, str]:
    """Where a skill comes from, in the lock's words: ``source``, ``sourceType`` and
    ``ref`` (a distribution's version), plus ``provider``."""
    detail = skill.source.detail
    provider = skill.source.provider
    out = {"provider": provider}
    dist = detail.get("distribution")
    if dist:
        out.update(source=str(dist), sourceType="python-package")
        if detail.get("version"):
            out["ref"] = str(detail["version"])
    elif provider == "mcp" or skill.source.loaded_from == "mcp":
        out.update(source=str(detail.get("server") or "mcp"), sourceType="mcp")
    elif skill.source.loaded_from == "bundled" or provider == "bundled":
        out.update(source=f"bundled:{skill.name}", sourceType="bundled")
    else:
        where = skill.base_dir if skill.base_dir is not None else skill.source.root
        out.update(source=str(where) if where is not None else provider, sourceType="local")
    return out


def files_hash(files: Mapping[str, bytes]) -> str:
    """``computedHash`` of a folder given as ``{relative path: bytes}`` (what ``npx
    skills`` computes: SHA-256 over each relative path then its bytes, in the order of
    JavaScript's ``localeCompare``, see :mod:`skillpath._collate`)."""
    from skillpath._collate import npx_order

    h = hashlib.sha256()
    for rel in sorted(files, key=npx_order):
        h.update(rel.encode("utf-8", "surrogatepass"))
        h.update(files[rel])
    return h.hexdigest()


def _write_lock(path: Path, lock: Mapping[str, Any]) -> None:
    skills = lock.get("skills", {})
    ordered: dict[str, Any] = {
        "version": lock.get("version", EXPORT_LOCK_VERSION),
        "skills": dict(sorted(skills.items())),
    }
    for key, value in lock.items():
        if key not in ordered:
            ordered[key] = value
    data = (json.dumps(ordered, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    write_atomic(path, data)


@contextlib.contextmanager
def _exclusive(lock_path: Path, ctx: SkillContext) -> Iterator[None]:
    """One export at a time per lock file, across processes.

    The wait is bounded (:func:`skillpath.ownership.lock_wait`), and a lock that
    belongs to another user (a shared cache) is refused at once:
    :class:`~skillpath.ownership.LockBusy`, one line.
    """
    from skillpath.extract import cache_root
    from skillpath.ownership import exclusive, lock_wait

    key = hashlib.sha256(os.fsencode(os.path.abspath(lock_path))).hexdigest()[:24]
    where = cache_root(ctx.env) / "locks"
    where.mkdir(parents=True, exist_ok=True, mode=0o700)
    with exclusive(
        where / f"export-{key}.lock",
        wait=lock_wait(ctx.env),
        what=f"export recorded in {lock_path}",
        hint="set SKILLPATH_CACHE_DIR to a folder of your own, SKILLPATH_LOCK_WAIT to wait longer",
    ):
        yield


# -- where things go -------------------------------------------------------------------


def agent_folder(agent: str, ctx: SkillContext, *, user: bool = False) -> Path:
    """The skills folder of ``agent`` in the project (or the user's, with ``user``)."""
    if agent not in AGENTS:
        raise SkillpathError(f"unknown agent {agent!r} (known: {', '.join(AGENTS)})")
    project_rel, user_rel = AGENTS[agent]
    if not user:
        return ctx.project_root / project_rel
    if agent == "claude":
        base = ctx.env_dir("CLAUDE_CONFIG_DIR")
        if base is not None:
            return base / "skills"
    if agent == "codex":
        base = ctx.env_dir("CODEX_HOME")
        if base is not None:
            return base / "skills"
    if agent == "opencode":
        base = ctx.env_dir("XDG_CONFIG_HOME")
        if base is not None:
            return base / "opencode" / "skills"
    return ctx.home / user_rel


def select_skills(
    skills: Iterable[Skill],
    providers: Sequence[str] = (),
    patterns: Sequence[str] = (),
) -> list[Skill]:
    """The skills to export: those of ``providers`` (default:
    :data:`DEFAULT_PROVIDERS`) whose name matches one of ``patterns`` (default: all)."""
    wanted = set(providers or DEFAULT_PROVIDERS)
    out = []
    names: set[str] = set()
    for skill in sorted(skills, key=sort_key):
        if skill.source.provider not in wanted or skill.name in names:
            continue
        if patterns and not any(fnmatchcase(skill.name, p) for p in patterns):
            continue
        names.add(skill.name)
        out.append(skill)
    return out


def _spelling(agent: str, folder: Path, ctx: SkillContext, user: bool) -> Callable[[str], str]:
    from skillpath.plugin_writer import VARIABLE_RE

    if agent == "claude":
        return lambda text: VARIABLE_RE.sub(lambda m: "${CLAUDE_" + m.group(1) + "}", text)

    def spell(text: str) -> str:
        if "${" not in text:
            return text

        def sub(m: re.Match[str]) -> str:
            if m.group(1) != "SKILL_DIR":
                return m.group(0)
            if user:
                return str(folder)
            try:
                return folder.relative_to(ctx.project_root).as_posix()
            except ValueError:
                return str(folder)

        text = re.sub(r"(?<!\\)\$\{CLAUDE_SKILL_DIR\}", "${SKILL_DIR}", text)
        return VARIABLE_RE.sub(sub, text)

    return spell


def _on_disk(skill: Skill, ctx: SkillContext) -> bool:
    """Whether ``skill``'s folder is a real folder outside skillpath's cache."""
    from skillpath.extract import cache_root

    base = skill.base_dir
    if base is None or skill.path is None or skill.source.loaded_from in ("mcp", "bundled"):
        return False
    if skill.source.loaded_from == "pack":
        return False
    try:
        real = base.resolve()
        cache = cache_root(ctx.env).resolve()
    except OSError:
        return False
    return real.is_dir() and cache not in real.parents


def _replace(final: Path, files: Mapping[str, bytes] | None, link_to: Path | None) -> None:
    replace_folder(final, files, link_to=link_to, executable_scripts=True)


def _remove(folder: Path, own: Ownership) -> None:
    """Remove what skillpath wrote at ``folder``: a link is unlinked (never followed),
    a folder renamed aside then deleted (links inside it are unlinked, not followed)."""
    st = os.lstat(folder)
    if stat.S_ISLNK(st.st_mode):
        folder.unlink()
    elif stat.S_ISDIR(st.st_mode) and own.mode == "copy":
        aside = folder.with_name(f".{folder.name}.{os.getpid()}.{os.urandom(4).hex()}.old")
        os.replace(folder, aside)
        shutil.rmtree(aside, ignore_errors=True)


def destination_base(agent: str, ctx: SkillContext, *, user: bool = False) -> Path:
    """The folder :func:`skillpath.safety.destination_problem` checks down from: the
    project root, or in the user scope the agent's own folder (``~/.claude`` …)."""
    return agent_folder(agent, ctx, user=True).parent if user else ctx.project_root


def _lock_name_problem(name: Any) -> str | None:
    """Why a lock entry's name cannot be a folder of the agent's skills folder."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        return (
            f"the lock names {name!r}, which is not a single folder name "
            "(letters, digits, '.', '_', '-'; no '/', no '..', not absolute)"
        )
    return None


def _refused(name: Any, why: str, where: Path, lock_file: Path) -> Diagnostic:
    return Diagnostic(
        "warning",
        "export-lock-refused",
        f"lock entry {name!r} in {lock_file}: {why}; left alone",
        where,
    )


def _not_what_was_written(target: Path, own: Ownership) -> str | None:
    """Why the thing at ``target`` is not what skillpath recorded writing there."""
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be inspected ({exc.strerror})"
    if own.mode == "link":
        if not stat.S_ISLNK(st.st_mode):
            return "skillpath wrote a link there and something else is in its place now"
        if own.link_to is None or Path(os.readlink(target)) != own.link_to:
            return (
                f"the link now points to {os.readlink(target)}, not where skillpath made it point"
            )
        return None
    if stat.S_ISLNK(st.st_mode):
        return "skillpath wrote a folder there and it is a symbolic link now"
    if not stat.S_ISDIR(st.st_mode):
        return "skillpath wrote a folder there and it is not a folder now"
    return None


def _current_hash(
    target: Path, own: Ownership | None, source_link: Path | None = None
) -> str | None:
    """The hash of what is at ``target`` now, never reading outside it: a link is
    followed only to where skillpath made it point (``own``) or to the skill's own
    folder (``source_link``)."""
    if target.is_symlink():
        dest = Path(os.readlink(target))
        allowed = {p for p in (own.link_to if own is not None else None, source_link) if p}
        return folder_hash(target) if dest in allowed else None
    return folder_hash(target, follow=False)


_HAND_WRITTEN = frozenset({"managed", "user", "project"})


def _shadowing(
    skill: Skill, same_name: Sequence[Skill], wanted: set[str], ctx: SkillContext
) -> Skill | None:
    """A skill of the person's own with ``skill``'s name (level ``managed``, ``user``
    or ``project``, from a provider not exported, not a copy skillpath wrote): an
    export of ``skill`` would then beat it."""
    for other in same_name:
        if other is skill or other.name != skill.name or other.source.provider in wanted:
            continue
        if other.source.level not in _HAND_WRITTEN or other.source.loaded_from in (
            "mcp",
            "bundled",
        ):
            continue
        if other.base_dir is not None and ownership.owned(ctx, other.base_dir) is not None:
            continue  # an earlier export's copy
        return other
    return None


def _ours(entry: Any, agent: str) -> dict[str, Any] | None:
    """The target record of ``agent`` in a lock entry skillpath wrote, else ``None``."""
    if not isinstance(entry, dict):
        return None
    mine = entry.get("skillpath")
    if not isinstance(mine, dict):
        return None
    targets = mine.get("targets")
    if not isinstance(targets, dict):
        return None
    target = targets.get(agent)
    return target if isinstance(target, dict) else None


# -- export --------------------------------------------------------------------------


@attrs.frozen
class _Planned:
    skill: Skill
    files: dict[str, bytes] | None
    link_to: Path | None
    digest: str


def _render(
    skill: Skill,
    agent: str,
    folder: Path,
    ctx: SkillContext,
    *,
    user: bool,
    link: bool,
    policy: ShellPolicy,
    diags: list[Diagnostic],
) -> _Planned | None:
    from skillpath.plugin_writer import skill_files

    if link:
        refusal = _link_refusal(skill, ctx, policy)
        if refusal is not None:
            diags.append(Diagnostic("warning", "export-link-refused", refusal, skill.path))
        else:
            assert skill.base_dir is not None
            digest = folder_hash(skill.base_dir) or ""
            return _Planned(skill, None, skill.base_dir.resolve(), digest)
    try:
        files = skill_files(skill, policy, diags, _spelling(agent, folder / skill.name, ctx, user))
    except SkillpathError as exc:
        diags.append(
            Diagnostic("error", "export-unreadable", f"skill {skill.name!r}: {exc}", skill.path)
        )
        return None
    return _Planned(skill, files, None, files_hash(files))


def _link_refusal(skill: Skill, ctx: SkillContext, policy: ShellPolicy) -> str | None:
    """Why ``skill`` is copied although links were asked for, or ``None``: it does
    not live on disk outside the cache, or its copy needs neutralising (a link
    would show the agent the raw source)."""
    from skillpath.commands import read_source
    from skillpath.powers import CODEX_METADATA, link_refusal
    from skillpath.safety import read_bounded

    if not _on_disk(skill, ctx):
        return (
            f"skill {skill.name!r} ({skill.source.provider}) does not live in a folder "
            "of its own outside skillpath's cache; copied instead of linked"
        )
    try:
        text = read_source(skill)
    except SkillpathError:
        text = ""
    siblings: dict[str, bytes] = {}
    assert skill.base_dir is not None
    try:
        siblings[CODEX_METADATA] = read_bounded(skill.base_dir / CODEX_METADATA, 1 << 20)
    except OSError as exc:
        if not isinstance(exc, FileNotFoundError):
            siblings[CODEX_METADATA] = b"\0"  # unreadable: not vouched for, never linked
    from skillpath.contentscan import read_text
    from skillpath.resources import walk_skill_files
    from skillpath.textguard import count_invisible

    # the files a copy would hold (and strip): the walk of plugin_writer's copy
    walk = walk_skill_files(skill.base_dir, hidden=True, follow_links=False)
    if count_invisible(text) or any(
        count_invisible(read_text(e.path) or "") for e in walk.entries if e.rel != "SKILL.md"
    ):
        return (
            f"skill {skill.name!r} holds invisible characters, which a copy leaves out "
            "(a link would show them to the agent); copied instead of linked"
        )
    return link_refusal(skill, policy, text, siblings)


def _shell_warning(skill: Skill, policy: ShellPolicy, diags: list[Diagnostic]) -> None:
    from skillpath.powers import has_shell

    if policy.allows(skill):
        return
    try:
        from skillpath.commands import read_source

        text = read_source(skill)
    except SkillpathError:
        return
    if has_shell(text):
        diags.append(
            Diagnostic(
                "warning",
                "export-shell-neutralised",
                f"skill {skill.name!r}: its inline shell is neutralised in the copy (replaced "
                f"by the policy placeholder; [shell] does not let {skill.source.level} skills "
                "run commands, and the agent reading the copy would run them)",
                skill.path,
            )
        )


def export_skills(
    skills: Iterable[Skill],
    ctx: SkillContext,
    *,
    to: str,
    user: bool = False,
    providers: Sequence[str] = (),
    select: Sequence[str] = (),
    link: bool = False,
    dry_run: bool = False,
    prune: bool = False,
) -> ExportReport:
    """Export the selected ``skills`` into ``to``'s skills folder and record them.

    :param skills: the catalog (``LoadResult.skills``, ``conditional`` and the shadowed
        copies: a skill already exported is shadowed by its copy).
    :param to: an agent id of :data:`AGENTS`.
    :param providers: export skills of these providers (default
        :data:`DEFAULT_PROVIDERS`); ``select`` narrows by name globs.
    A lock is a claim, not proof: a folder is replaced or pruned only when the
    user's own records (:mod:`skillpath.ownership`) say skillpath wrote it, and a
    lock entry whose name is not a single folder name is reported and left alone.
    The destination is checked first (:func:`skillpath.safety.destination_problem`);
    a refused one is an ``export-destination-refused`` error and nothing is written.
    A selected skill with the same name as one of the person's own (user, project
    or managed level) is not exported (``export-shadowed``): the copy would beat it.

    :raises SkillpathError: for an unknown agent.
    """
    folder = agent_folder(to, ctx, user=user)
    lock_file = lock_path(ctx, user=user)
    scope = "user" if user else "project"
    refused = _destination_refused(to, folder, ctx, user)
    if refused is not None:
        return ExportReport(to, scope, folder, lock_file, (), (), (refused,), dry_run)
    policy = ShellPolicy.from_settings(ctx.settings)
    every = list(skills)
    wanted = set(providers or DEFAULT_PROVIDERS)
    chosen = select_skills(every, providers, select)
    by_name = _by_name(every)
    diags: list[Diagnostic] = []
    guard = contextlib.nullcontext() if dry_run else _exclusive(lock_file, ctx)
    with guard:
        lock = _usable_lock(lock_file, diags, area=None if user else ctx.project_root)
        if lock is None:
            return ExportReport(to, scope, folder, lock_file, (), (), tuple(diags), dry_run)
        run = _Export(to, ctx, folder, user, link, dry_run, policy, dict(lock["skills"]), diags)
        legacy = {} if user else _legacy(ctx, run.entries)
        chosen_names = run.export_all(chosen, by_name, wanted)
        if prune:
            _prune(
                run.entries, chosen_names, to, folder, lock_file, ctx, run.actions, diags, dry_run
            )
        if not dry_run and (legacy or any(a.action in ("write", "prune") for a in run.actions)):
            _write_lock(lock_file, {**lock, "skills": run.entries})
            if legacy:
                drop_legacy_export_entries(ctx, legacy)
    return ExportReport(to, scope, folder, lock_file, tuple(run.actions), (), tuple(diags), dry_run)


def _destination_refused(to: str, folder: Path, ctx: SkillContext, user: bool) -> Diagnostic | None:
    """The error that stops an export into ``folder`` before anything is written, or ``None``."""
    from skillpath.safety import destination_problem

    problem = destination_problem(folder, destination_base(to, ctx, user=user))
    if problem is None and (folder.is_symlink() or (folder.exists() and not folder.is_dir())):
        problem = f"{folder} is a symbolic link or not a folder"
    if problem is None:
        return None
    return Diagnostic(
        "error", "export-destination-refused", f"not writing into {folder}: {problem}", folder
    )


def _usable_lock(
    lock_file: Path, diags: list[Diagnostic], *, area: Path | None
) -> dict[str, Any] | None:
    """The lock to update, or ``None`` (with an error in ``diags``) when it cannot be
    read or is not a lock: rewriting it would lose its entries."""
    seen = len(diags)
    lock = read_lock(lock_file, diags, area=area)
    if len(diags) == seen:
        return {**lock, "skills": dict(lock.get("skills", {}))}
    diags.append(
        Diagnostic(
            "error",
            "export-lock-unusable",
            f"not exporting: the lock {lock_file} cannot be used ({diags[-1].message}); "
            "fix or remove it (writing a new one would lose its entries)",
            lock_file,
        )
    )
    return None


def _by_name(skills: Iterable[Skill]) -> dict[str, list[Skill]]:
    out: dict[str, list[Skill]] = {}
    for each in skills:
        out.setdefault(each.name, []).append(each)
    return out


def _clash_reason(target: Path, own: Ownership | None, present: bool, mine: Any) -> str | None:
    """Why what is at ``target`` may not be replaced (``None``: nothing there, or what
    skillpath wrote). ``mine`` is the lock's record of the target, if any."""
    if not present:
        return None
    if own is not None:
        return _not_what_was_written(target, own)
    if mine is not None:
        return (
            "the lock says skillpath wrote it, but your own records do not "
            "(a lock is a claim, not proof)"
        )
    return "it was not written by skillpath"


def _shadowed(skill: Skill, theirs: Skill) -> Diagnostic:
    return Diagnostic(
        "warning",
        "export-shadowed",
        f"skill {skill.name!r} from {skill.source.provider} ({skill.path}) is "
        f"not exported: your own {skill.name!r} ({theirs.source.provider}, "
        f"{theirs.source.level}, {theirs.path}) has that name, and the copy "
        "would take its place",
        skill.path,
    )


def _unchanged(target: Path, own: Ownership, planned: _Planned, current: str | None) -> bool:
    """Whether ``target`` already holds what ``planned`` would write, as skillpath wrote it."""
    mode = "link" if planned.link_to is not None else "copy"
    if own.hash != planned.digest or current != planned.digest or own.mode != mode:
        return False
    return mode == "copy" or (target.is_symlink() and Path(os.readlink(target)) == planned.link_to)


def _entry_with_target(
    raw: Any, source: Mapping[str, str], to: str, target: dict[str, str]
) -> dict[str, Any]:
    """The lock entry ``raw`` after an export to ``to``: the source's fields now, and
    ``target`` (path, mode, hash) as ``to``'s record beside the other agents'."""
    entry: dict[str, Any] = raw if isinstance(raw, dict) else {}
    new_entry = {k: v for k, v in entry.items() if k not in ("skillpath",)}
    new_entry.update({k: v for k, v in source.items() if k != "provider"})
    if "ref" not in source:
        new_entry.pop("ref", None)
    old_mine = entry.get("skillpath") if isinstance(entry.get("skillpath"), dict) else {}
    targets = dict(old_mine.get("targets", {})) if isinstance(old_mine, dict) else {}
    targets = {k: v for k, v in targets.items() if isinstance(v, dict)}
    targets[to] = target
    new_entry["computedHash"] = _main_hash(targets)
    new_entry["skillpath"] = {"provider": source["provider"], "targets": targets}
    return new_entry


@attrs.define(eq=False)
class _Export:
    """One run of :func:`export_skills` under the lock: where it writes, the lock's
    entries as they become, and what it did to each skill."""

    to: str
    ctx: SkillContext
    folder: Path
    user: bool
    link: bool
    dry_run: bool
    policy: ShellPolicy
    entries: dict[str, Any]
    diags: list[Diagnostic]
    actions: list[ExportAction] = attrs.Factory(list)

    def export_all(
        self, chosen: Sequence[Skill], by_name: Mapping[str, list[Skill]], wanted: set[str]
    ) -> set[str]:
        """Export each of ``chosen`` whose name can be a folder here; their names."""
        names: set[str] = set()
        for skill in chosen:
            if not _NAME.fullmatch(skill.name) or skill.name in names:
                self.diags.append(
                    Diagnostic(
                        "warning",
                        "export-name",
                        f"skill {skill.name!r} cannot be a folder name here; skipped",
                        skill.path,
                    )
                )
                continue
            names.add(skill.name)
            self.export_one(skill, by_name.get(skill.name, ()), wanted)
        return names

    def export_one(self, skill: Skill, same_name: Sequence[Skill], wanted: set[str]) -> None:
        """Decide ``skill``'s fate (clash, skip, unchanged, write) and, unless in a
        dry run, write it."""
        target = self.folder / skill.name
        source = skill_source(skill)
        mine = _ours(self.entries.get(skill.name), self.to)
        own = ownership.owned(self.ctx, target)
        present = os.path.lexists(target)
        why = _clash_reason(target, own, present, mine)
        if why is not None:
            self._act(
                skill.name,
                "clash",
                target,
                source,
                f"{target} exists and {why}; not replaced by {skill.name!r} from "
                f"{skill.source.provider} ({skill.path})",
            )
            return
        theirs = _shadowing(skill, same_name, wanted, self.ctx)
        if theirs is not None:
            self.diags.append(_shadowed(skill, theirs))
            self._act(skill.name, "skip", target, source, "shadowed")
            return
        _shell_warning(skill, self.policy, self.diags)
        planned = _render(
            skill,
            self.to,
            self.folder,
            self.ctx,
            user=self.user,
            link=self.link,
            policy=self.policy,
            diags=self.diags,
        )
        if planned is None:
            self._act(skill.name, "skip", target, source)
            return
        current = _current_hash(target, own) if own is not None and present else None
        if own is not None and mine is not None and _unchanged(target, own, planned, current):
            self._act(skill.name, "unchanged", target, source)
            return
        if own is not None and current is not None and current != own.hash:
            self.diags.append(
                Diagnostic(
                    "warning",
                    "export-overwrote-edit",
                    f"{target} was edited since it was exported; replaced by the source",
                    target,
                )
            )
        mode = "link" if planned.link_to is not None else "copy"
        self._act(skill.name, "write", target, source, mode)
        if not self.dry_run:
            self._write(skill.name, target, source, planned, mode)

    def _act(
        self, name: str, action: str, target: Path, source: Mapping[str, str], detail: str = ""
    ) -> None:
        self.actions.append(ExportAction(name, action, target, source["source"], detail))

    def _write(
        self, name: str, target: Path, source: Mapping[str, str], planned: _Planned, mode: str
    ) -> None:
        """Put ``planned`` at ``target``, record it as skillpath's, and update its entry."""
        _replace(target, planned.files, planned.link_to)
        try:
            ownership.record(self.ctx, target, planned.digest, mode=mode, link_to=planned.link_to)
        except OSError as exc:
            self.diags.append(
                Diagnostic(
                    "error",
                    "export-unrecorded",
                    f"{target} was written but cannot be recorded as skillpath's in "
                    f"{ownership.state_dir(self.ctx)} ({exc.strerror or exc}); a later export "
                    "will not replace or prune it",
                    target,
                )
            )
        shown = _shown(target, self.ctx, self.user)
        record = {"path": shown, "mode": mode, "hash": planned.digest}
        self.entries[name] = _entry_with_target(self.entries.get(name), source, self.to, record)


def _legacy(ctx: SkillContext, entries: dict[str, Any]) -> dict[str, Any]:
    """Adopt into ``entries`` what an earlier export wrote into ``skills-lock.json``."""
    legacy = {k: v for k, v in legacy_export_entries(ctx).items() if k not in entries}
    entries.update(legacy)
    return legacy


def _prune(
    entries: dict[str, Any],
    chosen_names: set[str],
    to: str,
    folder: Path,
    lock_file: Path,
    ctx: SkillContext,
    actions: list[ExportAction],
    diags: list[Diagnostic],
    dry_run: bool,
) -> None:
    """Remove the earlier exports to ``to`` no longer selected: only folders the
    user's records say skillpath wrote, unedited, and never through a link."""
    for name in sorted(entries):
        mine = _ours(entries[name], to)
        if mine is None or name in chosen_names:
            continue
        why = _lock_name_problem(name)
        if why is not None:
            diags.append(_refused(name, why, lock_file, lock_file))
            continue
        target = folder / name
        source = str(entries[name].get("source", ""))
        own = ownership.owned(ctx, target)
        present = os.path.lexists(target)
        if present and own is None:
            diags.append(
                _refused(
                    name,
                    f"{target} is not proven to be skillpath's (no record of writing it in "
                    "your own state; a lock is a claim, not proof)",
                    target,
                    lock_file,
                )
            )
            continue
        if present and own is not None:
            changed = _not_what_was_written(target, own)
            if changed is not None:
                diags.append(_refused(name, f"{target}: {changed}", target, lock_file))
                continue
            current = _current_hash(target, own)
            if own.mode != "link" and current != own.hash:
                actions.append(
                    ExportAction(
                        name,
                        "keep-edited",
                        target,
                        source,
                        "edited since it was exported; remove it by hand",
                    )
                )
                continue
        actions.append(ExportAction(name, "prune", target, source))
        if dry_run:
            continue
        if present and own is not None:
            _remove(target, own)
        ownership.forget(ctx, target)
        entry = dict(entries[name])
        skillpath_rec = dict(entry["skillpath"])
        targets = dict(skillpath_rec["targets"])
        targets.pop(to, None)
        if targets:
            skillpath_rec["targets"] = targets
            entry["skillpath"] = skillpath_rec
            entry["computedHash"] = _main_hash(targets)
            entries[name] = entry
        else:
            del entries[name]


def _recorded(entry: Mapping[str, Any], target: Mapping[str, Any]) -> str | None:
    """The hash recorded for one target's folder (older entries: ``computedHash``)."""
    value = target.get("hash") or entry.get("computedHash")
    return value if isinstance(value, str) else None


def _main_hash(targets: Mapping[str, Any]) -> str:
    """The entry's ``computedHash``: the ``.agents/skills`` copy's (the folder ``npx
    skills`` installs into and hashes), else the first target's in name order."""
    order = sorted(targets, key=lambda agent: (agent != "agents", agent))
    return str(targets[order[0]].get("hash", ""))


def _shown(target: Path, ctx: SkillContext, user: bool) -> str:
    if user:
        return str(target)
    try:
        return target.relative_to(ctx.project_root).as_posix()
    except ValueError:
        return str(target)


# -- check ---------------------------------------------------------------------------


def check_export(
    skills: Iterable[Skill],
    ctx: SkillContext,
    *,
    to: str,
    user: bool = False,
    providers: Sequence[str] = (),
    select: Sequence[str] = (),
) -> ExportReport:
    """Compare what the lock records for ``to`` with the copies on disk and their
    sources now: every difference is a :class:`DriftItem` (``ok`` is false then).

    Nothing outside the agent's folder is read: a lock entry whose name is not a
    single folder name is reported (``export-lock-refused``) and not looked at, a
    link is followed only to the skill's own folder or where skillpath made it
    point, and a destination :func:`skillpath.safety.destination_problem` refuses
    is an error. Copies are hashed in chunks. Ownership records are not needed:
    a check changes nothing (a fresh clone in CI has none).
    """
    from skillpath.safety import destination_problem

    folder = agent_folder(to, ctx, user=user)
    lock_file = lock_path(ctx, user=user)
    scope = "user" if user else "project"
    policy = ShellPolicy.from_settings(ctx.settings)
    diags: list[Diagnostic] = []
    problem = destination_problem(folder, destination_base(to, ctx, user=user))
    if problem is None and folder.is_symlink():
        problem = f"{folder} is a symbolic link"
    if problem is not None:
        diags.append(
            Diagnostic(
                "error", "export-destination-refused", f"not checking {folder}: {problem}", folder
            )
        )
        return ExportReport(to, scope, folder, lock_file, (), (), tuple(diags))
    lock = read_lock(lock_file, diags, area=None if user else ctx.project_root)
    entries = dict(lock.get("skills", {}))
    if not user:
        _legacy(ctx, entries)
    every = list(skills)
    chosen = {s.name for s in select_skills(every, providers, select)}
    by_name = _by_name(every)
    drift: list[DriftItem] = []
    claimed: set[str] = set()
    for name in sorted(entries):
        mine = _ours(entries[name], to)
        if mine is None:
            continue
        why = _lock_name_problem(name)
        if why is not None:
            diags.append(_refused(name, why, lock_file, lock_file))
            continue
        claimed.add(name)
        recorded_provider = entries[name].get("skillpath", {}).get("provider")
        skill = next(
            (s for s in by_name.get(name, ()) if s.source.provider == recorded_provider), None
        )
        drift += _drift_of(name, entries[name], mine, skill, to, folder, ctx, user, policy)
    for name in sorted(chosen - claimed):
        drift.append(
            DriftItem(name, "not-exported", folder / name, "selected but not exported yet")
        )
    return ExportReport(to, scope, folder, lock_file, (), tuple(drift), tuple(diags))


def _drift_of(
    name: str,
    entry: Mapping[str, Any],
    mine: Mapping[str, Any],
    skill: Skill | None,
    to: str,
    folder: Path,
    ctx: SkillContext,
    user: bool,
    policy: ShellPolicy,
) -> list[DriftItem]:
    """How one exported copy (lock entry ``entry``, its target record ``mine``) and
    its source ``skill`` (``None``: gone) differ from what was exported."""
    target = folder / name
    recorded = _recorded(entry, mine)
    link = mine.get("mode") == "link"
    out = _copy_drift(name, target, recorded, link, skill, ctx)
    if skill is None:
        out.append(
            DriftItem(name, "source-gone", target, "no such skill from that source any more")
        )
        return out
    scratch: list[Diagnostic] = []
    planned = _render(skill, to, folder, ctx, user=user, link=link, policy=policy, diags=scratch)
    if planned is not None and planned.digest != recorded:
        now = skill_source(skill)
        was = entry.get("ref")
        what = (
            f"{now['source']} {was} -> {now.get('ref')}"
            if was and now.get("ref") and was != now.get("ref")
            else "the source's files changed"
        )
        out.append(DriftItem(name, "source-changed", target, what))
    return out


def _copy_drift(
    name: str,
    target: Path,
    recorded: str | None,
    link: bool,
    skill: Skill | None,
    ctx: SkillContext,
) -> list[DriftItem]:
    """How the copy at ``target`` differs from the one recorded: gone, a link
    elsewhere, or edited (a link's target is not hashed against the record)."""
    source_link = (
        skill.base_dir.resolve()
        if skill is not None and skill.base_dir is not None and link
        else None
    )
    own = ownership.owned(ctx, target)
    current = _current_hash(target, own, source_link) if os.path.lexists(target) else None
    if current is None and target.is_symlink():
        return [
            DriftItem(
                name,
                "copy-edited",
                target,
                f"a link to {os.readlink(target)}, not to the skill's folder; not followed",
            )
        ]
    if current is None:
        return [DriftItem(name, "copy-missing", target, "the exported folder is gone")]
    if current != recorded and not link:
        return [DriftItem(name, "copy-edited", target, "the copy differs from what was exported")]
    return []


# -- exported copies -----------------------------------------------------------------


def is_installed_copy(a: Skill, b: Skill, names: frozenset[str]) -> bool:
    """Whether ``a`` and ``b`` are two folders of one install: both are folders named
    after the skill at one level, whose install lock names it (``names``), holding the
    same files (a copy edited since is a clash again)."""
    if a.name not in names or a.level != b.level or a.base_dir is None or b.base_dir is None:
        return False
    if a.base_dir.name != a.name or b.base_dir.name != b.name:
        return False
    first = folder_hash(a.base_dir)
    return first is not None and first == folder_hash(b.base_dir)


def is_exported_copy(
    copy: Skill, source: Skill, records: Mapping[str, tuple[str, str, frozenset[Path]]]
) -> bool:
    """Whether ``copy`` is a folder ``export`` wrote from ``source`` (its lock entry names
    ``copy``'s folder and ``source``'s origin), so the two are one skill, not a clash."""
    record = records.get(copy.name)
    if record is None or copy.base_dir is None:
        return False
    recorded_source, provider, folders = record
    origin = skill_source(source)
    if origin.get("source") != recorded_source or provider not in ("", origin["provider"]):
        return False
    try:
        here = copy.base_dir.resolve()
        return any(here == f.resolve() for f in folders)
    except OSError:
        return False
