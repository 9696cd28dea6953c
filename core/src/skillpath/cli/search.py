"""``skillpath search QUERY``: the loaded skills ranked for a task (see :mod:`skillpath.search`)."""

from __future__ import annotations

from pathlib import Path

import click

from skillpath.cli._common import (
    common_options,
    echo,
    echo_diagnostics,
    emit_json,
    refresh_option,
    table,
    terminal_safe,
)
from skillpath.cli._load import host_for, load
from skillpath.extract import cache_root
from skillpath.model import Diagnostic
from skillpath.search import index_for, search_skills

__all__ = ["search_cmd"]


@click.command("search")
@click.argument("query", nargs=-1, required=True)
@click.option(
    "-k",
    "--k",
    "k",
    type=click.IntRange(1, 100),
    default=10,
    show_default=True,
    help="How many results at most.",
)
@click.option(
    "--all",
    "include_hidden",
    is_flag=True,
    help="Also rank hidden skills (hide, disable-model-invocation).",
)
@refresh_option
@common_options
def search_cmd(
    query: tuple[str, ...], k: int, include_hidden: bool, cwd: Path | None, as_json: bool
) -> None:
    """Rank the loaded skills for QUERY (words describing a task), best first.

    BM25 over each skill's name, description, when_to_use, headings, body and
    resource file names (weights in `skillpath.search.WEIGHTS`); ties by name.
    The index is kept in the cache per catalog, so a changed skill is never
    served stale. Installed `rank_skills` plugins may re-rank.

    JSON shape (a contract): {"query", "terms": [searched words], "results":
    [{name, score, matched: [fields], description}], "diagnostics": [...]}.
    """
    text = " ".join(query)
    result, ctx = load(cwd)
    diags: list[Diagnostic] = []
    cache = cache_root(ctx.env) / "search"
    hits = search_skills(
        result,
        text,
        k,
        include_hidden=include_hidden,
        ctx=ctx,
        host=host_for(ctx),
        cache_dir=cache,
        diagnostics=diags,
        fields=True,
    )
    if as_json:
        emit_json(
            {
                "query": text,
                "terms": list(index_for(result.skills, cache_dir=cache).searched_terms(text)),
                "results": [h.to_json() for h in hits],
                "diagnostics": [d.to_json() for d in diags],
            }
        )
        return
    echo_diagnostics(diags)
    if not hits:
        echo(terminal_safe(f"No skill matches {text!r}."))
        return
    rows = [
        [str(i), h.name, f"{h.score:.2f}", ",".join(h.matched), h.skill.description or ""]
        for i, h in enumerate(hits, 1)
    ]
    echo(table(["#", "NAME", "SCORE", "MATCHED", "DESCRIPTION"], rows))
