"""``export`` against hostile locks, links and files: nothing outside what it wrote is touched.

Each test performs the attack first, as a cloned repository (or another local
user) would set it up, then runs the real command line in a subprocess and
checks that the victim is intact and that a diagnostic names the path and the
reason. A lock is a claim, not proof: only the user's own ownership records
(:mod:`skillpath.written`) let ``export`` replace or ``--prune`` delete a folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import stat
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from skillpath import make_context
from skillpath import written as ownership
from skillpath.export import folder_hash
from skillpath.safety import (
    MAX_JSON_DEPTH,
    JSONLimitError,
    destination_problem,
    json_depth,
    loads_bounded,
    read_json_bounded,
)

from ..conftest import Env

LIMIT = 60
ADDRESS_SPACE = 2 * 1024**3
DEEP = b"[" * 100_000 + b"]" * 100_000


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def _cli(env: Env, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI in the project, stdin a silent open pipe, memory capped; never hangs."""
    environ = dict(env.env, SKILLPATH_NO_INDEX="1", SKILLPATH_CACHE_DIR=str(env.home / "cache"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "skillpath", *args],
        cwd=env.project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environ,
        preexec_fn=_limit_memory,
    )
    try:
        out, err = proc.communicate(timeout=LIMIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert "Traceback" not in err, err[-3000:]
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def _world(env: Env) -> Path:
    """A project whose config names ``tools/skills`` (one skill, ``deploy``): what
    ``export`` exports by default (provider ``custom``)."""
    root = env.project / "tools" / "skills"
    env.skill(root, "deploy", "Deploy the service.")
    config = env.project / ".skillpath" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[skills]\ncustom_directories = ["tools/skills"]\n')
    return root


def _victim(folder: Path, text: str = "my thesis, years of work\n") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "chapter1.md").write_text(text)
    return folder


def _claim(name: str, digest: str, *, mode: str = "copy") -> dict[str, Any]:
    """A lock entry that says skillpath exported ``name`` to Claude Code."""
    return {
        "source": "somebody/else",
        "sourceType": "local",
        "computedHash": digest,
        "skillpath": {
            "provider": "custom",
            "targets": {"claude": {"path": f".claude/skills/{name}", "mode": mode, "hash": digest}},
        },
    }


def _write_lock(env: Env, entries: dict[str, Any]) -> Path:
    """The hostile lock, where export keeps its entries (``.skillpath/export-lock.json``,
    which a cloned repository can ship as easily as ``skills-lock.json``)."""
    lock = env.project / ".skillpath" / "export-lock.json"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text(json.dumps({"version": 1, "skills": entries}))
    return lock


# -- row 1: a lock names folders outside, or folders skillpath never wrote -----------


