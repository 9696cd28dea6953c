"""The transform chain: argument and variable substitution, the built-in steps as plugins."""

from __future__ import annotations

import pytest
from skillpath import (
    Invocation,
    PromptError,
    SkillContext,
    SkillSource,
    hookimpl,
    skill_from_text,
    step,
    substitute_arguments,
    substitute_variables,
)
from skillpath.shell import DISABLED_TEXT
from skillpath.transforms import parse_arguments

from .conftest import Runtime, skill_text

# -- arguments ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "args", "names", "expected"),
    [
        ("Do: $ARGUMENTS", 'a "b c"', (), 'Do: a "b c"'),
        ("[$ARGUMENTS[0]] [$ARGUMENTS[1]]", 'a "b c"', (), "[a] [b c]"),
        ("[$0] [$1]", "a 'b c'", (), "[a] [b c]"),
        ("$0-$1-$2", "x y", (), "x-y-$2"),  # a missing index stays verbatim
        ("$ARGUMENTS[3]!", "x", (), "$ARGUMENTS[3]!\n\nARGUMENTS: x\n"),
        ("file=$file mode=$mode", "a.txt", ("file", "mode"), "file=a.txt mode="),
        ("$filename $file", "a.txt", ("file",), "$filename a.txt"),  # no prefix match
        ("$file[0]", "a.txt", ("file",), "$file[0]\n\nARGUMENTS: a.txt\n"),
        ("\\$ARGUMENTS and $ARGUMENTS", "v", (), "$ARGUMENTS and v"),
        ("\\$0 \\$ARGUMENTS[0] \\$file $0", "v", ("file",), "$0 $ARGUMENTS[0] $file v"),
        ("Plain body.\n", "some args", (), "Plain body.\n\nARGUMENTS: some args\n"),
        ("Plain body.\n", "", (), "Plain body.\n"),
        ("Plain body.\n", "   ", (), "Plain body.\n"),
        ("[$ARGUMENTS]", "", (), "[]"),
        ("$ARGUMENTS", "$1 $ARGUMENTS x", (), "$1 $ARGUMENTS x"),  # one pass
        ("$0|$1", 'a "b', (), 'a|"b'),  # unbalanced quotes: whitespace split
        ("$10", " ".join(str(i) for i in range(11)), (), "10"),
        ("costs $5.00", "one", (), "costs $5.00\n\nARGUMENTS: one\n"),
        ("${SKILL_DIR} $ARGUMENTS", "v", (), "${SKILL_DIR} v"),  # not an argument
    ],
)
def test_substitute_arguments(text: str, args: str, names: tuple[str, ...], expected: str) -> None:
    assert substitute_arguments(text, args, names) == expected


def test_no_append_when_disabled() -> None:
    assert substitute_arguments("Body.", "x", append=False) == "Body."


def test_parse_arguments_shell_style() -> None:
    assert parse_arguments("a 'b c' \"d e\" f\\ g") == ["a", "b c", "d e", "f g"]
    assert parse_arguments("") == []
    assert parse_arguments('open "quote') == ["open", '"quote']


def test_values_inside_shell_commands_become_references() -> None:
    out = substitute_arguments("!`echo $ARGUMENTS` and $ARGUMENTS", "a b; rm -rf x")
    assert out == '!`echo "${SKILLPATH_ARGUMENTS}"` and a b; rm -rf x'
    assert substitute_arguments("!`cat $0 $1`", "'x y' z") == (
        '!`cat "${SKILLPATH_ARG_0}" "${SKILLPATH_ARG_1}"`'
    )
    block = substitute_arguments("```!\ngrep $ARGUMENTS file\n```\n", "it's")
    assert block == '```!\ngrep "${SKILLPATH_ARGUMENTS}" file\n```\n'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('!`a "x $0 y"`', '!`a "x ${SKILLPATH_ARG_0} y"`'),
        ("!`a 'x $0 y'`", "!`a 'x '\"${SKILLPATH_ARG_0}\"' y'`"),
        ("!`a $(b '$0')`", "!`a $(b ''\"${SKILLPATH_ARG_0}\"'')`"),
        ('!`a "$(b $0)"`', '!`a "$(b "${SKILLPATH_ARG_0}")"`'),
        ('!`a "${x:-$0}"`', '!`a "${x:-${SKILLPATH_ARG_0}}"`'),
        ("!`a # '$0`", '!`a # \'"${SKILLPATH_ARG_0}"`'),
        ("```!\ncat <<E\n'$0'\nE\n```", "```!\ncat <<E\n'${SKILLPATH_ARG_0}'\nE\n```"),
        (
            "```!\ncat <<'E'\n$0 $HOME \\ `x`\nE\necho '$0'\n```",
            "```!\ncat <<E\n${SKILLPATH_ARG_0} \\$HOME \\\\ \\`x\\`\nE\n"
            "echo ''\"${SKILLPATH_ARG_0}\"''\n```",
        ),
        ("```!\nx=`b '$0'`\n```", "```!\nx=`b ''\"${SKILLPATH_ARG_0}\"''`\n```"),
        (
            "```!\necho $((1<<2)) '$0'\necho '$0'\n```",
            "```!\necho $((1<<2)) ''\"${SKILLPATH_ARG_0}\"''\necho ''\"${SKILLPATH_ARG_0}\"''\n```",
        ),
    ],
)
def test_references_follow_the_quoting(text: str, expected: str) -> None:
    assert substitute_arguments(text, "v") == expected


