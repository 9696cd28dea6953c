"""``skillpath export``: skills from installed packages reach other agents' folders, with a lock.

The end-to-end tests install real wheels (built here, installed by ``uv pip install
--target``) and run the ``skillpath`` command line in a subprocess, as a user would.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from skillpath import load_skills, make_context
from skillpath.export import check_export, export_skills, files_hash, folder_hash

from ..conftest import Env

UV = Path(sys.executable).with_name("uv")


# -- helpers -------------------------------------------------------------------------


def wheel(
    out: Path,
    dist: str,
    version: str,
    files: Mapping[str, str],
    entry_points: str = "",
) -> Path:
    """A real wheel file (METADATA, WHEEL, RECORD with hashes, entry points)."""
    norm = dist.replace("-", "_")
    info = f"{norm}-{version}.dist-info"
    contents = dict(files)
    contents[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n"
    contents[f"{info}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: skillpath-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    if entry_points:
        contents[f"{info}/entry_points.txt"] = entry_points
    record = []
    for rel, text in contents.items():
        data = text.encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{rel},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    contents[f"{info}/RECORD"] = "\n".join(record) + "\n"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{norm}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for rel, text in contents.items():
            zf.writestr(rel, text)
    return path


def skill_text(description: str, body: str = "Use it.\n", **fields: str) -> str:
    extra = "".join(f"{k}: {v}\n" for k, v in fields.items())
    return f"---\ndescription: {description}\n{extra}---\n{body}"


def pack_wheel(out: Path, version: str, review: str = "Review code the ACME way.") -> Path:
    return wheel(
        out,
        "team-pack",
        version,
        {
            "team_pack/__init__.py": "",
            "team_pack/skills/__init__.py": "",
            "team_pack/skills/team-review/SKILL.md": skill_text(
                review, "Run `python3 ${SKILL_DIR}/scripts/check.py`.\n"
            ),
            "team_pack/skills/team-review/scripts/check.py": "#!/usr/bin/env python3\nprint(1)\n",
        },
        "[skillpath.packs]\nteam = team_pack.skills\n",
    )


def library_wheel(out: Path, version: str, text: str = "Use webkit well.") -> Path:
    return wheel(
        out,
        "webkit-lib",
        version,
        {
            "webkit/__init__.py": "",
            "webkit/.agents/skills/webkit/SKILL.md": skill_text(text),
            "webkit/.agents/skills/webkit/references/api.md": "# API\n",
        },
    )


def install(target: Path, *wheels: Path) -> None:
    done = subprocess.run(
        [
            str(UV),
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--target",
            str(target),
            "--upgrade",
            "--python",
            sys.executable,
            *map(str, wheels),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "UV_OFFLINE": "1"},
    )
    assert done.returncode == 0, done.stderr


def run(env: Env, site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environ = dict(
        env.env,
        PYTHONPATH=str(site),
        SKILLPATH_LIBRARIES=str(site),
        SKILLPATH_NO_INDEX="1",
        SKILLPATH_CACHE_DIR=str(env.home / "cache"),
        SKILLPATH_PACKS="team",  # only the pack built here (not the workspace's example)
    )
    return subprocess.run(
        [sys.executable, "-m", "skillpath", *args],
        cwd=env.project,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )


def npx_hash(folder: Path) -> str:
    """``computedHash`` exactly as npx skills computes it (independent re-implementation)."""
    files = []
    for dirpath, dirnames, names in os.walk(folder):
        dirnames[:] = [d for d in dirnames if d not in (".git", "node_modules")]
        for name in names:
            full = Path(dirpath) / name
            files.append((full.relative_to(folder).as_posix(), full.read_bytes()))
    h = hashlib.sha256()
    # JavaScript's localeCompare order: case-insensitive first, lowercase before uppercase
    for rel, data in sorted(files, key=lambda f: (f[0].lower(), f[0].swapcase())):
        h.update(rel.encode())
        h.update(data)
    return h.hexdigest()


@pytest.fixture
def site(isolated_env: Env, tmp_path: Path) -> Path:
    """Real wheels of a pack and of a library with ``.agents/skills``, installed."""
    target = tmp_path / "site"
    install(
        target, pack_wheel(tmp_path / "wheels", "1.0"), library_wheel(tmp_path / "wheels", "3.1")
    )
    approve_library(isolated_env)
    return target


def approve_library(env: Env) -> None:
    """A library's skills are quarantined until approved (skillpath.trust): the user's
    config approves the test library's, as these tests are about what export writes."""
    config = env.home / ".skillpath" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[trust]\napprove = ["library:webkit-lib"]\n')