def test_prune_never_deletes_what_a_hostile_lock_names(isolated_env: Env, tmp_path: Path) -> None:
    env = isolated_env
    _world(env)
    skills = env.project / ".claude" / "skills"
    skills.mkdir(parents=True)
    thesis = _victim(env.home / "Documents" / "thesis")
    elsewhere = _victim(tmp_path / "elsewhere" / "work", "other work\n")
    notes = _victim(skills / "notes", "the user's own skill folder\n")
    traversal = os.path.relpath(thesis, skills)  # ../../../home/Documents/thesis
    assert traversal.startswith("..")
    lock = _write_lock(
        env,
        {
            traversal: _claim(traversal, folder_hash(thesis) or ""),
            str(elsewhere): _claim(str(elsewhere), folder_hash(elsewhere) or ""),
            "notes": _claim("notes", folder_hash(notes) or ""),  # matching hash, mode copy
        },
    )
    dry = _cli(env, "export", "--from", "custom", "--to", "claude", "--prune", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert not [line for line in dry.stdout.splitlines() if line.startswith("would prune")]
    done = _cli(env, "export", "--from", "custom", "--to", "claude", "--prune", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert [(a["name"], a["action"]) for a in report["actions"]] == [("deploy", "write")]
    for folder in (thesis, elsewhere, notes):
        assert (folder / "chapter1.md").is_file(), folder
    refused = {
        d["path"]: d["message"] for d in report["diagnostics"] if d["code"] == "export-lock-refused"
    }
    assert set(refused) == {str(lock), str(skills / "notes")}
    assert "not a single folder name" in refused[str(lock)]
    assert "no record of writing it" in refused[str(skills / "notes")]
    entries = json.loads(lock.read_text())["skills"]
    assert {traversal, str(elsewhere), "notes", "deploy"} <= set(
        entries
    )  # claims kept, not acted on


def test_export_does_not_replace_a_folder_the_lock_falsely_claims(isolated_env: Env) -> None:
    env = isolated_env
    _world(env)
    theirs = _victim(env.project / ".claude" / "skills" / "deploy", "hand-written deploy\n")
    _write_lock(env, {"deploy": _claim("deploy", folder_hash(theirs) or "")})
    done = _cli(env, "export", "--from", "custom", "--to", "claude", "--json")
    assert done.returncode == 1
    (clash,) = json.loads(done.stdout)["actions"]
    assert clash["action"] == "clash"
    assert "a lock is a claim, not proof" in clash["detail"]
    assert (theirs / "chapter1.md").read_text() == "hand-written deploy\n"


def test_prune_never_deletes_through_a_link_put_in_place_of_an_export(
    isolated_env: Env, tmp_path: Path
) -> None:
    env = isolated_env
    _world(env)
    assert _cli(env, "export", "--from", "custom", "--to", "claude").returncode == 0
    exported = env.project / ".claude" / "skills" / "deploy"
    assert (exported / "SKILL.md").is_file()
    # the attack: the exported folder swapped for a link to the victim
    victim = _victim(tmp_path / "victim")
    os.rename(exported, tmp_path / "moved-aside")
    exported.symlink_to(victim, target_is_directory=True)
    done = _cli(
        env,
        "export",
        "--from",
        "custom",
        "--to",
        "claude",
        "--select",
        "nothing-*",
        "--prune",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert not [a for a in report["actions"] if a["action"] == "prune"]
    (refused,) = [d for d in report["diagnostics"] if d["code"] == "export-lock-refused"]
    assert "symbolic link now" in refused["message"]
    assert exported.is_symlink() and (victim / "chapter1.md").is_file()


def test_prune_still_removes_its_own_unedited_export(isolated_env: Env) -> None:
    env = isolated_env
    _world(env)
    assert _cli(env, "export", "--from", "custom", "--to", "claude").returncode == 0
    exported = env.project / ".claude" / "skills" / "deploy"
    ctx, _ = make_context(env.project, env=env.env)
    assert ownership.owned(ctx, exported) is not None
    done = _cli(
        env,
        "export",
        "--from",
        "custom",
        "--to",
        "claude",
        "--select",
        "nothing-*",
        "--prune",
        "--json",
    )
    assert [(a["name"], a["action"]) for a in json.loads(done.stdout)["actions"]] == [
        ("deploy", "prune")
    ]
    assert not exported.exists()
    assert ownership.owned(ctx, exported) is None


def test_a_fresh_clone_checks_without_records_but_does_not_replace(isolated_env: Env) -> None:
    env = isolated_env
    _world(env)
    assert _cli(env, "export", "--from", "custom", "--to", "claude").returncode == 0
    ctx, _ = make_context(env.project, env=env.env)
    for record in ownership.state_dir(ctx).iterdir():  # another machine: no records
        record.unlink()
    check = _cli(env, "export", "--from", "custom", "--to", "claude", "--check")
    assert check.returncode == 0, check.stdout + check.stderr  # a check changes nothing
    (env.project / "tools" / "skills" / "deploy" / "SKILL.md").write_text(
        "---\ndescription: Deploy it, version 2.\n---\nGo.\n"
    )
    again = _cli(env, "export", "--from", "custom", "--to", "claude", "--json")
    assert again.returncode == 1
    (clash,) = json.loads(again.stdout)["actions"]
    assert clash["action"] == "clash" and "your own records do not" in clash["detail"]


def test_ownership_records_are_private_and_not_believed_when_tampered(
    isolated_env: Env, tmp_path: Path
) -> None:
    ctx, _ = make_context(isolated_env.project, env=isolated_env.env)
    folder = _victim(isolated_env.project / ".claude" / "skills" / "x")
    rec = ownership.record(ctx, folder, "abc")
    assert ownership.owned(ctx, folder) == rec
    (file,) = ownership.state_dir(ctx).iterdir()
    assert stat.S_IMODE(file.stat().st_mode) == 0o600
    assert ownership.state_dir(ctx).is_relative_to(isolated_env.home)  # the user's, not the repo's
    os.chmod(file, 0o666)  # writable by others: no proof
    assert ownership.owned(ctx, folder) is None
    os.chmod(file, 0o600)
    data = json.loads(file.read_text())
    file.write_text(json.dumps({**data, "path": str(tmp_path / "elsewhere")}))  # another place
    assert ownership.owned(ctx, folder) is None
    file.write_text(DEEP.decode())
    assert ownership.owned(ctx, folder) is None
    ownership.forget(ctx, folder)
    assert not file.exists()
    os.chmod(ownership.state_dir(ctx), 0o777)  # a state folder others can write proves nothing
    with pytest.raises(PermissionError, match="writable by others"):
        ownership.record(ctx, folder, "abc")


# -- row 3: destinations linked out of the project, or not the user's ------------------


@pytest.mark.parametrize(("link", "to"), [(".claude", "claude"), (".agents", "agents")])
def test_export_refuses_an_agent_folder_linked_out_of_the_repository(
    isolated_env: Env, link: str, to: str
) -> None:
    env = isolated_env
    _world(env)
    outside = env.home / (".ssh" if to == "agents" else ".claude")
    outside.mkdir(parents=True)
    (env.project / link).symlink_to(outside, target_is_directory=True)
    done = _cli(env, "export", "--from", "custom", "--to", to, "--json")
    assert done.returncode == 1
    (diag,) = [d for d in json.loads(done.stdout)["diagnostics"] if d["level"] == "error"]
    assert diag["code"] == "export-destination-refused"
    assert f"{env.project / link} is a symbolic link to {outside}" in diag["message"]
    assert list(outside.iterdir()) == []  # no skills/ in ~/.ssh, nothing at level user
    check = _cli(env, "export", "--from", "custom", "--to", to, "--check", "--json")
    assert check.returncode == 1
    assert "export-destination-refused" in check.stdout


def test_a_link_that_stays_inside_the_project_is_fine(isolated_env: Env) -> None:
    env = isolated_env
    _world(env)
    (env.project / "agent-config").mkdir()
    (env.project / ".claude").symlink_to("agent-config", target_is_directory=True)
    assert _cli(env, "export", "--from", "custom", "--to", "claude").returncode == 0
    assert (env.project / "agent-config" / "skills" / "deploy" / "SKILL.md").is_file()


def test_export_refuses_folders_others_can_write_or_own(isolated_env: Env) -> None:
    env = isolated_env
    _world(env)
    shared = env.project / ".claude"
    shared.mkdir()
    os.chmod(shared, 0o777)
    done = _cli(env, "export", "--from", "custom", "--to", "claude", "--json")
    assert done.returncode == 1
    assert "writable by others" in done.stdout
    assert not (shared / "skills").exists()
    if os.geteuid() != 0:
        return  # handing a folder to another user needs root
    os.chmod(shared, 0o755)
    os.chown(shared, 65534, 65534)
    done = _cli(env, "export", "--from", "custom", "--to", "claude", "--json")
    assert done.returncode == 1
    assert "owned by uid 65534, not by you" in done.stdout
    assert not (shared / "skills").exists()


def test_destination_problem_rules(tmp_path: Path) -> None:
    base = tmp_path / "proj"
    (base / "inside").mkdir(parents=True)
    (base / "file").write_text("x")
    (base / "in-link").symlink_to("inside")
    (base / "out-link").symlink_to(tmp_path)
    assert destination_problem(base / "new" / "deeper", base) is None
    assert destination_problem(base / "in-link" / "x", base) is None
    assert "outside" in (destination_problem(base / "out-link" / "x", base) or "")
    assert "not a folder" in (destination_problem(base / "file" / "x", base) or "")
    assert "not inside" in (destination_problem(tmp_path / "other", base) or "")


# -- row 11: hashes only inside the folder, streamed ----------------------------------


def test_check_does_not_hash_what_a_lock_names_outside(isolated_env: Env, tmp_path: Path) -> None:
    env = isolated_env
    _world(env)
    big = tmp_path / "big"
    big.mkdir()
    with open(big / "disk.img", "wb") as fh:  # 3 GiB by size, nothing on disk
        fh.truncate(3 * 1024**3)
    skills = env.project / ".claude" / "skills"
    skills.mkdir(parents=True)
    name = os.path.relpath(big, skills)
    _write_lock(env, {name: _claim(name, "0" * 64), str(big): _claim(str(big), "0" * 64)})
    done = _cli(env, "export", "--from", "custom", "--to", "claude", "--check", "--json")
    assert done.returncode == 1  # deploy is not exported yet
    report = json.loads(done.stdout)
    assert [d["kind"] for d in report["drift"]] == ["not-exported"]
    refused = [d for d in report["diagnostics"] if d["code"] == "export-lock-refused"]
    assert len(refused) == 2 and all("not a single folder name" in d["message"] for d in refused)
    pruned = _cli(env, "export", "--from", "custom", "--to", "claude", "--prune", "--json")
    assert pruned.returncode == 0
    assert (big / "disk.img").stat().st_size == 3 * 1024**3


def test_folder_hash_streams_big_files(tmp_path: Path) -> None:
    folder = tmp_path / "skill"
    folder.mkdir()
    (folder / "SKILL.md").write_text("x")
    with open(folder / "blob.bin", "wb") as fh:
        fh.truncate(64 * 1024 * 1024)
    os.mkfifo(folder / "pipe")  # special files are left out, never opened
    tracemalloc.start()
    try:
        digest = folder_hash(folder)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert digest is not None
    assert peak < 8 * 1024 * 1024, peak  # a whole-file read would hold 64 MiB
    h = hashlib.sha256()
    h.update(b"blob.bin")
    for _ in range(64):
        h.update(bytes(1024 * 1024))
    h.update(b"SKILL.md")
    h.update(b"x")
    # same hash as npx skills computes, in its (localeCompare) path order
    assert digest == h.hexdigest()


# -- rows 12, 13, 15: locks and records nested deep, special, linked out -----------------


def _agent_skill(env: Env) -> Path:
    """A skill in ``.claude/skills``: the kind whose origin the locks are read for."""
    return env.skill(".claude/skills", "reviewer", "Reviews code.").parent


DEEP_PLACES = {
    "project-lock": lambda env: env.project / "skills-lock.json",
    "export-lock": lambda env: env.project / ".skillpath" / "export-lock.json",
    "user-lock": lambda env: env.home / ".skillpath" / "export-lock.json",
    "global-lock": lambda env: env.home / ".agents" / ".skill-lock.json",
    "openskills": lambda env: env.project / ".claude" / "skills" / "reviewer" / ".openskills.json",
}


@pytest.mark.parametrize("where", sorted(DEEP_PLACES))
def test_deeply_nested_locks_are_a_diagnostic(isolated_env: Env, where: str) -> None:
    env = isolated_env
    _world(env)
    _agent_skill(env)
    path = DEEP_PLACES[where](env)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(DEEP)
    listed = _cli(env, "list", "--json")
    assert listed.returncode == 0, listed.stderr[-2000:]
    data = json.loads(listed.stdout)
    assert "reviewer" in {s["name"] for s in data["skills"]}
    shown = _cli(env, "show", "--json", "reviewer")
    assert shown.returncode == 0, shown.stderr[-2000:]
    doctor = _cli(env, "doctor", "--json")
    about = [d for d in json.loads(doctor.stdout)["diagnostics"] if d.get("path") == str(path)]
    assert about and "nested 100000 levels deep" in about[0]["message"], about
    exported = _cli(env, "export", "--from", "custom", "--to", "agents", "--json")
    codes = [d["code"] for d in json.loads(exported.stdout)["diagnostics"]]
    if where == "export-lock":  # the lock export would rewrite: refused, not lost
        assert exported.returncode == 1
        assert {"lock-unreadable", "export-lock-unusable"} <= set(codes)
        assert path.read_bytes() == DEEP
    else:
        assert exported.returncode == 0, exported.stderr[-2000:]


@pytest.mark.parametrize("rel", [".claude/plugins/installed_plugins.json", ".claude/settings.json"])
def test_deeply_nested_claude_registry_and_settings_are_a_diagnostic(
    isolated_env: Env, rel: str
) -> None:
    env = isolated_env
    _agent_skill(env)
    registry = env.home / ".claude" / "plugins" / "installed_plugins.json"
    registry.parent.mkdir(parents=True)
    plugin = env.home / "plugin-root"
    env.skill(plugin / "skills", "plug", "A plugin's skill.")
    registry.write_text(
        json.dumps({"version": 2, "plugins": {"p@m": [{"installPath": str(plugin)}]}})
    )
    path = env.home / rel
    path.write_bytes(DEEP)
    listed = _cli(env, "list", "--json")
    assert listed.returncode == 0, listed.stderr[-2000:]
    data = json.loads(listed.stdout)
    assert "reviewer" in {s["name"] for s in data["skills"]}
    about = [d for d in data["diagnostics"] if d.get("path") == str(path)]
    assert about and "nested 100000 levels deep" in about[0]["message"], data["diagnostics"]


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_lock_that_is_a_fifo_or_dev_zero_does_not_hang(isolated_env: Env, kind: str) -> None:
    env = isolated_env
    _world(env)
    _agent_skill(env)
    lock = env.project / "skills-lock.json"
    ours = env.project / ".skillpath" / "export-lock.json"
    ours.parent.mkdir(parents=True, exist_ok=True)
    for special in (lock, ours):
        if kind == "fifo":
            os.mkfifo(special)
        else:
            special.symlink_to("/dev/zero")
    for args in (("list", "--json"), ("doctor", "--json")):
        proc = _cli(env, *args)
        assert proc.returncode == 0, (args, proc.stderr[-2000:])
        diags = json.loads(proc.stdout)["diagnostics"]
        if args[0] != "list":  # list --json prints the load's diagnostics only
            assert any(d.get("path") == str(lock) for d in diags), (args, diags)
    for extra in ((), ("--check",)):
        proc = _cli(env, "export", "--from", "custom", "--to", "agents", *extra, "--json")
        assert proc.returncode == 1, proc.stderr[-2000:]
        codes = {d["code"] for d in json.loads(proc.stdout)["diagnostics"]}
        assert "lock-unreadable" in codes, codes
    # the unusable lock is neither replaced nor written through; nothing was exported
    assert lock.is_symlink() if kind == "dev-zero" else stat.S_ISFIFO(os.lstat(lock).st_mode)
    assert not (env.project / ".agents").exists()


def test_a_lock_linked_out_of_the_repository_is_not_read(isolated_env: Env, tmp_path: Path) -> None:
    env = isolated_env
    _agent_skill(env)
    outside = tmp_path / "outside-lock.json"
    outside.write_text(
        json.dumps(
            {"version": 1, "skills": {"reviewer": {"source": "SECRET-OUTSIDE-FIELD", "ref": "x"}}}
        )
    )
    lock = env.project / "skills-lock.json"
    lock.symlink_to(outside)
    for args in (("list", "--json"), ("doctor", "--json"), ("show", "--json", "reviewer")):
        proc = _cli(env, *args)
        assert proc.returncode == 0, (args, proc.stderr[-2000:])
        assert "SECRET-OUTSIDE-FIELD" not in proc.stdout + proc.stderr, args
    doctor = json.loads(_cli(env, "doctor", "--json").stdout)
    (diag,) = [d for d in doctor["diagnostics"] if d.get("path") == str(lock)]
    assert f"is a link to {outside}, outside" in diag["message"]


def test_bounded_json_reader(tmp_path: Path) -> None:
    assert json_depth(b'{"a": "[[[[[", "b": [{"c": []}]}') == 4
    assert loads_bounded(b'\xef\xbb\xbf{"a": 1}') == {"a": 1}
    with pytest.raises(JSONLimitError, match="nested 100000 levels deep"):
        loads_bounded(DEEP)
    with pytest.raises(JSONLimitError, match="not UTF-8"):
        loads_bounded(b'"\xff"')
    ok = b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH
    assert loads_bounded(ok) is not None
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(OSError, match="not a regular file"):
        read_json_bounded(tmp_path / "fifo")
    (tmp_path / "area").mkdir()
    (tmp_path / "area" / "lock.json").symlink_to(tmp_path / "fifo")
    with pytest.raises(JSONLimitError, match="outside"):
        read_json_bounded(tmp_path / "area" / "lock.json", area=tmp_path / "area")
    with pytest.raises(FileNotFoundError):
        read_json_bounded(tmp_path / "area" / "missing.json", area=tmp_path / "area")


# -- row 16: relative user directories do not mean the current repository ---------------


def test_relative_user_custom_directories_resolve_against_home(isolated_env: Env) -> None:
    env = isolated_env
    config = env.home / ".skillpath" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[skills]\ncustom_directories = ["skills"]\n')
    env.skill(env.project / "skills", "repo-evil", "A repository's skill, not the user's.")
    env.skill(env.home / "skills", "mine", "The user's own.")
    data = json.loads(_cli(env, "list", "--json").stdout)
    names = {s["name"]: s for s in data["skills"]}
    assert "repo-evil" not in names
    assert names["mine"]["level"] == "user"
    (warning,) = [d for d in data["diagnostics"] if d["code"] == "custom-directory-relative"]
    assert "'skills'" in warning["message"] and warning["path"] == str(env.home / "skills")


def test_relative_skillpath_entries_resolve_against_home(isolated_env: Env) -> None:
    env = isolated_env
    env.skill(env.project / "skills", "repo-evil", "A repository's skill, not the user's.")
    env.env["SKILLPATH"] = "skills"
    data = json.loads(_cli(env, "list", "--json").stdout)
    assert "repo-evil" not in {s["name"] for s in data["skills"]}
    (warning,) = [d for d in data["diagnostics"] if d["code"] == "skillpath-relative-entry"]
    assert "SKILLPATH entry 1 ('skills')" in warning["message"]


# -- row 20: skillpath new through a linked .skillpath ---------------------------------


def test_new_refuses_a_skillpath_folder_linked_out_of_the_repository(
    isolated_env: Env, tmp_path: Path
) -> None:
    env = isolated_env
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (env.project / ".agents").symlink_to(elsewhere, target_is_directory=True)
    done = _cli(env, "new", "fresh", "--json")
    assert done.returncode == 1
    error = json.loads(done.stdout)["error"]
    assert error["code"] == "unsafe-destination"
    assert f"is a symbolic link to {elsewhere}" in error["message"]
    assert list(elsewhere.iterdir()) == []
    # an ordinary project still gets its skill
    os.unlink(env.project / ".agents")
    assert _cli(env, "new", "fresh").returncode == 0
    assert (env.project / ".agents" / "skills" / "fresh" / "SKILL.md").is_file()
