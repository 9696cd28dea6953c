"""``SkillSession.refresh`` and ``skillpath.agent.AgentSkills``, the adapters' shared core."""

from __future__ import annotations

import pytest
from skillpath import SkillpathError, SkillSession
from skillpath.adapters import call_skill_tool
from skillpath.agent import (
    READ_TOOL_NAME,
    AgentSkills,
    NoProviderError,
    disk_state,
    no_skills_text,
    paths_in_arguments,
    provider_plugins,
    unknown_for_model,
    watch_paths,
)

from .conftest import Runtime, skill_text


def test_refresh_sees_added_edited_and_removed_skills(rt: Runtime) -> None:
    rt.project_skill("keep", description="Keep.")
    gone = rt.project_skill("gone", description="Gone soon.")
    s = rt.session()
    assert s.refresh() == ()  # nothing changed on disk
    rt.project_skill("new", description="New.")
    rt.project_skill("keep", description="Kept, edited.")
    gone.unlink()
    gone.parent.rmdir()
    assert s.refresh()
    assert [x.name for x in s.skills()] == ["keep", "new"]
    assert s.get("keep").description == "Kept, edited."  # type: ignore[union-attr]
    assert set(s.ctx.skills) == {"keep", "new"}
    assert (
        "new" in s.listing().text
        and "gone" not in s.skill_tool()["input_schema"]["properties"]["skill"]["enum"]
    )


def test_refresh_keeps_activated_conditional_skills(rt: Runtime) -> None:
    rt.project_skill("py", description="Python rules.", paths='"**/*.py"')
    rt.project_skill("js", description="JS rules.", paths='"**/*.js"')
    s = rt.session()
    assert [x.name for x in s.activate_for_paths(["src/a.py"])] == ["py"]
    rt.project_skill("py", description="Python rules, edited.", paths='"**/*.py"')
    assert s.refresh()
    assert s.get("py").description == "Python rules, edited."  # type: ignore[union-attr]
    assert [x.name for x in s.pending()] == ["js"]  # still waiting
    assert [x.name for x in s.activate_for_paths(["web/a.js"])] == ["js"]


def test_refresh_keeps_settings_given_at_open(rt: Runtime) -> None:
    rt.project_skill("a", description="A.")
    s = rt.session({"listing": {"budget": 123}})
    s.refresh()
    assert int(s.ctx.settings.get("listing", "budget")) == 123


def test_begin_turn_reloads_only_when_the_disk_changed(rt: Runtime) -> None:
    path = rt.project_skill("a", description="A.")
    skills = AgentSkills(rt.session())
    before = skills.session.result
    assert skills.begin_turn() is False and skills.session.result is before  # no reload
    path.write_text("---\ndescription: A, edited at length.\n---\nBody.\n", encoding="utf-8")
    assert skills.begin_turn() is True
    assert "A, edited at length." in skills.instructions()
    rt.project_skill("b", description="B.")
    assert skills.begin_turn() is True and "b" in skills.model_skill_names()
    manual = AgentSkills(rt.session(), refresh="manual")
    rt.project_skill("c", description="C.")
    assert manual.begin_turn() is False and "c" not in manual.model_skill_names()
    assert manual.refresh() is True and "c" in manual.model_skill_names()


def test_disk_state_changes_for_a_new_folder_in_a_root(rt: Runtime) -> None:
    rt.project_skill("a", description="A.")
    s = rt.session()
    paths = watch_paths(s.result)
    state = disk_state(paths)
    assert disk_state(paths) == state
    (rt.project / ".skillpath" / "skills" / "b").mkdir()
    assert disk_state(paths) != state


def test_skill_md_written_into_an_existing_empty_folder_is_seen(rt: Runtime) -> None:
    rt.project_skill("a", description="A.")
    (rt.project / ".skillpath" / "skills" / "later").mkdir()
    skills = AgentSkills(rt.session())
    assert skills.begin_turn() is False
    rt.project_skill("later", description="Written later.")  # the root's entries unchanged
    assert skills.begin_turn() is True and "later" in skills.model_skill_names()