def test_a_quarantined_library_skill_is_not_exported(isolated_env: Env, site: Path) -> None:
    (isolated_env.home / ".skillpath" / "config.toml").unlink()
    done = run(isolated_env, site, "export", "--to", "claude")
    assert done.returncode == 0, done.stderr
    claude = isolated_env.project / ".claude" / "skills"
    assert sorted(p.name for p in claude.iterdir()) == ["team-review"]


# -- end to end ------------------------------------------------------------------------


def test_pack_and_library_reach_claude_and_agents_with_a_lock(
    isolated_env: Env, site: Path
) -> None:
    env = isolated_env
    for agent in ("claude", "agents"):
        done = run(env, site, "export", "--to", agent)
        assert done.returncode == 0, done.stderr
    claude = env.project / ".claude" / "skills"
    agents = env.project / ".agents" / "skills"
    assert sorted(p.name for p in claude.iterdir()) == ["team-review", "webkit"]
    assert sorted(p.name for p in agents.iterdir()) == ["team-review", "webkit"]
    review = (claude / "team-review" / "SKILL.md").read_text()
    assert "${CLAUDE_SKILL_DIR}/scripts/check.py" in review
    assert (
        ".agents/skills/team-review/scripts/check.py"
        in (agents / "team-review" / "SKILL.md").read_text()
    )
    assert os.access(claude / "team-review" / "scripts" / "check.py", os.X_OK)
    assert (claude / "webkit" / "references" / "api.md").read_text() == "# API\n"
    lock = json.loads((env.project / ".skillpath" / "export-lock.json").read_text())
    assert lock["version"] == 1
    team = lock["skills"]["team-review"]
    assert (team["source"], team["sourceType"], team["ref"]) == (
        "team-pack",
        "python-package",
        "1.0",
    )
    # computedHash is the .agents/skills copy's, as npx skills computes it; each
    # agent's copy has its own hash in skillpath's record
    assert team["computedHash"] == npx_hash(agents / "team-review")
    assert team["skillpath"]["targets"]["claude"]["hash"] == npx_hash(claude / "team-review")
    assert team["skillpath"]["provider"] == "packs"
    assert set(team["skillpath"]["targets"]) == {"claude", "agents"}
    assert lock["skills"]["webkit"]["ref"] == "3.1"
    # the exported copies now load as Claude Code's own project skills
    listed = run(env, site, "list", "--json", "--provider", "claude")
    names = {s["name"] for s in json.loads(listed.stdout)["skills"]}
    shadow = {s["name"] for s in json.loads(run(env, site, "list", "--json").stdout)["shadowed"]}
    assert {"team-review", "webkit"} <= names | shadow
    # and --check is happy
    checked = run(env, site, "export", "--to", "claude", "--check")
    assert checked.returncode == 0, checked.stdout


def test_an_edited_copy_and_an_upgraded_package_each_fail_check(
    isolated_env: Env, site: Path, tmp_path: Path
) -> None:
    env = isolated_env
    assert run(env, site, "export", "--to", "claude").returncode == 0
    copy = env.project / ".claude" / "skills" / "webkit" / "SKILL.md"
    original = copy.read_text()
    copy.write_text(original + "\nedited by hand\n")
    done = run(env, site, "export", "--to", "claude", "--check", "--json")
    assert done.returncode == 1
    drift = json.loads(done.stdout)["drift"]
    assert [(d["name"], d["kind"]) for d in drift] == [("webkit", "copy-edited")]
    copy.write_text(original)
    checked = run(env, site, "export", "--to", "claude", "--check")
    assert checked.returncode == 0, checked.stdout
    install(site, pack_wheel(tmp_path / "wheels2", "2.0", review="Review code, version two."))
    done = run(env, site, "export", "--to", "claude", "--check", "--json")
    assert done.returncode == 1
    (item,) = json.loads(done.stdout)["drift"]
    assert (item["name"], item["kind"]) == ("team-review", "source-changed")
    assert "1.0 -> 2.0" in item["detail"]
    # exporting again brings the copy up to date; the lock follows
    assert run(env, site, "export", "--to", "claude").returncode == 0
    checked = run(env, site, "export", "--to", "claude", "--check")
    assert checked.returncode == 0, checked.stdout
    lock = json.loads((env.project / ".skillpath" / "export-lock.json").read_text())
    assert lock["skills"]["team-review"]["ref"] == "2.0"