def test_a_placeholder_in_a_quoted_heredoc_with_an_odd_delimiter_is_refused() -> None:
    with pytest.raises(PromptError, match="delimiter"):
        substitute_arguments("```!\ncat <<'a b'\n$0\na b\n```", "v")


def test_arguments_cannot_smuggle_in_a_command() -> None:
    out = substitute_arguments("Summarise: $ARGUMENTS", "!`cat ~/.ssh/id_rsa`")
    assert "!`" not in out
    appended = substitute_arguments("Body.", "```!\nid\n```")
    assert "```!" not in appended


# -- variables ----------------------------------------------------------------------------------


def test_substitute_variables() -> None:
    values = {"skill_dir": "/s/dir", "session_id": "sid", "project_dir": "/proj"}
    text = (
        "${SKILL_DIR} ${CLAUDE_SKILL_DIR} ${SESSION_ID} ${CLAUDE_SESSION_ID} "
        "${PROJECT_DIR} ${CLAUDE_PROJECT_DIR} ${OTHER} $SKILL_DIR \\${SKILL_DIR}"
    )
    assert substitute_variables(text, values) == (
        "/s/dir /s/dir sid sid /proj /proj ${OTHER} $SKILL_DIR ${SKILL_DIR}"
    )
    assert substitute_variables("${SKILL_DIR}", {"skill_dir": None}) == "${SKILL_DIR}"
    assert substitute_variables("!`ls ${SKILL_DIR}`", {"skill_dir": "/a b"}) == (
        '!`ls "${SKILLPATH_SKILL_DIR}"`'
    )


def test_variables_in_an_invocation(rt: Runtime) -> None:
    path = rt.project_skill(
        "vars",
        skill_text(
            "Variables.",
            body="dir=${SKILL_DIR}\ncdir=${CLAUDE_SKILL_DIR}\nsid=${SESSION_ID}\n"
            "csid=${CLAUDE_SESSION_ID}\nproj=${CLAUDE_PROJECT_DIR}\n",
        ),
    )
    out = rt.session(session_id="abc123").invoke("vars", trigger="tool").content
    base = path.parent
    assert f"dir={base}\ncdir={base}\nsid=abc123\ncsid=abc123\nproj={rt.project}\n" in out


# -- the steps ----------------------------------------------------------------------------------


def test_frontmatter_strip_lf_and_crlf_and_base_dir_prefix(rt: Runtime) -> None:
    lf = rt.project_skill("lf", "---\ndescription: LF.\n---\n\nLine one.\nLine two.\n")
    rt.project_skill("crlf").write_bytes(b"---\r\ndescription: CRLF.\r\n---\r\nCR body.\r\n")
    s = rt.session()
    out = s.invoke("lf", trigger="tool").content
    assert out == f"Base directory for this skill: {lf.parent}\n\nLine one.\nLine two.\n"
    crlf = s.invoke("crlf", trigger="tool").content
    assert crlf.endswith("\n\nCR body.\r\n") and "description" not in crlf


def test_skill_not_on_disk_starts_from_its_body(rt: Runtime) -> None:
    s = rt.session()
    skill, _ = skill_from_text(
        "---\ndescription: Bundled.\n---\nBundled $ARGUMENTS body.\n",
        name="bundled-one",
        source=SkillSource("bundled", "package", None, "bundled"),
    )
    assert skill is not None
    s.add_skills([skill])
    out = s.invoke("bundled-one", "x", trigger="tool").content
    assert out == "Bundled x body.\n"  # no frontmatter, no base-dir prefix (not on disk)


def test_mcp_skills_skip_arguments_shell_and_base_dir(rt: Runtime) -> None:
    s = rt.session({"shell": {"levels": ["user", "managed", "project", "package", "remote"]}})
    body = "Run !`echo pwned` with $ARGUMENTS and $0.\n"
    skill, _ = skill_from_text(
        f"---\ndescription: Remote.\n---\n{body}",
        name="remote",
        source=SkillSource("mcp", "remote", None, "mcp", {"server": "srv"}),
    )
    assert skill is not None
    s.add_skills([skill])
    for trigger in ("mcp", "tool"):
        r = s.invoke("remote", "x", trigger=trigger, force=True)
        assert r.text == body  # untouched: the MCP provider renders its own prompts
        assert "pwned\n" not in r.text and DISABLED_TEXT not in r.text


