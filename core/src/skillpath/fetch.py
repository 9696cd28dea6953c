"""Where ``skillpath add`` gets skills from: a git repository, GitHub shorthand, a local
folder or an archive, and the skills found there.

Sources are spelled as ``npx skills`` spells them, so one command line works with
either tool:

=================================  ==========================================================
``SOURCE``                         what is fetched
=================================  ==========================================================
``./dir``, ``../dir``, ``/abs``    a local folder (read in place)
``pack.tar.gz``, ``pack.zip``      an archive file (``.tar``, ``.tar.gz``, ``.tgz``, ``.zip``),
                                   extracted into a temporary folder
``owner/repo[/path]``              ``https://github.com/owner/repo.git`` (``path``: a folder in it)
``https://github.com/o/r/tree/REF/path``  the same, at ``REF``
any other URL (``git://``,         a git repository, cloned with ``git clone --depth 1``
``ssh://``, ``git@host:``,
``https://….git``, ``file://``)
=================================  ==========================================================

A ``#REF`` suffix on a git source picks a branch or tag. A relative folder must start
with ``./`` or ``../`` (``owner/repo`` is GitHub shorthand, as for ``npx skills``).

Git runs as its own command (no shell), with a timeout (``SKILLPATH_GIT_TIMEOUT``
seconds, default 120), no terminal prompts and the ``ext::`` transport refused.
Archives are extracted member by member: absolute names, ``..`` components, links and
special files are refused, and the total size and member count are capped
(:data:`MAX_ARCHIVE_BYTES`, :data:`MAX_ARCHIVE_MEMBERS`), counting the bytes actually
written, not the sizes the archive claims.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath

import attrs

from skillpath.errors import SkillpathError
from skillpath.model import Diagnostic
from skillpath.textguard import escape_controls, name_refusal

__all__ = [
    "MAX_ARCHIVE_BYTES",
    "MAX_ARCHIVE_MEMBERS",
    "MAX_SKILL_BYTES",
    "Found",
    "Source",
    "discover",
    "fetched",
    "parse_source",
    "skill_folder_files",
]

#: Most bytes an archive may extract to.
MAX_ARCHIVE_BYTES = 64 * 1024 * 1024
#: Most members an archive may hold.
MAX_ARCHIVE_MEMBERS = 10_000
#: Most bytes one skill folder may hold to be installed.
MAX_SKILL_BYTES = 32 * 1024 * 1024
#: Folders never searched for skills, nor copied (as ``npx skills``).
SKIP_DIRS = frozenset({"node_modules", ".git", "dist", "build", "__pycache__"})
_MAX_DEPTH = 5
_ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip")
#: A skill name that is its own folder name (what ``npx skills`` would name the folder).
SKILL_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,127}")


@attrs.frozen
class Source:
    """A parsed ``SOURCE`` argument.

    ``kind`` is ``local``, ``archive``, ``git`` or ``github``; ``location`` the folder,
    archive file or clone URL; ``ref`` a branch or tag (git only); ``subpath`` a folder
    inside the repository to look in. ``lock_source`` and ``lock_url`` are what the
    ``source`` and ``sourceUrl`` fields of a ``skills-lock.json`` entry hold for it.
    """

    kind: str
    location: str
    ref: str | None = None
    subpath: str | None = None

    @property
    def lock_type(self) -> str:
        """The ``sourceType`` of the lock entry (``local``, ``git`` or ``github``)."""
        return "local" if self.kind == "archive" else self.kind

    @property
    def lock_source(self) -> str:
        """The ``source`` field: ``owner/repo`` for GitHub, else the URL or path."""
        if self.kind == "github":
            match = re.fullmatch(r"https://github\.com/([^/]+)/([^/]+?)\.git", self.location)
            if match:
                return f"{match.group(1)}/{match.group(2)}"
        return self.location

    @property
    def lock_url(self) -> str | None:
        """The ``sourceUrl`` field (generic git sources only, as ``npx skills`` writes it)."""
        return self.location if self.kind == "git" else None

    def describe(self) -> str:
        """The source for people: location, then ``#ref`` and ``/subpath`` when given."""
        text = self.location
        if self.ref:
            text += f"#{self.ref}"
        if self.subpath:
            text += f" ({self.subpath})"
        return text


def _safe_subpath(subpath: str, text: str) -> str:
    parts = PurePosixPath(subpath.replace("\\", "/")).parts
    if any(p == ".." for p in parts) or subpath.startswith("/"):
        raise SkillpathError(f"{text}: the folder {subpath!r} leaves the repository")
    return "/".join(p for p in parts if p not in ("", "."))


