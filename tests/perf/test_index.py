"""The discovery index: exact change detection, and a cache that can never hurt.

Each "process" is simulated by a fresh :class:`DiscoveryIndex` over the same
cache directory (plus real subprocesses where processes matter: concurrent
writers, a writer killed mid-write, the CLI re-listing without opening files).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from skillpath.cache import index as sw_index
from skillpath.cache.index import DiscoveryIndex
from skillpath.model import SkillSource
from skillpath.scan import scan_skills_dir


def write_skill(
    root: Path, name: str, description: str = "A skill.", body: str = "Body.\n"
) -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}")
    return path


class Scanner:
    """Scan one root the way a provider does, each call with a fresh index handle."""

    def __init__(self, root: Path, cache: Path, *, racy_window_ns: int = 0) -> None:
        self.root = root
        self.cache = cache
        self.window = racy_window_ns
        self.last: DiscoveryIndex | None = None

    def scan(self, **kw: Any) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
        idx = DiscoveryIndex(self.cache, racy_window_ns=self.window)
        with sw_index.activate(idx):
            res = scan_skills_dir(self.root, SkillSource("claude", "project", self.root), **kw)
        idx.flush()
        self.last = idx
        return snapshot(res)

    @property
    def stats(self) -> dict[str, int]:
        assert self.last is not None
        return self.last.stats.as_dict()


def snapshot(res: Any) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    skills = [
        {**s.to_json(), "fm": s.frontmatter, "file_id": s.file_id, "priority": s.priority}
        for s in res.skills
    ]
    diags = [(d.code, str(d.path)) for d in res.diagnostics]
    return skills, diags


def plain_scan(root: Path, **kw: Any) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """The same scan with no index at all (the reference)."""
    assert sw_index.current() is None
    return snapshot(scan_skills_dir(root, SkillSource("claude", "project", root), **kw))


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "skills"
    for i in range(5):
        write_skill(root, f"skill-{i}", f"Skill number {i}.")
    return root, tmp_path / "cache"


def test_warm_scan_reads_no_file_and_equals_a_plain_scan(tree: tuple[Path, Path]) -> None:
    root, cache = tree
    s = Scanner(root, cache)
    cold = s.scan()
    assert s.stats["misses"] == 5 and s.stats["files_written"] == 1
    warm = s.scan()
    assert s.stats == {
        "files_read": 1,
        "files_written": 0,
        "hits": 5,
        "listings_reused": 1,
        "misses": 0,
    }
    assert warm == cold == plain_scan(root)


def test_varied_corpus_is_identical_cold_and_warm(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "plain")
    (root / "bad-yaml").mkdir(parents=True)
    (root / "bad-yaml" / "SKILL.md").write_text('---\ndescription: "open\ntags: [x\n---\nB\n')
    (root / "colon").mkdir()
    (root / "colon" / "SKILL.md").write_text("---\ndescription: Use when: x\n---\n")
    (root / "nodesc").mkdir()
    (root / "nodesc" / "SKILL.md").write_text("---\nname: nodesc\n---\n\nFirst paragraph.\n")
    (root / "nofm").mkdir()
    (root / "nofm" / "SKILL.md").write_bytes(b"\xef\xbb\xbfJust a body\r\nline two\r\n")
    (root / "mismatch").mkdir()
    (root / "mismatch" / "SKILL.md").write_text("---\nname: other\ndescription: d\n---\n")
    (root / "bad name").mkdir()
    (root / "bad name" / "SKILL.md").write_text("---\nname: ' x'\ndescription: d\n---\n")
    (root / "empty").mkdir()
    (root / "empty" / "SKILL.md").write_text("")
    (root / "group" / "nested").mkdir(parents=True)
    (root / "group" / "nested" / "SKILL.md").write_text("---\ndescription: n\n---\n")
    (root / "dangling").symlink_to(tmp_path / "nowhere", target_is_directory=True)
    (root / "loop").symlink_to(root / "loop")
    (root / "linked").symlink_to(root / "plain", target_is_directory=True)
    (root / "file.txt").write_text("not a skill")
    (root / ".hidden").mkdir()
    for required in (False, True):
        s = Scanner(root, tmp_path / f"cache-{required}")
        reference = plain_scan(root, require_description=required)
        assert s.scan(require_description=required) == reference
        assert s.scan(require_description=required) == reference
        assert s.stats["misses"] == 0 and s.stats["hits"] > 0
    codes = {code for code, _ in reference[1]}
    assert {"frontmatter-yaml-error", "broken-symlink", "nested-skills-ignored"} <= codes


def test_added_removed_renamed(tree: tuple[Path, Path]) -> None:
    root, cache = tree
    s = Scanner(root, cache)
    s.scan()
    write_skill(root, "skill-new")
    names = [x["name"] for x in s.scan()[0]]
    assert "skill-new" in names and s.stats["misses"] == 1 and s.stats["hits"] == 5
    shutil.rmtree(root / "skill-0")
    names = [x["name"] for x in s.scan()[0]]
    assert "skill-0" not in names and s.stats["misses"] == 0
    (root / "skill-1").rename(root / "skill-renamed")
    skills, diags = s.scan()
    # the frontmatter still says skill-1; the folder moved, so it was read again
    paths = {x["name"]: x["path"] for x in skills}
    assert paths["skill-1"].endswith("skill-renamed/SKILL.md")
    assert ("name-mismatch", str(root / "skill-renamed" / "SKILL.md")) in diags
    assert s.stats["misses"] == 1
    assert s.scan() == plain_scan(root)
    assert s.stats["misses"] == 0


def test_edit_keeping_size_and_mtime_second(tree: tuple[Path, Path]) -> None:
    root, cache = tree
    s = Scanner(root, cache)
    s.scan()
    path = root / "skill-2" / "SKILL.md"
    before = path.stat()
    text = path.read_text()
    edited = text.replace("Skill number 2.", "Skill NUMBER 2.")
    assert len(edited) == len(text)
    path.write_text(edited)
    second = before.st_mtime_ns - before.st_mtime_ns % 1_000_000_000
    os.utime(path, ns=(before.st_atime_ns, second + (before.st_mtime_ns + 1) % 1_000_000_000))
    after = path.stat()
    assert after.st_size == before.st_size
    assert after.st_mtime_ns // 1_000_000_000 == before.st_mtime_ns // 1_000_000_000
    skills, _ = s.scan()
    assert {x["name"]: x["description"] for x in skills}["skill-2"] == "Skill NUMBER 2."
    assert s.stats["misses"] == 1


def test_edit_restoring_the_exact_mtime_is_caught_by_ctime(tree: tuple[Path, Path]) -> None:
    root, cache = tree
    s = Scanner(root, cache)
    s.scan()
    path = root / "skill-3" / "SKILL.md"
    before = path.stat()
    text = path.read_text().replace("number 3", "NUMBER 3")
    path.write_text(text)
    # the ctime clock ticks coarsely: write until the tick has moved on
    while path.stat().st_ctime_ns == before.st_ctime_ns:
        path.write_text(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert path.stat().st_mtime_ns == before.st_mtime_ns
    assert path.stat().st_size == before.st_size
    skills, _ = s.scan()
    assert {x["name"]: x["description"] for x in skills}["skill-3"] == "Skill NUMBER 3."


def test_replaced_file_same_size_same_times_is_caught_by_inode(tree: tuple[Path, Path]) -> None:
    root, cache = tree
    s = Scanner(root, cache)
    s.scan()
    path = root / "skill-4" / "SKILL.md"
    before = path.stat()
    new = path.with_name("SKILL.md.new")
    new.write_text(path.read_text().replace("number 4", "NUMBER 4"))
    os.utime(new, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(new, path)
    skills, _ = s.scan()
    assert {x["name"]: x["description"] for x in skills}["skill-4"] == "Skill NUMBER 4."


def test_symlinked_folder_retargeted(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # project skills may link within their repository
    root = tmp_path / "skills"
    store = tmp_path / "store"
    write_skill(store, "v1", "Version one.")
    write_skill(store, "v2", "Version two.")
    root.mkdir()
    (root / "tool").symlink_to(store / "v1", target_is_directory=True)
    s = Scanner(root, tmp_path / "cache")
    assert [x["description"] for x in s.scan()[0]] == ["Version one."]
    assert [x["description"] for x in s.scan()[0]] == ["Version one."]
    assert s.stats["hits"] == 1
    tmp_link = root / ".tool.tmp"
    tmp_link.symlink_to(store / "v2", target_is_directory=True)
    os.replace(tmp_link, root / "tool")
    assert [x["description"] for x in s.scan()[0]] == ["Version two."]
    assert s.stats["misses"] == 1


def test_symlink_chain_retargeted_outside_the_root(tmp_path: Path) -> None:
    """The root and the link in it stay untouched; a link further along the chain moves."""
    (tmp_path / ".git").mkdir()  # project skills may link within their repository
    root = tmp_path / "skills"
    store = tmp_path / "store"
    write_skill(store, "v1", "Version one.")
    write_skill(store, "v2", "Version two.")
    (store / "current").symlink_to(store / "v1", target_is_directory=True)
    root.mkdir()
    (root / "tool").symlink_to(store / "current", target_is_directory=True)
    s = Scanner(root, tmp_path / "cache")
    s.scan()
    root_mtime = root.stat().st_mtime_ns
    tmp_link = store / ".current.tmp"
    tmp_link.symlink_to(store / "v2", target_is_directory=True)
    os.replace(tmp_link, store / "current")
    assert root.stat().st_mtime_ns == root_mtime
    assert [x["description"] for x in s.scan()[0]] == ["Version two."]
    assert s.stats["listings_reused"] == 1 and s.stats["misses"] == 1


def test_symlinked_skill_file_retargeted(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    folder = root / "tool"
    folder.mkdir(parents=True)
    (folder / "a.md").write_text("---\ndescription: Alpha.\n---\n")
    (folder / "b.md").write_text("---\ndescription: Bravo.\n---\n")
    (folder / "SKILL.md").symlink_to("a.md")
    s = Scanner(root, tmp_path / "cache")
    assert [x["description"] for x in s.scan()[0]] == ["Alpha."]
    assert [x["description"] for x in s.scan()[0]] == ["Alpha."]
    assert s.stats["hits"] == 1
    (folder / "SKILL.tmp").symlink_to("b.md")
    os.replace(folder / "SKILL.tmp", folder / "SKILL.md")
    assert [x["description"] for x in s.scan()[0]] == ["Bravo."]


def test_dangling_symlink_that_comes_alive(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # project skills may link within their repository
    root = tmp_path / "skills"
    root.mkdir()
    (root / "later").symlink_to(tmp_path / "store" / "later", target_is_directory=True)
    s = Scanner(root, tmp_path / "cache")
    skills, diags = s.scan()
    assert skills == [] and diags[0][0] == "broken-symlink"
    write_skill(tmp_path / "store", "later")
    skills, diags = s.scan()
    assert [x["name"] for x in skills] == ["later"] and diags == []


def test_missing_root_forgets_its_file(tree: tuple[Path, Path]) -> None:
    root, cache = tree
    s = Scanner(root, cache)
    s.scan()
    assert list(cache.glob("*.idx"))
    shutil.rmtree(root)
    assert s.scan() == ([], [])
    assert not list(cache.glob("*.idx"))


def test_files_of_roots_not_seen_for_longest_are_pruned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sw_index, "MAX_FILES", 3)
    cache = tmp_path / "cache"
    roots = []
    for i in range(5):
        root = tmp_path / f"root{i}"
        write_skill(root, "one")
        roots.append(root)
        Scanner(root, cache).scan()
        (written,) = [p for p in cache.glob("*.idx") if p.name == _name_of(cache, root)]
        os.utime(written, ns=(i * 10**9, i * 10**9))  # written in this order
    left = {p.name for p in cache.glob("*.idx")}
    assert left == {_name_of(cache, r) for r in roots[2:]}
    # the roots of the load that writes always stay, however old their files
    monkeypatch.setattr(sw_index, "MAX_FILES", 1)
    root = roots[2]
    write_skill(root, "two")
    Scanner(root, cache).scan()
    assert {p.name for p in cache.glob("*.idx")} == {_name_of(cache, root)}
    monkeypatch.setattr(sw_index, "MAX_BYTES", 1)
    write_skill(root, "three")
    Scanner(root, cache).scan()
    assert {p.name for p in cache.glob("*.idx")} == {_name_of(cache, root)}


def _name_of(cache: Path, root: Path) -> str:
    return DiscoveryIndex(cache).path_for(os.path.abspath(root)).name


def _index_file(cache: Path) -> Path:
    (found,) = cache.glob("*.idx")
    return found


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda b: b"garbage" * 10, id="garbage"),
        pytest.param(lambda b: b[: len(b) // 2], id="truncated"),
        pytest.param(lambda b: b[:-1] + bytes([b[-1] ^ 0xFF]), id="bit-flip"),
        pytest.param(lambda b: b"", id="empty"),
        pytest.param(lambda b: b[:5] + bytes([b[5] + 1]) + b[6:], id="other-format"),
        pytest.param(lambda b: b[:6] + b"\x02\x07" + b[8:], id="other-python"),
    ],
)
def test_damaged_or_foreign_file_is_ignored_and_rebuilt(
    tree: tuple[Path, Path], damage: Any
) -> None:
    root, cache = tree
    s = Scanner(root, cache)
    reference = s.scan()
    file = _index_file(cache)
    file.write_bytes(damage(file.read_bytes()))
    assert s.scan() == reference
    assert s.stats["misses"] == 5 and s.stats["files_written"] == 1
    assert s.scan() == reference
    assert s.stats["hits"] == 5


def test_file_from_other_code_is_ignored(tree: tuple[Path, Path], monkeypatch: Any) -> None:
    root, cache = tree
    s = Scanner(root, cache)
    reference = s.scan()
    # the records were derived by different code: same format, other fingerprint
    monkeypatch.setattr(DiscoveryIndex, "fingerprint", ("someone", "else"))
    assert s.scan() == reference
    assert s.stats["misses"] == 5


def test_file_for_another_root_is_ignored(tmp_path: Path) -> None:
    a = tmp_path / "a"
    b = tmp_path / "b"
    write_skill(a, "from-a")
    write_skill(b, "from-b")
    cache = tmp_path / "cache"
    Scanner(a, cache).scan()
    idx = DiscoveryIndex(cache)
    shutil.copy(idx.path_for(os.path.abspath(a)), idx.path_for(os.path.abspath(b)))
    s = Scanner(b, cache)
    assert [x["name"] for x in s.scan()[0]] == ["from-b"]
    assert s.stats["misses"] == 1


def test_racy_entries_are_read_again_until_they_are_old_enough(tree: tuple[Path, Path]) -> None:
    root, cache = tree
    s = Scanner(root, cache, racy_window_ns=400_000_000)
    write_skill(root, "fresh", "Fresh.")
    # every file is younger than the window: recorded, but not trusted
    s.scan()
    s.scan()
    assert s.stats["hits"] == 0 and s.stats["listings_reused"] == 0
    time.sleep(0.45)
    s.scan()  # now old enough: recorded as clean
    s.scan()
    assert s.stats["hits"] == 6 and s.stats["listings_reused"] == 1


WORKER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from skillpath.cache import index
    from skillpath.model import SkillSource
    from skillpath.scan import scan_skills_dir

    root, cache, rounds = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    for _ in range(rounds):
        # a huge racy window: every entry is re-read and every round writes the file
        idx = index.DiscoveryIndex(cache, racy_window_ns=10**15)
        with index.activate(idx):
            res = scan_skills_dir(root, SkillSource("claude", "project", root))
        assert len(res.skills) == int(sys.argv[4]), len(res.skills)
        idx.flush()
    print("ok")
    """
)


