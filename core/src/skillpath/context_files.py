"""Context files: ``AGENTS.md`` found walking up from the working directory.

Which directories are looked at (nearest first, ``depth`` 0 is ``cwd``):

* a repository root (nearest ancestor with ``.git``) strictly below home: from
  ``cwd`` up past the repository root, through the enclosing workspace
  directories, up to **but excluding** home;
* no repository, ``cwd`` at or below home: up to **and including** home;
* a repository that is not strictly below home (outside it, or home itself):
  up to the repository root;
* no repository, ``cwd`` outside home: up to ``/``.

A file whose own directory is hidden (its name starts with ``.``) is skipped;
an empty (or whitespace-only) file claims nothing and is left out; the same
file reached twice (symlinks) is kept once, nearest first. A file inside the
repository that is a symlink to a file outside it is skipped with a
``context-file-outside`` warning (a cloned repository must not pull, say, a
private key into the context); outside a repository and outside home, a
file that is a symlink out of its own directory is skipped the same way. A
directory other users can write to or own (``/tmp``; see
:func:`skillpath.context.unsafe_dir_reason`) supplies nothing, with an
``unsafe-project-dir`` warning. A file that cannot be read (a FIFO, a device,
over :data:`MAX_CONTEXT_BYTES`) is a diagnostic, never an exception or a hang.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from skillpath.context import find_repo_root, is_relative_to, unsafe_dir_reason
from skillpath.model import Diagnostic
from skillpath.safety import describe_oserror, outside_area
from skillpath.urls import read_text_file

__all__ = ["CONTEXT_FILE_NAMES", "ContextFile", "context_dirs", "discover_context_files"]

CONTEXT_FILE_NAMES = ("AGENTS.md",)
#: Largest context file read.
MAX_CONTEXT_BYTES = 1024 * 1024


@attrs.frozen
class ContextFile:
    """One context file: its path, its depth (0 = ``cwd``), its directory and text."""

    path: Path
    depth: int
    directory: Path
    content: str

    def to_json(self) -> dict[str, Any]:
        """JSON form (``skillpath context --json``)."""
        return {
            "path": str(self.path),
            "depth": self.depth,
            "directory": str(self.directory),
            "content": self.content,
        }


def _resolve(p: Path) -> Path:
    try:
        return p.resolve()
    except OSError:
        return p.absolute()


def context_dirs(cwd: Path, home: Path, repo_root: Path | None) -> list[Path]:
    """The directories searched, nearest first (rules in the module docstring)."""
    include_stop = True
    stop: Path | None
    if repo_root is not None and repo_root != home and is_relative_to(repo_root, home):
        stop, include_stop = home, False
    elif repo_root is not None:
        stop = repo_root
    elif is_relative_to(cwd, home):
        stop = home
    else:
        stop = None
    out: list[Path] = []
    cur = cwd
    while True:
        if cur == stop:
            if include_stop:
                out.append(cur)
            break
        out.append(cur)
        parent = cur.parent
        if parent == cur:
            break
        cur = parent
    return out


def _area(folder: Path, repo: Path | None, home: Path) -> str | None:
    """Where a context file found in ``folder`` must resolve: the repository, a
    folder outside home and outside any repository itself; ``None`` (anywhere)
    for the user's own folders (home and the workspace folders below it)."""
    if repo is not None and is_relative_to(folder, repo):
        return os.path.realpath(repo)
    if is_relative_to(folder, home):
        return None
    return os.path.realpath(folder)


def _unreadable(path: Path, exc: OSError) -> Diagnostic:
    return Diagnostic(
        "warning", "unreadable-context-file", f"cannot read: {describe_oserror(exc)}", path
    )


def discover_context_files(
    cwd: str | os.PathLike[str] | None = None,
    *,
    home: str | os.PathLike[str] | None = None,
    names: Sequence[str] = CONTEXT_FILE_NAMES,
    diagnostics: list[Diagnostic] | None = None,
) -> list[ContextFile]:
    """Find the context files visible from ``cwd``, nearest first.

    :param cwd: the working directory (default: the process's).
    :param home: the home directory (default: ``Path.home()``).
    :param names: file names looked for in each directory, in order.
    :param diagnostics: when given, unreadable files are reported here.
    """
    cwd_path = _resolve(Path(cwd) if cwd is not None else Path.cwd())
    home_path = _resolve(Path(home) if home is not None else Path.home())
    diags = diagnostics if diagnostics is not None else []
    repo = find_repo_root(cwd_path)
    found: list[ContextFile] = []
    seen: set[tuple[int, int]] = set()
    for depth, folder in enumerate(context_dirs(cwd_path, home_path, repo)):
        if folder.name.startswith("."):
            continue
        why = unsafe_dir_reason(folder, names)
        if why is not None:
            # other users could have planted it (git's safe.directory rule)
            for name in names:
                if os.path.lexists(folder / name):
                    diags.append(
                        Diagnostic(
                            "warning",
                            "unsafe-project-dir",
                            f"skipped: the directory is {why}; other users could have planted it",
                            folder / name,
                        )
                    )
            continue
        for name in names:
            path = folder / name
            try:
                st = os.stat(path)
            except FileNotFoundError:
                continue
            except OSError as exc:
                diags.append(_unreadable(path, exc))
                continue
            ident = (st.st_dev, st.st_ino)
            if ident in seen:
                continue
            area = _area(folder, repo, home_path)
            outside = outside_area(path, area) if area is not None else None
            if outside is not None:
                # a cloned repository must not pull a file from elsewhere on the
                # machine (a key, a token) into the model's context
                diags.append(
                    Diagnostic(
                        "warning",
                        "context-file-outside",
                        f"skipped: a symlink to {outside}, outside the project {area}",
                        path,
                    )
                )
                continue
            try:
                content = read_text_file(path, limit=MAX_CONTEXT_BYTES)
            except OSError as exc:
                diags.append(_unreadable(path, exc))
                continue
            seen.add(ident)
            if not content.strip():
                continue
            found.append(ContextFile(path, depth, folder, content))
    return found