def _is_local(text: str) -> bool:
    return (
        os.path.isabs(text)
        or text in (".", "..")
        or text.startswith(("./", "../", "~/"))
        or bool(re.match(r"^[A-Za-z]:[/\\]", text))
    )


def parse_source(text: str, cwd: Path) -> Source:
    """Parse a ``SOURCE`` argument (see the module docstring); ``cwd`` anchors a
    relative folder. :raises SkillpathError: for an empty source or one that leaves
    the repository."""
    text = text.strip()
    if not text:
        raise SkillpathError("the source is empty")
    plain = "/" not in text and ":" not in text and "#" not in text
    if (
        _is_local(text)
        or (plain and (cwd / text).is_dir())
        or (text.lower().endswith(_ARCHIVE_SUFFIXES) and (cwd / text).expanduser().is_file())
    ):
        path = Path(text).expanduser()
        path = path if path.is_absolute() else cwd / path
        path = Path(os.path.normpath(path))
        kind = "archive" if path.name.lower().endswith(_ARCHIVE_SUFFIXES) else "local"
        return Source(kind, str(path))
    ref = None
    if "#" in text:
        text, _, ref = text.partition("#")
        ref = ref or None
    if ref is not None and (ref.startswith("-") or not re.fullmatch(r"[\w./@+-]+", ref)):
        raise SkillpathError(f"#{ref}: not a branch or tag name")
    if text.startswith("github:"):
        text = text[len("github:") :]
    if text.lower().startswith("ext::"):
        raise SkillpathError(f"{text}: the ext:: transport is not allowed")
    tree = re.match(r"^https?://github\.com/([^/]+)/([^/]+)/tree/([^/]+)(?:/(.+?))?/?$", text)
    if tree:
        owner, repo, tree_ref, sub = tree.groups()
        return Source(
            "github",
            f"https://github.com/{owner}/{repo}.git",
            ref or tree_ref,
            _safe_subpath(sub, text) if sub else None,
        )
    repo_url = re.match(r"^https?://github\.com/([^/]+)/([^/]+?)(?:\.git)?/?$", text)
    if repo_url:
        owner, repo = repo_url.groups()
        return Source("github", f"https://github.com/{owner}/{repo}.git", ref)
    short = re.fullmatch(r"([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)(?:/(.+?))?/?", text)
    if short and ":" not in text:
        owner, repo, sub = short.groups()
        return Source(
            "github",
            f"https://github.com/{owner}/{repo.removesuffix('.git')}.git",
            ref,
            _safe_subpath(sub, text) if sub else None,
        )
    if text.startswith("-"):
        raise SkillpathError(f"{text}: not a source")
    return Source("git", text, ref)


# -- fetching ------------------------------------------------------------------------


def _git_timeout(env: Mapping[str, str]) -> float:
    value = env.get("SKILLPATH_GIT_TIMEOUT", "")
    try:
        return float(value) if value else 120.0
    except ValueError:
        return 120.0