def test_prune_removes_exactly_what_it_should(isolated_env: Env, site: Path) -> None:
    env = isolated_env
    claude = env.project / ".claude" / "skills"
    mine = claude / "handwritten"
    mine.mkdir(parents=True)
    (mine / "SKILL.md").write_text(skill_text("The user's own."))
    shared = env.project / "skills-lock.json"
    foreign = {"source": "someone/else", "sourceType": "github", "computedHash": "abc"}
    shared.write_text(json.dumps({"version": 1, "skills": {"other-tool": foreign}}))
    before = shared.read_bytes()
    lock_path = env.project / ".skillpath" / "export-lock.json"
    assert run(env, site, "export", "--to", "claude").returncode == 0
    done = run(env, site, "export", "--to", "claude", "--select", "team-*", "--prune", "--json")
    assert done.returncode == 0, done.stderr
    actions = {(a["name"], a["action"]) for a in json.loads(done.stdout)["actions"]}
    assert actions == {("team-review", "unchanged"), ("webkit", "prune")}
    assert sorted(p.name for p in claude.iterdir()) == ["handwritten", "team-review"]
    lock = json.loads(lock_path.read_text())
    assert sorted(lock["skills"]) == ["team-review"]
    assert shared.read_bytes() == before  # the shared lock is never touched


def test_a_folder_skillpath_did_not_write_is_never_overwritten(
    isolated_env: Env, site: Path
) -> None:
    env = isolated_env
    theirs = env.project / ".claude" / "skills" / "webkit"
    theirs.mkdir(parents=True)
    (theirs / "SKILL.md").write_text(skill_text("Somebody else's webkit."))
    done = run(env, site, "export", "--to", "claude", "--json")
    assert done.returncode == 1
    data = json.loads(done.stdout)
    clash = next(a for a in data["actions"] if a["name"] == "webkit")
    assert clash["action"] == "clash"
    assert str(theirs) in clash["detail"] and "libraries" in clash["detail"]
    assert "Somebody else's webkit." in (theirs / "SKILL.md").read_text()
    assert (env.project / ".claude" / "skills" / "team-review" / "SKILL.md").is_file()


def test_dry_run_changes_nothing(isolated_env: Env, site: Path) -> None:
    env = isolated_env
    done = run(env, site, "export", "--to", "agents", "--dry-run")
    assert done.returncode == 0
    assert "would write" in done.stdout
    assert not (env.project / ".agents").exists()
    assert not (env.project / "skills-lock.json").exists()
    assert not (env.project / ".skillpath" / "export-lock.json").exists()


def test_two_concurrent_exports_leave_a_consistent_tree(isolated_env: Env, site: Path) -> None:
    env = isolated_env
    environ = dict(
        env.env,
        PYTHONPATH=str(site),
        SKILLPATH_LIBRARIES=str(site),
        SKILLPATH_NO_INDEX="1",
        SKILLPATH_CACHE_DIR=str(env.home / "cache"),
        SKILLPATH_PACKS="team",
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "skillpath", "export", "--to", agent],
            cwd=env.project,
            env=environ,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for agent in ("claude", "agents", "claude", "agents")
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], [e for _o, e in outs]
    lock = json.loads((env.project / ".skillpath" / "export-lock.json").read_text())
    for name in ("team-review", "webkit"):
        assert set(lock["skills"][name]["skillpath"]["targets"]) == {"claude", "agents"}
        for folder in (".claude/skills", ".agents/skills"):
            assert (env.project / folder / name / "SKILL.md").is_file()
    assert lock["skills"]["webkit"]["computedHash"] == npx_hash(
        env.project / ".agents" / "skills" / "webkit"
    )
    leftovers = [
        p for p in (env.project / ".claude" / "skills").iterdir() if p.name.startswith(".")
    ]
    assert leftovers == []
    for agent in ("claude", "agents"):
        assert run(env, site, "export", "--to", agent, "--check").returncode == 0


def test_provenance_of_exported_and_packaged_skills(isolated_env: Env, site: Path) -> None:
    env = isolated_env
    assert run(env, site, "export", "--to", "claude").returncode == 0
    # the exported copy is what loads now (a project's own folder wins over a package)
    shown = json.loads(run(env, site, "show", "--json", "team-review").stdout)
    assert shown["provider"] == "claude"
    assert shown["origin"]["kind"] == "skillpath-export"
    assert (shown["origin"]["source"], shown["origin"]["ref"]) == ("team-pack", "1.0")
    assert shown["origin"]["drift"] == "none"
    doctor = json.loads(run(env, site, "doctor", "--json").stdout)
    kinds = {(o["name"], o["kind"]) for o in doctor["origins"]}
    assert ("team-review", "skillpath-export") in kinds
    assert ("webkit", "python-package") in kinds
    copy = env.project / ".claude" / "skills" / "webkit" / "SKILL.md"
    copy.write_text(copy.read_text() + "\nedited\n")
    doctor = json.loads(run(env, site, "doctor", "--json").stdout)
    assert any(d["code"] == "lock-hash-mismatch" for d in doctor["diagnostics"])


