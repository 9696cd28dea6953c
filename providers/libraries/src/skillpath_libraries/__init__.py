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

**Whose libraries.** The skills are for the agent working on the project, so the
libraries are the *project's*, not those of the environment skillpath itself runs in
(:func:`project_environment`, first found wins):

1. ``SKILLPATH_LIBRARIES``, when set: these directories (separated by ``os.pathsep``;
   empty: none), for hosts that run in one environment and serve another, and for tests;
2. ``[skills] libraries_environment``: ``project`` (the default) looks for the
   project's environment as below; ``interpreter`` reads ``sys.path``, the environment
   skillpath runs in (what a host that embeds skillpath in the project's own
   interpreter may set); any other value is the path of a virtual environment
   (``~`` expands, relative to the project root);
3. ``UV_PROJECT_ENVIRONMENT`` (uv's name for the project's environment; relative to
   the project root);
4. a ``.venv`` with a ``pyvenv.cfg`` in the working directory or a parent, up to the
   repository root (uv's, Poetry's in-project and ``python -m venv``'s default);
5. ``VIRTUAL_ENV``, unless it is skillpath's own environment (``sys.prefix``) outside the
   project — an activated environment of another tool does not speak for the project;
6. Poetry's environment for the project (``<cache>/pypoetry/virtualenvs/<name>-<hash>-py*``,
   ``POETRY_VIRTUALENVS_PATH`` honoured), when the project's ``pyproject.toml`` has
   ``[tool.poetry]``.

No environment found: no library skills. Of an environment, every
``site-packages`` directory is read, with the directories its ``.pth`` files add
(editable installs), whose packages are credited through that environment's
distributions.

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
    "environment_dirs",
    "installed_by",
    "library_roots",
    "project_environment",
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
    import csv  # only for a distribution with a RECORD to read

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


def _editable_owner(package: str, sites: tuple[str, ...] = ()) -> tuple[str, str] | None:
    """For a package outside any site directory (an editable install): its distribution
    (among those installed in ``sites``; none given: skillpath's own environment)."""
    from importlib.metadata import distributions, packages_distributions, version

    if sites:
        norm = _normal(package)
        found = []
        for dist in distributions(path=list(sites)):
            name = dist.metadata["Name"] or ""
            top = (dist.read_text("top_level.txt") or "").split()
            if _normal(name) == norm or package in top:
                found.append((name, dist.version or ""))
        return min(found) if found else None

    names = packages_distributions().get(package) or []
    for name in sorted(names):
        try:
            return name, version(name)
        except Exception:  # noqa: BLE001, S112 - a broken distribution is no owner
            continue
    return None


#: ``{(directory, sites): ((mtime_ns, ino, dev), roots)}``: a directory whose entries did
#: not change (installing or removing a package changes its mtime) is not read again.
_MEMO: dict[tuple[str, tuple[str, ...]], tuple[tuple[int, int, int], list[LibraryRoot]]] = {}


def _scan_dir(entry: str, sites: tuple[str, ...] = ()) -> list[LibraryRoot]:
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
        owner = _editable_owner(name, sites)
        if owner is None:
            continue
        out.append(LibraryRoot(Path(root), name, owner[0], owner[1]))
    return out


def library_roots(
    path: Iterable[str] | None = None,
    cwd: str | None = None,
    sites: Iterable[str] = (),
) -> list[LibraryRoot]:
    """Every ``<package>/.agents/skills`` of an installed distribution on ``path``
    (default ``sys.path``), in path order, packages in name order per directory;
    ``sites`` are the site directories of the environment ``path`` belongs to when
    it is not skillpath's own (editable installs are credited through them).

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
        own = tuple(sites)
        memo = _MEMO.get((real, own))
        if memo is None or memo[0] != key:
            memo = (key, _scan_dir(entry, own))
            _MEMO[(real, own)] = memo
        out.extend(memo[1])
    return out


def _is_env(path: Path) -> bool:
    return (path / "pyvenv.cfg").is_file() or (path / "conda-meta").is_dir()


def _poetry_env(ctx: SkillContext) -> Path | None:
    """Poetry's environment for the nearest project with ``[tool.poetry]``, in its cache."""
    for folder in ctx.walk_up(entries=("pyproject.toml",)):
        pyproject = folder / "pyproject.toml"
        text = _read_small(os.fspath(pyproject), 1 << 20)
        if not text:  # none here (or empty): no need to import tomllib
            continue
        import tomllib

        try:
            data = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, ValueError):
            continue
        poetry = data.get("tool", {}).get("poetry")
        if not isinstance(poetry, dict):
            continue
        name = poetry.get("name") or data.get("project", {}).get("name") or folder.name
        import base64
        import hashlib

        sanitized = re.sub(r'[ $`!*@"\\\r\n\t]', "_", str(name).lower())[:42]
        digest = hashlib.sha256(os.fspath(folder).encode()).digest()
        stem = f"{sanitized}-{base64.urlsafe_b64encode(digest).decode()[:8]}-py"
        where = ctx.env.get("POETRY_VIRTUALENVS_PATH")
        if where:
            base = Path(where).expanduser()
        else:
            cache = ctx.env.get("POETRY_CACHE_DIR") or os.path.join(
                ctx.env.get("XDG_CACHE_HOME") or os.fspath(ctx.home / ".cache"), "pypoetry"
            )
            base = Path(cache) / "virtualenvs"
        try:
            found = sorted(p for p in base.iterdir() if p.name.startswith(stem) and _is_env(p))
        except OSError:
            found = []
        return found[-1] if found else None
    return None


