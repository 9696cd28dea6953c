"""Files and folders whose names hold invisible characters, on every delivery path.

A name cannot be cleaned the way text is (the file is found by its exact name), so
every path refuses the entry (:func:`skillpath.textguard.name_refusal`): it is not
listed, not readable and not copied, and the content checks report it as
``invisible-file-name`` with the name escaped. Names that are merely not ASCII
(``résumé.md`` in NFC and NFD, CJK, an emoji) work everywhere.

One project holds one skill per case of ``test_content_checks.HOSTILE_NAMES``, each
with the legitimate names of ``LEGIT_NAMES`` beside it. Paths: ``skill://`` listings
and reads (a session, ``AgentSkills.read_file``, ``skillpath read``), ``show --json``,
``doctor``/``explain``/``validate`` (``--json``), a session's diagnostics, the search
index, and the MCP server's ``resources/list``, ``resources/templates/list``,
``skills/list``, ``resources/read`` and ``load_skill``. The export copy is in
``test_hostile_delivery``; the adapters' own file tools are in each integration's
``test_invisible.py`` (through :mod:`skillpath_testing.hostile`).
"""

from __future__ import annotations

import asyncio
import json
import sys
import unicodedata
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import pytest
from click.testing import CliRunner
from skillpath.agent import AgentSkills
from skillpath.cli import main
from skillpath.errors import ResolveError
from skillpath.session import SkillSession
from skillpath.textguard import escape_controls, name_refusal

from ..conftest import Env
from .test_content_checks import HOSTILE_NAMES, LEGIT_NAMES, refused_entry

CASES = [(f"n{i}", sev, case.partition(":")[0]) for i, (_f, sev, case) in enumerate(HOSTILE_NAMES)]


def _hidden(value: Any) -> list[str]:
    """Every control, format, private-use, unassigned or separator code point (line
    breaks and tabs aside) in ``value``, or in the strings of the JSON it is."""
    if isinstance(value, str):
        try:
            value = [value, json.loads(value)]
        except ValueError:
            value = [value]
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack += [*item.keys(), *item.values()]
        elif isinstance(item, list | tuple):
            stack += list(item)
        elif isinstance(item, str):
            out += [
                f"U+{ord(c):04X}"
                for c in item
                if c not in "\n\t\r" and unicodedata.category(c) in {"Cc", "Cf", "Co", "Cn"}
            ]
    return sorted(set(out))


def _refused(message: str) -> bool:
    """A refusal's text: the name refusal, or the containment check's for a control
    character (a line break), which comes first."""
    return "is refused: its name holds invisible characters (U+" in message or (
        "control character U+" in message
    )


@pytest.fixture
def named(isolated_env: Env) -> Env:
    root = isolated_env.project / ".agents" / "skills"
    for name, _sev, rel in CASES:
        folder = root / name
        (folder / "references").mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Formats reports.\n---\nSee the references.\n",
            encoding="utf-8",
        )
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("Hidden by its name.\n", encoding="utf-8")
        for legit in LEGIT_NAMES:
            (folder / legit).write_text(f"Fine: {legit}\n", encoding="utf-8")
        (folder / "scripts").mkdir(exist_ok=True)
        (folder / "scripts" / "ok.sh").write_text("echo ok\n", encoding="utf-8")
    return isolated_env


def _cli(env: Env, *argv: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, [argv[0], "--cwd", str(env.project), *argv[1:]])
    return res.exit_code, res.stdout


def _walk_listing(session: SkillSession, name: str) -> list[str]:
    """Every entry of skill ``name``'s folder, as ``skill://`` listings give them."""
    out, todo = [], ["."]
    while todo:
        folder = todo.pop()
        listing = session.resolve(f"skill://{name}/{quote(folder)}")
        assert listing.is_directory
        for entry in listing.content.splitlines():
            rel = entry if folder == "." else f"{folder}/{entry}"
            out.append(rel)
            if entry.endswith("/"):
                todo.append(rel.rstrip("/"))
    return out


def test_skill_url_listings_leave_the_entry_out_and_reads_refuse_it(named: Env) -> None:
    session = SkillSession.open(named.project, env=named.env)
    for name, _sev, rel in CASES:
        entries = _walk_listing(session, name)
        assert _hidden(entries) == [], (name, entries)
        assert all(name_refusal(e.rstrip("/")) is None for e in entries)
        assert set(LEGIT_NAMES) <= set(entries) and "scripts/ok.sh" in entries
        for legit in LEGIT_NAMES:
            assert session.resolve(f"skill://{name}/{quote(legit)}").content == f"Fine: {legit}\n"
        for url in (f"skill://{name}/{quote(rel)}", f"skill://{name}/{quote(refused_entry(rel))}"):
            with pytest.raises(ResolveError) as refused:
                session.resolve(url)
            message = str(refused.value)
            assert _refused(message), message
            assert _hidden(message) == [] and "\n" not in message


