"""skillpath and the real ``npx skills`` (pinned in ``testing/npm``) on the same projects:
each reads, lists and updates what the other installed. Sources are a ``git daemon`` on
127.0.0.1 and local folders; nothing leaves the machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from skillpath.cli import main
from skillpath.export import folder_hash

from tests.conftest import Env
from tests.gitserve import Upstream, git_daemon, skill_text

FILES = {
    "skills/alpha/SKILL.md": skill_text("alpha", "Alpha work."),
    "skills/alpha/notes.txt": "notes\n",
    "skills/alpha/Zebra.md": "mixed case names sort as localeCompare sorts them\n",
    "skills/alpha/a_b/c.md": "c\n",
    "skills/beta/SKILL.md": skill_text("beta", "Beta work."),
}


@pytest.fixture
def npx(
    counterpart: Callable[[str], Path], node_path: str, isolated_env: Env
) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run the real ``skills`` command in the project, in the isolated home."""
    command = counterpart("skills")
    env = {
        **os.environ,
        "PATH": node_path,
        "DISABLE_TELEMETRY": "1",
        "DO_NOT_TRACK": "1",
        "NO_COLOR": "1",
        "CI": os.environ.get("CI", ""),
    }

    def run(*args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(command), *args],
            cwd=isolated_env.project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=180,
        )
        if ok:
            assert done.returncode == 0, (done.stdout, done.stderr)
        return done

    return run


@pytest.fixture
def upstream(tmp_path: Path) -> Upstream:
    return Upstream(tmp_path / "upstream", FILES)


@pytest.fixture
def served(upstream: Upstream) -> Iterator[str]:
    with git_daemon(upstream.bare.parent) as base:
        yield f"{base}/pack.git"


def skillpath(env: Env, *args: str, code: int = 0) -> Any:
    done = CliRunner().invoke(main, [*args, "--cwd", str(env.project), "--json"])
    assert done.exit_code == code, (done.output, done.exception)
    return json.loads(done.stdout)


def lock(env: Env) -> Any:
    return json.loads((env.project / "skills-lock.json").read_text())


def npx_list(npx: Callable[..., subprocess.CompletedProcess[str]]) -> dict[str, Any]:
    return {s["name"]: s for s in json.loads(npx("list", "--json").stdout)}


# -- what skillpath wrote, npx skills reads and updates --------------------------------


def test_npx_skills_lists_updates_and_restores_what_skillpath_added(
    isolated_env: Env, served: str, upstream: Upstream, npx: Any
) -> None:
    env = isolated_env
    skillpath(env, "add", served, "--all")
    listed = npx_list(npx)
    assert sorted(listed) == ["alpha", "beta"]
    assert listed["alpha"]["path"] == str(env.project / ".agents/skills/alpha")
    assert "Claude Code" in listed["alpha"]["agents"]

    upstream.commit({"skills/alpha/notes.txt": "newer notes\n"})
    done = npx("update", "-y")
    assert "Failed" not in done.stdout
    assert "Updated alpha" in done.stdout
    canonical = env.project / ".agents/skills/alpha"
    assert (canonical / "notes.txt").read_text() == "newer notes\n"
    # npx skills' own hash of what it installed is the one skillpath computes
    assert lock(env)["skills"]["alpha"]["computedHash"] == folder_hash(canonical)
    # and skillpath still knows it for its own: the refreshed copy matches the lock
    assert {c["action"] for c in skillpath(env, "update")["changes"]} == {"unchanged"}
    # skillpath removes it (with a link npx skills made to it), npx skills agrees
    removed = skillpath(env, "remove", "alpha")
    assert {c["action"] for c in removed["changes"]} == {"remove"}
    assert not (env.project / ".claude/skills/alpha").is_symlink()
    assert not (env.project / ".claude/skills/alpha").exists()
    assert sorted(npx_list(npx)) == ["beta"]
    assert sorted(lock(env)["skills"]) == ["beta"]
    skillpath(env, "add", served, "--skill", "alpha")

    # a fresh clone of the project: restore from the lock alone
    for rel in (".agents", ".claude"):
        subprocess.run(["rm", "-rf", str(env.project / rel)], check=True)
    restored = npx("experimental_install")
    assert "Failed" not in restored.stdout + restored.stderr
    assert (canonical / "Zebra.md").is_file()
    assert (env.project / ".agents/skills/beta/SKILL.md").is_file()
    # npx skills removes what skillpath added; skillpath forgets it without complaint
    npx("remove", "beta", "-y")
    assert not (env.project / ".agents/skills/beta").exists()
    assert sorted(lock(env)["skills"]) == ["alpha", "beta"]  # npx skills leaves the entry
    gone = skillpath(env, "remove", "beta")
    assert {c["action"] for c in gone["changes"]} == {"missing"}
    assert sorted(lock(env)["skills"]) == ["alpha"]  # the stale entry skillpath wrote


def test_the_hash_is_the_one_npx_skills_computes(
    isolated_env: Env, upstream: Upstream, npx: Any
) -> None:
    npx("add", str(upstream.work / "skills" / "alpha"), "-y", "--agent", "codex")
    entry = lock(isolated_env)["skills"]["alpha"]
    assert entry["computedHash"] == folder_hash(upstream.work / "skills" / "alpha")


# -- what npx skills wrote, skillpath reads and updates --------------------------------


