"""``skillpath search`` and ``skillpath explain NAME --query``."""

from __future__ import annotations

from ..conftest import Env
from .conftest import Cli


def _project(env: Env) -> None:
    env.skill(".agents/skills", "pdf-tables", "Extract tables from PDF files into CSV.")
    env.skill(
        ".claude/skills",
        "sql-review",
        "Review SQL migrations.",
        "# Locking\n\nLong locks block writes.\n",
    )
    env.skill(".agents/skills", "quiet", "Rotate secrets quietly.", hide="true")


def test_search_prints_ranked_results_with_scores_and_fields(cli: Cli) -> None:
    _project(cli.env)
    res = cli.run("search", "pdf", "tables")
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0].split() == ["#", "NAME", "SCORE", "MATCHED", "DESCRIPTION"]
    assert lines[2].split()[:2] == ["1", "pdf-tables"]


def test_search_json_is_the_documented_shape(cli: Cli) -> None:
    _project(cli.env)
    data = cli.json("search", "locking", "writes")
    assert set(data) == {"query", "terms", "results", "diagnostics"}
    assert data["terms"] == ["locking", "writes"]
    (hit,) = data["results"]
    assert hit["name"] == "sql-review"
    assert set(hit) == {"name", "score", "matched", "description"}
    assert "headings" in hit["matched"] and "body" in hit["matched"]


def test_hidden_skills_need_all(cli: Cli) -> None:
    _project(cli.env)
    assert "quiet" not in [r["name"] for r in cli.json("search", "rotate", "secrets")["results"]]
    assert cli.json("search", "--all", "rotate")["results"][0]["name"] == "quiet"


def test_no_match_says_so(cli: Cli) -> None:
    _project(cli.env)
    res = cli.run("search", "kangaroo")
    assert res.exit_code == 0 and "No skill matches 'kangaroo'" in res.stdout


def test_k_bounds_the_results(cli: Cli) -> None:
    for i in range(12):
        cli.env.skill(".agents/skills", f"deploy-{i:02}", "Deploy things.")
    assert len(cli.json("search", "deploy")["results"]) == 10
    assert len(cli.json("search", "-k", "3", "deploy")["results"]) == 3
    assert cli.run("search", "-k", "0", "deploy").exit_code == 2


def test_explain_query_says_where_and_why(cli: Cli) -> None:
    _project(cli.env)
    res = cli.run("explain", "sql-review", "--query", "review the locking")
    assert res.exit_code == 0
    assert "sql-review: rank 1 of " in res.stdout
    assert "headings (locking)" in res.stdout
    data = cli.json("explain", "sql-review", "--query", "pdf")
    assert data["search"]["rank"] is None
    data = cli.json("explain", "missing", "--query", "pdf")
    assert data["search"] is None
