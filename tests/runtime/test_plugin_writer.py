"""``skillpath.plugin_writer``: skills as a Claude Code plugin, kept in sync, safely."""

from __future__ import annotations

import json
import os
from pathlib import Path

import attrs
import pytest
from skillpath import SkillpathError, SkillSource
from skillpath.plugin_writer import MANIFEST_FILE, write_claude_plugin
from skillpath.scan import build_skill
from skillpath.shell import DISABLED_TEXT, ShellPolicy

from .conftest import Runtime


def tree(root: Path) -> dict[str, str]:
    """Every regular file under ``root`` (relative path -> text), links as ``-> target``."""
    out: dict[str, str] = {}
    for top, dirs, names in os.walk(root):
        dirs.sort()
        for name in sorted(names) + [d for d in dirs if (Path(top) / d).is_symlink()]:
            p = Path(top) / name
            rel = p.relative_to(root).as_posix()
            out[rel] = f"-> {os.readlink(p)}" if p.is_symlink() else p.read_text()
    return out


def test_writes_a_claude_plugin_with_sibling_files(rt: Runtime, tmp_path: Path) -> None:
    rt.project_skill(
        "notes", description="Take notes.", body="Use $ARGUMENTS.\n", argument_hint="x"
    )
    (rt.project / ".skillpath" / "skills" / "notes" / "ref").mkdir()
    (rt.project / ".skillpath" / "skills" / "notes" / "ref" / "a.md").write_text("A\n")
    rt.user_skill("tidy", description="Tidy up: carefully.")
    dest = tmp_path / "plugin"
    out = write_claude_plugin(dest, rt.session().skills(), name="mine", version="1.2.3")

    assert out.skills == out.written == ("notes", "tidy") and not out.diagnostics
    files = tree(dest)
    assert json.loads(files[".claude-plugin/plugin.json"]) == {
        "name": "mine",
        "description": "Skills found and served by skillpath.",
        "version": "1.2.3",
        "author": {"name": "skillpath"},
    }
    assert files["skills/notes/SKILL.md"] == (
        "---\nname: notes\ndescription: Take notes.\nargument-hint: x\n---\nUse $ARGUMENTS.\n"
    )
    assert files["skills/notes/ref/a.md"] == "A\n"
    assert files["skills/tidy/SKILL.md"].startswith(
        "---\nname: tidy\ndescription: 'Tidy up: carefully.'\n---\n"
    )
    manifest = json.loads(files[MANIFEST_FILE])
    assert manifest["plugin"] == "mine" and sorted(manifest["skills"]) == ["notes", "tidy"]
    assert not [n for n in files if ".tmp" in n or n.endswith((".new", ".old"))]


def test_sync_rewrites_only_what_changed_and_removes_what_it_wrote(
    rt: Runtime, tmp_path: Path
) -> None:
    rt.project_skill("keep", description="Keep.")
    rt.project_skill("edit", description="Edit.", body="v1\n")
    rt.project_skill("drop", description="Drop.")
    dest = tmp_path / "plugin"
    write_claude_plugin(dest, rt.session().skills())
    kept = (dest / "skills" / "keep" / "SKILL.md").stat()

    rt.project_skill("edit", description="Edit.", body="v2\n")
    (rt.project / ".skillpath" / "skills" / "drop" / "SKILL.md").unlink()
    out = write_claude_plugin(dest, rt.session().skills())
    assert out.written == ("edit",) and out.unchanged == ("keep",) and out.removed == ("drop",)
    assert (dest / "skills" / "edit" / "SKILL.md").read_text().endswith("v2\n")
    assert not (dest / "skills" / "drop").exists()
    assert (dest / "skills" / "keep" / "SKILL.md").stat().st_ino == kept.st_ino  # not rewritten
    again = write_claude_plugin(dest, rt.session().skills())
    assert not again.changed and again.unchanged == ("edit", "keep")


def test_never_deletes_or_overwrites_folders_it_did_not_write(rt: Runtime, tmp_path: Path) -> None:
    rt.project_skill("mine", description="Mine.")
    dest = tmp_path / "plugin"
    write_claude_plugin(dest, rt.session().skills())
    theirs = dest / "skills" / "theirs"
    theirs.mkdir()
    (theirs / "SKILL.md").write_text("hand-written\n")
    rt.project_skill("theirs", description="Same name as a folder in the way.")
    out = write_claude_plugin(dest, rt.session().skills())
    assert [d.code for d in out.diagnostics] == ["export-folder-in-the-way"]
    assert (theirs / "SKILL.md").read_text() == "hand-written\n"
    out = write_claude_plugin(dest, [])  # nothing selected now: only "mine" goes
    assert out.removed == ("mine",) and (theirs / "SKILL.md").read_text() == "hand-written\n"


