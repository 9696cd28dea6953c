"""A skill's folder name is an alias for lookups when its frontmatter name differs.

Real repositories name skills "Ahrefs Automation" in folder ``ahrefs-automation/``;
the catalog keeps the name, and every lookup (``invoke``, ``show``, ``read
skill://``, ``explain``, ``/skill:``) also accepts the folder name.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner, Result
from skillpath.cli import main
from skillpath.commands import UnknownSkillError

from .conftest import Runtime, skill_text


@pytest.fixture
def proj(rt: Runtime) -> Runtime:
    rt.project_skill(
        "ahrefs-automation",
        skill_text(
            "Automate Ahrefs reports.", body="Run the Ahrefs report for $ARGUMENTS.\n"
        ).replace("---\n", "---\nname: Ahrefs Automation\n", 1),
    )
    return rt


def run(rt: Runtime, command: str, *args: str) -> Result:
    argv = [command, "--cwd", str(rt.project), *args]
    return CliRunner().invoke(main, argv, env=rt.environ, catch_exceptions=False)


def test_the_catalog_keeps_the_frontmatter_name(proj: Runtime) -> None:
    session = proj.session()
    assert [s.name for s in session.skills()] == ["Ahrefs Automation"]
    assert session.get("ahrefs-automation") is session.get("Ahrefs Automation")


def test_invoke_show_read_and_explain_accept_the_folder_name(proj: Runtime) -> None:
    res = run(proj, "invoke", "--json", "ahrefs-automation", "example.com")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["name"] == "Ahrefs Automation"
    assert "Run the Ahrefs report for example.com." in data["content"]
    shown = run(proj, "show", "--json", "ahrefs-automation")
    assert shown.exit_code == 0 and json.loads(shown.stdout)["name"] == "Ahrefs Automation"
    read = run(proj, "read", "skill://ahrefs-automation")
    assert read.exit_code == 0 and "Run the Ahrefs report" in read.stdout
    explained = json.loads(run(proj, "explain", "--json", "ahrefs-automation").stdout)
    assert explained["available"] is True
    assert explained["entries"][0]["name"] == "Ahrefs Automation"


def test_slash_command_accepts_the_folder_name(proj: Runtime) -> None:
    session = proj.session()
    slash = session.parse_slash("/skill:ahrefs-automation example.com")
    assert slash is not None and slash.known and slash.name == "Ahrefs Automation"
    assert slash.args == "example.com"
    rendered = session.invoke(slash.name, slash.args)
    assert "Run the Ahrefs report for example.com." in rendered.text


def test_a_shared_folder_name_is_no_alias_and_is_suggested_first(rt: Runtime) -> None:
    for root, name in ((rt.project_skill, "SEO Audit A"), (rt.user_skill, "SEO Audit B")):
        root("seo-audit", skill_text("Audit.").replace("---\n", f"---\nname: {name}\n", 1))
    rt.project_skill("seo-audits", skill_text("A near name."))
    session = rt.session()
    assert session.get("seo-audit") is None
    with pytest.raises(UnknownSkillError) as err:
        session.invoke("seo-audit")
    assert "Did you mean: SEO Audit A, SEO Audit B, seo-audits?" in str(err.value)
    slash = session.parse_slash("/skill:seo-audit")
    assert slash is not None and not slash.known
    assert slash.suggestions[:2] == ("SEO Audit A", "SEO Audit B")
    res = run(rt, "read", "skill://seo-audit")
    assert res.exit_code != 0
    assert "Did you mean: SEO Audit A, SEO Audit B" in res.output
    data = json.loads(run(rt, "explain", "--json", "seo-audit").stdout)
    assert data["near"][:2] == ["SEO Audit A", "SEO Audit B"]
