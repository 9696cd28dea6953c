"""The hostile set as a project: every case flagged on every delivery path, and no
invisible character in anything a model is given.

Each case of ``test_content_checks.HOSTILE`` (42: every check, in a body, a script or
a reference) and of ``HOSTILE_NAMES`` (8: a file or folder whose name holds invisible
characters, which every path refuses) becomes one skill ``hNN`` of one project; each
skill also carries the Unicode tag characters in its body and a reference, so every
rendering path has something to strip. The per-path refusals of the names are
``test_hostile_file_names``. Paths: ``list --json`` (``findings``), ``doctor --json``,
``explain --json NAME``, ``invoke`` (the command line and a session on every trigger,
with the session's diagnostics), MCP ``prompts/get``, ``resources/read`` and
``load_skill``, and adapters (the core's ``AgentSkills`` and Agno's tools).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from skillpath.agent import AgentSkills
from skillpath.cli import main
from skillpath.contentscan import strip_invisible
from skillpath.session import SkillSession
from skillpath.textguard import escape_controls, name_refusal

from ..conftest import Env
from .test_content_checks import HOSTILE, HOSTILE_NAMES, TAG, refused_entry

CASES = [
    (f"h{i:02d}", fid, severity, case)
    for i, (fid, severity, case) in enumerate(HOSTILE + HOSTILE_NAMES)
]


def _clean(text: str) -> bool:
    return strip_invisible(text)[1] == 0


@pytest.fixture
def hostile(isolated_env: Env) -> Env:
    root = isolated_env.project / ".agents" / "skills"
    for name, _fid, _sev, case in CASES:
        folder = root / name
        (folder / "references").mkdir(parents=True)
        body = "Do the task.\n"
        rel, sep, text = case.partition(":")
        if sep and "/" in rel and " " not in rel:
            target = folder / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text + "\n", encoding="utf-8")
        else:
            body = case + "\n"
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: A formatter.\n---\n{body}Then stop.{TAG}\n",
            encoding="utf-8",
        )
        (folder / "references" / "tag.md").write_text(f"Tabs.{TAG}\n", encoding="utf-8")
    return isolated_env


def _cli(env: Env, *argv: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, [argv[0], "--cwd", str(env.project), *argv[1:]])
    return res.exit_code, res.stdout


def test_the_set_covers_every_check_with_forty_skills() -> None:
    assert len(CASES) >= 40
    assert len({fid for _n, fid, _s, _c in CASES}) == 12


def _in_a_resource(case: str) -> bool:
    rel = case.partition(":")[0]
    return ":" in case and "/" in rel and " " not in rel


def test_list_json_flags_every_case_of_a_skill_file(hostile: Env) -> None:
    """``list --json`` gives the findings of each ``SKILL.md`` (every skill's tag
    characters, and each case written in a body); a case in a script or a reference is
    left to ``doctor`` and ``validate`` (below), as a plain list reads no other file."""
    code, out = _cli(hostile, "list", "--json")
    assert code == 0
    by_name = {s["name"]: s["findings"] for s in json.loads(out)["skills"]}
    for name, fid, severity, case in CASES:
        got = {(f["id"], f["severity"]) for f in by_name[name]}
        assert ("invisible-tag-chars", "high") in got, name
        assert _in_a_resource(case) or (fid, severity) in got, (name, by_name[name])
        assert all(f["file"] and f["file"].endswith("SKILL.md") for f in by_name[name])
        assert all(f["line"] for f in by_name[name])
    assert sum(_in_a_resource(c) for *_x, c in CASES) >= 10


def test_doctor_flags_every_case(hostile: Env) -> None:
    _code, out = _cli(hostile, "doctor", "--json")
    got = {(f["name"], f["id"], f["severity"]) for f in json.loads(out)["findings"]}
    for name, fid, severity, _case in CASES:
        assert (name, fid, severity) in got
    _code, text = _cli(hostile, "doctor")
    assert f"in {len(CASES)} skill(s)" in text and _clean(text)


def test_explain_flags_every_case(hostile: Env) -> None:
    for name, fid, severity, _case in CASES:
        code, out = _cli(hostile, "explain", "--json", name)
        assert code == 0
        assert (fid, severity) in {(f["id"], f["severity"]) for f in json.loads(out)["findings"]}


def test_invoke_delivers_no_invisible_character_and_reports_the_findings(hostile: Env) -> None:
    session = SkillSession.open(hostile.project, env=hostile.env)
    for name, fid, _severity, _case in CASES:
        for trigger in ("command", "tool", "mcp"):
            rendered = session.invoke(name, "x", trigger=trigger, force=True)
            assert _clean(rendered.content), name
        assert f"content-{fid}" in {
            d.code for d in session.diagnostics if d.path and name in str(d.path)
        }
        assert _clean(session.resolve(f"skill://{name}/references/tag.md").content)
    for name, _fid, _s, _c in CASES[:6]:
        code, out = _cli(hostile, "invoke", name, "y")
        assert code == 0 and _clean(out)


def test_adapters_deliver_no_invisible_character(hostile: Env) -> None:
    from skillpath_agno import SkillpathSkills

    session = SkillSession.open(hostile.project, env=hostile.env)
    agent = AgentSkills(session)
    agno = SkillpathSkills(cwd=hostile.project, env=hostile.env)
    assert _clean(agent.instructions())
    for name, _fid, _s, _c in CASES:
        called = agent.call(name, "z")
        assert "Then stop." in called and _clean(called), name
        read = agent.read(f"skill://{name}/references/tag.md")
        assert "Tabs." in read and _clean(read), name
        instructions = agno._get_skill_instructions(name, "z")
        reference = agno._get_skill_reference(name, "tag.md")
        assert "Then stop." in instructions and _clean(instructions), name
        assert "Tabs." in reference and _clean(reference), name
    assert {f.id for f in session.findings("h00")} >= {"invisible-tag-chars"}


def test_an_adapters_skill_tool_leaves_the_findings_in_its_diagnostics(hostile: Env) -> None:
    for name, fid, _s, _c in CASES[::5]:
        session = SkillSession.open(hostile.project, env=hostile.env)
        assert "Then stop." in AgentSkills(session).call(name)
        codes = {d.code for d in session.diagnostics if d.path and name in d.path.parts}
        assert {f"content-{fid}", "content-invisible-tag-chars"} <= codes, (name, codes)


def test_mcp_prompts_resources_and_load_skill_deliver_no_invisible_character(
    hostile: Env,
) -> None:
    from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client

    metas: dict[str, list[set[str]]] = {}

    async def scenario() -> list[str]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "skillpath", "serve", "--cwd", str(hostile.project), "--poll", "0"],
            env=hostile.env,
        )
        texts: list[str] = []
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            texts.append(json.dumps((await s.list_prompts()).model_dump(), ensure_ascii=False))
            for name, fid, _s, case in CASES:
                got = await s.get_prompt(name, {})
                texts.append(str(got.messages[0].content.text))
                for uri in (f"skill://{name}/SKILL.md", f"skill://{name}/references/tag.md"):
                    content = (await s.read_resource(uri)).contents[0]
                    texts.append(str(getattr(content, "text", "")))
                rel = case.partition(":")[0]
                if fid == "invisible-file-name":
                    with pytest.raises(MCPError) as refused:
                        await s.read_resource(f"skill://{name}/{quote(rel)}")
                    texts.append(str(refused.value))
                elif "/" in rel and " " not in rel:
                    content = (await s.read_resource(f"skill://{name}/{rel}")).contents[0]
                    texts.append(str(getattr(content, "text", "")))
                loaded = await s.call_tool("load_skill", {"name": name})
                texts.append(str(loaded.content[0].text))
                metas[name] = [
                    {f["id"] for f in (r.meta or {}).get("skillpath/findings", [])}
                    for r in (got, loaded)
                ]
                texts.append(json.dumps([got.meta, loaded.meta], ensure_ascii=False))
        return texts

    texts = asyncio.run(asyncio.wait_for(scenario(), 120))
    # the client's diagnostics: each rendered skill's findings in its result's _meta
    for name, fid, _s, _c in CASES:
        assert all(fid in ids for ids in metas[name]), (name, metas[name])
    assert len(texts) > 3 * len(CASES)
    dirty = [t[:80] for t in texts if not _clean(t)]
    assert dirty == []
    assert any("Then stop." in t for t in texts)


def test_validate_flags_every_case_in_its_sarif_log(hostile: Env, tmp_path: Path) -> None:
    root = hostile.project / ".agents" / "skills"
    sarif = tmp_path / "out.sarif"
    code, _out = _cli(hostile, "validate", "--json", "--sarif", str(sarif), str(root))
    assert code == 1  # high findings are errors
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    got = {
        (r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
        for r in results
    }
    for name, fid, _severity, case in CASES:
        rel = case.partition(":")[0] if _in_a_resource(case) else "SKILL.md"
        if fid == "invisible-file-name":  # the entry, its name escaped
            rel = escape_controls(refused_entry(rel), keep="", invisible=True)
        assert any(
            rule == f"content-{fid}" and uri.endswith(f"{name}/{rel}") for rule, uri in got
        ), (name, fid, rel)


@pytest.mark.parametrize("link", [False, True])
def test_an_exported_copy_holds_no_invisible_character(hostile: Env, link: bool) -> None:
    extra = ["--link"] if link else []
    code, out = _cli(hostile, "export", "--to", "claude", "--from", "agents", "--json", *extra)
    assert code == 0, out
    assert "export-invisible-removed" in out
    refused = [d for d in json.loads(out)["diagnostics"] if d["code"] == "export-name-refused"]
    assert len(refused) == len(HOSTILE_NAMES)
    assert all(d["message"].isprintable() and "U+" in d["message"] for d in refused)
    folder = hostile.project / ".claude" / "skills"
    copies = [p for p in folder.rglob("*") if p.is_file() or p.is_symlink()]
    assert len({p.relative_to(folder).parts[0] for p in copies}) == len(CASES)
    for path in copies:
        assert not path.is_symlink() and not path.parent.is_symlink(), path
        assert all(name_refusal(part) is None for part in path.relative_to(folder).parts), path
        text = path.read_text("utf-8", "replace")
        assert _clean(text), path
    assert "Then stop." in (folder / "h00" / "SKILL.md").read_text("utf-8")
