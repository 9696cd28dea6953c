"""``/skill:`` parsing and messages, the unified command object, the Skill tool, re-invocation."""

from __future__ import annotations

import json

import pytest
from skillpath import (
    PromptError,
    SkillCommand,
    SlashInvocation,
    UnknownSkillError,
    delivery_queue,
    parse_slash_command,
    skill_tool_schema,
)

from .conftest import Runtime, skill_text

NAMES = {"pdf", "plugin:tool", "x.y"}


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("/skill:pdf", ("pdf", "", False)),
        ("/skill:pdf extract the tables", ("pdf", "extract the tables", False)),
        ("  /skill:pdf   spaced  ", ("pdf", "spaced", False)),
        ("/skill:pdf line one\nline two", ("pdf", "line one\nline two", False)),
        ("/skill:plugin:tool go", ("plugin:tool", "go", False)),
        ("/skill:x.y", ("x.y", "", False)),
        ("/skill:pdf, please", ("pdf", "please", False)),
        # in the middle of a message the arguments are only the text after the token
        ("please use /skill:pdf on report.pdf", ("pdf", "on report.pdf", True)),
        ("please run /skill:pdf", ("pdf", "", True)),
        ("first line\n/skill:pdf", ("pdf", "", True)),
        ("first line\n/skill:pdf a b\nsecond", ("pdf", "a b\nsecond", True)),
        ("try /skill:nope then /skill:pdf now", ("pdf", "now", True)),
        ("ok /skill:pdf.", ("pdf", "", True)),
    ],
)
def test_parse_slash_command(message: str, expected: tuple[str, str, bool]) -> None:
    inv = parse_slash_command(message, NAMES)
    assert inv is not None and inv.known
    assert (inv.name, inv.args, inv.mid_message) == expected
    assert message[inv.start : inv.end] == f"/skill:{inv.name}"
    assert inv.suggestions == () and inv.error is None


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("/skill:nope args", ("nope", "args", False, ())),
        ("/skill:PDF", ("PDF", "", False, ("pdf",))),  # case-sensitive, but suggested
        ("/skill:pdff, now", ("pdff", "now", False, ("pdf",))),
        ("please run /skill:depoly x", ("depoly", "x", True, ())),
        ("a /skill:nope. b /skill:nix", ("nope", "b /skill:nix", True, ())),  # first one
    ],
)
def test_unknown_skill_command(message: str, expected: tuple[str, str, bool, tuple[str]]) -> None:
    inv = parse_slash_command(message, NAMES)
    assert inv is not None and not inv.known
    assert (inv.name, inv.args, inv.mid_message, inv.suggestions) == expected
    assert message[inv.start : inv.end] == f"/skill:{inv.name}"
    assert inv.error is not None and inv.error.startswith(f"Unknown skill {inv.name!r}.")
    assert inv.to_json()["known"] is False


@pytest.mark.parametrize(
    "message",
    [
        "/skill:",
        "/skill:,",
        "/help /skill:pdf",  # another slash command
        "!ls /skill:pdf",  # a shell escape
        "what does `/skill:pdf` do?",  # not after whitespace
        "path/skill:pdf",
        "plain text",
        "",
    ],
)
def test_not_a_skill_command(message: str) -> None:
    assert parse_slash_command(message, NAMES) is None


def test_delivery_rule() -> None:
    assert delivery_queue(streaming=False) == "prompt"
    assert delivery_queue(streaming=False, follow_up=True) == "prompt"
    assert delivery_queue(streaming=True) == "steer"
    assert delivery_queue(streaming=True, follow_up=True) == "follow-up"
    inv = SlashInvocation("pdf", "", 0, 10)
    assert inv.queue(streaming=True, follow_up=True) == "follow-up"


@pytest.fixture
def cmds(rt: Runtime) -> Runtime:
    rt.project_skill(
        "pdf",
        skill_text("Work with PDFs.", body="\nRead $0 carefully.\nUse ${SKILL_DIR}/ref.md.\n"),
    )
    rt.project_skill("plain", skill_text("Plain.", body="Just a body.\n"))
    rt.project_skill("quiet", skill_text("Hidden.", body="Quiet body.\n", hide="true"))
    rt.project_skill("manual", skill_text("Manual.", body="M.\n", disable_model_invocation="true"))
    rt.project_skill("modelonly", skill_text("Model.", body="O.\n", user_invocable="false"))
    return rt


