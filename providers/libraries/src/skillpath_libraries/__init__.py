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

Each skill is credited to the distribution that installed its ``SKILL.md``: the one
whose ``RECORD`` lists the file. A wheel can drop files into another distribution's
package folder; a skill whose ``SKILL.md`` is listed in another distribution's
``RECORD`` is credited to that one, and one listed in no ``RECORD`` (while the
package's own distribution has one) to none; both get a warning naming the file
(``library-skill-foreign``, ``library-skill-unrecorded``). Editable installs and
distributions without a ``RECORD`` are credited by package as before.

Precedence: as for skill packs, what a person wrote beats what a package installed:
the result is *late* (``late=True``, priority 9, just below packs' 10), so a library's
skill merges after every hand-written and custom-directory skill and loses a name clash
to them. Toggle: ``[skills]
enable_libraries`` (default on). Roots are listed in ``sys.path`` order, packages in
name order; the first skill of a name wins.
"""

from __future__ import annotations

import csv
import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import attrs
from skillpath import Discovery, DiscoveryResult, SkillContext, hookimpl

__all__ = [
    "PRIORITY",
    "PROVIDER_ID",
    "LibraryRoot",
    "discover_skills",
    "installed_by",
    "library_roots",
]

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
    #: The site directory and the owner's ``.dist-info`` folder name in it (empty
    #: for an editable install: its files are not where its ``RECORD`` says).
    site: str = ""
    info: str = ""


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


def _record_files(site: str, info: str) -> frozenset[str] | None:
    """The files a dist-info's ``RECORD`` lists (``/``-separated paths relative to
    ``site``, normalised); ``None`` when it has no ``RECORD`` (or an empty one)."""
    text = _read_small(os.path.join(site, info, "RECORD"), 1 << 24)
    if not text:
        return None
    files: set[str] = set()
    for row in csv.reader(text.splitlines()):
        if row and row[0]:
            files.add(os.path.normpath(row[0].replace("\\", "/")).replace(os.sep, "/"))
    return frozenset(files)


#: ``{RECORD path: ((mtime_ns, size, ino), files)}``: a RECORD is parsed once per version.
_RECORDS: dict[str, tuple[tuple[int, int, int], frozenset[str] | None]] = {}


def _recorded(site: str, info: str) -> frozenset[str] | None:
    path = os.path.join(site, info, "RECORD")
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = (st.st_mtime_ns, st.st_size, st.st_ino)
    memo = _RECORDS.get(path)
    if memo is None or memo[0] != key:
        memo = (key, _record_files(site, info))
        _RECORDS[path] = memo
    return memo[1]


def installed_by(lib: LibraryRoot, skill_file: str | os.PathLike[str]) -> tuple[str, str] | None:
    """The ``(distribution, version)`` whose ``RECORD`` lists ``skill_file`` (a file
    under ``lib.path``): ``lib``'s own distribution when its ``RECORD`` does (or
    when nothing can be checked: an editable install, no ``RECORD`` anywhere),
    another distribution of the same site directory when that one's does, else
    ``None`` (listed in no ``RECORD``)."""
    own = (lib.distribution, lib.version)
    if not lib.site or not lib.info:
        return own
    rel = os.path.relpath(os.fspath(skill_file), lib.site).replace(os.sep, "/")
    mine = _recorded(lib.site, lib.info)
    if mine is not None and rel in mine:
        return own
    try:
        with os.scandir(lib.site) as it:
            infos = sorted(e.name for e in it if e.name.endswith(".dist-info"))
    except OSError:
        infos = []
    for info in infos:
        if info == lib.info:
            continue
        files = _recorded(lib.site, info)
        if files is not None and rel in files:
            name, version = _metadata(lib.site, info)
            return name or info[: -len(".dist-info")], version
    return None if mine is not None else own


def _owner_info(package: str, site: str, infos: dict[str, str]) -> str | None:
    """The ``.dist-info`` folder name of the distribution that provides ``package``."""
    found = _owner(package, site, infos, info_only=True)
    return found[0] if found is not None else None


def _owner(
    package: str, site: str, infos: dict[str, str], *, info_only: bool = False
) -> tuple[str, str] | None:
    """The installed distribution that provides top-level ``package``: the dist-info of
    the same normalised name, else one whose name starts with it (``pydantic_ai`` from
    ``pydantic-ai-slim``) and whose ``RECORD`` lists the package, else one whose
    ``top_level.txt`` or ``RECORD`` does."""
    norm = _normal(package)

    def found(info: str) -> tuple[str, str]:
        return (info, "") if info_only else _metadata(site, info)

    match = infos.get(norm)
    if match is not None:
        return found(match)
    near = sorted(i for n, i in infos.items() if n.startswith(norm) or norm.startswith(n))
    rest = sorted(i for i in infos.values() if i not in near)
    for info in near:
        if _records(site, info, package):
            return found(info)
    for info in rest:
        if package in _read_small(os.path.join(site, info, "top_level.txt")).split():
            return found(info)
    for info in rest:
        if _records(site, info, package):
            return found(info)
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
        info = _owner_info(name, entry, infos) if infos else None
        if info is not None:
            dist, version = _metadata(entry, info)
            out.append(LibraryRoot(Path(root), name, dist, version, entry, info))
            continue
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
        res = d.scan(
            lib.path,
            "package",
            require_description=True,
            distribution=lib.distribution,
            version=lib.version,
            package=lib.package,
        )
        if lib.site and lib.info:
            _credit(d, lib, res.skills)
    return d.result()


def _credit(d: Discovery, lib: LibraryRoot, skills: Iterable[Any]) -> None:
    """Credit each skill of ``lib`` to the distribution whose ``RECORD`` lists its
    ``SKILL.md`` (see :func:`installed_by`); warn about the others."""
    swap: dict[int, Any] = {}
    for skill in skills:
        if skill.path is None:
            continue
        got = installed_by(lib, skill.path)
        if got == (lib.distribution, lib.version):
            continue
        detail = dict(skill.source.detail)
        detail["package_distribution"] = lib.distribution
        if got is None:
            detail["distribution"] = ""
            detail["version"] = ""
            d.diagnostic(
                "warning",
                "library-skill-unrecorded",
                f"skill {skill.name!r} sits in package {lib.package!r} of {lib.distribution}, "
                "but no installed distribution's RECORD lists its SKILL.md "
                "(added after installation); it is credited to no distribution",
                skill.path,
            )
        else:
            detail["distribution"], detail["version"] = got
            d.diagnostic(
                "warning",
                "library-skill-foreign",
                f"skill {skill.name!r} sits in package {lib.package!r} of {lib.distribution}, "
                f"but it was installed by {got[0]} {got[1]} (its RECORD lists the SKILL.md); "
                f"it is credited to {got[0]}",
                skill.path,
            )
        source = attrs.evolve(skill.source, detail=detail)
        swap[id(skill)] = attrs.evolve(skill, source=source)
    if swap:
        d.skills[:] = [swap.get(id(s), s) for s in d.skills]