def test_skillpath_lists_checks_and_updates_what_npx_skills_added(
    isolated_env: Env, served: str, upstream: Upstream, npx: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = isolated_env
    monkeypatch.setenv("SKILLPATH_PACKS", "no-such-pack")  # the workspace's example pack stays out
    npx("add", str(upstream.work), "-y", "--skill", "alpha", "--agent", "claude-code", "codex")
    npx("add", served, "-y", "--skill", "beta", "--agent", "claude-code", "codex")
    listed = {s["name"]: s for s in skillpath(env, "list")["skills"]}
    assert listed["alpha"]["origin"]["kind"] == "npx-skills"
    assert listed["alpha"]["origin"]["source"] == str(upstream.work)
    assert listed["beta"]["origin"]["detail"]["source_type"] == "git"
    check = CliRunner().invoke(
        main, ["export", "--to", "claude", "--check", "--cwd", str(env.project)]
    )
    assert check.exit_code == 0, check.output
    assert "in sync" in check.stdout
    assert {c["action"] for c in skillpath(env, "update")["changes"]} == {"unchanged"}

    upstream.commit({"skills/alpha/notes.txt": "n2\n", "skills/beta/extra.md": "more\n"})
    done = skillpath(env, "update")
    replaced = {(c["name"], tuple(c["files"])) for c in done["changes"] if c["action"] == "replace"}
    assert replaced == {("alpha", ("~ notes.txt",)), ("beta", ("+ extra.md",))}
    assert (env.project / ".agents/skills/alpha/notes.txt").read_text() == "n2\n"
    # the links npx skills made still point at the refreshed copies
    assert (env.project / ".claude/skills/beta/extra.md").read_text() == "more\n"
    for name in ("alpha", "beta"):
        assert lock(env)["skills"][name]["computedHash"] == folder_hash(
            env.project / ".agents/skills" / name
        )
    # npx skills agrees: nothing left to update, the list is intact
    assert sorted(npx_list(npx)) == ["alpha", "beta"]
    assert "Failed" not in npx("update", "-y").stdout
    # skillpath did not write these: remove leaves them alone
    kept = skillpath(env, "remove", "alpha")
    assert {c["action"] for c in kept["changes"]} == {"keep"}
    assert (env.project / ".agents/skills/alpha/SKILL.md").is_file()


# -- export's entries for package skills stay out of npx skills' way -------------------


def _site(tmp_path: Path) -> Path:
    from tests.export.test_export import install, library_wheel

    site = tmp_path / "site"
    install(site, library_wheel(tmp_path / "wheels", "3.1"))
    return site


def _export(env: Env, site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    from tests.export.test_export import run

    return run(env, site, "export", *args)


LEGACY = {
    "version": 1,
    "skills": {
        "webkit": {
            "source": "webkit-lib",
            "sourceType": "python-package",
            "ref": "3.1",
            "computedHash": "0" * 64,
            "skillpath": {
                "provider": "libraries",
                "targets": {"claude": {"path": ".claude/skills/webkit", "mode": "copy"}},
            },
        }
    },
}


def test_package_skills_exported_do_not_break_npx_skills(
    isolated_env: Env, tmp_path: Path, served: str, npx: Any
) -> None:
    from tests.export.test_export import approve_library

    env = isolated_env
    approve_library(env)  # a library's skills are third party: quarantined until approved
    site = _site(tmp_path)
    # what an earlier export wrote: npx skills chokes on it
    (env.project / "skills-lock.json").write_text(json.dumps(LEGACY))
    broken = npx("experimental_install", ok=False)
    assert "Failed to clone webkit-lib#3.1" in broken.stdout + broken.stderr
    # the next export moves its entries into its own lock; a skill added from git stays
    skillpath(env, "add", served, "--skill", "beta")
    done = _export(env, site, "--to", "claude")
    assert done.returncode == 0, done.stderr
    shared = lock(env)["skills"]
    assert sorted(shared) == ["beta"]
    own = json.loads((env.project / ".skillpath/export-lock.json").read_text())
    assert own["skills"]["webkit"]["sourceType"] == "python-package"
    assert "webkit" in own["skills"]["webkit"]["skillpath"]["targets"]["claude"]["path"]
    assert _export(env, site, "--to", "claude", "--check").returncode == 0
    for args in (("update", "-y"), ("experimental_install",), ("list",)):
        out = npx(*args)
        assert "Failed" not in out.stdout + out.stderr, args
        assert "webkit-lib" not in out.stdout, args
    assert sys.executable  # the export ran with this interpreter


def test_npx_skills_reads_and_updates_the_global_lock_skillpath_wrote(
    isolated_env: Env, served: str, upstream: Upstream, npx: Any
) -> None:
    env = isolated_env
    skillpath(env, "add", served, "--skill", "alpha", "--user")
    listed = {s["name"]: s for s in json.loads(npx("list", "-g", "--json").stdout)}
    assert sorted(listed) == ["alpha"]
    upstream.commit({"skills/alpha/notes.txt": "global notes\n"})
    done = npx("update", "-g", "-y")
    assert "Failed" not in done.stdout
    assert "Updated alpha" in done.stdout
    assert (env.home / ".agents/skills/alpha/notes.txt").read_text() == "global notes\n"


def test_skillpath_add_takes_over_an_untouched_npx_skills_install(
    isolated_env: Env, upstream: Upstream, npx: Any
) -> None:
    env = isolated_env
    source = str(upstream.work / "skills" / "alpha")
    npx("add", source, "-y", "--agent", "claude-code", "codex")
    assert (env.project / ".claude/skills/alpha").is_symlink()
    report = skillpath(env, "add", source)
    assert {c["action"] for c in report["changes"]} == {"replace"}
    assert not (env.project / ".claude/skills/alpha").is_symlink()  # now skillpath's copy
    removed = skillpath(env, "remove", "alpha")
    assert {c["action"] for c in removed["changes"]} == {"remove"}
    assert npx_list(npx) == {}
    assert lock(env)["skills"] == {}
