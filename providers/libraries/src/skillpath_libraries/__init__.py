"""Provider ``libraries``: skills that installed Python libraries ship with their code.

Libraries such as FastAPI and Typer put skills for their users inside the installed
package, ``<package>/.agents/skills/<name>/SKILL.md`` (the convention ``library-skills``
links into agent folders). This provider finds them in every installed distribution:

- every directory on ``sys.path`` except the working directory (``''``) is looked at,
  one ``os.scandir`` each; a top-level package directory ``X`` counts when
  ``X/.agents/skills`` is a directory;
- ``X`` must belong to an installed distribution (a ``*.dist-info`` whose normalised
  name is ``X``'s, or whose ``top_level.txt`` names ``X``; for editable installs the
  distributions' file lists are consulted), so a folder of the project that happens to
  sit on ``sys.path`` is not taken for a library;
- each such root is scanned one level deep like any skills root (description
  required), level ``package`` (inline shell off unless ``[shell] levels`` lists
  ``package``), with the distribution, its version and the package in the source
  detail, so ``explain`` and ``show`` name them.

``SKILLPATH_LIBRARIES``, when set, replaces ``sys.path`` as the list of directories to
look in (separated by ``os.pathsep``; empty: none), for hosts that run in one environment
and serve another, and for tests.

Precedence: as for skill packs, what a person wrote beats what a package installed:
the result is *late* (``late=True``, priority 9, just below packs' 10), so a library's
skill merges after every hand-written and custom-directory skill and loses a name clash
to them. Toggle: ``[skills]
enable_libraries`` (default on). Roots are listed in ``sys.path`` order, packages in
name order; the first skill of a name wins.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path

import attrs
from skillpath import Discovery, DiscoveryResult, SkillContext, hookimpl

__all__ = ["PRIORITY", "PROVIDER_ID", "LibraryRoot", "discover_skills", "library_roots"]

PROVIDER_ID = "libraries"
PRIORITY = 9
#: What the hooks here depend on (:func:`skillpath.depends_on`): only files, so an
#: unchanged ``skillpath list`` may be replayed.
DEPENDS_ON = ("files",)
#: Where a library keeps its skills, relative to its package directory.
SKILLS_SUBDIR = (".agents", "skills")
_NORMALISE = re.compile(r"[-_.]+")


@attrs.frozen
class LibraryRoot:
    """One library's skills root: ``<site>/<package>/.agents/skills``."""

    path: Path
    package: str
    distribution: str
    version: str


def _normal(name: str) -> str:
    return _NORMALISE.sub("_", name).lower()


def _dist_infos(site: str, names: Iterable[str]) -> dict[str, str]:
    """``{normalised distribution name: dist-info dir name}`` among ``names``."""
    out: dict[str, str] = {}
    for name in names:
        if name.endswith(".dist-info"):
            dist = name[: -len(".dist-info")].rsplit("-", 1)[0]
            out.setdefault(_normal(dist), name)
    return out


def _read_small(path: str, limit: int = 1 << 16) -> str:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return ""
    try:
        import stat

        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        return os.read(fd, limit).decode("utf-8", "replace")
    except OSError:
        return ""
    finally:
        os.close(fd)


def _metadata(site: str, info: str) -> tuple[str, str]:
    """``(Name, Version)`` from a dist-info's METADATA (the header lines only)."""
    name = version = ""
    for line in _read_small(os.path.join(site, info, "METADATA"), 1 << 14).splitlines():
        if not line:
            break
        key, _, value = line.partition(":")
        if key == "Name" and not name:
            name = value.strip()
        elif key == "Version" and not version:
            version = value.strip()
    return name, version


def _records(site: str, info: str, package: str) -> bool:
    """Whether the dist-info's ``RECORD`` lists files of top-level ``package``."""
    prefix = package + "/"
    text = _read_small(os.path.join(site, info, "RECORD"), 1 << 24)
    return any(line.startswith(prefix) for line in text.splitlines())