def test_session_parse_slash_rules(cmds: Runtime) -> None:
    s = cmds.session()
    assert s.parse_slash("/skill:pdf a.pdf") == SlashInvocation("pdf", "a.pdf", 0, 10, False)
    assert s.parse_slash("/skill:quiet") is not None  # hidden skills stay reachable
    assert s.parse_slash("/skill:manual") is not None
    modelonly = s.parse_slash("/skill:modelonly")  # user-invocable: false
    assert modelonly is not None and not modelonly.known
    assert modelonly.error == (
        "Skill 'modelonly' cannot be run as a command (user-invocable: false); "
        "only the model can use it"
    )
    unknown = s.parse_slash("/skill:pfd x")
    assert unknown is not None and not unknown.known and unknown.suggestions == ("pdf",)
    assert (
        unknown.error
        == "Unknown skill 'pfd'. Did you mean: pdf? (4 skills available; `skillpath list`)"
    )
    assert s.parse_slash("plain text") is None
    off = cmds.session({"skills": {"enable_skill_commands": False}})
    assert off.parse_slash("/skill:pdf a.pdf") is None
    assert off.parse_slash("/skill:nope") is None


def test_slash_for_a_conditional_skill_that_is_not_active(cmds: Runtime) -> None:
    cmds.project_skill("py-style", skill_text("Python style.", paths='"**/*.py, tests/**"'))
    s = cmds.session()
    slash = s.parse_slash("/skill:py-style")
    assert slash is not None and not slash.known and slash.suggestions == ()
    assert slash.error == (
        "Skill 'py-style' is conditional (paths: **/*.py, tests/**) and not active yet; "
        "it activates when a matching file is touched"
    )
    s.activate_for_paths(["src/app.py"])
    now = s.parse_slash("/skill:py-style")
    assert now is not None and now.known


def test_slash_message_format(cmds: Runtime) -> None:
    s = cmds.session()
    inv = s.parse_slash("/skill:pdf report.pdf")
    assert inv is not None
    r = s.invoke(inv.name, inv.args)
    skill = s.get("pdf")
    assert skill is not None and skill.path is not None
    assert r.content == (
        f"Base directory for this skill: {skill.base_dir}\n\n"
        f"Read report.pdf carefully.\nUse {skill.base_dir}/ref.md.\n\n"
        f"---\n\nSkill: {skill.path}\nUser: report.pdf"
    )
    assert r.line_count == 9
    assert (r.name, r.path, r.args, r.trigger) == ("pdf", skill.path, "report.pdf", "command")
    no_args = s.invoke("plain")
    assert no_args.content.endswith(f"Just a body.\n\n---\n\nSkill: {s.get('plain').path}")  # type: ignore[union-attr]
    assert "User:" not in no_args.content


def test_command_does_not_append_arguments_but_tool_does(cmds: Runtime) -> None:
    s = cmds.session()
    cmd = s.invoke("plain", "extra words")
    assert "ARGUMENTS:" not in cmd.content and cmd.content.endswith("User: extra words")
    tool = cmds.session().invoke("plain", "extra words", trigger="tool")
    assert tool.content.endswith("Just a body.\n\nARGUMENTS: extra words\n")
    assert "---" not in tool.content


def test_triggers_respect_invocation_flags(cmds: Runtime) -> None:
    s = cmds.session()
    with pytest.raises(PromptError, match="cannot be invoked by the model"):
        s.invoke("manual", trigger="tool")
    assert s.invoke("manual").content.startswith("Base directory")
    with pytest.raises(PromptError, match="not user-invocable"):
        s.invoke("modelonly")
    assert "O." in s.invoke("modelonly", trigger="tool").content
    with pytest.raises(PromptError, match="unknown trigger"):
        s.invoke("plain", trigger="webhook")


