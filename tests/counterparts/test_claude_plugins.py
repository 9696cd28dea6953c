"""Claude Code plugins: the real ``claude`` against both readers of them, the
``claude-code`` view (:mod:`skillpath.views`) and skillpath's own catalog (the
``claude-plugins`` provider), which share :mod:`skillpath.claude_plugins`.

One marketplace folder (``claude plugin marketplace add <dir>``) with eight
plugins is installed with ``claude plugin install`` into a temporary HOME; then the
settings files are rewritten so that each plugin tests one rule of
``enabledPlugins`` (user, project, local in cwd and at the repository root;
absent; ``false``; order), and one skill is added to the source folder and one to
Claude Code's cache copy (which one Claude Code reads). Claude Code is then run
against the scripted model API, once for the listing and once per Skill tool call.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agentrun import claude_listing, run_agent
from cases import Tree
from fakemodel import FakeModel, fake_model
from skillpath import SkillSession, load_skills
from skillpath.views import AgentView, view

#: Marketplace plugins are quarantined until approved (skillpath.trust); these tests are
#: about which plugins load and how they are named, so the user approves every one.
APPROVED = {"trust": {"approve": ["plugin:*"]}}
CLAUDE_OWN = ("plugin-authoring",)

PLUGINS: dict[str, dict[str, str]] = {
    "toolbox": {
        "skills/pskill/SKILL.md": "---\nname: pskill\ndescription: Plugin skill.\n---\n"
        "Run ${CLAUDE_PLUGIN_ROOT}/scripts/x.sh with $ARGUMENTS\n",
        "skills/pfold/SKILL.md": "---\nname: pnamed\ndescription: Named apart.\n---\nNamed.\n",
        "skills/quiet/SKILL.md": "---\ndescription: Hidden.\ndisable-model-invocation: true\n"
        "---\nQuiet.\n",
        "skills/nodesc/SKILL.md": "# Plugin heading\n\nBody.\n",
        "commands/pcmd.md": "---\ndescription: Plugin command.\n---\nDo pcmd.\n",
        "commands/sub/deep.md": "Deep command.\n",
        "commands/sub/deep2.md": "---\ndescription: Nested command.\n---\nDeep.\n",
        "scripts/x.sh": "echo x\n",
    },
    # a manifest `skills` path beside skills/, and a command in a second plugin
    "alpha": {
        "skills/askill/SKILL.md": "---\ndescription: Alpha skill.\n---\nA.\n",
        "extra/a0extra/SKILL.md": "---\ndescription: Alpha extra.\n---\nA0.\n",
        "commands/zcmd.md": "---\ndescription: Alpha command.\n---\nZ.\n",
    },
    "beta": {"skills/bskill/SKILL.md": "---\ndescription: Enabled by the project.\n---\nB.\n"},
    "gamma": {"skills/gskill/SKILL.md": "---\ndescription: Off in the project.\n---\nG.\n"},
    "delta": {"skills/dskill/SKILL.md": "---\ndescription: On again locally.\n---\nD.\n"},
    "eps": {"skills/eskill/SKILL.md": "---\ndescription: In no settings file.\n---\nE.\n"},
    "zeta": {"skills/zskill/SKILL.md": "---\ndescription: Off at the root.\n---\nZ.\n"},
    "offbox": {"skills/off/SKILL.md": "---\ndescription: Disabled.\n---\nOff.\n"},
}
MANIFEST_SKILLS = {"alpha": ["./extra"]}


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))


def _marketplace(market: Path) -> None:
    entries = []
    for name, files in PLUGINS.items():
        manifest: dict[str, Any] = {"name": name, "version": "1.0.0"}
        if name in MANIFEST_SKILLS:
            manifest["skills"] = MANIFEST_SKILLS[name]
        _write(market / name / ".claude-plugin" / "plugin.json", manifest)
        for rel, text in files.items():
            _write(market / name / rel, text)
        entries.append({"name": name, "source": f"./{name}", "description": f"{name} plugin"})
    _write(
        market / ".claude-plugin" / "marketplace.json",
        {"name": "localmkt", "owner": {"name": "test"}, "plugins": entries},
    )


@pytest.fixture(scope="module")
def fm() -> Any:
    with fake_model() as server:
        yield server


@pytest.fixture(scope="module")
def tree(counterpart: Callable[[str], Path], tmp_path_factory: Any) -> Tree:
    t = Tree(tmp_path_factory.mktemp("claude-plugins"))
    t.home.mkdir(parents=True)
    t.cwd.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(t.repo)], check=True)
    market = t.base / "market"
    _marketplace(market)
    _write(t.home / ".claude/skills/pskill/SKILL.md", "---\ndescription: The user's.\n---\nMine.\n")
    env = {
        "HOME": str(t.home),
        "PATH": os.environ.get("PATH", ""),
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    claude = str(counterpart("claude"))
    steps = [["plugin", "marketplace", "add", str(market)]]
    steps += [["plugin", "install", f"{name}@localmkt"] for name in PLUGINS]
    for args in steps:
        done = subprocess.run(
            [claude, *args], cwd=t.cwd, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stdout + done.stderr
    # the settings: each plugin one rule; the user's keys in a non-alphabetical order
    user = t.home / ".claude" / "settings.json"
    settings = json.loads(user.read_text())
    settings["enabledPlugins"] = {
        f"{k}@localmkt": v
        for k, v in [
            ("toolbox", True),
            ("zeta", True),
            ("gamma", True),
            ("alpha", True),
            ("offbox", False),
        ]
    }
    _write(user, settings)
    _write(
        t.cwd / ".claude" / "settings.json",
        {
            "enabledPlugins": {
                "beta@localmkt": True,
                "gamma@localmkt": False,
                "delta@localmkt": False,
            }
        },
    )
    _write(
        t.cwd / ".claude" / "settings.local.json",
        {"enabledPlugins": {"delta@localmkt": True, "zeta@localmkt": True}},
    )
    _write(t.repo / ".claude" / "settings.local.json", {"enabledPlugins": {"zeta@localmkt": False}})
    # a project settings file above cwd: Claude Code does not read it
    _write(t.repo / ".claude" / "settings.json", {"enabledPlugins": {"eps@localmkt": True}})
    # the source folder and the cache copy part ways: Claude Code reads the source folder
    _write(market / "toolbox/skills/srconly/SKILL.md", "---\ndescription: Source only.\n---\nS.\n")
    cache = t.home / ".claude/plugins/cache/localmkt/toolbox/1.0.0"
    assert (cache / "skills" / "pskill" / "SKILL.md").is_file()
    _write(cache / "skills/cacheonly/SKILL.md", "---\ndescription: Cache only.\n---\nC.\n")
    return t


@pytest.fixture(scope="module")
def real(counterpart: Callable[[str], Path], fm: FakeModel, tree: Tree) -> list[str]:
    """The entry lines of the listing the real claude sent (its own skills left out)."""
    bodies = run_agent("claude", counterpart("claude"), fm, home=tree.home, cwd=tree.cwd)
    listing = claude_listing(bodies)
    assert listing is not None, "claude sent no skills listing"
    return [line for line in listing.split("\n") if line[2:].split(":")[0] not in CLAUDE_OWN]


def _view(t: Tree) -> AgentView:
    return view("claude-code", t.cwd, env={"HOME": str(t.home)})


def _catalog(t: Tree) -> Any:
    return load_skills(t.cwd, home=t.home, env={"HOME": str(t.home)}, settings=APPROVED)


def _plugin_lines(lines: list[str]) -> list[str]:
    return [line for line in lines if line[2:].split(" ")[0].rstrip(":").count(":")]


def test_the_view_lists_what_claude_lists(real: list[str], tree: Tree) -> None:
    assert _view(tree).listing.split("\n") == real
    # what the listing shows about each rule
    names = [line[2:].split(": ", 1)[0] for line in _plugin_lines(real)]
    assert names == [
        "toolbox:pcmd",  # commands first, plugin by plugin in enabledPlugins order ...
        "toolbox:sub:deep2",  # (sub:deep has no description: not listed)
        "alpha:zcmd",
        "toolbox:pfold (toolbox:pnamed)",  # ... then skills, plugin by plugin
        "toolbox:pskill",
        "toolbox:srconly",  # the source folder is read, not the cache copy
        "alpha:askill",  # skills/ first, then the manifest's `skills` path
        "alpha:a0extra",
        "beta:bskill",  # enabled by the project's settings alone
        "delta:dskill",  # project false, cwd's settings.local.json true
    ]
    # not listed: gamma (project false over user true), zeta (the root's
    # settings.local.json false over cwd's true), eps (true only in the root's
    # settings.json, which is not read from a subfolder), offbox (false)


def test_the_catalog_loads_the_plugins_claude_loads(real: list[str], tree: Tree) -> None:
    """skillpath's own catalog (no ``--agent``): the same plugins, entries and names."""
    result = _catalog(tree)
    mine = sorted(s.name for s in result.skills if s.source.provider == "claude-plugins")
    v = _view(tree)
    # every entry Claude Code loads from a plugin (listed or not), by the name it runs under
    loaded = sorted(s.name.split(" (")[-1].rstrip(")") for s in v.skills if s.scope == "plugin")
    assert mine == loaded
    listed = [line[2:].split(": ", 1)[0].split(" (")[-1].rstrip(")") for line in real]
    assert set(_plugin_lines([f"- {n}" for n in listed])) <= {f"- {n}" for n in mine}
    assert not {"toolbox:cacheonly", "eps:eskill", "gamma:gskill", "zeta:zskill"} & set(mine)
    assert not [n for n in mine if n.startswith("offbox:")]
    why = {d.code for d in result.diagnostics if d.provider == "claude-plugins"}
    assert {"plugin-not-enabled", "plugin-disabled"} <= why
    # and `explain NAME --agent claude-code` says why in one line
    assert "no settings file enables it" in v.explain("eskill")
    assert "set to false in enabledPlugins" in v.explain("gamma:gskill")


