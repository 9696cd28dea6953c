"""Options and output helpers shared by every subcommand."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable, Sequence
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click

from skillweave.errors import SkillweaveError

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["common_options", "emit_json", "fail", "table"]


def common_options(fn: F) -> F:
    """Add ``--cwd`` and ``--json`` and turn skillweave errors into a one-line message."""

    @click.option(
        "--cwd",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Project directory to look from (default: the current directory).",
    )
    @click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")
    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except SkillweaveError as exc:
            fail(str(exc))

    return wrapper  # type: ignore[return-value]


def fail(message: str, code: int = 1) -> None:
    """Print ``skillweave: error: <message>`` on stderr and exit with ``code``."""
    click.echo(f"skillweave: error: {message}", err=True)
    sys.exit(code)


def emit_json(data: Any) -> None:
    """Write ``data`` as stable, indented, key-sorted JSON."""
    click.echo(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False))


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], *, flex: int = -1) -> str:
    """A plain-text table that fits the terminal (80 columns when not a tty).

    Column ``flex`` (default: the last) absorbs the width that is left and is
    clipped with an ellipsis.
    """
    width = shutil.get_terminal_size((80, 24)).columns
    cols = len(headers)
    flex = flex % cols
    widths = [len(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            if i != flex:
                widths[i] = max(widths[i], len(cell))
    fixed = sum(w for i, w in enumerate(widths) if i != flex) + 2 * (cols - 1)
    widths[flex] = max(10, width - fixed - 1)
    lines = []
    for row in [list(headers), ["-" * len(h) for h in headers], *[list(r) for r in rows]]:
        cells = [
            _clip(c, widths[i]).ljust(widths[i]) if i != cols - 1 else _clip(c, widths[i])
            for i, c in enumerate(row)
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)