def project_environment(ctx: SkillContext) -> tuple[Path | None, str]:
    """The project's Python environment and what named it (see the module docstring,
    steps 3 to 6): ``(None, "")`` when there is none."""
    root = ctx.project_root
    named = ctx.env.get("UV_PROJECT_ENVIRONMENT")
    if named:
        path = Path(named).expanduser()
        path = path if path.is_absolute() else root / path
        if _is_env(path):
            return path, "UV_PROJECT_ENVIRONMENT"
    for folder in ctx.walk_up(entries=(".venv",)):
        if _is_env(folder / ".venv"):
            return folder / ".venv", ".venv"
    active = ctx.env.get("VIRTUAL_ENV")
    if active:
        path = Path(active)
        own = os.path.realpath(sys.prefix) == os.path.realpath(path)
        inside = os.path.realpath(path).startswith(os.path.realpath(root) + os.sep)
        if path.is_dir() and (inside or not own):
            return path, "VIRTUAL_ENV"
    poetry = _poetry_env(ctx)
    if poetry is not None:
        return poetry, "poetry"
    return None, ""


_SITE_GLOBS = ("lib/python*/site-packages", "lib64/python*/site-packages", "Lib/site-packages")


def environment_dirs(env_dir: Path) -> list[str]:
    """The ``site-packages`` directories of environment ``env_dir`` and the existing
    directories their ``.pth`` files add (import lines skipped), in a stable order."""
    sites: list[str] = []
    for pattern in (
        "lib/python*/site-packages",
        "lib64/python*/site-packages",
        "Lib/site-packages",
    ):
        sites.extend(os.fspath(p) for p in sorted(env_dir.glob(pattern)) if p.is_dir())
    out = list(dict.fromkeys(os.path.realpath(s) for s in sites))
    for site in list(out):
        try:
            names = sorted(n for n in os.listdir(site) if n.endswith(".pth"))
        except OSError:
            continue
        for name in names:
            for line in _read_small(os.path.join(site, name)).splitlines():
                line = line.strip()
                if not line or line.startswith(("#", "import ", "import\t")):
                    continue
                extra = os.path.realpath(os.path.join(site, line))
                if os.path.isdir(extra) and extra not in out:
                    out.append(extra)
    return out


def _where(ctx: SkillContext) -> tuple[list[str] | None, tuple[str, ...], str]:
    """``(directories, site directories, what named them)``; ``None``: ``sys.path``."""
    override = ctx.env.get("SKILLPATH_LIBRARIES")
    if override is not None:
        return [p for p in override.split(os.pathsep) if p], (), "SKILLPATH_LIBRARIES"
    choice = str(ctx.settings.get("skills", "libraries_environment") or "project").strip()
    if choice == "interpreter":
        return None, (), "interpreter"
    if choice == "project":
        env_dir, why = project_environment(ctx)
    else:
        env_dir, why = ctx.expand(choice), "libraries_environment"
    if env_dir is None:
        return [], (), ""
    dirs = environment_dirs(env_dir)
    sites = tuple(d for d in dirs if os.path.basename(d) == "site-packages")
    return dirs, sites, why


@hookimpl
def discover_skills(ctx: SkillContext) -> DiscoveryResult:
    """The skills every installed library ships in ``<package>/.agents/skills``."""
    d = Discovery(PROVIDER_ID, PRIORITY, late=True)
    path, sites, _why = _where(ctx)
    for site in sites:
        d.input(site)  # an install or uninstall there changes what is found
    for lib in library_roots(path, cwd=str(ctx.cwd), sites=sites):
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
