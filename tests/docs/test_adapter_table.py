"""The adapters' table (docs/integrations/index.md) covers every adapter, every column filled.

Each adapter in ``integrations/`` has at least one row (a framework with two agent
kinds, such as LangChain's ``create_agent`` and deepagents, has one per kind), whose
first cell links to the adapter's docs page, and whose cells say what the adapter
does for a second conversation, an install of the adapter alone, a skill's files,
the frontmatter metadata (the fields that pass, or "dropped") and reloading.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
INDEX = REPO / "docs" / "integrations" / "index.md"
COLUMNS = [
    "adapter",
    "second conversation",
    "alone-install",
    "resources",
    "metadata",
    "reload default",
]
#: Words of a cell that is not filled in.
PLACEHOLDERS = re.compile(r"\b(?:todo|tbd|see branch|n/a|\?\?)\b|^\s*-?\s*$", re.IGNORECASE)


def adapters() -> list[str]:
    return sorted(p.parent.name for p in (REPO / "integrations").glob("*/pyproject.toml"))


def table() -> list[list[str]]:
    """The rows of the table under ``## Adapters at a glance``, header first."""
    text = INDEX.read_text(encoding="utf-8")
    section = text.split("## Adapters at a glance", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    cells = [[c.strip() for c in row.strip().strip("|").split("|")] for row in rows]
    return [c for c in cells if not all(set(x) <= set("-: ") for x in c)]


def test_the_table_has_the_columns() -> None:
    assert table()[0] == COLUMNS


def test_every_adapter_has_a_row_with_every_cell_filled() -> None:
    rows = table()[1:]
    pages: dict[str, list[list[str]]] = {}
    for row in rows:
        assert len(row) == len(COLUMNS), row
        link = re.fullmatch(r"\[[^\]]+\]\(([a-z-]+)\.md(?:#[a-z0-9-]+)?\)", row[0])
        assert link, f"the first cell links to the adapter's page: {row[0]!r}"
        pages.setdefault(link.group(1), []).append(row)
        for column, cell in zip(COLUMNS[1:], row[1:], strict=True):
            assert not PLACEHOLDERS.search(cell), f"{row[0]}: {column} is not filled: {cell!r}"
    assert sorted(pages) == adapters()
    for page in pages:
        assert (REPO / "docs" / "integrations" / f"{page}.md").is_file(), page


def test_the_metadata_column_names_fields_or_says_dropped() -> None:
    for row in table()[1:]:
        metadata = row[COLUMNS.index("metadata")]
        assert "dropped" in metadata or "`" in metadata or "reads" in metadata, row[0]


def test_anchors_in_the_table_exist() -> None:
    """A link to a section of a page names a heading of that page (mkdocs' slugs)."""
    for row in table()[1:]:
        link = re.fullmatch(r"\[[^\]]+\]\(([a-z-]+)\.md(?:#([a-z0-9-]+))?\)", row[0])
        assert link is not None
        if link.group(2) is None:
            continue
        page = (REPO / "docs" / "integrations" / f"{link.group(1)}.md").read_text("utf-8")
        slugs = {
            re.sub(r"[^a-z0-9 -]", "", h.lower()).strip().replace(" ", "-")
            for h in re.findall(r"^#+ (.+)$", page, re.MULTILINE)
        }
        assert link.group(2) in slugs, (link.group(2), sorted(slugs))
