"""The plugin writer writes only a folder of its own (issue rows 2, 13 and 18).

Row 2: another local user pre-creates the plugin folder (its name is computable)
with ``hooks/hooks.json`` and ``.mcp.json``; the writer must never adopt it. Row 13:
the manifest ``.skillpath-export.json`` is a FIFO or a link to ``/dev/zero``. Row 18:
two writers update one folder at once. Every test performs the attack first.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from skillpath.boundedjson import JSONLimitError, read_json_bounded
from skillpath.model import SkillSource
from skillpath.ownership import FolderRefused, LockBusy, claim_folder, exclusive
from skillpath.plugin_writer import LOCK_FILE, MANIFEST_FILE, write_claude_plugin
from skillpath.scan import build_skill

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
OTHER_UID = 54321
needs_uids = pytest.mark.skipif(not hasattr(os, "geteuid"), reason="no user ids here")


def _skills(n: int = 3, body: str = "Body {i}.\n") -> list:
    source = SkillSource(provider="native", level="user", root=None, loaded_from="bundled")
    out = []
    for i in range(n):
        skill, _ = build_skill(
            {"name": f"s{i}", "description": f"Skill {i}."},
            default_name=f"s{i}",
            source=source,
            priority=10,
            path=None,
            base_dir=None,
            require_description=True,
            body_loader=lambda i=i: body.format(i=i),
        )
        assert skill is not None
        out.append(skill)
    return out


def _plant(folder: Path) -> None:
    """What the other user puts in the folder: hooks and an MCP server for Claude Code."""
    (folder / "hooks").mkdir(parents=True)
    (folder / "hooks" / "hooks.json").write_text(
        json.dumps({"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "id"}]}]}})
    )
    (folder / ".mcp.json").write_text(json.dumps({"mcpServers": {"x": {"command": "nc"}}}))


def _make_foreign(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``folder`` another user's: really (as root, by ``chown``), else by telling
    the checks the user is someone else."""
    if ROOT:
        for top, dirs, names in os.walk(folder):
            for n in [*dirs, *names]:
                os.chown(os.path.join(top, n), OTHER_UID, OTHER_UID)
        os.chown(folder, OTHER_UID, OTHER_UID)
    else:
        me = os.geteuid()
        monkeypatch.setattr(os, "geteuid", lambda: me + 1)


# -- row 2 -------------------------------------------------------------------------


@needs_uids
def test_a_folder_another_user_created_is_never_adopted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dest = tmp_path / "claude-plugins" / "skillpath-0123456789abcdef"
    dest.mkdir(parents=True)
    _plant(dest)
    _make_foreign(dest, monkeypatch)
    with pytest.raises(FolderRefused, match="owned by uid"):
        write_claude_plugin(dest, _skills())
    assert sorted(os.listdir(dest)) == [".mcp.json", "hooks"]  # nothing written or taken


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o757])
def test_a_folder_others_may_write_is_refused(tmp_path: Path, mode: int) -> None:
    dest = tmp_path / "plugin"
    dest.mkdir()
    _plant(dest)
    os.chmod(dest, mode)
    if mode == 0o775:  # group-writable is fine only for the user's private group
        if not ROOT:
            pytest.skip("only root can give the folder a group that is not the user's")
        os.chown(dest, -1, OTHER_UID)
    with pytest.raises(FolderRefused, match="writable by"):
        write_claude_plugin(dest, _skills())
    assert not (dest / MANIFEST_FILE).exists()


def test_a_folder_under_a_folder_others_may_write_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared-cache"
    shared.mkdir()
    os.chmod(shared, 0o777)  # world-writable, not sticky: anyone may swap our folder
    with pytest.raises(FolderRefused, match="not sticky"):
        write_claude_plugin(shared / "plugin", _skills())
    assert not (shared / "plugin").exists()


def test_a_sticky_shared_parent_is_fine(tmp_path: Path) -> None:
    shared = tmp_path / "tmp-like"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    out = write_claude_plugin(shared / "plugin", _skills())
    assert out.written == ("s0", "s1", "s2")