def _owner(package: str, site: str, infos: dict[str, str]) -> tuple[str, str] | None:
    """The installed distribution that provides top-level ``package``: the dist-info of
    the same normalised name, else one whose name starts with it (``pydantic_ai`` from
    ``pydantic-ai-slim``) and whose ``RECORD`` lists the package, else one whose
    ``top_level.txt`` or ``RECORD`` does."""
    norm = _normal(package)
    match = infos.get(norm)
    if match is not None:
        return _metadata(site, match)
    near = sorted(i for n, i in infos.items() if n.startswith(norm) or norm.startswith(n))
    rest = sorted(i for i in infos.values() if i not in near)
    for info in near:
        if _records(site, info, package):
            return _metadata(site, info)
    for info in rest:
        if package in _read_small(os.path.join(site, info, "top_level.txt")).split():
            return _metadata(site, info)
    for info in rest:
        if _records(site, info, package):
            return _metadata(site, info)
    return None


def _editable_owner(package: str) -> tuple[str, str] | None:
    """For a package outside any site directory (an editable install): its distribution."""
    from importlib.metadata import packages_distributions, version

    names = packages_distributions().get(package) or []
    for name in sorted(names):
        try:
            return name, version(name)
        except Exception:  # noqa: BLE001, S112 - a broken distribution is no owner
            continue
    return None


#: ``{directory: ((mtime_ns, ino, dev), roots)}``: a directory whose entries did not
#: change (installing or removing a package changes its mtime) is not read again.
_MEMO: dict[str, tuple[tuple[int, int, int], list[LibraryRoot]]] = {}


def _scan_dir(entry: str) -> list[LibraryRoot]:
    try:
        with os.scandir(entry) as it:
            names = sorted(e.name for e in it if e.is_dir() and not e.name.startswith("."))
    except OSError:
        return []
    infos = _dist_infos(entry, names)
    out: list[LibraryRoot] = []
    for name in names:
        if "." in name or name == "__pycache__":
            continue
        root = os.path.join(entry, name, *SKILLS_SUBDIR)
        if not os.path.isdir(root):
            continue
        owner = _owner(name, entry, infos) if infos else None
        if owner is None:
            owner = _editable_owner(name)
        if owner is None:
            continue
        out.append(LibraryRoot(Path(root), name, owner[0], owner[1]))
    return out


def library_roots(path: Iterable[str] | None = None, cwd: str | None = None) -> list[LibraryRoot]:
    """Every ``<package>/.agents/skills`` of an installed distribution on ``path``
    (default ``sys.path``), in path order, packages in name order per directory.

    A directory is read again only when its own modification time (or identity)
    changed since the last call in this process; a package whose skills folder
    appears without its directory changing is seen by the next process.
    """
    entries = list(sys.path if path is None else path)
    here = os.path.realpath(cwd if cwd is not None else os.getcwd())
    seen: set[str] = set()
    out: list[LibraryRoot] = []
    for entry in entries:
        if not entry:
            continue
        real = os.path.realpath(entry)
        if real in seen or real == here:
            continue
        seen.add(real)
        try:
            st = os.stat(entry)
        except OSError:
            continue
        key = (st.st_mtime_ns, st.st_ino, st.st_dev)
        memo = _MEMO.get(real)
        if memo is None or memo[0] != key:
            memo = (key, _scan_dir(entry))
            _MEMO[real] = memo
        out.extend(memo[1])
    return out


@hookimpl
def discover_skills(ctx: SkillContext) -> DiscoveryResult:
    """The skills every installed library ships in ``<package>/.agents/skills``."""
    d = Discovery(PROVIDER_ID, PRIORITY, late=True)
    override = ctx.env.get("SKILLPATH_LIBRARIES")
    path = None if override is None else [p for p in override.split(os.pathsep) if p]
    for lib in library_roots(path, cwd=str(ctx.cwd)):
        d.scan(
            lib.path,
            "package",
            require_description=True,
            distribution=lib.distribution,
            version=lib.version,
            package=lib.package,
        )
    return d.result()
