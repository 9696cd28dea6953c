"""``SkillSession.refresh`` and the helpers every framework adapter shares."""

from __future__ import annotations

import shutil

from skillpath.adapters import (
    BASE_DIR_LINE,
    call_skill_tool,
    model_skills,
    read_skill_url,
    with_files_hint,
)

from .conftest import Runtime


def test_refresh_sees_added_edited_and_removed_skills(rt: Runtime) -> None:
    rt.project_skill("keep", description="Keep.", body="Old body.\n")
    rt.project_skill("gone", description="Gone.")
    rt.project_skill("gated", description="Only for src.", paths='"src/**"')
    s = rt.session()
    assert [x.name for x in s.activate_for_paths(["src/a.py"])] == ["gated"]
    assert "Old body." in call_skill_tool(s, "keep")

    rt.project_skill("keep", description="Kept, edited.", body="New body.\n")
    rt.project_skill("fresh", description="Fresh.")
    rt.project_skill("gated", description="Edited gate.", paths='"src/**"')
    shutil.rmtree(rt.project / ".skillpath" / "skills" / "gone")
    events = s.refresh()

    assert sorted((type(e).__name__, e.name) for e in events) == [
        ("SkillAdded", "fresh"),
        ("SkillChanged", "gated"),
        ("SkillChanged", "keep"),
        ("SkillRemoved", "gone"),
    ]
    assert [x.name for x in s.skills()] == ["fresh", "gated", "keep"]
    assert set(s.ctx.skills) == {"fresh", "gated", "keep"}
    gated = s.get("gated")
    assert gated is not None and gated.description == "Edited gate."  # stays active, new text
    assert s.pending() == ()
    assert "Kept, edited." in s.listing().text and "gone" not in s.listing().text
    assert "New body." in call_skill_tool(s, "keep")  # edited: rendered in full again
    assert call_skill_tool(s, "gone").startswith("Error: Unknown skill 'gone'")
    assert s.refresh() == ()


def test_tool_helpers_answer_mistakes_with_text(rt: Runtime) -> None:
    rt.project_skill("greet", description="Greet.", body="Hello $ARGUMENTS.\n")
    rt.project_skill("manual", description="User only.", disable_model_invocation="true")
    rt.project_skill("quiet", description="Hidden.", hide="true")
    s = rt.session()
    assert [x.name for x in model_skills(s)] == ["greet"]
    assert "Hello Ada." in call_skill_tool(s, "greet", "Ada")
    unknown = call_skill_tool(s, "gret")
    assert unknown.startswith("Error: Unknown skill 'gret'. Did you mean: greet?")
    assert "cannot be invoked by the model" in call_skill_tool(s, "manual")
    assert call_skill_tool(s, 3) == call_skill_tool(s, " ") != ""
    assert call_skill_tool(s, "greet", ["x"]) == "Error: `args` must be a string"
    assert "Hello" in read_skill_url(s, "skill://greet")
    assert read_skill_url(s, "/etc/passwd").startswith("Error: the URL must start with skill://")
    escape = read_skill_url(s, "skill://greet/../../../../etc/passwd")
    assert escape.startswith("Error: ") and "root:" not in escape


def test_with_files_hint_names_the_read_tool_on_the_base_directory_line(rt: Runtime) -> None:
    folder = rt.project_skill("styled", description="Style.", body="Read style.md.\n").parent
    s = rt.session()
    text = call_skill_tool(s, "styled")
    line = f"{BASE_DIR_LINE}{folder}"
    assert text.startswith(line + "\n")
    hinted = with_files_hint(s, "styled", text, "read_skill")
    assert hinted == (
        f"{line} (read its files with read_skill: skill://styled/<path>)" + text[len(line) :]
    )
    assert read_skill_url(s, "skill://styled/SKILL.md").endswith("Read style.md.\n")
    own = with_files_hint(s, "styled", text, "unused", hint=" (files: ask get_file)")
    assert own == f"{line} (files: ask get_file)" + text[len(line) :]
    # anything that does not start with the skill's own base-directory line: unchanged
    note = call_skill_tool(s, "styled")  # the "already loaded" note
    error = call_skill_tool(s, "nope")
    for other in (note, error, "Body.\n", f"{line}/elsewhere\n\nBody."):
        assert with_files_hint(s, "styled", other, "read_skill") == other
    assert with_files_hint(s, "nope", text, "read_skill") == text