def test_a_plugin_replaces_the_builtin_arguments_step(rt: Runtime) -> None:
    rt.project_skill("args", skill_text("Args.", body="Value: $ARGUMENTS.\n"))

    class Shout:
        @hookimpl
        @step(200)
        def transform_prompt(self, text: str, invocation: Invocation) -> str:
            return text.replace("$ARGUMENTS", invocation.args.upper())

    blocked = rt.host(blocked=["skillpath.transform.arguments"])
    assert any(
        r.name == "skillpath.transform.arguments" and r.status == "blocked" for r in blocked.records
    )
    bare = rt.session(host=blocked).invoke("args", "hello", trigger="tool").text
    assert bare.endswith("Value: $ARGUMENTS.\n")  # blocked: nothing substitutes

    host = rt.host(blocked=["skillpath.transform.arguments"])
    assert host.add(Shout(), "shout")
    out = rt.session(host=host).invoke("args", "hello", trigger="tool").text
    assert out.endswith("Value: HELLO.\n")


def test_plugin_steps_run_in_order_between_the_builtins(rt: Runtime) -> None:
    rt.project_skill("order", skill_text("Order.", body="$ARGUMENTS\n"))
    seen: list[str] = []

    class Early:
        @hookimpl
        @step(150)
        def transform_prompt(self, text: str) -> None:
            seen.append("early:" + text.strip())

    class Late:
        @hookimpl
        @step(950)
        def transform_prompt(self, text: str, ctx: SkillContext) -> str:
            seen.append("late")
            return text + f"[footer {ctx.session_id}]"

    host = rt.host()
    assert host.add(Early(), "early") and host.add(Late(), "late")
    out = rt.session(host=host).invoke("order", "v", trigger="tool").text
    assert seen == ["early:$ARGUMENTS", "late"]
    assert out.startswith("Base directory for this skill:") and out.endswith("v\n[footer sess-1]")


def test_a_failing_plugin_step_aborts_the_invocation(rt: Runtime) -> None:
    """A step that crashes (a redaction step, say) must not let its input through."""
    rt.project_skill("robust", skill_text("Robust.", body="token=SECRET $ARGUMENTS\n"))

    class Redact:
        @hookimpl
        @step(950)
        def transform_prompt(self, text: str) -> str:
            raise RuntimeError("boom")

    host = rt.host()
    host.add(Redact(), "redact")
    s = rt.session(host=host)
    with pytest.raises(PromptError, match=r"plugin 'redact': transform_prompt raised") as info:
        s.invoke("robust", "x", trigger="tool")
    assert "boom" in str(info.value) and "SECRET" not in str(info.value)
    assert isinstance(info.value.__cause__, RuntimeError)
    host.pm.unregister(name="redact")
    assert s.invoke("robust", "x", trigger="tool").text.endswith("token=SECRET x\n")


def test_a_step_returning_something_else_than_text_aborts(rt: Runtime) -> None:
    rt.project_skill("robust", skill_text("Robust.", body="ok\n"))

    class Wrong:
        @hookimpl
        @step(250)
        def transform_prompt(self, text: str) -> object:
            return ["not", "text"]

    host = rt.host()
    host.add(Wrong(), "wrong")
    with pytest.raises(PromptError, match=r"plugin 'wrong': transform_prompt returned list"):
        rt.session(host=host).invoke("robust", trigger="tool")


def test_a_step_that_calls_sys_exit_aborts_the_invocation(rt: Runtime) -> None:
    rt.project_skill("robust", skill_text("Robust.", body="ok\n"))

    class Exits:
        @hookimpl
        def transform_prompt(self, text: str) -> str:
            raise SystemExit(3)

    host = rt.host()
    host.add(Exits(), "exits")
    with pytest.raises(PromptError, match=r"plugin 'exits'.*SystemExit\(3\)"):
        rt.session(host=host).invoke("robust", trigger="tool")


def test_the_argument_pattern_matches_exactly_as_without_its_lookahead() -> None:
    """The pattern's leading lookahead (there for speed) changes no match: compared
    with the same pattern without it on many generated texts, names included."""
    import random
    import re

    from skillpath.transforms import _arg_pattern

    rng = random.Random(2640)
    pieces = ["$", "\\", "\\$", "$$", "ARGUMENTS", "[", "]", "0", "12", "x", "topic", " ", "\n"]
    for names in ((), ("topic",), ("topic", "x", "ARGUMENTS")):
        fast = _arg_pattern(names)
        plain = re.compile(fast.pattern.removeprefix(r"(?=[\\$])"))
        assert plain.pattern != fast.pattern
        for _ in range(2000):
            text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
            got = [(m.span(), m.groupdict()) for m in fast.finditer(text)]
            assert got == [(m.span(), m.groupdict()) for m in plain.finditer(text)], text
