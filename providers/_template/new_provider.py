#!/usr/bin/env python3
"""Make a new skillpath provider distribution from ``providers/_template/provider``.

    python3 providers/_template/new_provider.py ID [--priority N] [--description TEXT] [--dest DIR]

Copies the template tree to ``DIR`` (default: ``providers/ID`` next to the template),
renames ``src/__PACKAGE__`` and replaces the placeholders ``__PROVIDER_ID__``,
``__PACKAGE__``, ``__DISTRIBUTION__``, ``__PRIORITY__`` and ``__DESCRIPTION__`` in
every file and file name. Standard library only.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parent / "provider"
ID_RE = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


def placeholders(provider_id: str, priority: int, description: str) -> dict[str, str]:
    """The placeholder -> value mapping for ``provider_id``."""
    package = "skillpath_" + provider_id.replace("-", "_")
    return {
        "__PROVIDER_ID__": provider_id,
        "__PACKAGE__": package,
        "__DISTRIBUTION__": "skillpath-" + provider_id,
        "__PRIORITY__": str(priority),
        "__DESCRIPTION__": description,
    }


def render(text: str, values: dict[str, str]) -> str:
    """``text`` with every placeholder replaced."""
    for key, value in values.items():
        text = text.replace(key, value)
    return text


def make_provider(dest: Path, provider_id: str, priority: int, description: str) -> list[Path]:
    """Write the new distribution to ``dest`` (which must not exist); return the files."""
    if not ID_RE.fullmatch(provider_id):
        raise SystemExit(
            f"invalid provider id {provider_id!r}: use lowercase letters, digits and single "
            "dashes, starting with a letter (e.g. 'acme-tools')"
        )
    if dest.exists():
        raise SystemExit(f"{dest} already exists; choose another --dest")
    values = placeholders(provider_id, priority, description)
    written = []
    for src in sorted(TEMPLATE.rglob("*")):
        if src.is_dir() or "__pycache__" in src.parts:
            continue
        rel = Path(render(str(src.relative_to(TEMPLATE)), values))
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(render(src.read_text(encoding="utf-8"), values), encoding="utf-8")
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("provider_id", help="the provider id, e.g. acme-tools")
    parser.add_argument("--priority", type=int, default=50, help="provider priority (default 50)")
    parser.add_argument(
        "--description", default=None, help="one line for the README and pyproject"
    )
    parser.add_argument("--dest", type=Path, default=None, help="target directory")
    args = parser.parse_args(argv)
    dest = args.dest or TEMPLATE.parent.parent / args.provider_id
    description = args.description or f"skills for {args.provider_id}"
    files = make_provider(dest, args.provider_id, args.priority, description)
    values = placeholders(args.provider_id, args.priority, description)
    print(f"created {dest} ({len(files)} files)")
    print(
        "next: for a built-in provider add to the root pyproject.toml\n"
        f'  dependencies: "{values["__DISTRIBUTION__"]}>=0.1,<0.2"\n'
        f"  [tool.uv.sources]: {values['__DISTRIBUTION__']} = {{ workspace = true }}\n"
        "then run: python3 -m uv lock && python3 -m uv sync && python3 -m uv run pytest "
        f"{dest}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
