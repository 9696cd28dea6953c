"""Write skills as a local Claude Code plugin, and keep it in sync.

Tools that read skills only from disk (the Claude Agent SDK, Claude Code
itself) get every skillpath skill — packs, MCP, any provider — through a
plugin folder::

    <dest>/
      .claude-plugin/plugin.json      {"name", "description", "version", "author"}
      skills/<name>/SKILL.md          frontmatter + body
      skills/<name>/<files…>          every other file of the skill's folder
      .skillpath-export.json          what this writer wrote (its manifest)

:func:`write_claude_plugin` is idempotent and safe to run again and again:

- **content hash**: each skill's exported files are hashed; a skill whose
  hash is the one in the manifest is left alone (``unchanged``); a skill
  whose files (size, times, inode) and record have not changed since the
  last run is not even read again (its stamp is in the manifest);
- **atomic**: a skill folder is built next to its final place and renamed in
  (the old one is renamed away first and removed after), every file (the
  manifest and ``plugin.json`` too) is written to a temporary file and renamed;
- **never deletes what it did not write**: only folders listed in the
  manifest are replaced or removed; a ``skills/<name>`` folder the manifest
  does not list is reported and left as it is, and a destination that holds a
  plugin the manifest does not describe is refused;
- **a folder of its own**: ``dest`` is created fresh (``0700``) or must be
  the user's, writable by no one else, with this writer's manifest (or
  empty); a folder someone else created — in a shared cache its name may be
  computable — is refused (:class:`FolderRefused`), never adopted; one writer
  at a time per folder (``.skillpath-export.lock``); the manifest is read
  within size and depth limits, and a FIFO or a link in its place is refused;
- **no path escape**: names must be Claude Code skill names (lowercase
  letters, digits and ``-``, at most 64) and are checked again when read back
  from the manifest; symbolic links in a skill's folder are not followed or
  copied; nothing is written outside ``dest``;
- **variables**: ``${SKILL_DIR}``, ``${SESSION_ID}`` and ``${PROJECT_DIR}``
  are written in Claude Code's spelling (``${CLAUDE_SKILL_DIR}``, …);
- **the inline-shell policy stays skillpath's**: a `` !`cmd` `` the
  ``[shell]`` policy would not run for that skill is replaced by
  :data:`~skillpath.shell.DISABLED_TEXT` in the exported text, and every other
  `` !` `` or ```` ```! ```` opener is broken, so the reader cannot run it
  either (:func:`skillpath.powers.neutralise_shell`);
- **no more powers than the source**: for a skill below the hand-written
  tier, frontmatter that grants powers in Claude Code (``hooks``,
  ``allowed-tools``, ``context``, ``agent``, ``mcp-servers``) is left out,
  with an ``export-power-dropped`` warning naming each field
  (:mod:`skillpath.powers`).

The reusable core of ``skillpath export --to claude-plugin`` and of the
Claude Agent SDK adapter.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs
import yaml

from skillpath.boundedjson import JSONLimitError, read_json_bounded
from skillpath.cache.files import racy_window_ns
from skillpath.commands import read_source
from skillpath.errors import SkillpathError
from skillpath.files import replace_folder, write_atomic
from skillpath.frontmatter import strip_frontmatter
from skillpath.model import Diagnostic, Skill, sort_key
from skillpath.ownership import FolderRefused, claim_folder, exclusive, lock_wait
from skillpath.powers import neutralise_shell, power_fields, strip_file_powers
from skillpath.resources import MAX_WALK_DEPTH, SKIP_FOLDERS, walk_skill_files
from skillpath.safety import describe_oserror, read_bounded
from skillpath.shell import ShellPolicy
from skillpath.textguard import escape_controls

__all__ = [
    "LOCK_FILE",
    "MANIFEST_FILE",
    "MAX_FILE_BYTES",
    "MAX_MANIFEST_BYTES",
    "VARIABLE_RE",
    "FolderRefused",
    "PluginExport",
    "claude_skill_name_problem",
    "power_diagnostics",
    "skill_files",
    "write_claude_plugin",
]

#: The writer's record of what it wrote, at the plugin's root.
MANIFEST_FILE = ".skillpath-export.json"
#: Sibling files larger than this are not copied (reported instead).
MAX_FILE_BYTES = 10 * 1024 * 1024
#: A manifest larger than this is not one this writer wrote (refused).
MAX_MANIFEST_BYTES = 16 * 1024 * 1024
#: The lock file serialising writers of one plugin folder, at its root.
LOCK_FILE = ".skillpath-export.lock"
_MANIFEST_FORMAT = 1
_NAME = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?")
_VARIABLE = re.compile(r"(?<!\\)\$\{(SKILL_DIR|SESSION_ID|PROJECT_DIR)\}")
#: ``${SKILL_DIR}``, ``${SESSION_ID}``, ``${PROJECT_DIR}`` (group 1: the name).
VARIABLE_RE = _VARIABLE
_SKIP_SUFFIXES = (".pyc", ".pyo")
_STAMP_VERSION = 2  # 2: powers left out, every shell opener broken


@attrs.frozen
class PluginExport:
    """What one :func:`write_claude_plugin` run did.

    ``skills`` are the names in the plugin now (sorted); ``written`` the ones
    whose folder was (re)written, ``unchanged`` the ones already up to date,
    ``removed`` the folders this writer had written before that are gone now;
    ``diagnostics`` say what was skipped and why (path and reason).
    """

    root: Path
    skills: tuple[str, ...]
    written: tuple[str, ...]
    unchanged: tuple[str, ...]
    removed: tuple[str, ...]
    diagnostics: tuple[Diagnostic, ...]

    @property
    def changed(self) -> bool:
        """True when this run wrote or removed a skill folder."""
        return bool(self.written or self.removed)


def claude_skill_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a skill folder in a Claude Code plugin, or ``None``."""
    if isinstance(name, str) and _NAME.fullmatch(name) and "--" not in name:
        return None
    return (
        f"name {name!r} is not a Claude Code skill name "
        "(lowercase letters, digits and single hyphens, at most 64)"
    )