def test_a_tampered_manifest_cannot_make_it_delete_outside(rt: Runtime, tmp_path: Path) -> None:
    dest = tmp_path / "plugin"
    write_claude_plugin(dest, [])
    outside = tmp_path / "precious"
    outside.mkdir()
    (outside / "data").write_text("keep me\n")
    (dest / "skills").mkdir(exist_ok=True)
    manifest = {"format": 1, "skills": {"../../precious": "x", "..": "x", "/tmp": "x"}}
    (dest / MANIFEST_FILE).write_text(json.dumps(manifest))
    out = write_claude_plugin(dest, [])
    assert {d.code for d in out.diagnostics} == {"export-manifest-entry"}
    assert (outside / "data").read_text() == "keep me\n" and out.removed == ()


def test_refuses_a_plugin_it_did_not_write_and_links(rt: Runtime, tmp_path: Path) -> None:
    foreign = tmp_path / "foreign"
    (foreign / ".claude-plugin").mkdir(parents=True)
    (foreign / ".claude-plugin" / "plugin.json").write_text('{"name": "x"}')
    with pytest.raises(SkillpathError, match="did not write"):
        write_claude_plugin(foreign, [])
    assert (foreign / ".claude-plugin" / "plugin.json").read_text() == '{"name": "x"}'

    linked = tmp_path / "linked"
    write_claude_plugin(linked, [])
    target = tmp_path / "elsewhere"
    target.mkdir()
    os.symlink(target, linked / "skills")
    rt.project_skill("x", description="X.")
    with pytest.raises(SkillpathError, match="symbolic link"):
        write_claude_plugin(linked, rt.session().skills())
    assert list(target.iterdir()) == []
    with pytest.raises(SkillpathError, match="plugin name"):
        write_claude_plugin(tmp_path / "p", [], name="../x")


def test_links_in_a_skill_folder_are_not_followed(rt: Runtime, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET\n")
    rt.project_skill("leaky", description="Leaky.")
    folder = rt.project / ".skillpath" / "skills" / "leaky"
    os.symlink(secret, folder / "secret.txt")
    os.symlink(tmp_path, folder / "up")
    out = write_claude_plugin(tmp_path / "plugin", rt.session().skills())
    assert sorted(d.code for d in out.diagnostics) == ["export-symlink-skipped"] * 2
    assert "TOP SECRET\n" not in tree(tmp_path / "plugin").values()


def test_names_claude_code_does_not_accept_are_skipped(rt: Runtime, tmp_path: Path) -> None:
    rt.project_skill("fine", description="Fine.")
    (good,) = rt.session().skills()
    evil = attrs.evolve(good, name="../../escape")
    upper = attrs.evolve(good, name="Upper")
    out = write_claude_plugin(tmp_path / "plugin", [evil, upper, good])
    assert out.skills == ("fine",)
    assert [d.code for d in out.diagnostics] == ["export-name", "export-name"]
    assert not (tmp_path / "escape").exists()


def test_inline_shell_the_policy_refuses_is_neutralised(rt: Runtime, tmp_path: Path) -> None:
    body = "Now: !`date`\n```!\nls\n```\n"
    rt.project_skill("proj", description="Project level.", body=body)
    rt.user_skill("usr", description="User level.", body=body)
    dest = tmp_path / "plugin"
    write_claude_plugin(dest, rt.session().skills())
    proj = (dest / "skills" / "proj" / "SKILL.md").read_text()
    assert "!`date`" not in proj and proj.count(DISABLED_TEXT) == 2
    assert "Now: !`date`" in (dest / "skills" / "usr" / "SKILL.md").read_text()
    write_claude_plugin(dest, rt.session().skills(), shell_policy=ShellPolicy(enabled=False))
    assert "!`date`" not in (dest / "skills" / "usr" / "SKILL.md").read_text()


def test_skills_without_a_folder_are_written_from_their_text(tmp_path: Path) -> None:
    source = SkillSource(provider="mcp", level="remote", root=None, loaded_from="mcp")
    skill, diags = build_skill(
        {"name": "remote-one", "description": "From a server."},
        default_name="remote-one",
        source=source,
        priority=20,
        path=None,
        base_dir=None,
        require_description=True,
        body_loader=lambda: "Remote body: !`whoami`\n",
    )
    assert skill is not None and not diags
    write_claude_plugin(tmp_path / "plugin", [skill])
    text = (tmp_path / "plugin" / "skills" / "remote-one" / "SKILL.md").read_text()
    assert text == (
        f"---\nname: remote-one\ndescription: From a server.\n---\nRemote body: {DISABLED_TEXT}\n"
    )
