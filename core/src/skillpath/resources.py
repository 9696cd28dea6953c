"""What ``resolve_url`` returns, and the one walk of a skill's folder.

:class:`Resource` is the content behind a URL. :func:`walk_skill_files` lists the
files (and, for a directory listing, the folders) of a skill's folder under the
rules every path that names or copies them shares — the ``skill://`` listings,
``show --json``, the search index, the Claude Code plugin copy and ``export``, the
MCP server's ``resources/list`` and ``skills/list``, and the adapters:

* **bounded**: at most ``max_files`` entries, ``max_depth`` folders deep, files over
  ``max_bytes`` left out (each bound that cut something sets ``truncated`` or is
  reported);
* **contained**: a symbolic link is followed only while its real target stays inside
  the skill's real folder (with ``follow_links=False``, never), and never into a
  folder it is already inside (no loops); links left out are reported;
* **refusing** the files and folders whose names hold invisible characters
  (:func:`skillpath.textguard.name_refusal`): never listed, read or entered, and
  reported to the caller (the content checks name them ``invisible-file-name``,
  ``export`` warns ``export-name-refused``);
* dot entries (unless ``hidden``), :data:`SKIP_FOLDERS` and special files (FIFOs,
  sockets, devices) left out;
* **deterministic**: each folder's entries by name, files as they come and each
  sub-folder's entries after its parent's (the order ``os.walk`` gives).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection
from pathlib import Path

import attrs

__all__ = [
    "MAX_WALK_DEPTH",
    "MAX_WALK_FILES",
    "SKIP_FOLDERS",
    "Resource",
    "SkillWalk",
    "WalkEntry",
    "WalkRefusal",
    "walk_skill_files",
]

#: Entries :func:`walk_skill_files` returns at most, unless told otherwise.
MAX_WALK_FILES = 1000
#: Folders below the start :func:`walk_skill_files` enters at most, unless told otherwise.
MAX_WALK_DEPTH = 8
#: Folders :func:`walk_skill_files` never lists or enters: version control, compiled
#: bytecode and installed JavaScript packages (as ``npx skills`` leaves them out).
SKIP_FOLDERS: frozenset[str] = frozenset({".git", "__pycache__", "node_modules"})


@attrs.frozen
class Resource:
    """The content behind a URL.

    ``content`` is text; ``mime_type`` is ``text/markdown``, ``application/json``
    or ``text/plain`` for files and directory listings; ``path`` is the real file
    read (``None`` for remote resources); ``skill`` is the owning skill's name.
    """

    url: str
    content: str
    mime_type: str = "text/plain"
    path: Path | None = None
    skill: str | None = None
    is_directory: bool = False


@attrs.frozen
class WalkEntry:
    """One entry of a skill's folder found by :func:`walk_skill_files`.

    ``rel`` is its path below the skill's folder (``/``-separated), ``path`` the
    skill's folder joined with it (links not resolved); ``is_link`` tells a symbolic
    link (then ``is_dir`` and ``size`` are its target's); ``size`` is the file's size
    in bytes when the walk was given ``max_bytes``, else ``None``.
    """

    rel: str
    path: Path
    is_dir: bool = False
    is_link: bool = False
    size: int | None = None


@attrs.frozen
class WalkRefusal:
    """An entry :func:`walk_skill_files` left out because of its name: ``reason`` is
    :func:`skillpath.textguard.name_refusal`'s (``rel`` and ``path`` hold the name
    itself: escape it before showing it, as
    :func:`skillpath.textguard.escape_controls` does)."""

    rel: str
    path: Path
    reason: str
    is_dir: bool = False


@attrs.frozen
class SkillWalk:
    """What :func:`walk_skill_files` found.

    ``entries`` are the files (and folders, when asked) in walk order; ``refused``
    the entries whose names are refused; ``links`` the symbolic links left out (their
    target leaves the skill's folder, is not a file or folder, or links are not
    followed); ``too_large`` the files over ``max_bytes``; ``folders`` the folders
    the walk listed or tried to (the start first: a watcher of them sees a missing
    folder appear); ``truncated`` is true when ``max_files`` or
    ``max_depth`` left something out.
    """

    entries: tuple[WalkEntry, ...] = ()
    refused: tuple[WalkRefusal, ...] = ()
    links: tuple[WalkEntry, ...] = ()
    too_large: tuple[WalkEntry, ...] = ()
    folders: tuple[Path, ...] = ()
    truncated: bool = False


def walk_skill_files(
    base: str | os.PathLike[str],
    *,
    under: str = "",
    max_files: int = MAX_WALK_FILES,
    max_depth: int = MAX_WALK_DEPTH,
    max_bytes: int | None = None,
    folders: bool = False,
    hidden: bool = False,
    follow_links: bool = True,
    skip: Collection[str] = SKIP_FOLDERS,
) -> SkillWalk:
    """Walk skill folder ``base`` (or its sub-folder ``under``) under the shared rules
    (see the module's documentation); never raises for what it finds on disk: a
    folder that cannot be listed is left out.

    :param base: the skill's folder: containment is judged against its real path.
    :param under: a ``/``-separated folder below ``base`` to start from (``""``:
        ``base`` itself); its entries' ``rel`` stay relative to ``base``. A start
        that leaves ``base`` or is not a folder gives an empty walk.
    :param max_files: entries returned at most (then ``truncated``).
    :param max_depth: folders entered below the start at most (``0``: the start's
        own entries only); a folder deeper than that is not entered (with ``folders``
        it is still listed), which sets ``truncated`` when ``folders`` is false.
    :param max_bytes: files larger than this are left out (``too_large``), and every
        entry's ``size`` is filled in; ``None``: no size limit.
    :param folders: list the folders too (a directory listing), each before its own
        entries.
    :param hidden: keep dot entries (``.git`` stays out: :data:`SKIP_FOLDERS`).
    :param follow_links: follow the symbolic links whose target stays inside
        ``base``; ``False``: leave every link out (reported in ``links``).
    :param skip: folder names never listed or entered.
    :returns: the :class:`SkillWalk`.
    """
    from skillpath.safety import real_inside
    from skillpath.textguard import name_refusal

    root = os.fspath(base)
    real_base = os.path.realpath(root)
    entries: list[WalkEntry] = []
    refused: list[WalkRefusal] = []
    links: list[WalkEntry] = []
    too_large: list[WalkEntry] = []
    listed: list[Path] = []
    truncated = False
    parts = [p for p in under.split("/") if p and p != "."]
    if parts:  # a sub-folder: it must stay inside base
        start = os.path.join(root, *parts)
        real_start = os.path.realpath(start)
        if not real_inside(real_start, real_base) or not os.path.isdir(start):
            return SkillWalk()
        prefix = os.path.relpath(start, root).replace(os.sep, "/")
    else:
        start, real_start, prefix = root, real_base, "."
    # a stack of (folder, rel prefix, depth, real folder, the real paths of it and its
    # parents: a link back to one of them is not entered); each folder's sub-folders
    # are pushed in reverse, so the first by name is walked first (os.walk's order)
    first = (start, "" if prefix == "." else prefix + "/", 0, real_start, frozenset({real_start}))
    stack: list[tuple[str, str, int, str, frozenset[str]]] = [first]
    while stack:
        folder, rel_dir, depth, real_folder, above = stack.pop()
        listed.append(Path(folder))
        try:
            with os.scandir(folder) as it:
                found = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        below: list[tuple[str, str, int, str, frozenset[str]]] = []
        for e in found:
            name = e.name
            if not hidden and name.startswith("."):
                continue
            rel = rel_dir + name
            try:
                is_link = e.is_symlink()
                is_dir = e.is_dir()  # follows a link
            except OSError:
                continue
            if is_dir and name in skip:
                continue
            why = name_refusal(name)
            if why is not None:
                refused.append(WalkRefusal(rel, Path(e.path), why, is_dir and not is_link))
                continue
            target = e.path
            if is_link:
                real = os.path.realpath(e.path)
                if not follow_links or not real_inside(real, real_base):
                    links.append(WalkEntry(rel, Path(e.path), is_dir, True))
                    continue
                target = real
            if is_dir:
                if folders:
                    if len(entries) >= max_files:
                        truncated = True
                        break
                    entries.append(WalkEntry(rel, Path(e.path), True, is_link))
                if depth >= max_depth:
                    truncated = truncated or not folders  # a listing names it
                    continue
                real_dir = target if is_link else os.path.join(real_folder, name)
                if real_dir not in above:
                    below.append((e.path, rel + "/", depth + 1, real_dir, above | {real_dir}))
                continue
            size: int | None = None
            try:
                if is_link or max_bytes is not None:
                    st = os.stat(target)
                    regular, size = stat.S_ISREG(st.st_mode), st.st_size
                else:
                    regular = e.is_file(follow_symlinks=False)
            except OSError:
                continue
            if not regular:
                if is_link:
                    links.append(WalkEntry(rel, Path(e.path), False, True))
                continue
            entry = WalkEntry(
                rel, Path(e.path), False, is_link, size if max_bytes is not None else None
            )
            if max_bytes is not None and size is not None and size > max_bytes:
                too_large.append(entry)
                continue
            if len(entries) >= max_files:
                truncated = True
                break
            entries.append(entry)
        else:
            stack.extend(reversed(below))
            continue
        break  # max_files reached
    return SkillWalk(
        tuple(entries), tuple(refused), tuple(links), tuple(too_large), tuple(listed), truncated
    )