def _atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file (nothing when it holds it already)."""
    try:
        if read_bounded(path, len(data), follow=False) == data:
            return
    except OSError:
        pass  # missing, different, or not a regular file: replaced below (never followed)
    write_atomic(path, data)


def _neutralise_shell(text: str, skill: Skill, policy: ShellPolicy) -> str:
    if policy.allows(skill):
        return text
    return neutralise_shell(text)


def _what(field: str) -> str:
    return field if "/" in field else f"frontmatter {field!r}"


def power_diagnostics(skill: Skill, fields: Iterable[str], diags: list[Diagnostic]) -> None:
    """An ``export-power-dropped`` warning in ``diags`` for each frontmatter field of
    ``skill`` (or part of a sibling file, named with its path) left out of its copy
    (:func:`skillpath.powers.power_fields`, :func:`~skillpath.powers.strip_file_powers`)."""
    for field in fields:
        diags.append(
            Diagnostic(
                "warning",
                "export-power-dropped",
                f"skill {skill.name!r}: {_what(field)} is left out of the copy "
                f"({skill.source.level} skills do not get it in the agent reading the copy; "
                "list the level in [shell] levels to keep it)",
                skill.path,
            )
        )


def _claude_spellings(text: str) -> str:
    """``${SKILL_DIR}`` and friends in the spelling Claude Code substitutes (``${CLAUDE_…}``)."""
    return _VARIABLE.sub(lambda m: "${CLAUDE_" + m.group(1) + "}", text) if "${" in text else text


def _skill_md(skill: Skill, policy: ShellPolicy, spell: Callable[[str], str] | None = None) -> str:
    """``SKILL.md`` as exported: frontmatter without the powers the source does not
    get (:func:`skillpath.powers.power_fields`), body with its shell neutralised."""
    spell = _claude_spellings if spell is None else spell
    source = read_source(skill)
    on_disk = skill.path is not None and skill.source.loaded_from != "mcp"
    body = strip_frontmatter(source) if on_disk else source
    front: dict[str, Any] = {"name": skill.name, "description": skill.description}
    dropped = set(power_fields(skill, policy))
    for key, value in skill.frontmatter.raw.items():
        if key not in front and key not in dropped:
            front[key] = _without_invisible(value)
    head = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=10_000)
    return f"---\n{head}---\n{spell(_neutralise_shell(body, skill, policy))}"


def _without_invisible(value: Any) -> Any:
    """A frontmatter value with the invisible characters no model may be given removed
    from every string in it (:func:`skillpath.textguard.strip_invisible`): YAML writes
    some of them (U+FEFF) as ``\\u`` escapes, which a later pass over the text misses."""
    from skillpath.textguard import strip_invisible

    if isinstance(value, str):
        return strip_invisible(value)[0]
    if isinstance(value, list):
        return [_without_invisible(v) for v in value]
    if isinstance(value, dict):
        return {_without_invisible(k): _without_invisible(v) for k, v in value.items()}
    return value


def _exported_siblings(
    skill: Skill, policy: ShellPolicy, diags: list[Diagnostic]
) -> dict[str, bytes]:
    """:func:`_sibling_files` without the powers a lower tier does not get
    (:func:`skillpath.powers.strip_file_powers`), each named by a warning."""
    files = _sibling_files(skill, diags)
    power_diagnostics(skill, strip_file_powers(files, skill, policy), diags)
    return files


def _sibling_files(skill: Skill, diags: list[Diagnostic]) -> dict[str, bytes]:
    """The other files of a skill's folder (relative POSIX path -> bytes), as
    :func:`skillpath.resources.walk_skill_files` finds them with dot files kept and
    links never followed: each link, refused name
    (:func:`skillpath.textguard.name_refusal`), file over :data:`MAX_FILE_BYTES` and
    unreadable file is named by a warning, and so is a folder with more files than
    :data:`~skillpath.resources.MAX_WALK_FILES`."""
    base = skill.base_dir
    if skill.source.loaded_from == "mcp" or base is None or not _is_skill_folder(skill):
        return {}
    if not base.is_dir():
        return {}
    walk = walk_skill_files(base, hidden=True, follow_links=False, max_bytes=MAX_FILE_BYTES)
    for refusal in walk.refused:
        shown = escape_controls(refusal.rel, keep="", invisible=True)
        diags.append(
            Diagnostic(
                "warning",
                "export-name-refused",
                f"skill {skill.name!r}: '{shown}' is not copied: its name holds {refusal.reason}",
                path=refusal.path.parent,
            )
        )
    for link in walk.links:
        diags.append(
            Diagnostic(
                "warning",
                "export-symlink-skipped",
                f"skill {skill.name!r}: symbolic link {link.rel!r} is not copied",
                path=link.path,
            )
        )
    for big in walk.too_large:
        diags.append(
            Diagnostic(
                "warning",
                "export-file-too-large",
                f"skill {skill.name!r}: {big.rel!r} is larger than "
                f"{MAX_FILE_BYTES} bytes and is not copied",
                path=big.path,
            )
        )
    if walk.truncated:
        diags.append(
            Diagnostic(
                "warning",
                "export-files-truncated",
                f"skill {skill.name!r}: only the first {len(walk.entries)} files "
                f"(at most {MAX_WALK_DEPTH} folders deep) are copied",
                path=base,
            )
        )
    files: dict[str, bytes] = {}
    for entry in walk.entries:
        if entry.rel == "SKILL.md" or entry.rel.endswith(_SKIP_SUFFIXES):
            continue
        try:
            files[entry.rel] = read_bounded(entry.path, MAX_FILE_BYTES, follow=False)
        except OSError as exc:
            diags.append(
                Diagnostic(
                    "warning",
                    "export-file-unreadable",
                    f"skill {skill.name!r}: cannot read {entry.rel!r}: {exc.strerror or exc}",
                    path=entry.path,
                )
            )
    return files


def skill_files(
    skill: Skill,
    policy: ShellPolicy,
    diags: list[Diagnostic],
    spell: Callable[[str], str] | None = None,
) -> dict[str, bytes]:
    """Every file of ``skill`` as written out: ``SKILL.md`` (frontmatter and body,
    inline shell the ``policy`` refuses for it neutralised, variables respelled by
    ``spell`` — default: Claude Code's ``${CLAUDE_…}``, the frontmatter fields that
    grant powers left out for a source below the hand-written tier, each named by
    an ``export-power-dropped`` warning in ``diags``) and its sibling files.

    :raises SkillpathError: when the skill's text cannot be read.
    """
    try:
        text = _skill_md(skill, policy, spell)
    except yaml.YAMLError as exc:
        raise SkillpathError(f"skill {skill.name!r}: {exc}") from exc
    power_diagnostics(skill, power_fields(skill, policy), diags)
    files = _exported_siblings(skill, policy, diags)
    files["SKILL.md"] = text.encode("utf-8", "surrogatepass")
    _strip_invisible_files(skill, files, diags)
    return files


def _strip_invisible_files(skill: Skill, files: dict[str, bytes], diags: list[Diagnostic]) -> None:
    """Remove from every text file of a copy the characters no model may be given
    (:func:`skillpath.textguard.strip_invisible`: the agent reading the copy would read
    them), with an ``export-invisible-removed`` warning giving the count per file."""
    from skillpath.textguard import strip_invisible

    for rel, data in files.items():
        if data.isascii() or b"\0" in data[:4096]:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        clean, removed = strip_invisible(text)
        if removed:
            files[rel] = clean.encode("utf-8")
            diags.append(
                Diagnostic(
                    "warning",
                    "export-invisible-removed",
                    f"skill {skill.name!r}: {removed} invisible character(s) (Unicode tags, "
                    f"bidi controls, zero-width) removed from {rel!r} in the copy",
                    path=(skill.base_dir / rel) if skill.base_dir is not None else None,
                )
            )


def _digest(files: dict[str, bytes]) -> str:
    h = hashlib.sha256()
    for rel in sorted(files):
        data = files[rel]
        h.update(rel.encode("utf-8", "surrogatepass") + b"\0")
        h.update(len(data).to_bytes(8, "big") + data)
    return h.hexdigest()


def _read_record(root: Path, diags: list[Diagnostic]) -> dict[str, Any] | None:
    """The manifest as written (``None`` when there is none, or it is not JSON).

    Read within limits (:func:`skillpath.boundedjson.read_json_bounded`: a
    regular file, not a symbolic link, at most :data:`MAX_MANIFEST_BYTES`,
    nested at most 16 deep).

    :raises FolderRefused: when the manifest is a FIFO, a device, a link (to
        ``/dev/zero`` or anywhere), too large or too deep: not one this writer
        wrote.
    """
    path = root / MANIFEST_FILE
    try:
        data = read_json_bounded(path, max_bytes=MAX_MANIFEST_BYTES, max_depth=16, follow=False)
    except FileNotFoundError:
        return None
    except JSONLimitError as exc:
        raise FolderRefused(f"{path}: {exc}; not a manifest skillpath wrote") from exc
    except OSError as exc:
        reason = "is a symbolic link" if exc.errno == errno.ELOOP else describe_oserror(exc)
        raise FolderRefused(f"{path}: {reason}; not a manifest skillpath wrote") from exc
    except ValueError as exc:
        diags.append(
            Diagnostic(
                "warning", "export-manifest-unreadable", f"cannot read the manifest: {exc}", path
            )
        )
        return None
    if not isinstance(data, dict):
        diags.append(
            Diagnostic("warning", "export-manifest-invalid", "the manifest has no skills", path)
        )
        return None
    return data


def _manifest_skills(
    record: Mapping[str, Any] | None, root: Path, diags: list[Diagnostic]
) -> dict[str, str] | None:
    """The manifest's ``{name: hash}``; ``None`` when there is none (or it is unusable)."""
    if record is None:
        return None
    path = root / MANIFEST_FILE
    skills = record.get("skills")
    if not isinstance(skills, dict):
        diags.append(
            Diagnostic("warning", "export-manifest-invalid", "the manifest has no skills", path)
        )
        return None
    clean: dict[str, str] = {}
    for name, digest in skills.items():
        if claude_skill_name_problem(name) is None and isinstance(digest, str):
            clean[name] = digest
        else:
            diags.append(
                Diagnostic(
                    "warning",
                    "export-manifest-entry",
                    f"manifest entry {name!r} is ignored (not a skill name this writer uses)",
                    path,
                )
            )
    return clean