def git_clone(url: str, dest: Path, ref: str | None, env: Mapping[str, str]) -> str:
    """``git clone --depth 1`` of ``url`` (at ``ref``) into ``dest``; the commit cloned.

    :raises SkillpathError: when git is missing, fails, or runs past the timeout.
    """
    timeout = _git_timeout(env)
    git_env = {**os.environ, **env, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true"}
    git_env.pop("GIT_DIR", None)
    base = ["git", "-c", "protocol.ext.allow=never", "-c", "core.hooksPath=/dev/null"]
    cmd = [*base, "clone", "--quiet", "--depth", "1", "--no-recurse-submodules"]
    if ref:
        cmd += ["--branch", ref]
    cmd += ["--", url, str(dest)]
    try:
        done = subprocess.run(
            cmd,
            env=git_env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError as exc:
        raise SkillpathError("git is not installed (it is needed to fetch from git)") from exc
    except subprocess.TimeoutExpired as exc:
        raise SkillpathError(
            f"git clone {url}: no answer within {timeout:g} s (SKILLPATH_GIT_TIMEOUT)"
        ) from exc
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = err[-1] if err else f"exit status {done.returncode}"
        raise SkillpathError(f"git clone {url}{'#' + ref if ref else ''}: {why}")
    head = subprocess.run(
        [*base, "-C", str(dest), "rev-parse", "HEAD"],
        env=git_env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=timeout,
        check=False,
    )
    return head.stdout.decode("ascii", "replace").strip()


def _member_target(root: Path, name: str, archive: Path) -> Path:
    clean = name.replace("\\", "/")
    parts = PurePosixPath(clean).parts
    if clean.startswith("/") or re.match(r"^[A-Za-z]:", clean) or ".." in parts:
        raise SkillpathError(f"{archive}: member {name!r} would land outside the archive folder")
    return root.joinpath(*[p for p in parts if p not in ("", ".")])


class _Budget:
    def __init__(self, archive: Path) -> None:
        self.archive = archive
        self.bytes = 0
        self.members = 0

    def member(self) -> None:
        self.members += 1
        if self.members > MAX_ARCHIVE_MEMBERS:
            raise SkillpathError(f"{self.archive}: more than {MAX_ARCHIVE_MEMBERS} members")

    def copy(self, src: object, dest: Path) -> None:
        dest.parent.mkdir(parents=True, exist_ok=True)
        with open(dest, "xb") as out:
            while True:
                chunk = src.read(1 << 16)  # type: ignore[attr-defined]
                if not chunk:
                    break
                self.bytes += len(chunk)
                if self.bytes > MAX_ARCHIVE_BYTES:
                    raise SkillpathError(
                        f"{self.archive}: extracts to more than {MAX_ARCHIVE_BYTES} bytes"
                    )
                out.write(chunk)


def extract_archive(archive: Path, dest: Path) -> None:
    """Extract ``archive`` (tar, gzip'd tar or zip) into the empty folder ``dest``.

    :raises SkillpathError: for an unreadable archive, a member that is absolute, has a
        ``..`` component, is a link or a special file, or past the size caps.
    """
    import tarfile
    import zipfile

    budget = _Budget(archive)
    try:
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as zf:
                for info in zf.infolist():
                    budget.member()
                    target = _member_target(dest, info.filename, archive)
                    mode = (info.external_attr >> 16) & 0o170000
                    if mode and mode not in (0o100000, 0o040000):
                        raise SkillpathError(
                            f"{archive}: member {info.filename!r} is a link or a special file"
                        )
                    if info.is_dir():
                        target.mkdir(parents=True, exist_ok=True)
                        continue
                    with zf.open(info) as src:
                        budget.copy(src, target)
            return
        with tarfile.open(archive) as tf:
            for member in tf:
                budget.member()
                target = _member_target(dest, member.name, archive)
                if member.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                if not member.isfile():
                    raise SkillpathError(
                        f"{archive}: member {member.name!r} is a link or a special file"
                    )
                data = tf.extractfile(member)
                if data is None:
                    continue
                with data:
                    budget.copy(data, target)
                if member.mode & 0o111:
                    os.chmod(target, 0o755)  # noqa: S103 - as the archive's script
    except (OSError, EOFError, tarfile.TarError, zipfile.BadZipFile) as exc:
        raise SkillpathError(f"{archive}: cannot extract: {exc}") from exc


@contextlib.contextmanager
def fetched(source: Source, env: Mapping[str, str]) -> Iterator[tuple[Path, str | None]]:
    """The folder to look for skills in, and the commit when cloned; a temporary
    folder (clone or extraction) is removed afterwards."""
    if source.kind == "local":
        folder = Path(source.location)
        if not folder.is_dir():
            raise SkillpathError(f"{folder}: no such folder")
        yield folder, None
        return
    with tempfile.TemporaryDirectory(prefix="skillpath-add-") as tmp:
        where = Path(tmp) / "src"
        commit: str | None = None
        if source.kind == "archive":
            archive = Path(source.location)
            if not archive.is_file():
                raise SkillpathError(f"{archive}: no such archive")
            where.mkdir()
            extract_archive(archive, where)
        else:
            commit = git_clone(source.location, where, source.ref, env)
        yield where, commit


# -- discovery -----------------------------------------------------------------------


@attrs.frozen
class Found:
    """A skill found in a fetched source: its ``name``, ``description``, ``folder`` and
    ``skill_path`` (``SKILL.md`` relative to the source's root, ``/``-separated)."""

    name: str
    description: str
    folder: Path
    skill_path: str


def _read_skill(md: Path, root: Path, diags: list[Diagnostic]) -> Found | None:
    from skillpath.frontmatter import parse_frontmatter
    from skillpath.urls import read_text_file

    try:
        parsed = parse_frontmatter(read_text_file(md), md)
    except OSError as exc:
        diags.append(Diagnostic("warning", "add-unreadable", f"cannot read: {exc}", md))
        return None
    name, desc = parsed.data.get("name"), parsed.data.get("description")
    if not isinstance(name, str) or not isinstance(desc, str) or not name or not desc:
        diags.append(
            Diagnostic("warning", "add-no-name", "no name or description: not a skill", md)
        )
        return None
    if not SKILL_NAME.fullmatch(name):
        diags.append(
            Diagnostic(
                "warning",
                "add-name",
                f"skill name {name!r} cannot be a folder name (lowercase letters, digits, "
                "'.', '_' and '-'); skipped",
                md,
            )
        )
        return None
    rel = md.relative_to(root).as_posix()
    return Found(name, desc, md.parent, rel)


def discover(root: Path, subpath: str | None = None) -> tuple[list[Found], list[Diagnostic]]:
    """The skills in ``root`` (or its ``subpath``), by name: a ``SKILL.md`` at the top
    is the only skill; else every ``SKILL.md`` up to five folders deep (not in
    :data:`SKIP_DIRS`, not through links). A name found twice keeps the first, in
    path order, with a warning."""
    diags: list[Diagnostic] = []
    start = root / subpath if subpath else root
    if start.is_symlink() or not start.is_dir():
        raise SkillpathError(f"{start}: no such folder in the source")
    top = start / "SKILL.md"
    if top.is_file() and not top.is_symlink():
        one = _read_skill(top, root, diags)
        return ([one] if one else []), diags
    found: dict[str, Found] = {}
    for here, dirs, files in os.walk(start, followlinks=False):
        depth = len(Path(here).relative_to(start).parts)
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in SKIP_DIRS and depth < _MAX_DEPTH and not Path(here, d).is_symlink()
        )
        if "SKILL.md" in files and Path(here) != start:
            md = Path(here, "SKILL.md")
            if md.is_symlink():
                continue
            skill = _read_skill(md, root, diags)
            if skill is None:
                continue
            if skill.name in found:
                diags.append(
                    Diagnostic(
                        "warning",
                        "add-duplicate",
                        f"skill {skill.name!r} is also in {found[skill.name].folder}; "
                        "this one is left out",
                        md,
                    )
                )
                continue
            found[skill.name] = skill
    return sorted(found.values(), key=lambda f: f.name), diags


def skill_folder_files(folder: Path, diags: list[Diagnostic]) -> dict[str, bytes]:
    """The files of a skill folder as ``{relative path: bytes}``: regular files only
    (links are left out, with a warning), not in ``.git`` or ``node_modules``, at most
    :data:`MAX_SKILL_BYTES` in all. Files and folders whose names hold invisible
    characters (:func:`skillpath.textguard.name_refusal`) are not copied, with an
    ``add-name-refused`` warning each. :raises SkillpathError: past the cap."""
    files: dict[str, bytes] = {}
    total = 0
    for here, dirs, names in os.walk(folder, followlinks=False):
        kept = []
        for d in sorted(dirs):
            if d in (".git", "node_modules"):
                continue
            if _name_refused(folder, Path(here, d), diags):
                continue
            if Path(here, d).is_symlink():
                diags.append(
                    Diagnostic("warning", "add-link-skipped", "a link: not copied", Path(here, d))
                )
                continue
            kept.append(d)
        dirs[:] = kept
        for name in sorted(names):
            full = Path(here, name)
            if _name_refused(folder, full, diags):
                continue
            if full.is_symlink() or not full.is_file():
                diags.append(
                    Diagnostic(
                        "warning", "add-link-skipped", "not a regular file: not copied", full
                    )
                )
                continue
            if total + full.stat().st_size > MAX_SKILL_BYTES:  # before reading it
                raise SkillpathError(f"{folder}: more than {MAX_SKILL_BYTES} bytes")
            data = full.read_bytes()
            total += len(data)
            if total > MAX_SKILL_BYTES:
                raise SkillpathError(f"{folder}: more than {MAX_SKILL_BYTES} bytes")
            files[full.relative_to(folder).as_posix()] = data
    return files


def _name_refused(folder: Path, full: Path, diags: list[Diagnostic]) -> bool:
    """Whether ``full``'s own name is refused (an ``add-name-refused`` warning, the
    path shown with its invisible characters escaped)."""
    why = name_refusal(full.name)
    if why is None:
        return False
    shown = escape_controls(full.relative_to(folder).as_posix(), keep="", invisible=True)
    diags.append(
        Diagnostic(
            "warning",
            "add-name-refused",
            f"'{shown}' is not copied: its name holds {why}",
            full.parent,
        )
    )
    return True


def remove_tree(path: Path) -> None:
    """Remove a folder (or a link, never followed) that this process staged."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
