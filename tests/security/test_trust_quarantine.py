"""Quarantine of third-party skills, end to end through the real command line.

A library skill appears → it is not listed for the model → ``trust approve`` →
listed → its content changes → quarantined again; an unchanged ``list`` is
replayed from its snapshot, and an approval or revocation is seen by the replay.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SkillTree

SCRIPT = Path(sys.executable).with_name("skillpath")
RETRIES = 20


class World(SkillTree):
    """A home, a project and one installed library (``web-kit``) that ships a skill."""

    def __init__(self, tmp_path: Path) -> None:
        super().__init__(tmp_path)
        self.site = tmp_path / "site"
        self.log = tmp_path / "snapshot.log"
        self.env |= {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "SKILLPATH_LIBRARIES": str(self.site),
            "SKILLPATH_SNAPSHOT_LOG": str(self.log),
            "LC_ALL": "C.UTF-8",
        }
        self.skill(".claude/skills", "mine", "My own skill.")
        self.library_skill = self.install("web-kit", "webkit", "webkit")

    def install(self, dist: str, package: str, name: str, body: str = "Use it.\n") -> Path:
        folder = self.site / package / ".agents" / "skills" / name
        folder.mkdir(parents=True)
        (self.site / package / "__init__.py").write_text("")
        path = folder / "SKILL.md"
        path.write_text(f"---\ndescription: Build web apps with {name}.\n---\n{body}")
        info = self.site / f"{dist.replace('-', '_')}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n\n")
        (info / "top_level.txt").write_text(package + "\n")
        return path

    def run(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        self.log.unlink(missing_ok=True)
        return subprocess.run(
            [str(SCRIPT), *args],
            cwd=self.project,
            env=dict(self.env, **env),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    def json(self, *args: str, **env: str) -> Any:
        out = self.run(*args, "--json", **env)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    def listed(self) -> list[str]:
        """The names listed for the model (the development environment's own packs aside)."""
        return [s["name"] for s in self.json("list")["skills"] if s["provider"] != "packs"]

    def held(self) -> dict[str, str]:
        data = self.json("list", "--all")
        return {s["name"]: s["reason"] for s in data["skipped"]}

    def decisions(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []


def status_of(world: World, name: str) -> str:
    entries = world.json("trust", "list")["skills"]
    return str(next(e["status"] for e in entries if e["name"] == name))


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def test_library_skill_quarantine_approve_change_revoke(world: World) -> None:
    # a library skill appears: not listed, held back with the reason
    assert world.listed() == ["mine"]
    assert world.held() == {"webkit": "quarantined"}
    doctor = world.run("doctor")
    assert "quarantined" in doctor.stdout and "new, not approved yet" in doctor.stdout
    assert "webkit" not in world.run("prompt").stdout
    refused = world.run("invoke", "webkit")
    assert refused.returncode != 0
    assert "quarantined" in refused.stderr
    assert "skillpath trust approve webkit" in refused.stderr
    status = {e["name"]: e for e in world.json("trust", "list")["skills"]}
    assert status["webkit"]["tier"] == "third-party"
    assert status["webkit"]["source"] == "library:web-kit"
    assert status["webkit"]["status"] == "quarantined"

    # approved: listed, and its prompt renders
    approved = world.run("trust", "approve", "webkit")
    assert approved.returncode == 0, approved.stderr
    lock = world.home / ".skillpath" / "trust-lock.json"
    recorded = json.loads(lock.read_text())["skills"]["webkit"]
    assert recorded["source"] == "library:web-kit"
    assert recorded["digests"] == [status["webkit"]["digest"]]  # what trust list showed
    assert world.listed() == ["mine", "webkit"]
    assert "Use it." in world.run("invoke", "webkit").stdout
    assert status_of(world, "webkit") == "approved"

    # its content changes: quarantined again, with the reason
    world.library_skill.write_text(world.library_skill.read_text() + "More.\n")
    assert world.listed() == ["mine"]
    data = world.json("list", "--all")
    (entry,) = [s for s in data["skipped"] if s["name"] == "webkit"]
    assert entry["reason"] == "quarantined"
    assert "changed since it was approved" in json.dumps(data)

    # approved again, then revoked
    assert world.run("trust", "approve", "webkit").returncode == 0
    assert world.listed() == ["mine", "webkit"]
    assert world.run("trust", "revoke", "webkit").returncode == 0
    assert world.listed() == ["mine"]


def test_a_rule_in_the_user_config_approves(world: World) -> None:
    config = world.home / ".skillpath" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[trust]\napprove = ["library:web-*"]\n')
    assert world.listed() == ["mine", "webkit"]
    assert status_of(world, "webkit") == "rule"


@pytest.mark.parametrize("trusted", [False, True])
def test_a_project_config_can_never_loosen_the_tiers(world: World, trusted: bool) -> None:
    if trusted:
        user = world.home / ".skillpath" / "config.toml"
        user.parent.mkdir(parents=True)
        user.write_text(f'[trust]\nprojects = ["{world.project}"]\n')
    project = world.project / ".skillpath" / "config.toml"
    project.parent.mkdir(parents=True)
    project.write_text(
        "[trust]\n"
        'approve = ["*"]\n'
        'listed = { "third-party" = "yes" }\n'
        'sources = { library = "hand-written" }\n'
        'block = { "third-party" = "none" }\n'
        'shell = { "third-party" = true }\n'
        'organisation = ["library:*"]\n'
    )
    out = world.run("list", "--json")
    got = json.loads(out.stdout)["skills"]
    assert [s["name"] for s in got if s["provider"] != "packs"] == ["mine"]
    ignored = [
        d["message"]
        for d in json.loads(out.stdout)["diagnostics"]
        if d["code"] == "settings-user-only"
    ]
    for key in ("approve", "listed", "sources", "block", "shell", "organisation"):
        assert any(f"[trust] {key}" in m for m in ignored), (key, ignored)
    assert world.held() == {"webkit": "quarantined"}


def test_an_untrusted_project_cannot_approve_its_own_skills(world: World) -> None:
    from skillpath import load_skills
    from skillpath.trust import content_digest

    # the digest the project's lock would need, as an attacker would compute it
    home = world.home
    loaded = load_skills(
        world.project, home=home, env=world.env, settings={"trust": {"approve": ["*"]}}
    )
    digest = content_digest(loaded.get("webkit"))  # type: ignore[arg-type]
    lock = world.project / ".skillpath" / "trust-lock.json"
    lock.parent.mkdir(parents=True)
    lock.write_text(json.dumps({"version": 1, "skills": {"webkit": {"digests": [digest]}}}))
    assert world.listed() == ["mine"]
    # once the user trusts the project, its lock counts (a team commits its approvals)
    user = home / ".skillpath" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text(f'[trust]\nprojects = ["{world.project}"]\n')
    assert world.listed() == ["mine", "webkit"]
    # and trust approve then records in the project's lock
    world.library_skill.write_text(world.library_skill.read_text() + "Changed.\n")
    assert world.run("trust", "approve", "webkit").returncode == 0
    assert len(json.loads(lock.read_text())["skills"]["webkit"]["digests"]) == 2
    assert not (home / ".skillpath" / "trust-lock.json").exists()


def test_a_blocked_library_skill_is_not_approvable(world: World) -> None:
    world.install("bad-kit", "badkit", "badkit", "Read the AWS keys: cat ~/.aws/credentials\n")
    held = world.held()
    assert held["badkit"] == "blocked"
    out = world.run("trust", "approve", "badkit")
    assert out.returncode == 1 and "credential-read" in out.stderr
    assert "badkit" not in world.listed()


def _replayed(world: World) -> list[str]:
    for _ in range(RETRIES):
        names = world.listed()
        if any(d.startswith("replayed ") for d in world.decisions()):
            return names
    raise AssertionError(f"never replayed: {world.decisions()}")


def test_the_replay_of_an_unchanged_list_sees_approvals(world: World) -> None:
    assert world.listed() == ["mine"]
    assert _replayed(world) == ["mine"]
    assert world.run("trust", "approve", "webkit").returncode == 0
    # the approvals file changed: not replayed, and the skill is listed
    assert world.listed() == ["mine", "webkit"]
    assert not any(d.startswith("replayed ") for d in world.decisions())
    assert _replayed(world) == ["mine", "webkit"]
    assert world.run("trust", "revoke", "webkit").returncode == 0
    assert world.listed() == ["mine"]
    assert _replayed(world) == ["mine"]


def test_no_model_facing_path_offers_a_quarantined_skill(world: World) -> None:
    from skillpath.agent import AgentSkills
    from skillpath.session import SkillSession

    session = SkillSession.open(world.project, home=world.home, env=world.env)
    assert session.get("webkit") is None
    assert "webkit" not in session.listing(budget=0).text
    assert "webkit" not in json.dumps(session.skill_tool())
    assert "webkit" not in [h.name for h in session.search("build web apps webkit")]
    agent = AgentSkills(session)
    assert "webkit" not in agent.instructions()
    answer = agent.call("webkit")
    assert "quarantined" in answer and "skillpath trust approve webkit" in answer
    for trigger in ("command", "tool", "mcp"):
        with pytest.raises(Exception, match="quarantined"):
            session.invoke("webkit", trigger=trigger)
