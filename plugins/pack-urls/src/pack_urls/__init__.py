"""A ``pack://<distribution>/<path>`` URL scheme for skillpath.

Reads files of installed skill packs straight from the package data, without
extracting anything: ``pack://acme-skills/code-review/references/checklist.md``.

- ``<distribution>`` is matched PEP 503-normalised (``ACME_Skills`` works); a
  pack's entry-point name is accepted too;
- ``<path>`` is percent-decoded once and must pass skillpath's containment
  check (no ``..``, no absolute path, no backslash or control character); only
  files the pack provider listed can be read (symlinks and refused members
  never were);
- ``pack://<distribution>/`` and ``pack://<distribution>/<dir>/`` list a
  directory (entries one per line, sub-directories with a trailing ``/``);
- content types follow ``skill://``: ``text/markdown`` for Markdown,
  ``application/json`` for JSON, else ``text/plain``; binary files are refused.

The resolver is a plain ``resolve_url`` hookimpl: it returns ``None`` for any
other scheme, so ``skill://`` and other plugins are unaffected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import unquote

from skillpath import ResolveError, SkillContext, hookimpl
from skillpath.safety import ContainmentError, check_relative
from skillpath.urls import mime_type_for
from skillpath_packs import find_pack

if TYPE_CHECKING:  # imported when a pack:// URL is read, not when the plugin registers
    from skillpath import Resource

__all__ = ["SCHEME", "resolve_pack_url", "resolve_url"]

SCHEME = "pack://"
#: Largest file returned.
MAX_BYTES = 8 * 1024 * 1024


def _decode(part: str, what: str) -> str:
    try:
        return unquote(part, encoding="utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise ResolveError(f"{what} in a pack:// URL is not valid UTF-8") from exc


def resolve_pack_url(url: str, env: dict[str, str] | None = None) -> Resource:
    """Read ``pack://<distribution>/<path>``.

    :raises ResolveError: unknown pack, missing or binary file;
        :class:`~skillpath.safety.ContainmentError` for a path that would leave the pack.
    """
    from skillpath import Resource

    if url[: len(SCHEME)].lower() != SCHEME:
        raise ResolveError(f"not a pack:// URL: {url!r}")
    raw_dist, _, raw_rel = url[len(SCHEME) :].partition("/")
    dist = _decode(raw_dist, "distribution")
    rel = _decode(raw_rel, "path")
    if not dist:
        raise ResolveError("pack:// URL without a distribution name")
    pack = find_pack(dist, env)
    if pack is None:
        raise ResolveError(f"No installed skill pack {dist!r} (see `skillpath list`)")
    if rel == "" or rel.endswith("/"):
        if rel:
            check_relative(rel)
        entries = pack.listing(rel)
        if rel and not entries:
            raise ResolveError(f"File not found: {url}")
        text = "\n".join(entries) + ("\n" if entries else "")
        return Resource(url, text, "text/plain", None, None, True)
    clean = str(check_relative(rel))
    try:
        data = pack.read(clean)
    except FileNotFoundError:
        if pack.listing(clean + "/"):
            entries = pack.listing(clean + "/")
            return Resource(url, "\n".join(entries) + "\n", "text/plain", None, None, True)
        raise ResolveError(f"File not found: {url}") from None
    except ContainmentError:
        raise
    except OSError as exc:
        raise ResolveError(f"Cannot read {url}: {exc}") from exc
    if len(data) > MAX_BYTES:
        raise ResolveError(f"{url} is larger than {MAX_BYTES} bytes")
    if b"\x00" in data[:8192]:
        raise ResolveError(f"{url} is a binary file")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    folder = clean.split("/", 1)[0]
    owner = next(
        (s.name for s in pack.skills if s.base_dir is not None and s.base_dir.name == folder),
        None,
    )
    return Resource(url, data.decode("utf-8", "replace"), mime_type_for(clean), None, owner, False)


@hookimpl
def resolve_url(url: str, ctx: SkillContext) -> Resource | None:
    """Handle ``pack://`` URLs; ``None`` for every other scheme."""
    if url[: len(SCHEME)].lower() != SCHEME:
        return None
    return resolve_pack_url(url, dict(ctx.env))
