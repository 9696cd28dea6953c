"""The context object passed to every hook, and the directory walks built on it."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from skillpath.model import Diagnostic, Skill
from skillpath.safety import _trusted_owners, _writable_by_others
from skillpath.settings import SCHEMA, Settings, load_settings

if TYPE_CHECKING:
    from skillpath.plugins import PluginHost

__all__ = [
    "PROJECT_AREA_ENTRIES",
    "PROJECT_ENTRIES",
    "SkillContext",
    "find_repo_root",
    "is_relative_to",
    "make_context",
    "unsafe_dir_diagnostics",
    "unsafe_dir_reason",
    "walk_up_dirs",
]

#: Entries through which a directory supplies project skills, settings or
#: context; an unsafe directory holding one of them is reported.
PROJECT_ENTRIES = (
    ".claude",
    ".skillpath",
    ".agents",
    ".codex",
    ".opencode",
    ".github",
    "AGENTS.md",
    ".agent",
)
#: Every entry the project-area code reads from a directory: those above, the
#: ``.git`` that marks a repository, and the ``pyproject.toml``, ``.venv`` and
#: ``skills-lock.json`` of the libraries provider and the provenance lookup. A
#: sticky directory is judged by these (and the caller's own entries).
PROJECT_AREA_ENTRIES = (*PROJECT_ENTRIES, ".git", "pyproject.toml", ".venv", "skills-lock.json")


def unsafe_dir_reason(directory: Path | str, entries: Iterable[str] | None = None) -> str | None:
    """Why ``directory`` must not supply project skills, settings or context (``None``: it may).

    Unsafe, as git's ``safe.directory`` rule has it: a directory owned by
    another user (not the user, root, or the ``SUDO_UID`` of a ``sudo`` run),
    or one that other users can write to — world-writable, or group-writable
    for a group other than the user's private one — where they could plant a
    ``.claude`` folder. A sticky directory (like ``/tmp``) is safe only when
    the entries read from it belong to the user (or root) and are not
    writable by others (a symbolic link counts by its own owner).

    With ``entries`` (what the caller reads from ``directory`` besides
    :data:`PROJECT_AREA_ENTRIES`, say ``(".cursor",)``; of ``.cursor/skills``
    the first part counts; ``()`` for none), a sticky directory is judged by
    those names and :data:`PROJECT_AREA_ENTRIES`, each looked up with
    ``lstat``: the answer does not change when other users add or remove
    unrelated files (a busy ``/tmp``), and neither does a replayed
    ``skillpath list`` that depends on it. Without ``entries``, every hidden
    entry and ``AGENTS.md`` of a sticky directory counts (it is listed), for
    callers that do not say what they read. A directory that cannot be
    inspected is not reported (there is nothing to load from it). Always
    ``None`` where there are no uids (Windows).
    """
    if not hasattr(os, "geteuid"):
        return None
    try:
        st = os.stat(directory)
    except OSError:
        return None
    owners = _trusted_owners()
    if st.st_uid not in owners:
        return f"owned by uid {st.st_uid}, not by you"
    writable = _writable_by_others(st)
    if writable is None:
        return None
    if not st.st_mode & stat.S_ISVTX:
        return writable
    if entries is not None:
        # only the names read from here: a listing would make the answer (and a
        # replayed run that depends on it) change with every new temporary file
        names = sorted(
            {*PROJECT_AREA_ENTRIES, *(e.split("/", 1)[0] for e in entries)} - {"", ".", ".."}
        )
    else:
        try:
            with os.scandir(directory) as it:
                names = sorted(
                    e.name for e in it if e.name.startswith(".") or e.name == "AGENTS.md"
                )
        except OSError as exc:
            return f"{writable}, sticky, and cannot be listed ({exc.strerror})"
    for name in names:
        try:
            est = os.lstat(os.path.join(directory, name))
        except OSError:
            continue
        if est.st_uid not in owners:
            return f"{writable}, sticky, and its {name} is owned by uid {est.st_uid}"
        if not stat.S_ISLNK(est.st_mode) and _writable_by_others(est) is not None:
            return f"{writable}, sticky, and its {name} is writable by others"
    return None


def unsafe_dir_diagnostics(dirs: list[Path]) -> list[Diagnostic]:
    """An ``unsafe-project-dir`` warning for each of ``dirs`` that is unsafe and
    holds one of :data:`PROJECT_ENTRIES` (an empty unsafe directory is not news)."""
    out: list[Diagnostic] = []
    for folder in dirs:
        why = unsafe_dir_reason(folder, ())
        if why is None:
            continue
        held = [n for n in PROJECT_ENTRIES if os.path.lexists(os.path.join(folder, n))]
        if not held:
            continue
        out.append(
            Diagnostic(
                "warning",
                "unsafe-project-dir",
                f"project skills, settings and context not loaded from here ({', '.join(held)}): "
                f"the directory is {why}; other users could have planted them",
                folder,
            )
        )
    return out


def find_repo_root(start: Path) -> Path | None:
    """The nearest ancestor of ``start`` (itself included) holding a ``.git`` entry."""
    cur = start
    while True:
        if os.path.lexists(os.path.join(cur, ".git")):
            return cur
        parent = cur.parent
        if parent == cur:
            return None
        cur = parent


def is_relative_to(path: Path, other: Path) -> bool:
    """``path`` is ``other`` or below it (lexically)."""
    return path == other or other in path.parents


def walk_up_dirs(
    cwd: Path, home: Path, repo_root: Path | None, *, skip_home: bool = False
) -> list[Path]:
    """Directories from ``cwd`` up to the project boundary, nearest first.

    The boundary is the repository root when there is one; otherwise ``home``
    when ``cwd`` is under it; otherwise ``/``. With ``skip_home`` the home
    directory itself is never returned (it is a user-level location, not a
    project directory).
    """
    if repo_root is not None and is_relative_to(cwd, repo_root):
        stop: Path | None = repo_root
    elif is_relative_to(cwd, home):
        stop = home
    else:
        stop = None
    out: list[Path] = []
    cur = cwd
    while True:
        if not (skip_home and cur == home):
            out.append(cur)
        if stop is not None and cur == stop:
            break
        parent = cur.parent
        if parent == cur:
            break
        cur = parent
    return out


@attrs.frozen
class SkillContext:
    """Everything a hook may need, in one object that can grow without breaking plugins.

    ``cwd`` is the (resolved) working directory, ``home`` the user's home
    (``Path.home()``, so ``HOME`` works in tests), ``repo_root`` the nearest
    ancestor with ``.git`` (or ``None``), ``settings`` the merged settings,
    ``env`` the environment, ``session_id`` the agent session (if any), and
    ``skills`` the catalog by name — empty during discovery, filled for
    ``transform_prompt`` and ``resolve_url``. ``extras`` carries host-specific
    values for plugins.
    """

    cwd: Path
    home: Path
    repo_root: Path | None = None
    settings: Settings = attrs.field(factory=Settings)
    env: Mapping[str, str] = attrs.field(factory=dict)
    session_id: str | None = None
    skills: Mapping[str, Skill] = attrs.field(factory=dict)
    extras: Mapping[str, Any] = attrs.field(factory=dict)

    @property
    def project_root(self) -> Path:
        """The repository root, or ``cwd`` when there is none."""
        return self.repo_root if self.repo_root is not None else self.cwd

    @property
    def skillpath_home(self) -> Path:
        """``$SKILLPATH_HOME`` or ``~/.skillpath``."""
        override = self.env.get("SKILLPATH_HOME")
        return Path(override).expanduser() if override else self.home / ".skillpath"

    def walk_up(
        self, *, skip_home: bool = False, entries: Iterable[str] | None = None
    ) -> list[Path]:
        """Project directories from ``cwd`` up to the boundary, nearest first.

        See :func:`walk_up_dirs`; directories other users can write to or own
        (:func:`unsafe_dir_reason`) are left out — :func:`make_context`
        reports them (``unsafe-project-dir``). ``entries`` names what the
        caller reads from each directory (``(".cursor",)``): a sticky
        directory such as ``/tmp`` is then judged by those names and
        :data:`PROJECT_AREA_ENTRIES` alone, so a replayed ``skillpath list``
        does not depend on the rest of its listing. Without it, every hidden
        entry and ``AGENTS.md`` of a sticky directory counts.
        """
        dirs = walk_up_dirs(self.cwd, self.home, self.repo_root, skip_home=skip_home)
        names = None if entries is None else tuple(entries)
        return [d for d in dirs if unsafe_dir_reason(d, names) is None]

    def expand(self, value: str) -> Path:
        """Expand ``~`` (against :attr:`home`); resolve relative paths against the project root."""
        if value == "~" or value.startswith("~/"):
            p = self.home / value[2:] if len(value) > 1 else self.home
        else:
            p = Path(value)
        if not p.is_absolute():
            p = self.project_root / p
        return p

    def env_dir(self, name: str) -> Path | None:
        """The directory named by environment variable ``name``, or ``None`` when unset.

        ``~`` means :attr:`home` (not the process's), and a relative value is
        taken against :attr:`cwd` — the rule every provider applies to
        ``CLAUDE_CONFIG_DIR``, ``CODEX_HOME`` and friends.
        """
        value = self.env.get(name, "")
        if not value:
            return None
        if value == "~" or value.startswith("~/"):
            return self.home / value[2:]
        path = Path(value)
        return path if path.is_absolute() else self.cwd / path

    def iter_env_paths(self, name: str) -> Iterator[Path]:
        """``os.pathsep``-separated paths from environment variable ``name``."""
        for part in self.env.get(name, "").split(os.pathsep):
            if part:
                yield Path(part).expanduser()


def make_context(
    cwd: str | os.PathLike[str] | None = None,
    *,
    home: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    settings: Mapping[str, Any] | Settings | None = None,
    session_id: str | None = None,
    host: PluginHost | None = None,
) -> tuple[SkillContext, list[Diagnostic]]:
    """Build a :class:`SkillContext` for ``cwd`` with settings read from disk.

    ``settings`` may be a ready :class:`Settings` (used as is) or a mapping of
    overrides applied on top of the config files. When a config file holds a
    section skillpath does not know, the plugins (``host``, default: the
    process-wide host for these settings) are asked which sections they
    declare (the ``settings_schema`` hook), and those are validated too.
    """
    env_map: Mapping[str, str] = dict(os.environ) if env is None else env
    cwd_path = Path(cwd if cwd is not None else os.getcwd()).expanduser()
    try:
        cwd_path = cwd_path.resolve()
    except OSError:
        cwd_path = cwd_path.absolute()
    home_path = Path(home).expanduser() if home is not None else Path.home()
    try:
        home_path = home_path.resolve()
    except OSError:
        pass
    repo_root = find_repo_root(cwd_path)
    diags: list[Diagnostic] = []
    if isinstance(settings, Settings):
        merged = settings
    else:
        sw_home_env = env_map.get("SKILLPATH_HOME")
        sw_home = Path(sw_home_env).expanduser() if sw_home_env else home_path / ".skillpath"
        project: Path | None = repo_root if repo_root is not None else cwd_path
        if project is not None and unsafe_dir_reason(project, ()) is not None:
            project = None  # its config could be anyone's (reported below)
        merged, diags = load_settings(sw_home, project, settings, home=home_path)
        if any(section not in SCHEMA for section in merged.data):
            if host is None:
                from skillpath.plugins import get_plugin_host

                host = get_plugin_host(
                    env_map,
                    blocked=merged.get("plugins", "blocked", ()),
                    strict=True if merged.get("plugins", "strict") else None,
                )
            declared, hdiags = host.settings_schema()
            if any(section in declared for section in merged.data):
                merged, diags = load_settings(
                    sw_home, project, settings, home=home_path, plugin_schema=declared
                )
            diags.extend(hdiags)
    diags.extend(unsafe_dir_diagnostics(walk_up_dirs(cwd_path, home_path, repo_root)))
    ctx = SkillContext(
        cwd=cwd_path,
        home=home_path,
        repo_root=repo_root,
        settings=merged,
        env=env_map,
        session_id=session_id,
    )
    return ctx, diags