def _manifest_stamps(record: Mapping[str, Any] | None) -> dict[str, str]:
    """The manifest's ``{name: stamp}`` (empty when missing or unusable)."""
    stamps = record.get("stamps") if record is not None else None
    if not isinstance(stamps, dict):
        return {}
    return {k: v for k, v in stamps.items() if isinstance(k, str) and isinstance(v, str)}


def _stamp(skill: Skill, policy: ShellPolicy, racy_ns: int) -> str | None:
    """What the exported folder of ``skill`` depends on, hashed (``None``: always render).

    The skill's record (name, description, frontmatter, path), whether the
    shell policy lets it run commands, and the size, ``mtime_ns``, inode and
    ``ctime_ns`` of every file in its folder. A file changed within the racy
    window (two seconds; ``SKILLPATH_INDEX_RACY_MS``) gives no stamp: an edit
    in the same clock tick could go unseen.
    """
    path = skill.path
    if path is None or skill.source.loaded_from == "mcp":
        return None
    base = skill.base_dir if _is_skill_folder(skill) else None
    entries: list[tuple[str, int, int, int, int]] = []
    try:
        st = path.stat()
        entries.append(("", st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns))
        if base is not None:
            root = os.fspath(base)
            cut = len(root) + 1
            pending = [root]
            while pending:
                with os.scandir(pending.pop()) as it:
                    for entry in it:
                        est = entry.stat(follow_symlinks=False)
                        entries.append(
                            (
                                entry.path[cut:],
                                est.st_size,
                                est.st_mtime_ns,
                                est.st_ino,
                                est.st_ctime_ns,
                            )
                        )
                        if entry.is_dir(follow_symlinks=False) and entry.name not in SKIP_FOLDERS:
                            pending.append(entry.path)
    except OSError:
        return None
    now = time.time_ns()
    if any(now - max(e[2], e[4]) < racy_ns for e in entries):
        return None
    fm = skill.frontmatter.raw
    record = repr(
        (
            _STAMP_VERSION,
            skill.name,
            skill.description,
            str(path),
            sorted((str(k), repr(v)) for k, v in fm.items()),
            policy.allows(skill),
            power_fields(skill, policy),
            sorted(entries),
        )
    )
    return hashlib.sha256(record.encode("utf-8", "surrogatepass")).hexdigest()


