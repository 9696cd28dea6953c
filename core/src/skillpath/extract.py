"""Lazy extraction of skill files that do not live on disk (skill packs, bundled skills).

A pack or bundled skill is listed without writing anything: its ``SKILL.md``
frontmatter is read from package data (or from memory), and the skill gets a
``base_dir`` that is a *deterministic* extraction directory::

    <cache>/packs/<distribution>-<version>-<hash16>/<skill>/...
    <cache>/bundled/<skill>-<hash16>/<skill>/...

``<cache>`` is ``$SKILLPATH_CACHE_DIR`` when set, else
``platformdirs.user_cache_dir("skillpath")`` (``$XDG_CACHE_HOME/skillpath``
on Linux). ``<hash16>`` is the start of the :class:`LazyTree` digest, a sha256
over every member's relative path and content hash, so a re-installed pack
with different content never reuses an old tree.

The files are written the first time something needs them for real, through
:func:`materialize`: the core's ``skillpath.extract`` plugin calls it from
``resolve_url`` (``tryfirst``, before the built-in ``skill://`` resolver) and
from an early ``transform_prompt`` step (order 50, before ``${SKILL_DIR}`` is
substituted and the base-directory prefix is added). Hosts that open skill
files themselves call :func:`materialize` first.

Guarantees:

- once per process, even under threads (a lock per tree);
- safe across processes: a :mod:`filelock` lock per tree, files written into a
  fresh temporary directory next to the target, then one atomic ``rename``;
  temporary directories left by a killed process are removed under the lock;
- every member path passes :func:`skillpath.safety.check_relative` and is
  re-checked with :func:`skillpath.safety.resolve_inside`; files are created
  with ``O_CREAT | O_EXCL | O_NOFOLLOW``; no symlink is ever created or
  followed;
- permissions: directories ``0o700``, files ``0o600``, files that start with a
  ``#!`` line ``0o700`` (scripts stay runnable); the cache is private to the
  user, like the rest of ``~/.cache``;
- a manifest (``.skillpath-manifest.json`` at the tree root) records the
  digest and each file's sha256; an existing tree is verified against it once
  per process and a stale or tampered tree (changed, missing or extra files,
  symlinks) is replaced.
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from skillpath._lazyre import lazy_pattern
from skillpath.cache.files import cache_root as _cache_root
from skillpath.errors import PromptError, ResolveError, SkillpathError
from skillpath.hookspecs import hookimpl, step
from skillpath.safety import (
    ContainmentError,
    check_relative,
    open_regular,
    read_bounded,
    resolve_inside,
)
from skillpath.textguard import escape_controls, name_refusal

if TYPE_CHECKING:
    from skillpath.context import SkillContext
    from skillpath.model import Skill
    from skillpath.prompt import Invocation
    from skillpath.resources import Resource

__all__ = [
    "DIR_MODE",
    "EXEC_MODE",
    "FILE_MODE",
    "MANIFEST",
    "MAX_MEMBERS",
    "MAX_TOTAL_BYTES",
    "ExtractionError",
    "LazyTree",
    "Member",
    "cache_root",
    "check_member",
    "ensure_extracted",
    "is_extracted",
    "lazy_tree_for",
    "make_tree",
    "materialize",
    "prune_trees",
    "register_tree",
    "reset_extraction_state",
    "tree_digest",
    "verify_tree",
]

#: What the hooks here depend on (:func:`skillpath.depends_on`): only files, so
#: an unchanged ``skillpath list`` may be replayed.
DEPENDS_ON = ("files",)

#: Name of the manifest written at the root of every extracted tree.
MANIFEST = ".skillpath-manifest.json"
#: Mode of every extracted directory.
DIR_MODE = 0o700
#: Mode of every extracted file.
FILE_MODE = 0o600
#: Mode of extracted files whose first bytes are ``#!``.
EXEC_MODE = 0o700
#: Most members one tree may hold.
MAX_MEMBERS = 10_000
#: Largest total size of one tree, in bytes.
MAX_TOTAL_BYTES = 64 * 1024 * 1024
#: A tree not current in this environment is pruned once unused this long (seconds):
#: another environment (a second virtualenv sharing the cache) may still use it.
PRUNE_AFTER_SECONDS = 24 * 3600
#: How often (seconds) one kind of tree is pruned at most.
PRUNE_EVERY_SECONDS = 3600

_SAFE_KEY = lazy_pattern(r"[^A-Za-z0-9._-]+")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class ExtractionError(SkillpathError):
    """A tree could not be extracted (changed source, refused member, OS error)."""


@attrs.frozen
class Member:
    """One file of a lazy tree: ``rel`` (``/``-separated, already checked), its
    sha256 and size, whether it is a script, and how to read its bytes again."""

    rel: str
    sha256: str
    size: int
    executable: bool
    read: Callable[[], bytes] = attrs.field(eq=False, repr=False)

    @classmethod
    def from_bytes(cls, rel: str, data: bytes) -> Member:
        """A member whose content is held in memory."""
        import hashlib

        return cls(
            rel,
            hashlib.sha256(data).hexdigest(),
            len(data),
            data.startswith(b"#!"),
            lambda: data,
        )


def tree_digest(members: Iterable[Member]) -> str:
    """The sha256 over sorted ``(rel, sha256)`` pairs: the tree's content hash."""
    import hashlib

    h = hashlib.sha256()
    for rel, sha in sorted((m.rel, m.sha256) for m in members):
        h.update(rel.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
        h.update(sha.encode("ascii"))
        h.update(b"\n")
    return h.hexdigest()


@attrs.frozen
class LazyTree:
    """Files that live in package data or memory, extracted to ``target`` on demand.

    ``label`` names the tree in messages (``pack 'acme' (acme-skills 1.0.0)``).
    """

    target: Path
    members: tuple[Member, ...]
    digest: str
    label: str

    @property
    def manifest(self) -> dict[str, Any]:
        """The manifest this tree writes and expects."""
        return {
            "format": 1,
            "label": self.label,
            "digest": self.digest,
            "files": {m.rel: m.sha256 for m in sorted(self.members, key=lambda m: m.rel)},
        }


def cache_root(env: Mapping[str, str] | None = None) -> Path:
    """The user cache directory of skillpath, from ``env`` (default: the process
    environment): :func:`skillpath.cache.files.cache_root` as a path."""
    return Path(_cache_root(env))


def _safe_key(key: str) -> str:
    cleaned = _SAFE_KEY.sub("_", key).strip("._") or "tree"
    return cleaned[:96]


def make_tree(
    kind: str,
    key: str,
    members: Iterable[Member],
    *,
    label: str,
    env: Mapping[str, str] | None = None,
) -> LazyTree:
    """Build (not write) the tree for ``members`` under ``<cache>/<kind>/<key>-<hash16>``.

    Raises :class:`ExtractionError` when a member path is refused by
    :func:`~skillpath.safety.check_relative`, two members collide, or the tree
    exceeds :data:`MAX_MEMBERS` / :data:`MAX_TOTAL_BYTES`. Callers that list
    untrusted sources check members one by one first, so they can report each
    refusal as a diagnostic.
    """
    items = list(members)
    if len(items) > MAX_MEMBERS:
        raise ExtractionError(f"{label}: {len(items)} files (limit {MAX_MEMBERS})")
    total = sum(m.size for m in items)
    if total > MAX_TOTAL_BYTES:
        raise ExtractionError(f"{label}: {total} bytes of files (limit {MAX_TOTAL_BYTES})")
    seen: set[str] = set()
    dirs: set[str] = set()
    for m in items:
        clean = check_member(m.rel)
        if clean != m.rel:
            raise ExtractionError(f"{label}: member {m.rel!r} is not normalised ({clean!r})")
        if clean in seen or clean in dirs:
            raise ExtractionError(f"{label}: member {clean!r} appears twice")
        seen.add(clean)
        parts = clean.split("/")
        for i in range(1, len(parts)):
            dirs.add("/".join(parts[:i]))
    clash = seen & dirs
    if clash:
        raise ExtractionError(f"{label}: {sorted(clash)[0]!r} is both a file and a directory")
    digest = tree_digest(items)
    target = cache_root(env) / kind / f"{_safe_key(key)}-{digest[:16]}"
    return LazyTree(target, tuple(sorted(items, key=lambda m: m.rel)), digest, label)


def check_member(rel: str) -> str:
    """A member path normalised by :func:`~skillpath.safety.check_relative`.

    Also refuses the reserved manifest name at any level, and names holding
    invisible characters (:func:`skillpath.textguard.name_refusal`: such a file is
    never listed or read, so it is not written either). Raises
    :class:`~skillpath.safety.ContainmentError`.
    """
    clean = check_relative(rel)
    if MANIFEST in clean.parts:
        raise ContainmentError(f"{rel!r} uses the reserved name {MANIFEST!r}")
    for part in clean.parts:
        why = name_refusal(part)
        if why is not None:
            shown = escape_controls(str(clean), keep="", invisible=True)
            raise ContainmentError(f"'{shown}' is refused: its name holds {why}")
    return str(clean)


# -- the per-process registry -------------------------------------------------

_registry_lock = threading.Lock()
_TREES: dict[str, LazyTree] = {}
_LOCKS: dict[str, threading.Lock] = {}
_DONE: set[str] = set()


def register_tree(tree: LazyTree) -> None:
    """Remember ``tree`` so :func:`materialize` can extract skills under its target."""
    key = os.fspath(tree.target)
    with _registry_lock:
        _TREES[key] = tree


def lazy_tree_for(path: Path | None) -> LazyTree | None:
    """The registered tree whose target is ``path`` or its parent (a skill's base dir)."""
    if path is None:
        return None
    with _registry_lock:
        for candidate in (path, path.parent):
            tree = _TREES.get(os.fspath(candidate))
            if tree is not None:
                return tree
    return None


def reset_extraction_state() -> None:
    """Forget which trees this process already verified (tests; after cleaning the cache)."""
    with _registry_lock:
        _DONE.clear()


def is_extracted(tree: LazyTree) -> bool:
    """Whether this process already extracted or verified ``tree`` (and it is still there)."""
    key = os.fspath(tree.target)
    with _registry_lock:
        done = key in _DONE
    return done and os.path.isfile(os.path.join(key, MANIFEST))


def materialize(skill: Skill) -> Path | None:
    """Make sure the files of ``skill`` exist on disk; return its ``base_dir``.

    A no-op for skills that already live on disk. For pack and bundled skills
    the tree is extracted (once per process) on first call. Raises
    :class:`ExtractionError` when that fails.
    """
    tree = lazy_tree_for(skill.base_dir)
    if tree is not None:
        ensure_extracted(tree)
    return skill.base_dir


def ensure_extracted(tree: LazyTree) -> Path:
    """Extract ``tree`` unless a valid copy exists; return its target directory."""
    key = os.fspath(tree.target)
    with _registry_lock:
        _TREES.setdefault(key, tree)
        lock = _LOCKS.setdefault(key, threading.Lock())
    if is_extracted(tree):
        return tree.target
    with lock:
        if is_extracted(tree):
            return tree.target
        if verify_tree(tree) is None:
            _touch(os.path.join(key, MANIFEST))  # in use: the last to be pruned
            _mark_done(key)
            return tree.target
        _extract_locked(tree)
        _mark_done(key)
    return tree.target


def _touch(path: str) -> None:
    with contextlib.suppress(OSError):
        os.utime(path, follow_symlinks=False)


def prune_trees(
    kind: str,
    keep: Iterable[Path],
    *,
    env: Mapping[str, str] | None = None,
    older_than: float = PRUNE_AFTER_SECONDS,
    every: float = PRUNE_EVERY_SECONDS,
    now: float | None = None,
) -> list[Path]:
    """Remove extracted trees of ``kind`` that are not in ``keep`` and unused for
    ``older_than`` seconds; return the directories removed.

    The packs provider calls it with the trees of the packs installed now, so the
    files of an upgraded or uninstalled pack go away. "Unused" is the time since
    the tree was extracted or last verified by a process (its manifest's
    modification time), so a tree another environment sharing the cache still
    uses survives. At most once per ``every`` seconds per kind (a stamp file);
    each tree is removed under its extraction lock (skipped when another process
    holds it) by renaming it aside first, so no reader sees a half-removed tree.
    Never raises for file-system trouble; symlinks are never followed.
    """
    import time

    base = cache_root(env) / kind
    now = time.time() if now is None else now
    stamp = base / ".pruned"
    try:
        if now - os.lstat(stamp).st_mtime < every:
            return []
    except FileNotFoundError:
        pass
    except OSError:
        return []
    kept = {os.fspath(p) for p in keep}
    removed: list[Path] = []
    try:
        entries = list(os.scandir(base))
    except OSError:
        return []
    import filelock

    for entry in entries:
        if entry.name.startswith(".") or entry.path in kept:
            continue
        try:
            if not entry.is_dir(follow_symlinks=False):
                continue
            try:
                used = os.lstat(os.path.join(entry.path, MANIFEST)).st_mtime
            except FileNotFoundError:
                used = entry.stat(follow_symlinks=False).st_mtime
            if now - used < older_than:
                continue
            lock = filelock.FileLock(
                os.fspath(base / ".locks" / f"{entry.name}.lock"), timeout=0, mode=0o600
            )
            with lock:
                import secrets

                stale = os.path.join(base, f".stale-{entry.name}-{secrets.token_hex(6)}")
                os.rename(entry.path, stale)
                _remove(stale)
            removed.append(Path(entry.path))
        except (OSError, filelock.Timeout):
            continue
    with contextlib.suppress(OSError):
        _mkdirs(base)
        fd = os.open(stamp, os.O_WRONLY | os.O_CREAT | _NOFOLLOW | _CLOEXEC, FILE_MODE)
        os.close(fd)
        os.utime(stamp, (now, now), follow_symlinks=False)
    return removed


def _mark_done(key: str) -> None:
    with _registry_lock:
        _DONE.add(key)


def _sha256_file(path: str) -> str | None:
    import hashlib

    try:
        # not a symlink, not a FIFO or device, never more than a pack may hold
        fd, _st = open_regular(path, follow=False)
    except OSError:
        return None
    h = hashlib.sha256()
    total = 0
    try:
        while chunk := os.read(fd, 1 << 16):
            total += len(chunk)
            if total > MAX_TOTAL_BYTES:
                return None
            h.update(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    return h.hexdigest()


def verify_tree(tree: LazyTree) -> str | None:
    """Why the tree on disk does not match ``tree`` (``None`` when it does).

    Checks the manifest (format, digest, file list), that no symlink and no
    file outside the manifest exists, and every file's sha256.
    """
    target = os.fspath(tree.target)
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return "not extracted"
    except OSError as exc:
        return f"cannot inspect: {exc.strerror}"
    if not stat.S_ISDIR(st.st_mode):
        return "target is not a directory"
    from skillpath.safety import loads_bounded

    manifest_path = os.path.join(target, MANIFEST)
    try:
        manifest = loads_bounded(read_bounded(manifest_path, 4 * 1024 * 1024, follow=False))
    except (OSError, ValueError):
        return "manifest missing or unreadable"
    expected = tree.manifest
    if not isinstance(manifest, dict) or manifest.get("digest") != expected["digest"]:
        return "manifest digest differs"
    if manifest.get("files") != expected["files"]:
        return "manifest file list differs"
    found: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(target, followlinks=False):
        rel_dir = os.path.relpath(dirpath, target)
        for name in dirnames:
            if os.path.islink(os.path.join(dirpath, name)):
                return f"unexpected symlink {os.path.join(rel_dir, name)!r}"
        for name in filenames:
            full = os.path.join(dirpath, name)
            rel = name if rel_dir == "." else f"{rel_dir.replace(os.sep, '/')}/{name}"
            if rel == MANIFEST:
                continue
            if os.path.islink(full):
                return f"unexpected symlink {rel!r}"
            found.add(rel)
    files: Mapping[str, str] = expected["files"]
    if found != set(files):
        extra = sorted(found - set(files))
        missing = sorted(set(files) - found)
        return f"files differ (extra {extra[:3]}, missing {missing[:3]})"
    for rel, sha in files.items():
        if _sha256_file(os.path.join(target, *rel.split("/"))) != sha:
            return f"content of {rel!r} differs"
    return None


def _lock_path(tree: LazyTree) -> Path:
    return tree.target.parent / ".locks" / f"{tree.target.name}.lock"


def _mkdirs(path: Path) -> None:
    """Create ``path`` and missing parents with :data:`DIR_MODE` (umask applies to parents)."""
    path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)


def _remove(path: str) -> None:
    if os.path.islink(path) or not os.path.isdir(path):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        return
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def _extract_locked(tree: LazyTree) -> None:
    """Extract under the cross-process lock (the caller holds the thread lock)."""
    import secrets

    import filelock

    parent = tree.target.parent
    name = tree.target.name
    try:
        _mkdirs(parent / ".locks")
        with filelock.FileLock(os.fspath(_lock_path(tree)), timeout=120, mode=0o600):
            if verify_tree(tree) is None:  # another process finished meanwhile
                return
            for entry in os.scandir(parent):
                if entry.name.startswith((f".tmp-{name}-", f".stale-{name}-")):
                    _remove(entry.path)
            tmp = os.path.join(parent, f".tmp-{name}-{secrets.token_hex(6)}")
            os.mkdir(tmp, DIR_MODE)
            try:
                _write_members(tree, tmp)
                if os.path.lexists(tree.target):
                    stale = os.path.join(parent, f".stale-{name}-{secrets.token_hex(6)}")
                    os.rename(tree.target, stale)
                    _remove(stale)
                os.rename(tmp, tree.target)
            except BaseException:
                _remove(tmp)
                raise
    except filelock.Timeout as exc:
        raise ExtractionError(f"{tree.label}: timed out waiting for {exc.lock_file}") from exc
    except ContainmentError as exc:
        raise ExtractionError(f"{tree.label}: refused member: {exc}") from exc
    except OSError as exc:
        raise ExtractionError(
            f"{tree.label}: cannot extract to {tree.target}: {exc.strerror or exc}"
        ) from exc


def _write_file(path: str, data: bytes, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, mode)
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


def _write_members(tree: LazyTree, tmp: str) -> None:
    import hashlib

    made: set[str] = set()
    for member in tree.members:
        rel = check_member(member.rel)
        parts = rel.split("/")
        cur = tmp
        for part in parts[:-1]:
            cur = os.path.join(cur, part)
            if cur in made:
                continue
            os.mkdir(cur, DIR_MODE)
            os.chmod(cur, DIR_MODE)  # mkdir's mode is masked by the umask
            made.add(cur)
        dest = resolve_inside(tmp, rel)
        data = member.read()
        if hashlib.sha256(data).hexdigest() != member.sha256:
            raise ExtractionError(
                f"{tree.label}: {rel!r} changed since the skills were listed; reload them"
            )
        _write_file(os.fspath(dest), data, EXEC_MODE if member.executable else FILE_MODE)
    import json

    manifest = json.dumps(tree.manifest, indent=1, sort_keys=True).encode("utf-8")
    _write_file(os.path.join(tmp, MANIFEST), manifest, FILE_MODE)
    os.chmod(tmp, DIR_MODE)


# -- the built-in plugin: extract before anything needs real files -----------


def _skill_name_from_url(url: str) -> str | None:
    from urllib.parse import unquote

    if url[:8].lower() != "skill://":
        return None
    try:  # the same decoding as the built-in resolver (skillpath.urls)
        return unquote(url[8:].partition("/")[0], encoding="utf-8", errors="strict")
    except UnicodeDecodeError:
        return None


@hookimpl(tryfirst=True)
def resolve_url(url: str, ctx: SkillContext) -> Resource | None:
    """Extract a pack or bundled skill before the built-in ``skill://`` resolver reads it."""
    name = _skill_name_from_url(url)
    if name is None:
        return None
    skill = ctx.skills.get(name)
    if skill is not None:
        try:
            materialize(skill)
        except ExtractionError as exc:
            raise ResolveError(str(exc)) from exc
    return None


@hookimpl
@step(order=50)
def transform_prompt(text: str, invocation: Invocation, ctx: SkillContext) -> str | None:
    """Extract the invoked skill's files before ``${SKILL_DIR}`` and the base-dir prefix."""
    try:
        materialize(invocation.skill)
    except ExtractionError as exc:
        raise PromptError(str(exc)) from exc
    return None
