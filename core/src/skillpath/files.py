"""Writing files and folders so that a reader never sees them half written.

Every writer of skillpath (the export and install locks, the ownership records,
a Claude Code plugin's manifest, the search index, exported and installed skill
folders) goes through these helpers, and so can a provider:

* :func:`write_atomic` writes a file's bytes to a temporary file beside it and
  renames it over the old one (:func:`atomic_path` for a writer that needs a
  path, such as SQLite's backup);
* :func:`replace_folder` builds a folder (or a symbolic link to one) beside its
  final place and swaps it in.

The temporary names start with a dot and hold the process id and random bytes,
are created exclusively (never through an existing file or link), and are
removed when the write fails.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path

__all__ = ["atomic_path", "folder_hash", "replace_folder", "write_atomic"]

#: Folders a folder hash leaves out, as ``npx skills`` does.
_SKIP_DIRS = {".git", "node_modules"}


def _sibling(path: Path, suffix: str) -> Path:
    """A fresh hidden name beside ``path``: ``.<name>.<pid>.<random>.<suffix>``."""
    return path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.{suffix}")


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], *, mode: int = 0o666) -> Iterator[Path]:
    """A new empty file beside ``path`` to write, renamed over ``path`` at the end.

    The temporary file is created exclusively with ``mode`` (less the umask); when
    the block raises, it is removed and ``path`` is left as it was. The parent folder
    must exist.

    :param path: the file to replace (or create).
    :param mode: the permission bits of the new file (``0o600`` for a private one).
    :returns: a context manager giving the temporary path.
    """
    final = Path(path)
    tmp = _sibling(final, "tmp")
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode))
    try:
        yield tmp
        os.replace(tmp, final)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def write_atomic(
    path: str | os.PathLike[str], data: bytes, *, mode: int = 0o666, parents: bool = True
) -> None:
    """Write ``data`` as the file ``path``, all at once: a reader sees the old bytes
    or the new ones, never a part.

    :param path: the file to write; a symbolic link there is replaced, not followed.
    :param data: the new content.
    :param mode: the permission bits of the new file (less the umask).
    :param parents: create the missing parent folders first.
    :raises OSError: when the folder cannot be written (nothing is left behind).
    """
    final = Path(path)
    if parents:
        final.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(final, mode=mode) as tmp, open(tmp, "wb") as fh:
        fh.write(data)


def _discard(path: Path) -> None:
    """Remove ``path`` if it exists: a link is unlinked, a folder deleted without
    following the links inside it."""
    if path.is_symlink():
        path.unlink()
    elif path.is_dir():
        import shutil  # a folder to discard: rare (a failed or replaced write)

        shutil.rmtree(path, ignore_errors=True)


def replace_folder(
    final: str | os.PathLike[str],
    files: Mapping[str, bytes] | None = None,
    *,
    link_to: str | os.PathLike[str] | None = None,
    executable_scripts: bool = False,
    refuse_linked_parent: bool = False,
) -> None:
    """Make ``final`` the folder holding ``files`` (or a symbolic link to ``link_to``).

    The new folder is built beside ``final`` (``.<name>.<pid>.<random>.new``), the old
    one (a folder, a file or a link, never followed) is renamed aside, the new one
    renamed in, and the old one deleted; when anything fails, the new one is removed.

    :param final: the folder to write; its parent folders are created.
    :param files: relative path (``/``-separated) -> bytes of every file in the folder.
    :param link_to: instead of ``files``, make ``final`` a link to this folder.
    :param executable_scripts: a file starting with ``#!`` gets mode ``0o755`` (a
        script stays runnable, as a checked-out one is).
    :param refuse_linked_parent: refuse when ``final``'s parent is a symbolic link.
    :raises skillpath.SkillpathError: the parent is a link and ``refuse_linked_parent``.
    :raises OSError: when the folder cannot be written.
    """
    target = Path(final)
    parent = target.parent
    if refuse_linked_parent and parent.is_symlink():
        from skillpath.errors import SkillpathError

        raise SkillpathError(f"{parent}: is a symbolic link; refusing to write through it")
    parent.mkdir(parents=True, exist_ok=True)
    stage = _sibling(target, "new")
    trash = stage.with_suffix(".old")
    try:
        if link_to is not None:
            os.symlink(link_to, stage, target_is_directory=True)
        else:
            stage.mkdir()
            for rel, data in (files or {}).items():
                path = stage / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                with open(path, "xb") as fh:
                    fh.write(data)
                if executable_scripts and data.startswith(b"#!"):
                    os.chmod(path, 0o755)  # noqa: S103 - as a checked-out script
        if target.exists() or target.is_symlink():
            os.replace(target, trash)
        os.replace(stage, target)
    finally:
        _discard(stage)
        _discard(trash)


def _folder_members(folder: Path) -> list[tuple[str, str]]:
    """``(relative path, full path)`` of every regular file below ``folder``, in the
    order :func:`files_hash` uses (symbolic links, special files, ``.git`` and
    ``node_modules`` left out)."""
    from skillpath._collate import npx_order

    members: list[tuple[str, str]] = []
    base = os.fspath(folder)
    for top, dirs, names in os.walk(base, followlinks=False):
        dirs[:] = [
            d for d in dirs if d not in _SKIP_DIRS and not os.path.islink(os.path.join(top, d))
        ]
        for name in names:
            full = os.path.join(top, name)
            if not stat.S_ISREG(os.lstat(full).st_mode):
                continue
            members.append((Path(os.path.relpath(full, base)).as_posix(), full))
    members.sort(key=lambda m: npx_order(m[0]))
    return members


def folder_hash(folder: Path, *, follow: bool = True) -> str | None:
    """``computedHash`` of a folder on disk, or ``None`` when it cannot be read.

    Files are hashed in chunks (constant memory, whatever their size); symbolic
    links and special files inside are left out, as they are from a copy. A
    symbolic link to a folder at ``folder`` itself is followed once, unless
    ``follow`` is false (then it is ``None``).
    """
    from skillpath.safety import iter_file_chunks

    try:
        if folder.is_symlink():
            if not follow:
                return None
            target = folder.resolve()
        else:
            target = folder
        if not target.is_dir():
            return None
        h = hashlib.sha256()
        for rel, full in _folder_members(target):
            h.update(rel.encode("utf-8", "surrogatepass"))
            for block in iter_file_chunks(full):
                h.update(block)
        return h.hexdigest()
    except OSError:
        return None