def _is_skill_folder(skill: Skill) -> bool:
    """True when the skill is ``<base_dir>/SKILL.md`` (its other files belong to it)."""
    return (
        skill.path is not None
        and skill.base_dir is not None
        and skill.path.name == "SKILL.md"
        and skill.path.parent == skill.base_dir
    )


def _write_manifest(
    root: Path, plugin: str, hashes: dict[str, str], stamps: dict[str, str]
) -> None:
    record = {
        "format": _MANIFEST_FORMAT,
        "plugin": plugin,
        "skills": dict(sorted(hashes.items())),
        "stamps": dict(sorted(stamps.items())),
    }
    data = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
    _atomic_write(root / MANIFEST_FILE, data.encode("utf-8"))


def _replace_dir(final: Path, files: dict[str, bytes]) -> None:
    """Build ``final`` from ``files`` next to it and swap it in."""
    replace_folder(final, files)


def write_claude_plugin(
    dest: str | os.PathLike[str],
    skills: Iterable[Skill],
    *,
    name: str = "skillpath",
    description: str = "Skills found and served by skillpath.",
    version: str = "0.1.0",
    author: str = "skillpath",
    shell_policy: ShellPolicy | None = None,
    env: Mapping[str, str] | None = None,
) -> PluginExport:
    """Write ``skills`` as the Claude Code plugin ``dest`` (created when missing).

    Skills that cannot be exported (a name Claude Code does not accept, a
    source that cannot be read, a folder in the way that this writer did not
    write) are skipped with a diagnostic; skills this writer wrote earlier
    that are not in ``skills`` now are removed.

    :param shell_policy: the ``[shell]`` policy (default: skillpath's
        defaults); inline shell it would refuse is neutralised in the export.
    :param env: the environment (default ``os.environ``) for
        ``SKILLPATH_INDEX_RACY_MS``: a skill whose files are older than that
        window and unchanged since the last run is not read again.
    ``dest`` must be new (it is created with mode ``0700``) or the user's own
    folder, writable by no one else, under folders no one else may write
    unless sticky (:func:`skillpath.ownership.claim_folder`), and either empty
    or holding this writer's manifest. Writers of one folder take turns (a
    lock file at its root, waited on for ``SKILLPATH_LOCK_WAIT`` seconds).

    :raises FolderRefused: when ``dest`` is not such a folder, holds files and
        no manifest, or its manifest is a link, a special file, too large or too
        deep (the message says which).
    :raises skillpath.ownership.LockBusy: when another writer holds the folder
        for longer than the wait.
    :raises SkillpathError: when ``name`` is not a plugin name or ``dest`` is
        not a folder.
    """
    if claude_skill_name_problem(name) is not None:
        raise SkillpathError(f"plugin name {name!r} must be lowercase letters, digits and '-'")
    root = Path(dest).absolute()
    if root.is_symlink():
        raise FolderRefused(
            f"plugin folder {root}: is a symbolic link; refusing to write through it"
        )
    if root.exists() and not root.is_dir():
        raise SkillpathError(f"{root}: not a folder")
    policy = shell_policy if shell_policy is not None else ShellPolicy()
    environ = os.environ if env is None else env
    claim_folder(root, "plugin folder")
    with exclusive(
        root / LOCK_FILE,
        wait=lock_wait(environ),
        what=f"plugin folder {root}",
        hint="another writer is updating it",
    ):
        return _write_locked(
            root,
            skills,
            name=name,
            manifest={
                "name": name,
                "description": description,
                "version": version,
                "author": {"name": author},
            },
            policy=policy,
            racy_ns=racy_window_ns(environ),
        )