def test_the_read_file_tool_lists_and_reads_only_what_may_be_read(named: Env) -> None:
    agent = AgentSkills(SkillSession.open(named.project, env=named.env))
    for name, _sev, rel in CASES:
        listing = agent.read_file(name, "")
        assert _hidden(listing) == [] and "references/" in listing
        refs = agent.read_file(name, "references")
        assert "r\u00e9sum\u00e9.md" in refs and "\u6587\u6863.md" in refs and _hidden(refs) == []
        answer = agent.read_file(name, rel)
        assert answer.startswith("Error:") and _refused(answer) and _hidden(answer) == []
        assert agent.read_file(name, "references/r\u00e9sum\u00e9.md").startswith("Fine:")


def test_skillpath_read_and_show_list_no_refused_name(named: Env) -> None:
    for name, _sev, rel in CASES:
        code, out = _cli(named, "read", f"skill://{name}/.")
        assert code == 0 and "references/" in out and _hidden(out) == []
        code, out = _cli(named, "read", f"skill://{name}/{quote(rel)}")
        assert code != 0 and _hidden(out) == []
        code, out = _cli(named, "show", "--json", name)
        assert code == 0, out
        files = [r["path"] for r in json.loads(out)["resources"]]
        assert set(LEGIT_NAMES) <= set(files) and _hidden(files) == []


def test_doctor_explain_and_validate_report_each_entry_escaped(named: Env, tmp_path: Path) -> None:
    expected = {
        (name, sev, escape_controls(refused_entry(rel), keep="", invisible=True))
        for name, sev, rel in CASES
    }
    code, out = _cli(named, "doctor", "--json")
    got = {
        (f["name"], f["severity"], f["file"].partition(f"/{f['name']}/")[2])
        for f in json.loads(out)["findings"]
        if f["id"] == "invisible-file-name"
    }
    assert got == expected and _hidden(out) == []
    code, text = _cli(named, "doctor")
    assert "invisible-file-name" in text and _hidden(text) == []
    for name, sev, rel in CASES:
        code, out = _cli(named, "explain", "--json", name)
        assert code == 0
        (hit,) = [f for f in json.loads(out)["findings"] if f["id"] == "invisible-file-name"]
        assert hit["severity"] == sev and hit["file"].endswith(
            escape_controls(refused_entry(rel), keep="", invisible=True)
        )
        assert "not listed, read or copied" in hit["reason"] and _hidden(out) == []
    sarif = tmp_path / "names.sarif"
    root = named.project / ".agents" / "skills"
    code, out = _cli(named, "validate", "--json", "--sarif", str(sarif), str(root))
    assert code == 1  # the high ones are errors
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    rules = [r for r in results if r["ruleId"] == "content-invisible-file-name"]
    assert len(rules) == len(CASES)
    levels = sorted(r["level"] for r in rules)
    assert levels == sorted("error" if s == "high" else "warning" for _n, s, _r in CASES)
    assert _hidden(out) == [] and _hidden(sarif.read_text()) == []


def test_a_session_reports_the_refusal_in_its_diagnostics(named: Env) -> None:
    for name, _sev, rel in CASES[:3]:
        session = SkillSession.open(named.project, env=named.env)
        assert "See the references." in AgentSkills(session).call(name)
        diags = [d for d in session.diagnostics if d.code == "content-invisible-file-name"]
        assert diags and all(d.path is not None and d.path.name.isprintable() for d in diags)
        assert any(
            str(d.path).endswith(
                name + "/" + escape_controls(refused_entry(rel), keep="", invisible=True)
            )
            for d in diags
        )
        assert _hidden([d.message for d in diags]) == []


def test_the_search_index_holds_no_refused_name(named: Env) -> None:
    from skillpath.search import _resources

    session = SkillSession.open(named.project, env=named.env)
    mine = {n for n, _s, _r in CASES}
    for skill in (s for s in session.skills() if s.name in mine):
        words = _resources(skill.base_dir).split(" ")
        assert "references/r\u00e9sum\u00e9.md" in words and _hidden(words) == [], skill.name


def test_mcp_resources_never_name_or_serve_a_refused_entry(named: Env) -> None:
    from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client

    async def scenario() -> dict[str, Any]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "skillpath", "serve", "--cwd", str(named.project), "--poll", "0"],
            env=named.env,
        )
        out: dict[str, Any] = {"refused": []}
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            out["resources"] = (await s.list_resources()).model_dump(mode="json")
            out["templates"] = (await s.list_resource_templates()).model_dump(mode="json")
            out["tool"] = (await s.call_tool("list_skills", {})).model_dump(mode="json")
            for name, _sev, rel in CASES:
                with pytest.raises(MCPError) as refused:
                    await s.read_resource(f"skill://{name}/{quote(rel)}")
                out["refused"].append(str(refused.value))
                legit = await s.read_resource(f"skill://{name}/{quote(LEGIT_NAMES[0])}")
                out.setdefault("legit", []).append(legit.contents[0].text)  # type: ignore[union-attr]
                loaded = await s.call_tool("load_skill", {"name": name})
                out.setdefault("loaded", []).append(loaded.model_dump(mode="json"))
        return out

    got = asyncio.run(asyncio.wait_for(scenario(), 120))
    uris = [r["uri"] for r in got["resources"]["resources"]]
    for name, _sev, _rel in CASES:
        for legit in LEGIT_NAMES:
            assert f"skill://{name}/{quote(legit)}" in uris
    assert _hidden([unquote(u) for u in uris]) == [], uris
    assert all(_refused(m) for m in got["refused"]), got["refused"]
    assert got["legit"] == [f"Fine: {LEGIT_NAMES[0]}\n"] * len(CASES)
    assert _hidden(got) == []