# -- in-process details ------------------------------------------------------------------


def _custom_world(env: Env, body: str = "Run ${SKILL_DIR}/go.sh\n!`date`\n") -> tuple[Any, Any]:
    root = env.project / "tools" / "skills"
    env.skill(root, "deploy", "Deploy the service.", body=body)
    (root / "deploy" / "go.sh").write_text("#!/bin/sh\necho go\n")
    config = env.project / ".skillpath" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[skills]\ncustom_directories = ["tools/skills"]\n')  # level project
    ctx, _ = make_context(env.project, env=env.env)
    result = load_skills(ctx=ctx)
    return ctx, result


def test_custom_directory_export_and_spelling(isolated_env: Env) -> None:
    ctx, result = _custom_world(isolated_env)
    report = export_skills(result.skills, ctx, to="codex", providers=["custom"])
    assert [(a.name, a.action) for a in report.actions] == [("deploy", "write")]
    text = (isolated_env.project / ".codex" / "skills" / "deploy" / "SKILL.md").read_text()
    assert "Run .codex/skills/deploy/go.sh" in text
    # a project custom directory's skill may not run inline shell: neutralised, with a warning
    assert "[shell command execution disabled by policy]" in text
    assert any(d.code == "export-shell-neutralised" for d in report.diagnostics)
    folder = isolated_env.project / ".codex" / "skills" / "deploy"
    assert folder_hash(folder) == npx_hash(folder)
    assert check_export(result.skills, ctx, to="codex", providers=["custom"]).ok


def test_link_mode_links_on_disk_skills(isolated_env: Env) -> None:
    # a skill whose copy needs no neutralising (no inline shell, no powers) is linked
    ctx, result = _custom_world(isolated_env, body="Run ${SKILL_DIR}/go.sh\n")
    report = export_skills(result.skills, ctx, to="claude", link=True, providers=["custom"])
    link = isolated_env.project / ".claude" / "skills" / "deploy"
    assert link.is_symlink()
    assert link.resolve() == (isolated_env.project / "tools" / "skills" / "deploy").resolve()
    assert report.actions[0].detail == "link"
    assert check_export(result.skills, ctx, to="claude", providers=["custom"]).ok
    again = export_skills(result.skills, ctx, to="claude", link=True, providers=["custom"])
    assert [a.action for a in again.actions] == ["unchanged"]


def test_user_scope_keeps_its_lock_in_the_skillpath_home(isolated_env: Env) -> None:
    ctx, result = _custom_world(isolated_env)
    report = export_skills(result.skills, ctx, to="agents", user=True, providers=["custom"])
    assert report.folder == isolated_env.home / ".agents" / "skills"
    assert report.lock == isolated_env.home / ".skillpath" / "export-lock.json"
    lock = json.loads(report.lock.read_text())
    assert lock["skills"]["deploy"]["skillpath"]["targets"]["agents"]["path"] == str(
        report.folder / "deploy"
    )
    assert not (isolated_env.project / "skills-lock.json").exists()


def test_files_hash_matches_the_npx_algorithm() -> None:
    files = {"b.txt": b"B", "SKILL.md": b"x", "a/c.md": b"c"}
    h = hashlib.sha256()
    # the order of JavaScript's localeCompare (node sorts them so), not code points
    for rel in ["a/c.md", "b.txt", "SKILL.md"]:
        h.update(rel.encode())
        h.update(files[rel])
    assert files_hash(files) == h.hexdigest()


def test_export_to_a_claude_plugin(isolated_env: Env, site: Path, tmp_path: Path) -> None:
    dest = tmp_path / "plugin"
    done = run(isolated_env, site, "export", "--to", "claude-plugin", str(dest), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["skills"] == ["team-review", "webkit"]
    assert json.loads((dest / ".claude-plugin" / "plugin.json").read_text())["name"] == "skillpath"
    assert (dest / "skills" / "webkit" / "references" / "api.md").is_file()
    shutil.rmtree(dest / "skills" / "webkit")
    again = json.loads(
        run(isolated_env, site, "export", "--to", "claude-plugin", str(dest), "--json").stdout
    )
    assert again["written"] == ["webkit"]
