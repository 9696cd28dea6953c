"""Claude Code's managed skills (``/etc/claude-code/.claude/skills``): the real ``claude``
against the ``claude-code`` view.

The pinned Claude Code reads the managed folder from a fixed path (``/etc/claude-code`` on
Linux; no environment variable or setting moves it), so the test never writes ``/etc``:
``claude`` runs in a private mount namespace (``unshare -m``) whose ``/etc`` is an overlay
of the real one with a temporary upper folder that holds ``claude-code/.claude/...``. The
overlay is gone when ``claude`` exits; the machine's ``/etc`` is only read. The view reads
the same upper folder through ``SKILLPATH_CLAUDE_MANAGED_DIR``. The upper folder also holds
``managed-settings.json`` and ``managed-settings.d/*.json`` switching installed plugins.
Where mount namespaces are not available (not root, no overlayfs) the test is skipped.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agentrun import claude_listing, run_agent
from cases import Tree
from fakemodel import FakeModel, fake_model
from skillpath import load_skills
from skillpath.views import AgentView, view

CLAUDE_OWN = ("plugin-authoring",)
#: marketplace plugins are quarantined until approved (skillpath.trust): approve them all
APPROVED = {"trust": {"approve": ["plugin:*"]}}

MANAGED = {
    ".claude/skills/mskill/SKILL.md": "---\ndescription: Managed skill.\n---\nM.\n",
    ".claude/skills/clash/SKILL.md": "---\ndescription: The managed clash.\n---\nManaged.\n",
    ".claude/skills/pclash/SKILL.md": "---\ndescription: The managed pclash.\n---\nManaged.\n",
    ".claude/skills/mquiet/SKILL.md": "---\ndescription: Hidden.\n"
    "disable-model-invocation: true\n---\nQ.\n",
    ".claude/skills/mnamed/SKILL.md": "---\nname: other-name\ndescription: Named apart.\n---\nN.\n",
    ".claude/skills/aheading/SKILL.md": "# Managed heading\n\nBody.\n",
    ".claude/commands/mcmd.md": "---\ndescription: Managed command.\n---\nC.\n",
}
USER = {
    ".claude/skills/clash/SKILL.md": "---\ndescription: The user's clash.\n---\nUser.\n",
    ".claude/skills/uskill/SKILL.md": "---\ndescription: User skill.\n---\nU.\n",
}
#: plugins of one directory marketplace, all installed (user scope, so the user's
#: settings say true), then switched by the managed settings files
PLUGINS = {
    "mp1": "Enabled by the user, off in managed-settings.json.",
    "mp2": "Enabled by the user alone.",
    "mp3": "In no user settings, on in managed-settings.d.",
    "mp4": "Off in managed-settings.json, on again in managed-settings.d.",
}
MANAGED_SETTINGS = {"enabledPlugins": {"mp1@mm": False, "mp4@mm": False}}
MANAGED_DROP_IN = {"enabledPlugins": {"mp3@mm": True, "mp4@mm": True}}
PROJECT = {
    ".claude/skills/pclash/SKILL.md": "---\ndescription: The project's pclash.\n---\nP.\n",
    ".claude/skills/projskill/SKILL.md": "---\ndescription: Project skill.\n---\nP.\n",
}


def _write_all(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _marketplace(root: Path) -> None:
    files: dict[str, str] = {}
    for name, desc in PLUGINS.items():
        files[f"{name}/.claude-plugin/plugin.json"] = json.dumps({"name": name, "version": "1"})
        files[f"{name}/skills/{name}s/SKILL.md"] = f"---\ndescription: {desc}\n---\nX.\n"
    entries = [{"name": n, "source": f"./{n}"} for n in PLUGINS]
    files[".claude-plugin/marketplace.json"] = json.dumps(
        {"name": "mm", "owner": {"name": "test"}, "plugins": entries}
    )
    _write_all(root, files)


def _install_plugins(claude: Path, t: Tree) -> None:
    env = {
        "HOME": str(t.home),
        "PATH": os.environ.get("PATH", ""),
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    steps = [["plugin", "marketplace", "add", str(t.base / "market")]]
    steps += [["plugin", "install", f"{name}@mm"] for name in PLUGINS]
    for args in steps:
        done = subprocess.run(
            [str(claude), *args], cwd=t.cwd, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stdout + done.stderr
    user = t.home / ".claude" / "settings.json"
    settings = json.loads(user.read_text())
    del settings["enabledPlugins"]["mp3@mm"]
    user.write_text(json.dumps(settings))


def _overlay_prefix(upper: Path, work: Path) -> list[str]:
    """Run a command with ``/etc`` overlaid by ``upper`` in a private mount namespace."""
    script = (
        f"mount -t overlay overlay -o lowerdir=/etc,upperdir={upper},workdir={work} /etc"
        ' && exec "$@"'
    )
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh"]


def _overlay_works(base: Path) -> bool:
    upper, work = base / "probe-upper", base / "probe-work"
    (upper / "claude-code").mkdir(parents=True)
    work.mkdir()
    (upper / "claude-code" / "probe").write_text("ok")
    if shutil.which("unshare") is None:
        return False
    done = subprocess.run(
        [*_overlay_prefix(upper, work), "cat", "/etc/claude-code/probe"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    return done.returncode == 0 and done.stdout == "ok"


class Managed:
    def __init__(self, t: Tree, real: str, v: AgentView, real_off: str, v_off: AgentView):
        self.tree, self.real, self.view = t, real, v
        self.real_off, self.view_off = real_off, v_off


@pytest.fixture(scope="module")
def fm() -> Any:
    with fake_model() as server:
        yield server


@pytest.fixture(scope="module")
def managed(counterpart: Callable[[str], Path], fm: FakeModel, tmp_path_factory: Any) -> Managed:
    t = Tree(tmp_path_factory.mktemp("claude-managed"))
    t.home.mkdir(parents=True)
    t.cwd.mkdir(parents=True)
    if not _overlay_works(t.base):
        pytest.skip("no private mount namespace with overlayfs here (unshare -m, root)")
    subprocess.run(["git", "init", "-q", str(t.repo)], check=True)
    upper, work = t.base / "etc-upper", t.base / "etc-work"
    work.mkdir()
    _write_all(upper / "claude-code", MANAGED)
    _write_all(t.home, USER)
    _write_all(t.repo, PROJECT)
    claude = counterpart("claude")
    _marketplace(t.base / "market")
    _install_plugins(claude, t)
    _write_all(
        upper / "claude-code",
        {
            "managed-settings.json": json.dumps(MANAGED_SETTINGS),
            "managed-settings.d/10-plugins.json": json.dumps(MANAGED_DROP_IN),
        },
    )
    prefix = _overlay_prefix(upper, work)
    env = {"HOME": str(t.home), "SKILLPATH_CLAUDE_MANAGED_DIR": str(upper / "claude-code")}
    off = {"CLAUDE_CODE_DISABLE_POLICY_SKILLS": "1"}
    listings = []
    for extra in ({}, off):
        bodies = run_agent("claude", claude, fm, home=t.home, cwd=t.cwd, env=extra, prefix=prefix)
        real = claude_listing(bodies)
        assert real is not None, "claude sent no skills listing"
        listings.append(real)
    return Managed(
        t,
        listings[0],
        view("claude-code", t.cwd, env=env),
        listings[1],
        view("claude-code", t.cwd, env={**env, **off}),
    )


def _entries(listing: str) -> list[str]:
    return [
        line
        for line in listing.split("\n")
        if line and line[2:].split(":", 1)[0].split(" ", 1)[0] not in CLAUDE_OWN
    ]


def test_claude_managed_listing(managed: Managed) -> None:
    real = _entries(managed.real)
    # the managed folder is read: its own skills are listed
    assert any(line.startswith("- mskill:") for line in real), real
    assert _entries(managed.view.listing) == real, "\n".join(real)


def test_claude_managed_settings_switch_plugins(managed: Managed) -> None:
    plugin_lines = [line for line in _entries(managed.real) if line.startswith("- mp")]
    assert plugin_lines == [
        "- mp2:mp2s: Enabled by the user alone.",
        "- mp4:mp4s: Off in managed-settings.json, on again in managed-settings.d.",
        "- mp3:mp3s: In no user settings, on in managed-settings.d.",
    ], "\n".join(_entries(managed.real))  # mp1: the managed false wins; merged key order
    assert [line for line in _entries(managed.view.listing) if line.startswith("- mp")] == (
        plugin_lines
    )
    # skillpath's catalog (claude-plugins provider) loads the same plugins
    t = managed.tree
    env = {
        "HOME": str(t.home),
        "SKILLPATH_CLAUDE_MANAGED_DIR": str(t.base / "etc-upper/claude-code"),
    }
    result = load_skills(t.cwd, home=t.home, env=env, settings=APPROVED)
    mine = sorted(s.name for s in result.skills if s.source.provider == "claude-plugins")
    assert mine == sorted(line[2:].split(": ", 1)[0] for line in plugin_lines)


def test_claude_managed_disabled(managed: Managed) -> None:
    real = _entries(managed.real_off)
    assert not any(line.startswith("- mskill:") for line in real), real
    assert _entries(managed.view_off.listing) == real
