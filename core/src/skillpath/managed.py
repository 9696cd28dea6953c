"""Writing managed (auto-learned) skills: ``<SKILLPATH_HOME>/managed-skills/<name>/SKILL.md``.

The ``managed`` provider discovers these files and merges them last, so a
hand-written skill of the same name always wins. This module is the write
side, used by an agent that learns skills as it works::

    from skillpath.managed import write_managed_skill

    path = write_managed_skill(
        "fix-flaky-tests", "Stabilise a flaky pytest test ...", body, ctx=session.ctx
    )

Rules:

- writing is allowed only when ``[autolearn] enabled = true``
  (:class:`AutolearnDisabledError` otherwise);
- the name must match ``[a-z0-9][a-z0-9-]{0,63}``;
- the description loses control and format characters (whitespace ones become
  a space), ``<``, ``>`` and backticks, runs of spaces collapse, and it is cut
  to :data:`MAX_DESCRIPTION` characters; an empty result is refused;
- the body is at most :data:`MAX_BODY_BYTES` bytes of UTF-8;
- the write is atomic (a temporary file in the same directory, then
  ``os.replace``), made relative to directory descriptors opened with
  ``O_NOFOLLOW``, and refused when the managed directory, the skill directory
  or the target is a symbolic link, or the target is not a regular file or has
  more than one hard link;
- concurrent writers are serialised by a file lock
  (``managed-skills/.locks/<name>.lock``); each writer's file appears whole.

Files are written ``0o600`` and directories ``0o700``: learned skills may
describe private projects.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from skillpath.context import SkillContext, make_context
from skillpath.errors import SkillpathError
from skillpath.settings import Settings

__all__ = [
    "MANAGED_DIR",
    "MAX_BODY_BYTES",
    "MAX_DESCRIPTION",
    "NAME_RE",
    "AutolearnDisabledError",
    "ManagedSkillError",
    "managed_root",
    "render_managed_skill",
    "sanitize_description",
    "write_managed_skill",
]

#: Directory under the skillpath home that holds managed skills.
MANAGED_DIR = "managed-skills"
#: Names a managed skill may have.
NAME_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
#: Longest description kept (characters), as the Agent Skills standard allows.
MAX_DESCRIPTION = 1024
#: Largest body accepted (bytes of UTF-8).
MAX_BODY_BYTES = 64 * 1024

_DROP = frozenset("<>`")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class ManagedSkillError(SkillpathError):
    """A managed skill was refused (bad name, empty description, too large, unsafe target)."""


class AutolearnDisabledError(ManagedSkillError):
    """Writing managed skills is off: set ``[autolearn] enabled = true`` to allow it."""


def sanitize_description(text: str) -> str:
    """``text`` without control/format characters, ``<``, ``>`` and backticks, capped.

    Whitespace control characters (newline, tab …) and line/paragraph
    separators become a space; runs of spaces collapse; the result is stripped
    and cut to :data:`MAX_DESCRIPTION` characters.
    """
    out: list[str] = []
    for ch in text:
        if ch in _DROP:
            continue
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"):
            if ch.isspace() or cat in ("Zl", "Zp"):
                out.append(" ")
            continue
        out.append(ch)
    clean = " ".join("".join(out).split())
    if len(clean) > MAX_DESCRIPTION:
        clean = clean[: MAX_DESCRIPTION - 1].rstrip() + "…"
    return clean


def managed_root(ctx: SkillContext) -> Path:
    """``<SKILLPATH_HOME or ~/.skillpath>/managed-skills``."""
    return ctx.skillpath_home / MANAGED_DIR


def _context(
    ctx: SkillContext | None,
    cwd: str | os.PathLike[str] | None,
    home: str | os.PathLike[str] | None,
    env: Mapping[str, str] | None,
    settings: Mapping[str, Any] | Settings | None,
) -> SkillContext:
    if ctx is not None:
        return ctx
    made, _ = make_context(cwd, home=home, env=env, settings=settings)
    return made


def _open_dir(name: str, dir_fd: int | None, *, create: bool) -> int:
    """Open (creating when asked) directory ``name`` without following a symlink."""
    if create:
        try:
            os.mkdir(name, 0o700, dir_fd=dir_fd)
        except FileExistsError:
            pass
    try:
        st = os.lstat(name, dir_fd=dir_fd)
    except FileNotFoundError as exc:
        raise ManagedSkillError(f"{name} does not exist") from exc
    if stat.S_ISLNK(st.st_mode):
        raise ManagedSkillError(f"refusing to write through a symbolic link: {name}")
    if not stat.S_ISDIR(st.st_mode):
        raise ManagedSkillError(f"not a directory: {name}")
    return os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=dir_fd)


def _check_target(dir_fd: int, path: Path) -> None:
    try:
        st = os.lstat("SKILL.md", dir_fd=dir_fd)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise ManagedSkillError(f"refusing to replace a symbolic link: {path}")
    if not stat.S_ISREG(st.st_mode):
        raise ManagedSkillError(f"refusing to replace a non-regular file: {path}")
    if st.st_nlink > 1:
        raise ManagedSkillError(f"refusing to replace a file with {st.st_nlink} hard links: {path}")


def render_managed_skill(name: str, description: str, body: str) -> str:
    """The ``SKILL.md`` text written for a managed skill (no validation)."""
    import yaml

    head = yaml.safe_dump(
        {"name": name, "description": description},
        sort_keys=False,
        allow_unicode=True,
        width=10_000,
    )
    text = body if body.endswith("\n") or not body else body + "\n"
    return f"---\n{head}---\n{text}"


def write_managed_skill(
    name: str,
    description: str,
    body: str,
    *,
    ctx: SkillContext | None = None,
    cwd: str | os.PathLike[str] | None = None,
    home: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    settings: Mapping[str, Any] | Settings | None = None,
) -> Path:
    """Write (or replace) the managed skill ``name``; return the ``SKILL.md`` path.

    The settings come from ``ctx`` or, without one, from the config files seen
    from ``cwd`` plus ``settings`` overrides (as for :func:`skillpath.load_skills`).

    :raises AutolearnDisabledError: when ``[autolearn] enabled`` is not true.
    :raises ManagedSkillError: for a bad name, an empty description, a body
        over :data:`MAX_BODY_BYTES`, or an unsafe target (symlink, hard link,
        non-regular file) — nothing is written then.
    """
    context = _context(ctx, cwd, home, env, settings)
    if context.settings.get("autolearn", "enabled") is not True:
        raise AutolearnDisabledError(
            "writing managed skills is disabled; set [autolearn] enabled = true "
            "in ~/.skillpath/config.toml to allow it"
        )
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise ManagedSkillError(
            f"invalid managed skill name {name!r}: use 1-64 lowercase letters, digits "
            "and '-', starting with a letter or digit"
        )
    clean = sanitize_description(description if isinstance(description, str) else "")
    if not clean:
        raise ManagedSkillError(
            f"managed skill {name!r}: the description is empty once control characters, "
            "'<', '>' and backticks are removed"
        )
    if not isinstance(body, str):
        raise ManagedSkillError(f"managed skill {name!r}: body must be a string")
    if len(body.encode("utf-8", "surrogatepass")) > MAX_BODY_BYTES:
        raise ManagedSkillError(
            f"managed skill {name!r}: body is larger than {MAX_BODY_BYTES} bytes"
        )
    data = render_managed_skill(name, clean, body).encode("utf-8", "replace")
    root = managed_root(context)
    root.parent.mkdir(parents=True, exist_ok=True)
    target = root / name / "SKILL.md"
    root_fd = _open_dir(os.fspath(root), None, create=True)
    try:
        locks_fd = _open_dir(".locks", root_fd, create=True)
        os.close(locks_fd)
        import filelock

        lock = filelock.FileLock(os.fspath(root / ".locks" / f"{name}.lock"), mode=0o600)
        with lock:
            skill_fd = _open_dir(name, root_fd, create=True)
            try:
                _write_atomic(skill_fd, data, target)
            finally:
                os.close(skill_fd)
    finally:
        os.close(root_fd)
    return target


def _write_atomic(dir_fd: int, data: bytes, target: Path) -> None:
    _check_target(dir_fd, target)
    tmp = f".SKILL.md.{os.urandom(8).hex()}.tmp"
    fd = os.open(
        tmp,
        os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC,
        0o600,
        dir_fd=dir_fd,
    )
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fchmod(fd, 0o600)
            os.fsync(fd)
        finally:
            os.close(fd)
        _check_target(dir_fd, target)  # again, right before the rename
        os.replace(tmp, "SKILL.md", src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except FileNotFoundError:
            pass
        raise