def test_call_answers_the_model_and_never_raises(rt: Runtime) -> None:
    rt.project_skill("greet", description="Greet.", body="Hello $ARGUMENTS.\n")
    rt.project_skill("secret", description="Hidden.", hide="true")
    rt.project_skill("deploy", description="User only.", disable_model_invocation="true")
    rt.project_skill("py", description="Python.", paths='"**/*.py"')
    skills = AgentSkills(rt.session())
    assert skills.call("greet", "Ada").endswith("Hello Ada.\n")
    assert "already loaded" in skills.call("greet", "Ada")
    assert skills.call("greet", "Ada", force=True).endswith("Hello Ada.\n")
    assert skills.call("gret") == "Error: Unknown skill 'gret'. Did you mean: greet?"
    assert "secret" not in skills.call("secre")  # hidden names are never suggested
    assert skills.call("secret").endswith("Body.\n")  # but a hidden skill can be called
    assert skills.call("deploy") == (
        "Error: skill 'deploy' cannot be invoked by the model (disable-model-invocation)"
    )
    assert skills.call("py").startswith("Error: Skill 'py' is conditional (paths: **/*.py)")
    assert skills.read("skill://greet/../../etc/passwd").startswith("Error: ")
    assert skills.files_touched(["src/x.py"]) == ["py"]
    assert skills.call("py").endswith("Body.\n")


def test_unknown_for_model_without_near_names() -> None:
    assert unknown_for_model("x", []) == f"Error: Unknown skill 'x'. {no_skills_text()}"
    assert unknown_for_model("zzz", ["alpha", "beta"]) == (
        "Error: Unknown skill 'zzz'. Available skills: alpha, beta."
    )
    many = [f"skill-{i:02d}" for i in range(20)]
    assert unknown_for_model("qqqq", many) == (
        "Error: Unknown skill 'qqqq'. Use a name from the skills listing."
    )


def test_instructions_name_the_tool_and_keep_the_budget(rt: Runtime) -> None:
    for i in range(30):
        rt.project_skill(f"s{i:02d}", description="A fairly long description. " * 8)
    skills = AgentSkills(rt.session(), tool_name="load_skill", budget=900)
    text = skills.instructions()
    assert text.startswith("The following skills are available for use with the load_skill tool")
    assert len(text) <= 900
    assert AgentSkills(rt.session(), format="skills").instructions().startswith("<skills>")
    with pytest.raises(SkillpathError, match="unknown refresh mode"):
        AgentSkills(rt.session(), refresh="sometimes")


def test_memo_keeps_a_value_until_the_skills_change(rt: Runtime) -> None:
    rt.project_skill("a", description="A.")
    skills = AgentSkills(rt.session())
    made: list[tuple[str, ...]] = []

    def make() -> tuple[str, ...]:
        made.append(tuple(skills.model_skill_names()))
        return made[-1]

    first = skills.memo("test:names", make)
    assert skills.memo("test:names", make) is first and len(made) == 1
    assert skills.begin_turn() is False and skills.memo("test:names", make) is first
    rt.project_skill("b", description="B.")
    assert skills.begin_turn() is True
    assert skills.memo("test:names", make) == ("a", "b") and len(made) == 2


def test_paths_in_arguments() -> None:
    assert paths_in_arguments({"file_path": "a.py", "paths": ["b.py", 3, ""], "x": "c"}) == [
        "a.py",
        "b.py",
    ]
    assert paths_in_arguments({"path": "skill://greet/notes.md"}) == []
    assert paths_in_arguments("a.py") == [] and paths_in_arguments(None) == []


def test_listed_skills_follow_the_budget_and_change_only_with_the_catalog(rt: Runtime) -> None:
    for i in range(30):
        rt.project_skill(f"s{i:02d}", description="A fairly long description. " * 8)
    rt.project_skill("quiet", description="Hidden.", hide="true")
    skills = AgentSkills(rt.session(), budget=900)
    listed = skills.listed_skills()
    assert [s.name for s in listed] == skills.listed_names()
    assert 0 < len(listed) <= 30 and "quiet" not in skills.listed_names()
    assert skills.listing().report.trimmed  # names only, or some dropped
    assert skills.begin_turn() is False and skills.listed_skills() is listed  # same object
    rt.project_skill("a-new", description="New.")
    assert skills.begin_turn() is True
    assert skills.listed_skills() is not listed
    assert "a-new" in [s.name for s in skills.listed_skills()]


def test_of_takes_skills_as_they_come(rt: Runtime) -> None:
    rt.project_skill("a", description="A.")
    ready = AgentSkills(rt.session())
    assert AgentSkills.of(ready) is ready
    wrapped = AgentSkills.of(rt.session(), budget=123, tool_name="load_skill")
    assert (wrapped.tool_name, wrapped.model_skill_names()) == ("load_skill", ["a"])
    opened = AgentSkills.of(cwd=rt.env.project, env=rt.env.env, tool_name="t")
    assert opened.tool_name == "t" and "a" in opened.model_skill_names()


