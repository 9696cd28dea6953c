"""The code the docs include (docs/examples/*.py) really works."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import skillpath_native
from skillpath import PluginHost, SkillSession, load_skills
from skillpath.doctor import build_report, explain

from ..conftest import Env

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "docs" / "examples"


def example(name: str) -> ModuleType:
    """Import ``docs/examples/<name>.py`` by path."""
    spec = importlib.util.spec_from_file_location(f"docs_example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def private_host(*plugins: tuple[ModuleType, str]) -> PluginHost:
    """Core built-ins plus exactly ``plugins`` (no entry points)."""
    host = PluginHost.create(env={"SKILLPATH_NO_AUTOLOAD": "1"})
    for module, name in plugins:
        assert host.add(module, name), host.records
    return host


def test_agent_loop_example(isolated_env: Env, capsys: pytest.CaptureFixture[str]) -> None:
    loop = example("agent_loop")
    env = isolated_env
    env.skill(
        ".skillpath/skills", "greet", "Greet someone by name.", body="Say hello to $ARGUMENTS.\n"
    )
    env.skill(".skillpath/skills", "py-style", "Python style rules.", paths='"**/*.py"')
    (env.project / ".skillpath" / "skills" / "greet" / "notes.md").write_text("be kind\n")
    session = SkillSession.open(env.project, host=private_host((skillpath_native, "native")))

    prompt = loop.system_prompt(session)
    assert prompt.startswith("You are a careful coding agent.")
    assert "greet" in prompt and "py-style" not in prompt  # conditional: held back
    (tool,) = loop.tools(session)
    assert tool["name"] == "Skill"
    assert tool["input_schema"]["properties"]["skill"]["enum"] == ["greet"]

    assert loop.on_user_message(session, "plain text") == "plain text"
    injected = loop.on_user_message(session, "/skill:greet Ada")
    assert injected is not None and "Say hello to Ada." in injected
    mid = loop.on_user_message(session, "first this, then /skill:greet Eve")
    assert mid is not None and mid.startswith("first this, then\n\nBase directory")
    assert "Say hello to Eve." in mid
    capsys.readouterr()
    assert loop.on_user_message(session, "/skill:gret Ada") is None  # not sent to the model
    assert capsys.readouterr().err == (
        "Unknown skill 'gret'. Did you mean: greet? (1 skill available; `skillpath list`)\n"
    )
    assert loop.on_user_message(session, "/skill:py-style") is None
    assert "is conditional (paths: **/*.py) and not active yet" in capsys.readouterr().err
    assert "Say hello to Bob." in loop.on_tool_call(
        session, "Skill", {"skill": "greet", "args": "Bob"}
    )
    assert loop.on_tool_call(session, "read", {"path": "skill://greet/notes.md"}) == "be kind\n"
    again = loop.on_tool_call(session, "Skill", {"skill": "greet", "args": "Bob"})
    assert "already loaded" in again  # the same tool call, the skill unchanged
    loop.on_compaction(session)
    assert "Say hello to Bob." in loop.on_tool_call(
        session, "Skill", {"skill": "greet", "args": "Bob"}
    )
    with pytest.raises(ValueError, match="not a skill tool call"):
        loop.on_tool_call(session, "bash", {})

    assert loop.on_files_touched(session, ["src/app.py"]) == ["py-style"]
    assert "py-style" in loop.system_prompt(session)


def test_agent_loop_example_describes_itself_truthfully() -> None:
    doc = example("agent_loop").__doc__ or ""
    index = (EXAMPLES.parent / "index.md").read_text(encoding="utf-8")
    assert "Getting started" not in doc and "## Wire it into an agent loop" in index
    assert "<!-- docs-test: file=docs/examples/agent_loop.py -->" in index
    assert '"Wire it into an agent loop"' in doc and "docs/index.md" in doc
    places = re.search(r"plug in at (\w+) places", index)
    assert places is not None and f"the {places.group(1)} places" in doc


def test_agent_loop_example_as_a_script(isolated_env: Env) -> None:
    isolated_env.skill(".skillpath/skills", "greet", "Greet someone by name.")
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / "agent_loop.py"), str(isolated_env.project)],
        capture_output=True,
        text=True,
        env=isolated_env.env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("You are a careful coding agent.") and "greet" in proc.stdout


def test_team_provider_example(isolated_env: Env) -> None:
    team = example("team_provider")
    env = isolated_env
    config_root = env.home / "team-skills"
    env.skill(config_root, "deploy", "Deploy the service.")
    env.skill(config_root, "no-desc", None)
    env_root = env.project / "more"
    env.skill(env_root, "triage", "Triage a bug.")
    host = private_host((team, "team"))
    result = load_skills(
        env.project,
        env={**env.env, "TEAM_SKILLS": str(env_root)},
        host=host,
        settings={"team": {"roots": ["~/team-skills"]}},
    )
    skills = {s.name: s for s in result.skills}
    assert set(skills) == {"deploy", "triage"}
    assert skills["deploy"].source.provider == "team" and skills["deploy"].priority == 60
    assert skills["deploy"].source.detail["origin"] == "config"
    assert skills["triage"].source.detail["origin"] == "TEAM_SKILLS"
    assert any(d.code == "missing-description" for d in result.diagnostics)
    assert [r.path for r in result.roots if r.provider == "team"] == [config_root, env_root]
    (record,) = [r for r in host.records if r.name == "team"]
    assert record.priority == 60 and record.provider == "team"

    bad = load_skills(env.project, env=env.env, host=host, settings={"team": {"roots": "x"}})
    assert any(d.code == "team-bad-roots" for d in bad.diagnostics)


def test_the_policy_tutorial_shows_the_plugin_s_own_source() -> None:
    """The tutorial and plugins/acme-policy are the same code: the page holds the file."""
    page = (REPO / "docs" / "tutorials" / "policy-plugin.md").read_text(encoding="utf-8")
    source = "plugins/acme-policy/src/acme_policy/__init__.py"
    assert f"<!-- docs-test: file={source} -->" in page  # the block is the file (test_code_blocks)
    assert (REPO / source).is_file()
    assert "trusted_section(SECTION)" in (REPO / source).read_text(encoding="utf-8")
    assert not (EXAMPLES / "policy_plugin.py").exists()  # no second copy to drift


def test_the_policy_tutorial_registers_the_plugin_in_code(isolated_env: Env) -> None:
    import acme_policy

    env = isolated_env
    env.skill(
        ".skillpath/skills", "review", "Review code.", body="Key AKIAABCDEFGHIJKLMNOP here.\n"
    )
    env.skill(".skillpath/skills", "experimental-x", "Try things.")
    env.skill(env.project / "custom", "outsider", "From a custom dir.")
    user_cfg = env.home / ".skillpath" / "config.toml"
    user_cfg.parent.mkdir(parents=True)
    user_cfg.write_text(
        '[acme_policy]\nallowed_sources = ["native"]\ndenied_names = ["experimental-*"]\n'
        'footer = "Follow the ACME engineering handbook."\n'
        f'[skills]\ncustom_directories = ["{env.project / "custom"}"]\n'
    )
    project_cfg = env.project / ".skillpath" / "config.toml"
    project_cfg.write_text("[acme_policy]\ndenied_names = []\n")  # a checkout loosening it
    host = private_host((skillpath_native, "native"), (acme_policy, "acme-policy"))
    session = SkillSession.open(env.project, home=env.home, host=host)
    assert [s.name for s in session.skills()] == ["review"]

    report = build_report(session.result)
    ex = explain(report, "experimental-x")
    assert ex.entries[0].reason == "vetoed"
    assert "denied_names 'experimental-*' (plugin 'acme-policy')" in ex.entries[0].detail
    outsider = explain(report, "outsider").entries[0]
    assert "source custom/user is not in [acme_policy] allowed_sources" in outsider.detail

    content = session.invoke("review", trigger="tool").content
    assert "[REDACTED:aws-access-key]" in content and "AKIAABCDEFGHIJKLMNOP" not in content
    assert content.rstrip().endswith("Follow the ACME engineering handbook.")


def test_the_examples_pass_mypy_strict() -> None:
    """What the docs teach is typed: ``docs/examples/*.py`` pass ``mypy --strict``."""
    # (strands_skills.py and crewai_skills.py are checked in the adapters' own
    # environments: integrations/strands, integrations/crewai)
    outside = {"strands_skills.py", "crewai_skills.py"}
    files = sorted(str(p) for p in EXAMPLES.glob("*.py") if p.name not in outside)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--config-file",
            str(EXAMPLES.parents[1] / "pyproject.toml"),
            "--cache-dir",
            os.devnull,
            *files,
        ],
        cwd=EXAMPLES,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