def test_a_symlinked_plugin_folder_is_refused(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (tmp_path / "plugin").symlink_to(theirs)
    with pytest.raises(FolderRefused, match="symbolic link"):
        write_claude_plugin(tmp_path / "plugin", _skills())
    assert not os.listdir(theirs)


def test_an_own_folder_with_files_but_no_manifest_is_refused(tmp_path: Path) -> None:
    dest = tmp_path / "plugin"
    dest.mkdir(mode=0o700)
    _plant(dest)
    with pytest.raises(FolderRefused, match=r"\.mcp\.json, hooks"):
        write_claude_plugin(dest, _skills())


@needs_uids
def test_a_new_folder_is_created_private(tmp_path: Path) -> None:
    dest = tmp_path / "a" / "plugin"
    write_claude_plugin(dest, _skills())
    assert dest.stat().st_mode & 0o777 == 0o700
    again = write_claude_plugin(dest, _skills())  # our own folder: reused
    assert again.unchanged == ("s0", "s1", "s2")


def test_claim_folder_creates_exclusively_or_verifies(tmp_path: Path) -> None:
    assert claim_folder(tmp_path / "new") is True
    assert claim_folder(tmp_path / "new") is False
    (tmp_path / "file").write_text("x")
    with pytest.raises(FolderRefused, match="not a folder"):
        claim_folder(tmp_path / "file")


# -- row 13 ------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_manifest_is_refused_without_waiting(tmp_path: Path) -> None:
    dest = tmp_path / "plugin"
    write_claude_plugin(dest, _skills())
    (dest / MANIFEST_FILE).unlink()
    os.mkfifo(dest / MANIFEST_FILE)
    with pytest.raises(FolderRefused, match=r"not a regular file \(a FIFO\)"):
        write_claude_plugin(dest, _skills())


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_a_manifest_linked_to_dev_zero_is_refused(tmp_path: Path) -> None:
    dest = tmp_path / "plugin"
    write_claude_plugin(dest, _skills())
    (dest / MANIFEST_FILE).unlink()
    (dest / MANIFEST_FILE).symlink_to("/dev/zero")
    with pytest.raises(FolderRefused, match="symbolic link"):
        write_claude_plugin(dest, _skills())


def test_a_huge_or_deep_manifest_is_refused(tmp_path: Path) -> None:
    dest = tmp_path / "plugin"
    write_claude_plugin(dest, _skills())
    (dest / MANIFEST_FILE).write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(FolderRefused, match="nested 100000 levels deep"):
        write_claude_plugin(dest, _skills())
    with open(dest / MANIFEST_FILE, "wb") as fh:
        fh.truncate(64 * 1024 * 1024)  # sparse: 64 MiB of NUL bytes
    with pytest.raises(FolderRefused, match="larger than"):
        write_claude_plugin(dest, _skills())


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_read_json_bounded_refuses_special_files_and_depth(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="not a regular file"):
        read_json_bounded("/dev/zero", max_bytes=1024, max_depth=8)
    (tmp_path / "link").symlink_to("/dev/zero")
    with pytest.raises(OSError):
        read_json_bounded(tmp_path / "link", max_bytes=1024, max_depth=8, follow=False)
    (tmp_path / "deep.json").write_text('{"a": [[[["x"]]]], "s": "[[[[[[[[[["}')
    assert read_json_bounded(tmp_path / "deep.json", max_bytes=1024, max_depth=5)["a"]
    with pytest.raises(JSONLimitError, match="nested 5 levels deep"):
        read_json_bounded(tmp_path / "deep.json", max_bytes=1024, max_depth=4)
    (tmp_path / "big.json").write_text(" " * 2048 + "1")
    with pytest.raises(OSError, match="larger than 1024 bytes"):
        read_json_bounded(tmp_path / "big.json", max_bytes=1024, max_depth=4)


# -- row 18 ------------------------------------------------------------------------


def _matches_manifest(dest: Path) -> None:
    manifest = json.loads((dest / MANIFEST_FILE).read_text())
    on_disk = sorted(os.listdir(dest / "skills"))
    assert on_disk == sorted(manifest["skills"]), (on_disk, manifest)
    assert all(manifest["skills"].values())  # every folder finished, none only claimed
    assert sorted(os.listdir(dest)) == sorted(
        [".claude-plugin", "skills", MANIFEST_FILE, LOCK_FILE]
    )


def test_two_writers_at_once_are_serialised(tmp_path: Path) -> None:
    dest = tmp_path / "plugin"
    sets = [_skills(12, "A {i}\n"), _skills(7, "B {i}\n")]
    start = threading.Barrier(len(sets) * 2)
    errors: list[BaseException] = []

    def writer(skills: list) -> None:
        start.wait()
        try:
            for _ in range(5):
                write_claude_plugin(dest, skills)
        except BaseException as exc:  # recorded: the test fails on any
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(s,)) for s in sets for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    _matches_manifest(dest)
    last = write_claude_plugin(dest, sets[1])
    assert last.skills == tuple(f"s{i}" for i in range(7))
    assert (dest / "skills" / "s0" / "SKILL.md").read_text().endswith("B 0\n")
    _matches_manifest(dest)