def test_of_refuses_a_folder_given_as_the_skills(rt: Runtime) -> None:
    """A project folder passed where the skills go was silently ignored (the session
    opened on the process's working directory instead)."""
    with pytest.raises(TypeError, match="cwd="):
        AgentSkills.of(rt.env.project)  # type: ignore[arg-type]


def test_a_second_conversation_gets_the_skill_not_the_note(rt: Runtime) -> None:
    """Before: an independent conversation on the same agent object got "already loaded"."""
    rt.project_skill("greet", description="Greets.", body="Say hello to $ARGUMENTS.\n")
    skills = AgentSkills(rt.session())
    assert "Say hello to Ann." in skills.call("greet", "Ann", conversation="t1")
    assert "already loaded" in skills.call("greet", "Ann", conversation="t1")
    assert "Say hello to Ann." in skills.call("greet", "Ann", conversation="t2")
    assert "already loaded" in skills.call("greet", "Ann", conversation="t2")
    assert skills.session.forget_invocations(conversation="t1") == 1
    assert "Say hello to Ann." in skills.call("greet", "Ann", conversation="t1")
    assert "already loaded" in skills.call("greet", "Ann", conversation="t2")


def test_ten_thousand_conversations_stay_within_the_bound(rt: Runtime) -> None:
    from skillpath.session import MAX_REMEMBERED

    rt.project_skill("greet", description="Greets.", body="Hello.\n")
    skills = AgentSkills(rt.session())
    for i in range(10_000):
        assert "Hello." in skills.call("greet", conversation=f"c{i}")
        assert skills.session.remembered() <= MAX_REMEMBERED
    assert skills.session.remembered() == MAX_REMEMBERED
    # the most recent conversations keep their note; the oldest render in full again
    assert "already loaded" in skills.call("greet", conversation="c9999")
    assert "Hello." in skills.call("greet", conversation="c0")


def test_conversation_key_is_per_object_and_never_reused(rt: Runtime) -> None:
    import gc

    class Run:
        __hash__ = None  # type: ignore[assignment]  # like an eq dataclass

    rt.project_skill("greet", description="Greets.")
    skills = AgentSkills(rt.session())
    a = Run()
    key = skills.conversation_key(a)
    assert skills.conversation_key(a) == key
    assert skills.conversation_key("thread-1") == "thread-1"
    assert skills.conversation_key(7) == 7
    seen = {key}
    del a
    gc.collect()
    for _ in range(50):  # new objects, often at a freed address: always a new key
        b = Run()
        k = skills.conversation_key(b)
        assert k not in seen
        seen.add(k)
        del b
    assert len(skills._keys) <= 1  # dead objects' keys are dropped
    assert skills.conversation_key(None) != skills.conversation_key(None)  # no weakref: fresh


def test_no_arguments_field_renders_as_empty_arguments(rt: Runtime) -> None:
    rt.project_skill(
        "pos", description="Positional.", body="A=[$ARGUMENTS] Z=[$0] N=[$who]\n", arguments="who"
    )
    skills = AgentSkills(rt.session())
    empty = skills.call("pos", "", force=True)
    assert skills.call("pos", None, force=True) == empty
    assert empty == skills.session.invoke("pos", "", trigger="tool", force=True).content


def test_search_tool_answers_and_the_listing_names_it(rt: Runtime) -> None:
    for i in range(40):
        rt.project_skill(f"tool-{i:02d}", description=f"Does task number {i} " + "x" * 80)
    rt.project_skill("pdf-forms", description="Fill in PDF forms and extract their fields.")
    skills = AgentSkills(rt.session(), budget=1500, search_tool="search_skills")
    text = skills.search({"query": "fill a pdf form"})
    assert text.splitlines()[1].startswith("- pdf-forms:")
    assert skills.search({"k": 3}).startswith("Error: search_skills needs")
    assert skills.search("pdf").startswith("Error:")
    assert skills.search_schema()["name"] == "search_skills"
    assert "search_skills" in skills.instructions()  # the over-budget notice
    # an adapter that offers no search tool (the default) never names one
    none = AgentSkills(skills.session, budget=1500)
    assert "search_skills" not in none.instructions()