def test_a_user_skill_and_a_plugin_skill_of_one_name(real: list[str], tree: Tree) -> None:
    assert "- pskill: The user's." in real and "- toolbox:pskill: Plugin skill." in real
    result = _catalog(tree)
    user, plugin = result.get("pskill"), result.get("toolbox:pskill")
    assert user is not None and user.source.provider == "claude"
    assert plugin is not None and plugin.source.provider == "claude-plugins"
    # a bare name resolves while one plugin skill alone ends in it
    named = result.get("pnamed")
    assert named is not None and named.name == "toolbox:pnamed"
    assert result.get("toolbox:pfold") is named  # listed by Claude Code as toolbox:pfold


def _tool_text(bodies: list[dict[str, Any]]) -> str:
    for body in bodies:
        for message in body.get("messages", []):
            content = message.get("content")
            if isinstance(content, list) and any(
                isinstance(c, dict) and c.get("type") == "tool_result" for c in content
            ):
                return "".join(c["text"] for c in content if c.get("type") == "text")
    raise AssertionError("claude never returned the Skill tool's result")


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("pskill", "now"),  # the user's skill: the bare name is not the plugin's
        ("toolbox:pskill", "now"),  # the plugin's, ${CLAUDE_PLUGIN_ROOT} substituted
        ("pnamed", "now"),  # a bare name resolving to the one toolbox:pnamed
        ("toolbox:pfold", "now"),  # the same skill by its listed folder name
        ("toolbox:pcmd", "now"),  # a plugin command: no base directory
    ],
)
def test_invocation_text(
    counterpart: Callable[[str], Path], tree: Tree, name: str, args: str
) -> None:
    with fake_model() as server:
        server.tool_call = ("Skill", {"skill": name, "args": args})
        bodies = run_agent("claude", counterpart("claude"), server, home=tree.home, cwd=tree.cwd)
    text = _tool_text(bodies)
    assert _view(tree).invocation(name, args) == text
    session = SkillSession.open(
        tree.cwd, home=tree.home, env={"HOME": str(tree.home)}, settings=APPROVED
    )
    rendered = session.invoke(name, args, trigger="tool")
    if name == "toolbox:pskill":
        script = str(tree.base / "market" / "toolbox" / "scripts" / "x.sh")
        assert script in text
        assert rendered.text == text  # the catalog's own invocation, byte for byte
    else:
        # unused arguments: Claude Code appends "\n\n\nARGUMENTS: …", skillpath
        # "\n\nARGUMENTS: …\n" (docs/agents.md); the rest is the same text
        assert " ".join(rendered.text.split()) == " ".join(text.split())