def test_add_from_a_folder_copies_no_refused_name(named: Env) -> None:
    """``skillpath add`` of a folder holding refused names copies the rest, with an
    ``add-name-refused`` warning (the name escaped) for each entry left out."""
    env = named
    source = env.project / ".agents" / "skills"
    for name, _sev, rel in CASES[:3] + CASES[5:6]:
        res = CliRunner().invoke(
            main,
            ["add", str(source / name), "--cwd", str(env.home), "--agent", "claude", "--json"],
        )
        assert res.exit_code == 0, res.output
        report = json.loads(res.stdout)
        copied = env.home / ".agents" / "skills" / name
        names = sorted(p.relative_to(copied).as_posix() for p in copied.rglob("*"))
        assert not any(name_refusal(part) for n in names for part in n.split("/")), names
        assert "scripts/ok.sh" in names and "SKILL.md" in names
        assert all(legit in names for legit in LEGIT_NAMES), names
        refused = [d for d in report["diagnostics"] if d["code"] == "add-name-refused"]
        assert len(refused) == 1, report["diagnostics"]
        shown = escape_controls(refused_entry(rel), keep="", invisible=True)
        assert f"'{shown}' is not copied" in refused[0]["message"]
        assert _hidden(refused[0]["message"]) == []


def test_a_pack_member_with_a_refused_name_is_neither_listed_nor_written(
    isolated_env: Env,
) -> None:
    """A bundled skill (the pack path) whose files hold refused names: a
    ``pack-member-refused`` error each, and the extracted tree holds only the rest."""
    from skillpath import PluginHost, load_skills
    from skillpath.bundled import BundledSkill, clear_bundled_skills, register_bundled_skill
    from skillpath.extract import materialize

    files = {rel.partition(":")[0]: "hidden\n" for _f, _s, rel in HOSTILE_NAMES}
    files["references/ok.md"] = "fine\n"
    clear_bundled_skills()
    try:
        register_bundled_skill(BundledSkill("packed", "Packed.", body="x", files=files))
        res = load_skills(
            isolated_env.project,
            home=isolated_env.home,
            env=isolated_env.env,
            host=PluginHost.create(autoload=False, env={}),
        )
        skill = res.get("packed")
        assert skill is not None and skill.base_dir is not None
        refused = [d for d in res.diagnostics if d.code == "pack-member-refused"]
        assert len(refused) == len(HOSTILE_NAMES)
        assert all(_hidden(d.message) == [] for d in refused)
        materialize(skill)
        written = sorted(
            p.relative_to(skill.base_dir).as_posix() for p in skill.base_dir.rglob("*")
        )
        assert written == ["SKILL.md", "references", "references/ok.md"]
    finally:
        clear_bundled_skills()


@pytest.mark.parametrize(
    "folder_name",
    [
        "report\u202egpj.exe",  # a bidi override: the listing reads another name
        "deploy\u200b",  # a zero-width space: two folders that look the same
        "\u2066safe\u2069",  # bidi isolates around a harmless-looking name
        "tool\U000e0041\U000e0042",  # tag characters: text a model reads, a reader does not
    ],
)
@pytest.mark.parametrize("with_name", [True, False])
def test_a_skill_folder_whose_own_name_is_invisible_is_refused_by_the_scan(
    tmp_path: Path, folder_name: str, with_name: bool
) -> None:
    # an attacker names the folder itself; the frontmatter name, when there is one,
    # is clean, so nothing but the folder name gives the trick away
    from skillpath import SkillSource, scan_skills_dir

    root = tmp_path / "skills"
    (root / "fine").mkdir(parents=True)
    (root / "fine" / "SKILL.md").write_text(
        "---\ndescription: A plain skill.\n---\nBody.\n", encoding="utf-8"
    )
    folder = root / folder_name
    folder.mkdir()
    head = "name: innocent\n" if with_name else ""
    (folder / "SKILL.md").write_text(
        f"---\n{head}description: Looks harmless.\n---\nBody.\n", encoding="utf-8"
    )
    link = root / f"link{folder_name}"
    link.symlink_to(folder, target_is_directory=True)
    res = scan_skills_dir(root, SkillSource("custom", "user", root))
    assert [s.name for s in res.skills] == ["fine"]
    refusals = [d for d in res.diagnostics if d.code == "invalid-name"]
    assert sorted(str(d.path) for d in refusals) == sorted([str(folder), str(link)])
    why = name_refusal(folder_name)
    assert why is not None
    for d in refusals:
        assert d.level == "error"
        assert why in d.message
    assert len(res.diagnostics) == 2