def test_no_provider_installed_raises_with_the_install_command(rt: Runtime) -> None:
    rt.project_skill("greet", description="Greets.")  # on disk, but nothing reads it
    session = SkillSession.open(
        rt.project, home=rt.home, env={**rt.env.env, "SKILLPATH_NO_AUTOLOAD": "1"}
    )
    assert provider_plugins(session) == [] and session.skills() == ()
    with pytest.raises(NoProviderError, match=r"pip install skillpath\b"):
        AgentSkills(session)
    with pytest.raises(NoProviderError):
        AgentSkills.open(rt.project, home=rt.home, env={**rt.env.env, "SKILLPATH_NO_AUTOLOAD": "1"})


def test_a_provider_with_no_skills_or_skills_without_a_provider_are_served(rt: Runtime) -> None:
    empty = AgentSkills(rt.session())  # the native provider, no skill yet
    assert provider_plugins(empty.session) == ["native"]
    assert empty.instructions() == "" and empty.call("x") == unknown_for_model("x", [])
    folder = rt.project / "extra"
    (folder / "greet").mkdir(parents=True)
    (folder / "greet" / "SKILL.md").write_text(skill_text(name="greet"), encoding="utf-8")
    env = {**rt.env.env, "SKILLPATH_NO_AUTOLOAD": "1", "SKILLPATH": str(folder)}
    alone = AgentSkills.open(rt.project, home=rt.home, env=env)  # core only, a SKILLPATH folder
    assert alone.model_skill_names() == ["greet"]


def test_no_arguments_render_as_the_empty_string(rt: Runtime) -> None:
    rt.project_skill("greet", text="---\nname: greet\ndescription: G.\n---\n[$0][$1][$ARGUMENTS]\n")
    skills = AgentSkills(rt.session())
    none = skills.call("greet", None, force=True)
    assert none == skills.call("greet", "", force=True)
    assert none.endswith("[$0][$1][]\n")  # an index with no word stays, as with ""
    assert call_skill_tool(skills.session, "greet", None, force=True) == none
    assert call_skill_tool(skills.session, "nope") == unknown_for_model("nope", ["greet"])


def test_read_file_reads_inside_the_skill_folder_only(rt: Runtime) -> None:
    skill_md = rt.project_skill(
        "greet", text="---\nname: greet\ndescription: G.\n---\nRead references/style.md. [$0]\n"
    )
    folder = skill_md.parent
    (folder / "references" / "deep").mkdir(parents=True)
    (folder / "references" / "style.md").write_text("Be brief.\n", encoding="utf-8")
    (folder / "references" / "deep" / "x.md").write_text("Deep.\n", encoding="utf-8")
    (rt.project / "secret.txt").write_text("no\n", encoding="utf-8")
    skills = AgentSkills(rt.session())
    assert skills.read_schema()["name"] == READ_TOOL_NAME == "read_skill_file"
    assert skills.read_file("greet", "references/style.md") == "Be brief.\n"
    assert skills.read_file("greet", f"{folder}/references/deep/x.md") == "Deep.\n"
    assert skills.read_file("greet", "references") == "deep/\nstyle.md\n"
    assert skills.read_file("greet", "") == "SKILL.md\nreferences/\n"
    rendered = skills.read_file("greet", "SKILL.md")
    assert rendered == skills.call("greet", "", force=True) and "[$0]" in rendered
    for bad in ("../../secret.txt", str(rt.project / "secret.txt"), "/etc/passwd"):
        assert skills.read_file("greet", bad).startswith("Error: ")
    assert skills.read_file("nope", "x") == unknown_for_model("nope", ["greet"])
    assert skills.read_file(3, "x").startswith("Error: ")
    assert skills.read_file("greet", ["x"]).startswith("Error: ")


def test_runs_commands_follows_the_shell_policy(rt: Runtime) -> None:
    rt.project_skill("shelly", text="---\nname: shelly\ndescription: S.\n---\nNow: !`date`\n")
    rt.project_skill("plain", description="P.")
    off = AgentSkills(rt.session())  # project skills: inline shell off by default
    assert not off.runs_commands("shelly") and not off.runs_commands("plain")
    on = AgentSkills(rt.session({"shell": {"levels": ["user", "managed", "project"]}}))
    assert on.runs_commands("shelly") and not on.runs_commands("plain")
    assert not on.runs_commands("missing")