def test_claude_config_dir_moves_settings_registry_and_skills(
    counterpart: Callable[[str], Path], fm: FakeModel, tree: Tree, tmp_path: Path
) -> None:
    """With ``CLAUDE_CONFIG_DIR`` Claude Code reads its settings, registry and user
    skills there and not in ``~/.claude``; the view and the catalog follow."""
    import shutil

    cfg = tmp_path / "cfg"
    shutil.copytree(tree.home / ".claude", cfg, symlinks=True)
    shutil.rmtree(cfg / "skills" / "pskill")
    _write(cfg / "skills" / "cfgskill" / "SKILL.md", "---\ndescription: From cfg.\n---\nC.\n")
    settings = json.loads((cfg / "settings.json").read_text())
    settings["enabledPlugins"] = {"alpha@localmkt": True}
    _write(cfg / "settings.json", settings)
    env = {"CLAUDE_CONFIG_DIR": str(cfg)}
    bodies = run_agent("claude", counterpart("claude"), fm, home=tree.home, cwd=tree.cwd, env=env)
    listing = claude_listing(bodies)
    assert listing is not None
    real = [x for x in listing.split("\n") if x[2:].split(":")[0] not in CLAUDE_OWN]
    full_env = {"HOME": str(tree.home), **env}
    assert view("claude-code", tree.cwd, env=full_env).listing.split("\n") == real
    assert "- cfgskill: From cfg." in real and not any("pskill" in x for x in real)
    result = load_skills(tree.cwd, home=tree.home, env=full_env, settings=APPROVED)
    mine = sorted(s.name for s in result.skills if s.source.provider == "claude-plugins")
    listed = sorted(x[2:].split(": ", 1)[0] for x in _plugin_lines(real))
    assert (
        mine
        == listed
        == ["alpha:a0extra", "alpha:askill", "alpha:zcmd", "beta:bskill", "delta:dskill"]
    )
