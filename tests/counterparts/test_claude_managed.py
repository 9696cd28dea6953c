"""Claude Code's managed skills (``/etc/claude-code/.claude/skills``): the real ``claude``
against the ``claude-code`` view.

The pinned Claude Code reads the managed folder from a fixed path (``/etc/claude-code`` on
Linux; no environment variable or setting moves it), so the test never writes ``/etc``:
``claude`` runs in a private mount namespace (``unshare -m``) whose ``/etc`` is an overlay
of the real one with a temporary upper folder that holds ``claude-code/.claude/...``. The
overlay is gone when ``claude`` exits; the machine's ``/etc`` is only read. The view reads
the same upper folder through ``SKILLPATH_CLAUDE_MANAGED_DIR``. Where mount namespaces
are not available (not root, no overlayfs) the test is skipped.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from agentrun import claude_listing, run_agent
from cases import Tree
from fakemodel import FakeModel, fake_model
from skillpath.views import AgentView, view

CLAUDE_OWN = ("plugin-authoring",)

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
PROJECT = {
    ".claude/skills/pclash/SKILL.md": "---\ndescription: The project's pclash.\n---\nP.\n",
    ".claude/skills/projskill/SKILL.md": "---\ndescription: Project skill.\n---\nP.\n",
}


def _write_all(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


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


def test_claude_managed_disabled(managed: Managed) -> None:
    real = _entries(managed.real_off)
    assert not any(line.startswith("- mskill:") for line in real), real
    assert _entries(managed.view_off.listing) == real
