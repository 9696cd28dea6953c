"""Inline shell: the policy, a real ``/bin/sh``, timeouts, output caps, the scoped environment."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import attrs
import pytest
from skillpath import PromptError, Skill, SkillSource, load_skill_file
from skillpath.settings import Settings
from skillpath.shell import DISABLED_TEXT, ShellPolicy, run_shell
from skillpath.trust import DEFAULT_POLICY, TierPolicy, TrustPolicy

from .conftest import Runtime, skill_text

SECRET = "s3cr3t-token-value"


def render(rt: Runtime, body: str, args: str = "", settings: dict[str, Any] | None = None) -> str:
    """Write a *user* skill (shell allowed by default) with ``body`` and render it."""
    rt.user_skill("sh", skill_text("Shell.", body=body))
    return rt.session(settings).invoke("sh", args, trigger="tool").text


def test_policy_defaults_and_refusals() -> None:
    policy = ShellPolicy.from_settings(Settings())
    assert policy.enabled and policy.levels == ("user", "managed")
    assert policy.timeout == 30 and policy.max_output == 30000
    assert "PATH" in policy.pass_env

    def mk(level: str, loaded_from: str = "disk") -> Skill:
        return Skill("n", "d", None, None, SkillSource("p", level, None, loaded_from))

    assert policy.allows(mk("user")) and policy.allows(mk("managed"))
    assert "not in [shell] levels" in (policy.refusal(mk("project")) or "")
    assert not policy.allows(mk("package", "pack"))
    assert not policy.allows(mk("remote"))
    every_level = ShellPolicy(levels=("user", "managed", "project", "package", "remote"))
    # a package skill is third party (skillpath.trust): the levels alone do not let it run
    assert "third-party tier" in (every_level.refusal(mk("package", "pack")) or "")
    third = TrustPolicy(
        policy={**DEFAULT_POLICY, "third-party": TierPolicy("approved", True, "high")}
    )
    everything = attrs.evolve(every_level, trust=third)
    assert everything.allows(mk("package", "pack"))
    assert "never" in (everything.refusal(mk("remote", "mcp")) or "")
    assert "disabled" in (ShellPolicy(enabled=False).refusal(mk("user")) or "")


def test_runs_inline_and_block_commands_with_real_sh(rt: Runtime) -> None:
    out = render(rt, "A: !`echo hello`\n```!\necho one\necho two\n```\nend\n")
    assert out.endswith("A: hello\none\ntwo\nend\n")


def test_inline_needs_line_start_or_whitespace(rt: Runtime) -> None:
    out = render(rt, "x!`echo no` (!`echo yes`)\n!`echo first`\n")
    assert "x!`echo no`" in out and "(!`echo yes`)" in out and "\nfirst\n" in out


def test_commands_run_in_the_project_directory(rt: Runtime) -> None:
    assert render(rt, "!`pwd`\n").endswith(f"\n{rt.project}\n")


def test_policy_off_renders_the_placeholder(rt: Runtime) -> None:
    marker = rt.project / "ran"
    body = f"a !`touch {marker}` b\n```!\ntouch {marker}\n```\n"
    out = render(rt, body, settings={"shell": {"enabled": False}})
    assert out.endswith(f"a {DISABLED_TEXT} b\n{DISABLED_TEXT}\n")
    assert not marker.exists()


def test_project_and_pack_skills_are_off_unless_listed(rt: Runtime) -> None:
    marker = rt.project / "ran"
    rt.project_skill("proj", skill_text("Project.", body=f"!`touch {marker}; echo ran`\n"))
    assert rt.session().invoke("proj", trigger="tool").text.endswith(f"{DISABLED_TEXT}\n")
    assert not marker.exists()
    on = rt.session({"shell": {"levels": ["user", "project"]}})
    assert on.invoke("proj", trigger="tool").text.endswith("\nran\n")
    assert marker.exists()

    pack_dir = rt.project / "pack" / "packed"
    pack_dir.mkdir(parents=True)
    (pack_dir / "SKILL.md").write_text(skill_text("Packed.", body="!`echo from-pack`\n"))
    skill, _ = load_skill_file(
        pack_dir / "SKILL.md", SkillSource("packs", "package", pack_dir.parent, "pack")
    )
    assert skill is not None
    off = rt.session()
    off.add_skills([skill])
    assert off.invoke("packed", trigger="tool").text.endswith(f"{DISABLED_TEXT}\n")
    # the level alone is not enough: an unnamed pack is third party (skillpath.trust)
    levels_only = rt.session({"shell": {"levels": ["package"]}})
    levels_only.add_skills([skill])
    assert levels_only.invoke("packed", trigger="tool").text.endswith(f"{DISABLED_TEXT}\n")
    allowed = rt.session({"shell": {"levels": ["package"]}, "trust": {"organisation": ["pack:*"]}})
    allowed.add_skills([skill])
    assert allowed.invoke("packed", trigger="tool").text.endswith("\nfrom-pack\n")


def test_timeout_kills_the_command(rt: Runtime) -> None:
    # a command that never ends on its own: only the timeout ends the invocation
    with pytest.raises(PromptError, match="timed out after 1s"):
        render(rt, "!`sleep 3600; echo late`\n", settings={"shell": {"timeout": 1}})


def test_background_children_do_not_hold_the_invocation(rt: Runtime) -> None:
    # waiting for the child would end in the timeout (an error), not in the output
    out = render(rt, "!`sleep 3600 & echo started`\n", settings={"shell": {"timeout": 20}})
    assert out.endswith("\nstarted\n")


def test_output_is_capped(rt: Runtime) -> None:
    out = render(rt, "!`yes abcdefgh | head -c 200000`\n", settings={"shell": {"max_output": 100}})
    body = out.split("\n\n", 1)[1]
    assert body.startswith("abcdefgh\nabcdefgh")
    assert "[output truncated after 100 characters]" in body
    assert len(body) < 100 + 60


def test_secrets_in_the_environment_are_not_visible(rt: Runtime) -> None:
    env = {**rt.environ, "MY_SECRET_TOKEN": SECRET}
    rt.user_skill("env", skill_text("Env.", body='tok= !`echo "[$MY_SECRET_TOKEN]"`\n!`env`\n'))
    out = rt.session(env=env).invoke("env", trigger="tool").text
    assert "tok= []" in out and SECRET not in out
    assert "PATH=" in out  # pass_env still passes the defaults
    passed = rt.session({"shell": {"pass_env": ["PATH", "MY_SECRET_TOKEN"]}}, env=env).invoke(
        "env", trigger="tool", force=True
    )
    assert f"tok= [{SECRET}]" in passed.text and "HOME=" not in passed.text


def test_failure_aborts_with_a_clear_error(rt: Runtime) -> None:
    with pytest.raises(PromptError, match=r"exit status 3.*\n.*oops"):
        render(rt, "before !`echo oops >&2; exit 3` after\n")


def test_output_is_not_scanned_again(rt: Runtime) -> None:
    out = render(rt, "```!\nprintf '%s\\n' '!`echo nested`'\n```\n")
    assert out.endswith("\n!`echo nested`\n")


def test_arguments_are_quoted_into_commands(rt: Runtime) -> None:
    body = "1: !`printf '%s|' $0 $1`\n2: !`echo $ARGUMENTS`\n"
    out = render(rt, body, args='"a b" c; echo INJECTED')
    assert "\n1: a b|c;|\n" in out
    assert '\n2: "a b" c; echo INJECTED\n' in out  # one word, printed as is: not run
    assert "\nINJECTED" not in out


def test_arguments_cannot_add_commands(rt: Runtime) -> None:
    marker = rt.project / "pwned"
    out = render(rt, "Topic: $ARGUMENTS\n", args=f"!`touch {marker}`")
    assert not marker.exists()
    assert f"Topic: ! `touch {marker}`" in out


def test_run_shell_directly(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin"}
    assert run_shell("echo hi", cwd=tmp_path, env=env, timeout=5, max_output=10) == "hi"
    with pytest.raises(PromptError, match="exit status 1"):
        run_shell("false", cwd=tmp_path, env=env, timeout=5, max_output=10)
    with pytest.raises(PromptError, match="could not start"):
        run_shell("true", cwd=tmp_path / "missing", env=env, timeout=5, max_output=10)


@pytest.mark.skipif(shutil.which("setsid") is None, reason="needs setsid")
def test_a_process_that_leaves_the_group_does_not_hang_the_invocation(rt: Runtime) -> None:
    # waiting for it would end in the timeout (an error), not in the output
    out = render(rt, "!`setsid sleep 3600 & echo detached`\n")
    assert out.endswith("\ndetached\n")