def test_unknown_skill(cmds: Runtime) -> None:
    s = cmds.session()
    with pytest.raises(UnknownSkillError) as err:
        s.invoke("nope")
    assert (
        str(err.value)
        == "Unknown skill 'nope'. Available skills: manual, modelonly, pdf, plain, quiet"
    )
    with pytest.raises(UnknownSkillError):
        s.command("nope")
    with pytest.raises(UnknownSkillError) as err:
        s.invoke("plian", trigger="tool")
    assert str(err.value) == (
        "Unknown skill 'plian'. Did you mean: plain? (5 skills available; `skillpath list`)"
    )


def test_unknown_skill_among_many_names_offers_the_nearest(rt: Runtime) -> None:
    for i in range(60):
        rt.project_skill(f"skill-{i:04}", description=f"Skill {i}.")
    s = rt.session()
    with pytest.raises(UnknownSkillError) as err:
        s.invoke("skil-0001", trigger="tool")
    message = str(err.value)
    assert message.startswith("Unknown skill 'skil-0001'. Did you mean: skill-0001")
    assert message.endswith("? (60 skills available; `skillpath list`)")
    assert message.count("skill-") <= 3  # the nearest few, not the catalog
    with pytest.raises(UnknownSkillError) as err:
        s.invoke("zzzzzz")
    assert str(err.value) == "Unknown skill 'zzzzzz'. (60 skills available; `skillpath list`)"


def test_invoking_a_conditional_skill_that_is_not_active(cmds: Runtime) -> None:
    cmds.project_skill("py-style", skill_text("Python style.", paths='"**/*.py"'))
    s = cmds.session()
    with pytest.raises(UnknownSkillError) as err:
        s.invoke("py-style", trigger="tool")
    assert str(err.value) == (
        "Skill 'py-style' is conditional (paths: **/*.py) and not active yet; "
        "it activates when a matching file is touched"
    )
    assert s.activate_for_paths(["a.py"])
    assert s.invoke("py-style", trigger="tool").content.startswith("Base directory")


def test_already_loaded_note(cmds: Runtime) -> None:
    s = cmds.session()
    first = s.invoke("pdf", "a.pdf", trigger="tool")
    assert not first.already_loaded and "Read a.pdf" in first.content
    again = s.invoke("pdf", "a.pdf", trigger="tool")
    assert again.already_loaded
    assert again.content == (
        "Skill 'pdf' is already loaded in this session and has not changed; "
        "follow the instructions it gave earlier."
    )
    assert not s.invoke("pdf", "b.pdf", trigger="tool").already_loaded  # other arguments
    assert not s.invoke("pdf", "a.pdf", trigger="tool", force=True).already_loaded
    assert not s.invoke("pdf", "a.pdf", trigger="mcp").already_loaded  # MCP always renders
    skill = s.get("pdf")
    assert skill is not None and skill.path is not None
    skill.path.write_text(skill_text("Work with PDFs.", body="Changed $0.\n"))
    changed = s.invoke("pdf", "a.pdf", trigger="tool")
    assert not changed.already_loaded and "Changed a.pdf." in changed.content  # read fresh
    other = cmds.session(session_id="sess-2")
    assert not other.invoke("pdf", "a.pdf", trigger="tool").already_loaded


def test_a_typed_command_always_renders_in_full(cmds: Runtime) -> None:
    s = cmds.session()
    first = s.invoke("pdf", "a.pdf", trigger="command")
    second = s.invoke("pdf", "a.pdf", trigger="command")
    assert not first.already_loaded and not second.already_loaded
    assert second.content == first.content and "Read a.pdf carefully." in second.content
    assert s.invoke("pdf", "a.pdf", trigger="tool").already_loaded  # the command's text is there
    assert not s.invoke("pdf", "a.pdf", trigger="command").already_loaded  # ... after the tool too


def test_inline_shell_skills_never_get_the_note(cmds: Runtime) -> None:
    counter = cmds.project / "runs.txt"
    cmds.project_skill(
        "diffy",
        skill_text("Show a counter.", body="Runs: !`echo x >> runs.txt; wc -l < runs.txt`\n"),
    )
    cmds.project_skill(
        "fenced", skill_text("Fenced.", body="```!\necho fenced >> runs.txt\n```\nDone.\n")
    )
    s = cmds.session({"shell": {"levels": ["project"]}})
    outputs = [s.invoke("diffy", trigger="tool") for _ in range(3)]
    assert [r.already_loaded for r in outputs] == [False, False, False]
    assert [r.content.rsplit("Runs: ", 1)[1].strip() for r in outputs] == ["1", "2", "3"]
    assert not s.invoke("fenced", trigger="tool").already_loaded
    assert not s.invoke("fenced", trigger="tool").already_loaded
    assert counter.read_text().count("fenced") == 2
    # with the shell policy off the text is a fixed placeholder, but the rule stays simple
    off = cmds.session()
    assert not off.invoke("diffy", trigger="tool").already_loaded
    assert not off.invoke("diffy", trigger="tool").already_loaded