def test_a_writer_waits_for_the_lock_then_gives_up_with_one_line(tmp_path: Path) -> None:
    dest = tmp_path / "plugin"
    write_claude_plugin(dest, _skills())
    with (
        exclusive(dest / LOCK_FILE, wait=0, what="test holder"),
        pytest.raises(LockBusy) as caught,
    ):
        write_claude_plugin(dest, _skills(), env={"SKILLPATH_LOCK_WAIT": "0"})
    message = str(caught.value)
    assert "\n" not in message and "held by another process" in message
    assert "SKILLPATH_LOCK_WAIT" in message and str(dest) in message


_WRITER = """
import sys
from skillpath.model import SkillSource
from skillpath.plugin_writer import write_claude_plugin
from skillpath.scan import build_skill

dest, count, tag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
source = SkillSource(provider="native", level="user", root=None, loaded_from="bundled")
skills = []
for i in range(count):
    skill, _ = build_skill(
        {"name": f"s{i}", "description": f"Skill {i}."}, default_name=f"s{i}", source=source,
        priority=10, path=None, base_dir=None, require_description=True,
        body_loader=lambda i=i: f"{tag} {i}\\n",
    )
    skills.append(skill)
for _ in range(10):
    write_claude_plugin(dest, skills)
"""


def test_two_writer_processes_at_once_are_serialised(tmp_path: Path) -> None:
    import subprocess
    import sys

    dest = tmp_path / "plugin"
    script = tmp_path / "writer.py"
    script.write_text(_WRITER)
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(dest), count, tag],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for count, tag in (("9", "A"), ("4", "B"))
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    _matches_manifest(dest)


@pytest.mark.parametrize(
    "planted", ["hooks/hooks.json", ".mcp.json", "commands/x.md", ".claude-plugin/marketplace.json"]
)
def test_an_own_folder_with_a_forged_manifest_and_plugin_powers_is_refused(
    tmp_path: Path, planted: str
) -> None:
    # a cloned repository ships a folder with a manifest in our format and plugin powers
    dest = tmp_path / "repo-plugin"
    write_claude_plugin(dest, _skills())
    (dest / planted).parent.mkdir(parents=True, exist_ok=True)
    (dest / planted).write_text("{}")
    with pytest.raises(FolderRefused, match="Claude Code would load them"):
        write_claude_plugin(dest, _skills())
    assert (dest / planted).read_text() == "{}"  # reported, never deleted


def test_an_interrupted_first_run_is_not_a_stranger(tmp_path: Path) -> None:
    dest = tmp_path / "plugin"
    dest.mkdir(mode=0o700)
    (dest / f".{MANIFEST_FILE}.123.deadbeef.tmp").write_text("{")
    (dest / LOCK_FILE).write_text("")
    assert write_claude_plugin(dest, _skills()).written == ("s0", "s1", "s2")
