"""Claude Code plugins from a git marketplace (a ``github`` repository or a ``git`` URL),
with the network closed.

``claude plugin marketplace add owner/repo`` clones the marketplace into
``~/.claude/plugins/marketplaces/<name>`` and records it in
``known_marketplaces.json``; the test cannot clone, so it seeds what such a run leaves
behind: the marketplace is added and its plugin installed from a folder, then the
records are rewritten to a git source whose ``installLocation`` is an already-populated
clone (a git repository), and the folder is removed. ``claude`` is then run with ``git``
on its PATH replaced by a wrapper that logs every call and refuses the ones that would
reach a remote (Claude Code's own calls about the project's repository go through), and
``HTTP(S)_PROXY`` pointing at a loopback listener that logs every connection: nothing is
sent beyond the scripted model API on 127.0.0.1.

Observed with Claude Code 2.1.332: the plugin loads without any network attempt (no git
call that reaches a remote or touches the clone, no connection), and from the cache copy
at its ``installPath``, not from the clone (unlike a directory marketplace, read from its
folder). The ``claude-code`` view and skillpath's catalog read the same.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from agentrun import claude_listing, run_agent
from cases import Tree
from fakemodel import FakeModel, fake_model
from skillpath import load_skills
from skillpath.views import view

SOURCES = {
    "github": {"source": "github", "repo": "acme/gitmkt"},
    "git-url": {"source": "git", "url": "https://git.example.invalid/acme/gitmkt.git"},
}
NETWORK = ("clone", "fetch", "pull", "push", "ls-remote")
GIT_WRAPPER = """#!/bin/sh
echo "$PWD :: $*" >> "{log}"
for arg in "$@"; do
  case "$arg" in
    {network}) echo "network closed" >&2; exit 128;;
  esac
done
exec "{git}" "$@"
"""


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _skill(path: Path, description: str) -> None:
    _write(path / "SKILL.md", f"---\ndescription: {description}\n---\nBody.\n")


class _Listener:
    """A loopback TCP listener that records the first line each client sends."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.seen: list[str] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    data = conn.recv(4096)
                except OSError:
                    data = b""
                self.seen.append(data.split(b"\r\n", 1)[0].decode(errors="replace"))

    def close(self) -> None:
        self.sock.close()


@pytest.fixture(scope="module")
def fm() -> Iterator[FakeModel]:
    with fake_model() as server:
        yield server


def _seed(claude: Path, t: Tree, source: dict[str, str]) -> Path:
    """Install ``p1@gitmkt`` and leave the records a git marketplace leaves."""
    market = t.base / "market"
    _write(market / "p1/.claude-plugin/plugin.json", json.dumps({"name": "p1", "version": "1.0.0"}))
    _skill(market / "p1/skills/gs", "Git market skill.")
    _write(
        market / ".claude-plugin/marketplace.json",
        json.dumps(
            {
                "name": "gitmkt",
                "owner": {"name": "test"},
                "plugins": [{"name": "p1", "source": "./p1", "description": "p1"}],
            }
        ),
    )
    env = {
        "HOME": str(t.home),
        "PATH": os.environ.get("PATH", ""),
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    for args in (["plugin", "marketplace", "add", str(market)], ["plugin", "install", "p1@gitmkt"]):
        done = subprocess.run(
            [str(claude), *args], cwd=t.cwd, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stdout + done.stderr
    plugins = t.home / ".claude/plugins"
    clone = plugins / "marketplaces/gitmkt"
    shutil.copytree(market, clone)
    git = ["git", "-C", str(clone), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "marketplace"], check=True)
    shutil.rmtree(market)
    known = json.loads((plugins / "known_marketplaces.json").read_text())
    known["gitmkt"] = {**known["gitmkt"], "source": source, "installLocation": str(clone)}
    _write(plugins / "known_marketplaces.json", json.dumps(known, indent=2))
    settings_file = t.home / ".claude/settings.json"
    settings = json.loads(settings_file.read_text())
    settings["extraKnownMarketplaces"] = {"gitmkt": {"source": source}}
    _write(settings_file, json.dumps(settings, indent=2))
    # the clone and the cache copy part ways: which one does Claude Code read?
    _skill(clone / "p1/skills/cloneonly", "Clone only.")
    cache = plugins / "cache/gitmkt/p1/1.0.0"
    assert (cache / "skills/gs/SKILL.md").is_file()
    _skill(cache / "skills/cacheonly", "Cache only.")
    return clone


@pytest.mark.parametrize("kind", sorted(SOURCES))
def test_a_git_marketplace_loads_from_disk_without_the_network(
    counterpart: Callable[[str], Path], fm: FakeModel, tmp_path: Path, kind: str
) -> None:
    claude = counterpart("claude")
    t = Tree(tmp_path)
    t.home.mkdir(parents=True)
    t.cwd.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(t.repo)], check=True)
    clone = _seed(claude, t, SOURCES[kind])
    wrap = tmp_path / "wrap"
    log = tmp_path / "git.log"
    real_git = shutil.which("git")
    assert real_git is not None
    _write(wrap / "git", GIT_WRAPPER.format(log=log, git=real_git, network="|".join(NETWORK)))
    (wrap / "git").chmod(0o755)
    listener = _Listener()
    proxy = f"http://127.0.0.1:{listener.port}"
    path = os.pathsep.join([str(wrap), str(claude.parent), "/usr/local/bin", "/usr/bin", "/bin"])
    env = {"PATH": path, "HTTPS_PROXY": proxy, "HTTP_PROXY": proxy, "NO_PROXY": "127.0.0.1"}
    try:
        bodies = run_agent("claude", claude, fm, home=t.home, cwd=t.cwd, env=env)
    finally:
        listener.close()
    listing = claude_listing(bodies)
    assert listing is not None
    real = [line for line in listing.split("\n") if line.startswith("- p1:")]
    # no git call to a remote or in the clone, no connection: read from disk alone ...
    calls = log.read_text().splitlines() if log.exists() else []
    assert [c for c in calls if set(c.split(" :: ", 1)[1].split()) & set(NETWORK)] == []
    assert [c for c in calls if str(clone) in c] == []
    assert listener.seen == []
    # ... and from the cache copy, not the clone
    assert real == ["- p1:cacheonly: Cache only.", "- p1:gs: Git market skill."]
    v = view("claude-code", t.cwd, env={"HOME": str(t.home)})
    assert [line for line in v.listing.split("\n") if line.startswith("- p1:")] == real
    settings: dict[str, Any] = {"trust": {"approve": ["plugin:*"]}}
    result = load_skills(t.cwd, home=t.home, env={"HOME": str(t.home)}, settings=settings)
    mine = sorted(s.name for s in result.skills if s.source.provider == "claude-plugins")
    assert mine == ["p1:cacheonly", "p1:gs"]