def test_forget_invocations_after_compaction(cmds: Runtime) -> None:
    s = cmds.session()
    for args in ("a.pdf", "b.pdf"):
        s.invoke("pdf", args, trigger="tool")
    s.invoke("plain", trigger="tool")
    assert s.invoke("pdf", "a.pdf", trigger="tool").already_loaded
    assert s.forget_invocations("pdf") == 2
    assert not s.invoke("pdf", "a.pdf", trigger="tool").already_loaded
    assert s.invoke("plain", trigger="tool").already_loaded  # only 'pdf' was forgotten
    assert s.forget_invocations("nope") == 0
    assert s.forget_invocations() == 2  # plain and pdf a.pdf
    assert not s.invoke("plain", trigger="tool").already_loaded
    assert s.forget_invocations() == 1


def test_missing_skill_file_is_a_prompt_error(cmds: Runtime) -> None:
    s = cmds.session()
    skill = s.get("plain")
    assert skill is not None and skill.path is not None
    skill.path.unlink()
    with pytest.raises(PromptError, match="cannot read skill 'plain'"):
        s.invoke("plain")


def test_skill_tool_definition(cmds: Runtime) -> None:
    s = cmds.session()
    tool = s.skill_tool()
    assert tool["name"] == "Skill" and tool["description"]
    schema = tool["input_schema"]
    assert schema["type"] == "object" and schema["required"] == ["skill"]
    assert schema["properties"]["skill"]["enum"] == ["modelonly", "pdf", "plain"]
    assert schema["properties"]["args"]["type"] == "string"
    openai = s.skill_tool(format="openai")
    assert openai["type"] == "function" and openai["parameters"] == schema
    chat = s.skill_tool(format="openai-chat")
    assert chat["function"]["parameters"] == schema and chat["function"]["name"] == "Skill"
    json.dumps(tool)  # plain JSON
    with pytest.raises(PromptError):
        s.skill_tool(format="xml")


def test_skill_tool_without_skills() -> None:
    tool = skill_tool_schema([])
    assert "enum" not in tool["input_schema"]["properties"]["skill"]


def test_tool_call_round_trip(cmds: Runtime) -> None:
    s = cmds.session()
    call = {"skill": "pdf", "args": "x.pdf"}
    assert call["skill"] in s.skill_tool()["input_schema"]["properties"]["skill"]["enum"]
    r = s.invoke(call["skill"], call["args"], trigger="tool")
    assert "Read x.pdf carefully." in r.content and r.to_json()["trigger"] == "tool"


def test_command_object(cmds: Runtime) -> None:
    cmds.project_skill(
        "named",
        skill_text(
            "Named.", body="$src -> $dst\n", arguments="src dst", argument_hint="<src> <dst>"
        ),
    )
    s = cmds.session()
    cmd = s.command("named")
    assert isinstance(cmd, SkillCommand)
    assert cmd.argument_names == ("src", "dst") and cmd.argument_hint == "<src> <dst>"
    assert cmd.user_invocable and cmd.model_invocable and not cmd.hidden
    assert [a["name"] for a in cmd.mcp_arguments()] == ["src", "dst"]
    assert cmd.args_from_mapping({"src": "a b", "dst": "c"}) == "'a b' c"
    assert cmd.args_from_mapping({"src": "only"}) == "only"
    assert cmd.args_from_mapping({"dst": "d"}) == "'' d"
    r = cmd.render(cmd.args_from_mapping({"src": "a b", "dst": "c"}), ctx=s.ctx, host=s.host)
    assert "a b -> c" in r.content
    assert s.command("plain").mcp_arguments()[0]["name"] == "args"
    assert cmd.to_json()["arguments"] == ["src", "dst"]