def _leftover(name: str, of: str) -> bool:
    """Whether ``name`` is an interrupted :func:`_atomic_write`'s temporary file for ``of``."""
    return re.fullmatch(rf"\.{re.escape(of)}\.\d+\.[0-9a-f]+\.tmp", name) is not None


def _strangers(root: Path, *, mine: bool) -> list[str]:
    """The entries of plugin folder ``root`` this writer does not write (sorted).

    With no manifest (``mine`` false) every entry but the lock is a stranger;
    with one, only ``.claude-plugin/plugin.json``, ``skills/`` and the manifest
    belong at the root: anything else (``hooks/``, ``.mcp.json``, ``commands/``,
    ``agents/`` …) would be loaded by Claude Code as part of the plugin.
    """
    names = [n for n in os.listdir(root) if n != LOCK_FILE and not _leftover(n, MANIFEST_FILE)]
    if not mine:
        return sorted(names)
    out = [n for n in names if n not in (".claude-plugin", "skills", MANIFEST_FILE)]
    meta = root / ".claude-plugin"
    if meta.is_dir() and not meta.is_symlink():
        out += [
            f".claude-plugin/{n}"
            for n in os.listdir(meta)
            if n != "plugin.json" and not _leftover(n, "plugin.json")
        ]
    return sorted(out)


