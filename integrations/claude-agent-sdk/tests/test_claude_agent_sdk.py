"""skillpath-claude-agent-sdk: the plugin, the options, and a real turn of the SDK's CLI.

The turn runs the SDK's ``query()`` with the Claude Code CLI bundled in its
wheel, against a scripted Messages API on localhost (see ``conftest.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import anyio
import claude_agent_sdk
import pytest
from claude_agent_sdk import AssistantMessage, ClaudeAgentOptions, ResultMessage, query
from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport
from skillpath.plugin_writer import MANIFEST_FILE
from skillpath.shell import DISABLED_TEXT
from skillpath_claude_agent_sdk import SkillpathPlugin, default_plugin_dir
from skillpath_testing.adapters import PACK_SKILL, PROJECT_SKILL, AdapterWorld
from skillpath_testing.offline import run_offline

BUNDLED_CLI = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
needs_cli = pytest.mark.skipif(
    not os.access(BUNDLED_CLI, os.X_OK), reason="the SDK wheel ships no CLI for this platform"
)


def cli_env(world: AdapterWorld, api_url: str | None = None) -> dict[str, str]:
    env = {
        "HOME": str(world.home),
        "CLAUDE_CONFIG_DIR": str(world.home / ".claude"),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
    }
    if api_url is not None:
        env |= {"ANTHROPIC_BASE_URL": api_url, "ANTHROPIC_API_KEY": "sk-fake-offline"}
    return env


def test_the_plugin_follows_claude_codes_layout(world: AdapterWorld, tmp_path: Path) -> None:
    plugin = SkillpathPlugin(world.session(), tmp_path / "plugin")
    export = plugin.sync()
    root = tmp_path / "plugin"
    assert json.loads((root / ".claude-plugin" / "plugin.json").read_text()) == {
        "name": "skillpath",
        "description": "Skills found and served by skillpath.",
        "version": "0.1.0",
        "author": {"name": "skillpath"},
    }
    assert export.skills == (
        PACK_SKILL,
        "manual-deploy",
        PROJECT_SKILL,
        "quiet",
        "release-checklist",
    )
    # the pack's skill (level package) does not get its allowed-tools in Claude Code
    assert [(d.code, d.message.split(": ")[0]) for d in export.diagnostics] == [
        ("export-power-dropped", f"skill {PACK_SKILL!r}")
    ]
    assert "allowed-tools" in export.diagnostics[0].message
    for name in export.skills:
        text = (root / "skills" / name / "SKILL.md").read_text()
        assert text.startswith(f"---\nname: {name}\ndescription: ")
    notes = (root / "skills" / PROJECT_SKILL / "SKILL.md").read_text()
    assert "argument-hint: <file>" in notes and "Read the PDF $ARGUMENTS" in notes
    assert (root / "skills" / PROJECT_SKILL / "reference.md").read_text() == (
        "Notes are bullet points.\n"
    )
    assert (root / "skills" / PACK_SKILL / "references" / "checklist.md").is_file()
    assert (root / "skills" / PACK_SKILL / "scripts" / "diffstat.py").is_file()
    manual = (root / "skills" / "manual-deploy" / "SKILL.md").read_text()
    assert (
        "disable-model-invocation: 'true'" in manual or "disable-model-invocation: true" in manual
    )
    assert not (root / "skills" / "py-style").exists()  # conditional, not active
    assert (root / MANIFEST_FILE).is_file()


@needs_cli
def test_the_bundled_cli_validates_the_plugin(world: AdapterWorld, tmp_path: Path) -> None:
    plugin = SkillpathPlugin(world.session(), tmp_path / "plugin")
    plugin.sync()
    proc = subprocess.run(
        [str(BUNDLED_CLI), "plugin", "validate", "--strict", "--json", str(plugin.path)],
        env={**os.environ, **cli_env(world)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["success"] is True and report["manifest"]["errors"] == []
    assert report["manifest"]["warnings"] == []
    assert sorted(report["provides"]["skills"]) == [
        f"skillpath:{n}"
        for n in plugin.last.skills  # type: ignore[union-attr]
    ]


def test_options_enable_exactly_the_listed_skills(world: AdapterWorld, tmp_path: Path) -> None:
    plugin = SkillpathPlugin(world.session(), tmp_path / "plugin")
    base = ClaudeAgentOptions(plugins=[{"type": "local", "path": "/elsewhere"}], skills=["mine"])
    opts = plugin.options(base, max_turns=3)
    assert opts.plugins == [
        {"type": "local", "path": "/elsewhere"},
        {"type": "local", "path": str(tmp_path / "plugin")},
    ]
    assert opts.skills == [
        "mine",
        f"skillpath:{PACK_SKILL}",
        f"skillpath:{PROJECT_SKILL}",
        "skillpath:release-checklist",
    ]  # not manual-deploy (user only), quiet (hidden), py-style (conditional)
    assert opts.cwd == str(world.project) and opts.max_turns == 3
    assert len(opts.hooks["SessionStart"]) == 1  # type: ignore[index]
    # what the SDK hands the CLI
    cmd = SubprocessCLITransport(prompt="hi", options=opts)
    cmd._cli_path = str(BUNDLED_CLI)
    argv = cmd._build_command()
    assert argv[argv.index("--plugin-dir", argv.index("--plugin-dir") + 1) + 1] == str(plugin.path)
    allowed = argv[argv.index("--allowedTools") + 1]
    assert f"Skill(skillpath:{PROJECT_SKILL})" in allowed
    assert "manual-deploy" not in allowed and "quiet" not in allowed
    assert plugin.options(ClaudeAgentOptions(skills="all")).skills == "all"  # the caller's choice


def test_the_listing_budget_decides_which_skills_are_enabled(
    world: AdapterWorld, tmp_path: Path
) -> None:
    # exactly what skillpath's budgeted listing keeps (its policy: the user's and the
    # project's own skills before packaged ones, names only before dropping)
    session = world.session(listing={"budget": 440})
    report = session.listing().report
    assert report.dropped
    kept = sorted(
        f"skillpath:{s.name}"
        for s in session.skills()
        if not s.hidden and s.name not in report.dropped
    )
    small = SkillpathPlugin(session, tmp_path / "a", listing_format="skills", search=False)
    assert sorted(small.options().skills or []) == kept
    assert f"skillpath:{PACK_SKILL}" not in kept
    other = SkillpathPlugin(
        world.session(), tmp_path / "b", budget=440, listing_format="skills", search=False
    ).options()
    assert sorted(other.skills or []) == kept
    # with the search tool (the default), what it finds can be loaded: every skill the
    # model may call is enabled
    found = SkillpathPlugin(session, tmp_path / "c", listing_format="skills").options()
    assert sorted(found.skills or []) == [
        f"skillpath:{n}" for n in (PACK_SKILL, PROJECT_SKILL, "release-checklist")
    ]


def test_inline_shell_the_policy_refuses_is_not_exported(
    world: AdapterWorld, tmp_path: Path
) -> None:
    world.write("shelly", "Runs a command.", "Now: !`echo SHELL-$((40+2))`\n")
    plugin = SkillpathPlugin(world.session(), tmp_path / "plugin")
    plugin.sync()
    text = (plugin.path / "skills" / "shelly" / "SKILL.md").read_text()
    assert "!`echo" not in text and DISABLED_TEXT in text  # project skills run no shell
    on = SkillpathPlugin(world.session(shell={"levels": ["project"]}), tmp_path / "on")
    on.sync()
    assert (
        "Now: !`echo SHELL-$((40+2))`" in (on.path / "skills" / "shelly" / "SKILL.md").read_text()
    )


def test_sync_and_the_session_start_hook_follow_the_disk(
    world: AdapterWorld, tmp_path: Path
) -> None:
    plugin = SkillpathPlugin(world.session(), tmp_path / "plugin", refresh=True)
    opts = plugin.options()
    world.write("late-comer", "Arrived after the agent started.", "Late.\n")
    world.write(PROJECT_SKILL, "Take notes, edited.", "Edited: $ARGUMENTS\n")
    (hook,) = opts.hooks["SessionStart"][0].hooks  # type: ignore[index]
    out = anyio.run(hook, {"hook_event_name": "SessionStart"}, None, {"signal": None})
    assert out == {"hookSpecificOutput": {"hookEventName": "SessionStart", "reloadSkills": True}}
    assert plugin.last is not None
    assert plugin.last.written == ("late-comer", PROJECT_SKILL)
    assert "Edited: $ARGUMENTS" in (plugin.path / "skills" / PROJECT_SKILL / "SKILL.md").read_text()
    assert "skillpath:late-comer" in plugin.options().skills  # type: ignore[operator]
    (world.skills_dir / "late-comer" / "SKILL.md").unlink()
    assert plugin.sync().removed == ("late-comer",)


def test_the_default_folder_is_in_skillpaths_cache(world: AdapterWorld) -> None:
    session = world.session()
    plugin = SkillpathPlugin(session)
    assert plugin.path == default_plugin_dir(session)
    assert plugin.path.is_relative_to(Path(world.env["SKILLPATH_CACHE_DIR"]))


async def _turn(options: ClaudeAgentOptions) -> list[Any]:
    return [
        m async for m in query(prompt="Take notes from report.pdf, then review.", options=options)
    ]


@needs_cli
def test_a_real_turn_calls_a_project_skill_and_a_pack_skill(
    world: AdapterWorld, tmp_path: Path, fake_api: Any
) -> None:
    fake_api.calls = [
        {"skill": f"skillpath:{PROJECT_SKILL}", "args": "report.pdf"},
        {"skill": f"skillpath:{PACK_SKILL}", "args": "v1.2"},
    ]
    plugin = SkillpathPlugin(world.session(), tmp_path / "plugin")
    options = plugin.options(env=cli_env(world, fake_api.url), max_turns=4)
    messages = anyio.run(_turn, options)

    result = [m for m in messages if isinstance(m, ResultMessage)]
    assert result and not result[-1].is_error, result
    first, *later = fake_api.requests
    listing = fake_api.text_of(first)
    for name in (PROJECT_SKILL, PACK_SKILL, "release-checklist"):
        assert f"skillpath:{name}:" in listing
    for name in ("manual-deploy", "quiet", "py-style"):
        assert f"skillpath:{name}" not in listing
    assert later, "the CLI did not come back with the skills' results"
    seen = fake_api.text_of(later[-1])
    assert "Read the PDF report.pdf and write notes" in seen
    assert "# Code review" in seen and "against `v1.2`" in seen
    diffstat = plugin.path / "skills" / PACK_SKILL / "scripts" / "diffstat.py"
    assert f"python3 {diffstat} v1.2" in seen  # ${SKILL_DIR}, in Claude Code's spelling
    said = [b for m in messages if isinstance(m, AssistantMessage) for b in m.content]
    assert said  # the model's tool uses and its final text came through the SDK
    print(json.dumps(later[-1]["messages"][-2:], indent=1))


@needs_cli
def test_a_real_turn_with_an_unknown_or_user_only_skill(
    world: AdapterWorld, tmp_path: Path, fake_api: Any
) -> None:
    fake_api.calls = [{"skill": "skillpath:pdf-note"}, {"skill": "skillpath:manual-deploy"}]
    plugin = SkillpathPlugin(world.session(), tmp_path / "plugin")
    messages = anyio.run(_turn, plugin.options(env=cli_env(world, fake_api.url), max_turns=4))
    assert [m for m in messages if isinstance(m, ResultMessage)]
    assert len(fake_api.requests) >= 2
    results = [
        block
        for msg in fake_api.requests[-1]["messages"]
        if msg["role"] == "user" and isinstance(msg["content"], list)
        for block in msg["content"]
        if block.get("type") == "tool_result"
    ]
    assert len(results) == 2
    assert all(r.get("is_error") for r in results), results
    assert "Unknown skill: skillpath:pdf-note. Did you mean skillpath:pdf-notes?" in str(results)
    assert "disable-model-invocation" in str(results)
    assert "Deploy." not in fake_api.text_of(fake_api.requests[-1])  # user-only body not loaded


def test_nothing_touches_the_network_at_import_or_construction(
    world: AdapterWorld, tmp_path: Path
) -> None:
    run_offline(
        "from skillpath_claude_agent_sdk import SkillpathPlugin\n"
        f"plugin = SkillpathPlugin.open(PROJECT, path={str(tmp_path / 'p')!r})\n"
        "opts = plugin.options()\n"
        "assert 'skillpath:pdf-notes' in opts.skills\n",
        project=world.project,
        env=world.env,
    )
