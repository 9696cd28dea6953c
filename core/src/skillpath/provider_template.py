"""Make a new provider distribution from the template shipped with the core.

``skillpath new-provider ID`` calls :func:`make_provider`. The template is package
data (``skillpath/templates/provider``), so it works from any installed skillpath:
a complete distribution with the same shape as every built-in provider::

    <dest>/
      pyproject.toml                  distribution skillpath-<id>, entry point <id>
      README.md
      src/skillpath_<id>/__init__.py  PROVIDER_ID, PRIORITY, @hookimpl discover_skills
      src/skillpath_<id>/py.typed
      tests/test_conformance.py       runs the skillpath-testing conformance kit
      tests/test_skillpath_<id>.py    the provider's own rules

The placeholders ``__PROVIDER_ID__``, ``__PACKAGE__``, ``__DISTRIBUTION__``,
``__PRIORITY__`` and ``__DESCRIPTION__`` are replaced in every file and file name.
"""

from __future__ import annotations

import re
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

__all__ = ["ID_RE", "TemplateError", "make_provider", "placeholders", "template_files"]

#: A provider id: lowercase letters and digits, single dashes, a letter first.
ID_RE = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_SKIP = {"__pycache__"}


class TemplateError(ValueError):
    """A bad provider id, description or destination (the message says which)."""


def placeholders(provider_id: str, priority: int, description: str) -> dict[str, str]:
    """The placeholder → value mapping for ``provider_id``."""
    return {
        "__PROVIDER_ID__": provider_id,
        "__PACKAGE__": "skillpath_" + provider_id.replace("-", "_"),
        "__DISTRIBUTION__": "skillpath-" + provider_id,
        "__PRIORITY__": str(priority),
        "__DESCRIPTION__": description,
    }


def _render(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace(key, value)
    return text


def template_files() -> list[tuple[str, str]]:
    """``(relative path, text)`` of every template file, sorted by path."""
    out: list[tuple[str, str]] = []

    def walk(node: Traversable, prefix: str) -> None:
        for child in node.iterdir():
            if child.name in _SKIP:
                continue
            rel = f"{prefix}{child.name}"
            if child.is_dir():
                walk(child, rel + "/")
            else:
                out.append((rel, child.read_text(encoding="utf-8")))

    walk(resources.files("skillpath") / "templates" / "provider", "")
    return sorted(out)


def make_provider(dest: Path, provider_id: str, priority: int, description: str) -> list[Path]:
    """Write the new distribution to ``dest`` (which must not exist); return its files.

    :raises TemplateError: for an invalid id, a description that is not one line
        of plain text, or an existing ``dest``.
    """
    if not ID_RE.fullmatch(provider_id):
        raise TemplateError(
            f"invalid provider id {provider_id!r}: use lowercase letters, digits and single "
            "dashes, starting with a letter (e.g. 'acme-tools')"
        )
    if not description.isprintable() or '"' in description or "\\" in description:
        raise TemplateError(
            f"invalid description {description!r}: one line, without quotes or backslashes"
        )
    if dest.exists() or dest.is_symlink():
        raise TemplateError(f"{dest} already exists; choose another --dest")
    values = placeholders(provider_id, priority, description)
    written: list[Path] = []
    for rel, text in template_files():
        target = dest / _render(rel, values)
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "x", encoding="utf-8", newline="\n") as fh:
            fh.write(_render(text, values))
        written.append(target)
    return written