def test_concurrent_writers_leave_a_valid_file(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for i in range(40):
        write_skill(root, f"skill-{i:02d}", f"Skill {i}. " + "x" * 200)
    cache = tmp_path / "cache"
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(root), str(cache), "15", "40"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        assert out.strip() == "ok"
    assert [f.name for f in cache.iterdir() if f.name.endswith(".tmp")] == []
    state = DiscoveryIndex(cache).root(os.path.abspath(root))
    assert len(state.files) == 40 and state.listing_key is not None
    # the racy flags make the next scan re-read; the one after is served whole
    s = Scanner(root, cache)
    reference = plain_scan(root)
    assert s.scan() == reference
    assert s.scan() == reference and s.stats["hits"] == 40


def test_writer_killed_mid_write_leaves_a_usable_cache(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for i in range(300):
        write_skill(root, f"skill-{i:03d}", f"Skill {i}. " + "y" * 400)
    cache = tmp_path / "cache"
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    reference = plain_scan(root)
    for delay in (0.15, 0.3, 0.45, 0.6):
        p = subprocess.Popen(
            [sys.executable, str(script), str(root), str(cache), "1000", "300"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(delay)
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
        s = Scanner(root, cache)
        assert s.scan() == reference
    # leftovers of a killed writer (a partial temp file) do not matter either
    (cache / ".partial.idx.123.ffff.tmp").write_bytes(b"SWIDX\x01")
    s = Scanner(root, cache)
    assert s.scan() == reference
    assert s.scan() == reference and s.stats["hits"] == 300


# -- through load_skills and the real command ---------------------------------------

AUDIT = textwrap.dedent(
    """
    import json, sys
    opened = []
    def hook(event, args):
        if event == "open" and str(args[0]).endswith("SKILL.md"):
            opened.append(str(args[0]))
    sys.addaudithook(hook)
    from skillpath.cli import main
    try:
        main(sys.argv[1:], standalone_mode=False)
    finally:
        sys.stderr.write("OPENED " + json.dumps(opened) + "\\n")
    """
)


def _cli_env(isolated_env: Any, **extra: str) -> dict[str, str]:
    env = dict(isolated_env.env)
    env["SKILLPATH_INDEX_RACY_MS"] = "0"
    env.update(extra)
    return env


def _list(script: Path, cwd: Path, env: dict[str, str], *args: str) -> tuple[Any, list[str]]:
    proc = subprocess.run(
        [sys.executable, str(script), "list", "--json", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    opened_line = [line for line in proc.stderr.splitlines() if line.startswith("OPENED ")][-1]
    return json.loads(proc.stdout), json.loads(opened_line[len("OPENED ") :])


def test_cli_warm_relist_opens_no_skill_file(isolated_env: Any, tmp_path: Path) -> None:
    for i in range(8):
        isolated_env.skill(".claude/skills", f"claude-{i}")
        isolated_env.skill(".skillpath/skills", f"native-{i}")
    script = tmp_path / "audit.py"
    script.write_text(AUDIT)
    env = _cli_env(isolated_env)
    cold, opened_cold = _list(script, isolated_env.project, env)
    assert len(_ours(opened_cold, isolated_env)) == 16
    warm, opened_warm = _list(script, isolated_env.project, env)
    assert _ours(opened_warm, isolated_env) == []
    assert warm == cold
    assert (isolated_env.home / ".cache" / "skillpath" / "index").is_dir()
    # --no-index reads every file again (and gives the same answer)
    again, opened_again = _list(script, isolated_env.project, env, "--no-index")
    assert again == cold and len(_ours(opened_again, isolated_env)) == 16


def _ours(opened: list[str], isolated_env: Any) -> list[str]:
    """The files opened under the test's project and home (skills roots on disk;
    skills shipped inside installed packages are read by the packs provider, and the
    copies of them it extracts into the cache are read by the trust tiers' content
    check, skillpath.trust)."""
    tops = (str(isolated_env.project), str(isolated_env.home))
    cache = str(isolated_env.home / ".cache")
    return [p for p in opened if p.startswith(tops) and not p.startswith(cache)]


@pytest.mark.parametrize("how", ["env", "setting", "flag"])
def test_index_can_be_turned_off(isolated_env: Any, tmp_path: Path, how: str) -> None:
    isolated_env.skill(".skillpath/skills", "one")
    cache = tmp_path / "swcache"
    env = _cli_env(isolated_env, SKILLPATH_CACHE_DIR=str(cache))
    args: list[str] = []
    if how == "env":
        env["SKILLPATH_NO_INDEX"] = "1"
    elif how == "setting":
        cfg = isolated_env.project / ".skillpath" / "config.toml"
        cfg.write_text("[index]\nenabled = false\n")
    else:
        args.append("--no-index")
    script = tmp_path / "audit.py"
    script.write_text(AUDIT)
    for _ in range(2):
        data, opened = _list(script, isolated_env.project, env, *args)
        assert "one" in [s["name"] for s in data["skills"]]
        assert _ours(opened, isolated_env)
    assert not list(cache.glob("index/*.idx"))


def test_load_skills_uses_cache_dir_override(isolated_env: Any, tmp_path: Path) -> None:
    from skillpath import load_skills

    isolated_env.skill(".skillpath/skills", "one")
    env = dict(isolated_env.env, SKILLPATH_CACHE_DIR=str(tmp_path / "c"))
    result = load_skills(isolated_env.project, env=env)
    assert "one" in [s.name for s in result.skills]
    assert list((tmp_path / "c" / "index").glob("*.idx"))


def test_index_dir_rules(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert sw_index.index_dir({"SKILLPATH_CACHE_DIR": "/x/y"}, home) == Path("/x/y/index")
    if sys.platform != "darwin" and os.name == "posix":
        assert sw_index.index_dir({"XDG_CACHE_HOME": "/xdg"}, home) == Path("/xdg/skillpath/index")
        assert sw_index.index_dir({}, home) == home / ".cache" / "skillpath" / "index"


def test_well_formed_file_with_records_that_do_not_fit(tree: tuple[Path, Path]) -> None:
    """A file that passes every check but holds nonsense records: read the files instead."""
    root, cache = tree
    s = Scanner(root, cache)
    reference = s.scan()
    idx = DiscoveryIndex(cache)
    state = idx.root(os.path.abspath(root))
    for name in list(state.files):
        key, racy, records = state.files[name]
        state.files[name] = (key, racy, {b: ("not a mapping", 1, 2, ()) for b in records})
        state.seen[name] = state._entry(name)
    state.dirty = True
    idx.flush()
    assert s.scan() == reference
    assert s.stats["misses"] == 5
    assert s.scan() == reference and s.stats["hits"] == 5


def test_a_root_scanned_twice_in_one_load_reads_its_file_again(tree: tuple[Path, Path]) -> None:
    """Once a root is scanned and nothing of it is left to write, its entries are
    dropped (peak memory of a large load); a second scan of the same root in the same
    load (another provider, another build) reads the file again and is still served
    from it, and the file keeps the records of both scans."""
    root, cache = tree

    def load() -> tuple[Any, Any, DiscoveryIndex]:
        idx = DiscoveryIndex(cache, racy_window_ns=0)
        with sw_index.activate(idx):
            one = scan_skills_dir(root, SkillSource("claude", "project", root))
            two = scan_skills_dir(root, SkillSource("agents", "project", root))
        idx.flush()
        return snapshot(one), snapshot(two), idx

    cold = load()
    assert cold[2].stats.misses == 10
    one, two, idx = load()
    assert (one, two) == cold[:2]
    assert idx.stats.as_dict() == {
        "files_read": 2,
        "files_written": 0,
        "hits": 10,
        "listings_reused": 2,
        "misses": 0,
    }
    assert idx.root(os.path.abspath(root)).released is False  # read again on use
    # an edit between the loads: the first scan writes, the second still hits the rest
    write_skill(root, "skill-0", "Edited.")
    one, two, idx = load()
    assert idx.stats.misses == 2 and idx.stats.hits == 8
    assert one == snapshot(scan_skills_dir(root, SkillSource("claude", "project", root)))
    _one, _two, idx = load()
    assert idx.stats.misses == 0 and idx.stats.hits == 10