def _write_locked(
    root: Path,
    skills: Iterable[Skill],
    *,
    name: str,
    manifest: dict[str, Any],
    policy: ShellPolicy,
    racy_ns: int,
) -> PluginExport:
    """:func:`write_claude_plugin` once ``root`` is claimed and locked."""
    diags: list[Diagnostic] = []
    plugin_json = root / ".claude-plugin" / "plugin.json"
    skills_dir = root / "skills"
    for inner in (skills_dir, plugin_json.parent, root / MANIFEST_FILE, plugin_json):
        if inner.is_symlink():
            raise FolderRefused(f"{inner}: is a symbolic link; refusing to write through it")
    record = _read_record(root, diags)
    previous = _manifest_skills(record, root, diags)
    strangers = _strangers(root, mine=previous is not None)
    if strangers:
        what = ", ".join(strangers[:5]) + (", …" if len(strangers) > 5 else "")
        if previous is None:
            raise FolderRefused(
                f"{root}: holds files skillpath did not write ({what}) and no "
                f"{MANIFEST_FILE} of its own; choose an empty or new folder"
            )
        raise FolderRefused(
            f"{root}: holds files skillpath did not write ({what}); Claude Code would load "
            "them with the plugin (hooks, MCP servers, commands, agents): remove them or "
            "choose a new folder"
        )
    previous = previous or {}

    stamps_before = _manifest_stamps(record)
    wanted: dict[str, dict[str, bytes]] = {}
    kept: dict[str, str] = {}  # unchanged since the last run (same stamp): not rendered
    stamps: dict[str, str] = {}
    seen: set[str] = set()
    for skill in sorted(skills, key=sort_key):
        problem = claude_skill_name_problem(skill.name)
        if problem is not None:
            diags.append(Diagnostic("warning", "export-name", problem, skill.path))
            continue
        if skill.name in seen:
            continue
        seen.add(skill.name)
        folder = skills_dir / skill.name
        if skill.name not in previous and (folder.exists() or folder.is_symlink()):
            diags.append(
                Diagnostic(
                    "warning",
                    "export-folder-in-the-way",
                    f"skills/{skill.name} exists and was not written by skillpath; left as it is",
                    folder,
                )
            )
            continue
        power_diagnostics(skill, power_fields(skill, policy), diags)
        stamp = _stamp(skill, policy, racy_ns)
        if stamp is not None:
            stamps[skill.name] = stamp
            if (
                skill.name in previous
                and previous[skill.name]
                and stamps_before.get(skill.name) == stamp
                and folder.is_dir()
            ):
                kept[skill.name] = previous[skill.name]
                continue
        try:
            text = _skill_md(skill, policy)
        except (SkillpathError, yaml.YAMLError) as exc:
            diags.append(
                Diagnostic("error", "export-unreadable", f"skill {skill.name!r}: {exc}", skill.path)
            )
            continue
        files = _exported_siblings(skill, policy, diags)
        files["SKILL.md"] = text.encode("utf-8", "surrogatepass")
        _strip_invisible_files(skill, files, diags)
        wanted[skill.name] = files

    # Claim the new folders before writing them: if this run stops half-way, the
    # next one knows they are its own (their hash does not match: written again).
    claimed = {**previous, **{n: previous.get(n, "") for n in wanted}}
    if claimed != previous or not (root / MANIFEST_FILE).exists():
        _write_manifest(root, name, claimed, {})

    written: list[str] = []
    unchanged: list[str] = list(kept)
    hashes: dict[str, str] = dict(kept)
    for skill_name, files in wanted.items():
        digest = _digest(files)
        folder = skills_dir / skill_name
        hashes[skill_name] = digest
        if previous.get(skill_name) == digest and folder.is_dir():
            unchanged.append(skill_name)
            continue
        _replace_dir(folder, files)
        written.append(skill_name)

    removed: list[str] = []
    for old in sorted(set(previous) - set(hashes)):
        folder = skills_dir / old
        if folder.is_symlink():
            folder.unlink()
        elif folder.is_dir():
            shutil.rmtree(folder)
        removed.append(old)

    _atomic_write(
        plugin_json, (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    )
    _write_manifest(root, name, hashes, {n: st for n, st in stamps.items() if n in hashes})
    return PluginExport(
        root=root,
        skills=tuple(sorted(hashes)),
        written=tuple(sorted(written)),
        unchanged=tuple(sorted(unchanged)),
        removed=tuple(removed),
        diagnostics=tuple(diags),
    )
