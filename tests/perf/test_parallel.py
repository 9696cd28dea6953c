"""The second-core path of a load gives exactly what the sequential path gives.

A real corpus of skills of every kind (valid, broken YAML, repaired colons,
missing descriptions, CRLF, BOM, empty, binary, symlinks in and out of their
folder, a ``SKILL.md`` that is a directory, shadowed names …) is loaded with
the worker process and without it, and the two results are compared whole —
also when the worker dies, answers short or garbled data, answers the wrong
number of items, answers items of the wrong shape or never answers; when
another thread is running (no fork); below the threshold (no fork); with the
switch off; and through the CLI in a real subprocess. No timing is asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from skillpath import _parallel, load_skills
from skillpath import index as sw_index
from skillpath import scan as sw_scan
from skillpath.cli._common import dumps_json
from skillpath.index import DiscoveryIndex
from skillpath.model import LoadResult, SkillSource

from ..conftest import Env

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the worker process is used on Linux only"
)

FAULTS = ("exit", "short", "garbage", "wrong", "gap", "bad-items", "hang")
#: How long a worker that answers is waited for: only a hang ever reaches it, so
#: the outcome of a test never depends on how busy the machine is.
HANG = 600.0
SKILLPATH_EXE = Path(sys.executable).with_name("skillpath")

KINDS = (
    "ok",
    "folded",
    "bad-yaml",
    "colon",
    "no-description",
    "no-frontmatter",
    "crlf",
    "bom",
    "hidden",
    "conditional",
    "mismatch",
    "unicode",
    "metadata",
    "unclosed",
)


def _text(name: str, kind: str, i: int) -> bytes:
    desc = f"Skill {i} does {kind} things. Use when number {i} is needed."
    body = f"# {name}\n\nThe first paragraph of {name}.\n\nMore text.\n"
    head = ["---", f"name: {name}"]
    if kind == "folded":
        head += ["description: >-", f"  {desc}", "  and more"]
    elif kind == "bad-yaml":
        head += [f'description: "{desc}', "tags: [broken, yaml"]
    elif kind == "colon":
        head += [f"description: Use when: {desc}"]
    elif kind == "no-description":
        pass
    elif kind == "no-frontmatter":
        return body.encode()
    elif kind == "mismatch":
        head = ["---", f"name: other-{name}", f"description: {desc}"]
    elif kind == "unicode":
        head += [f"description: Résumé ✓ {desc} \u200b"]
    elif kind == "metadata":
        head += [f"description: {desc}", "metadata:", "  author: x", '  version: "1.0"']
        head += ["allowed-tools: Read Grep", "hide: maybe", "when_to_use: 12"]
    elif kind == "unclosed":
        return f"---\nname: {name}\ndescription: {desc}\n\n{body}".encode()
    else:
        head += [f"description: {desc}"]
    if kind == "hidden":
        head.append("disable-model-invocation: true")
    if kind == "conditional":
        head.append('paths: ["src/**/*.py"]')
    text = "\n".join([*head, "---", "", body])
    raw = text.encode()
    if kind == "crlf":
        raw = raw.replace(b"\n", b"\r\n")
    elif kind == "bom":
        raw = b"\xef\xbb\xbf" + raw
    return raw


def make_corpus(home: Path, project: Path, per_root: int) -> list[Path]:
    """``per_root`` skill folders of every kind in five roots, plus the odd cases."""
    roots = [
        project / ".skillpath" / "skills",
        project / ".claude" / "skills",
        project / ".agents" / "skills",
        home / ".claude" / "skills",
        home / ".agents" / "skills",
    ]
    outside = home / "secret.md"
    outside.write_text("---\nname: secret\ndescription: Not for you.\n---\n")
    for r, root in enumerate(roots):
        root.mkdir(parents=True, exist_ok=True)
        for i in range(per_root):
            kind = KINDS[(i + r) % len(KINDS)]
            # a few names repeat across roots (shadowed), the rest are unique
            name = f"shared-{i}" if i % 25 == 0 else f"skill-{r}-{i:04d}"
            folder = root / name
            folder.mkdir()
            (folder / "SKILL.md").write_bytes(_text(name, kind, i))
            if i % 7 == 3:  # an installer's record beside it: its origin in list --json
                (folder / ".openskills.json").write_text(
                    json.dumps({"source": f"someone/{name}", "installedAt": "2026-01-01"})
                )
            elif i == 5:  # a record that is a dangling link: there, but not readable
                (folder / ".openskills.json").symlink_to(folder / "nowhere.json")
        (root / "empty-file").mkdir()
        (root / "empty-file" / "SKILL.md").write_bytes(b"")
        (root / "binary").mkdir()
        (root / "binary" / "SKILL.md").write_bytes(b"---\nname: binary\x00\n---\n")
        (root / "no-skill-md").mkdir()
        (root / "no-skill-md" / "README.md").write_text("not a skill\n")
        (root / "dir-skill-md" / "SKILL.md").mkdir(parents=True)
        (root / "leaks").mkdir()
        (root / "leaks" / "SKILL.md").symlink_to(outside)
        (root / "dangling").mkdir()
        (root / "dangling" / "SKILL.md").symlink_to(root / "nowhere.md")
        (root / "linked-dir").symlink_to(root / f"skill-{r}-0001", target_is_directory=True)
        (root / "notes-on-skills.md").write_text("# a flat file\n")
    return roots


@pytest.fixture
def corpus(isolated_env: Env) -> Env:
    make_corpus(isolated_env.home, isolated_env.project, 60)
    return isolated_env


def load(env: Env, **extra: str) -> LoadResult:
    return load_skills(env.project, home=env.home, env={**env.env, **extra})


def sequential(env: Env, **extra: str) -> LoadResult:
    return load(env, SKILLPATH_NO_PARALLEL="1", **extra)


def same(a: LoadResult, b: LoadResult) -> None:
    """Equal as values, as ``list --json`` bytes, and in what equality skips."""
    assert a == b
    assert dumps_json(a.to_json()) == dumps_json(b.to_json())
    for x, y in zip(
        (*a.skills, *a.conditional, *(s.skill for s in a.shadowed)),
        (*b.skills, *b.conditional, *(s.skill for s in b.shadowed)),
        strict=True,
    ):
        assert x.file_id == y.file_id
        assert x.frontmatter.raw == y.frontmatter.raw
        assert str(x.path) == str(y.path)
    assert [(str(d.path), d.line, d.provider) for d in a.diagnostics] == [
        (str(d.path), d.line, d.provider) for d in b.diagnostics
    ]


@pytest.fixture
def no_threads() -> Iterator[None]:
    # a fork is only made while the process runs one thread; a thread left
    # behind by another test would make these tests prove nothing
    assert threading.active_count() == 1, threading.enumerate()
    yield


def children_of_this_process() -> set[int]:
    me = str(os.getpid())
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if stat.rsplit(")", 1)[1].split()[1] == me:
            found.add(int(entry))
    return found


def open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


# ----------------------------------------------------------------- whole loads


def test_parallel_load_equals_sequential(corpus: Env, no_threads: None) -> None:
    reference = sequential(corpus, SKILLPATH_NO_INDEX="1")
    assert len(reference.skills) > 200 and reference.shadowed and reference.diagnostics
    codes = {d.code for d in reference.diagnostics}
    assert {"frontmatter-yaml-error", "skill-file-outside", "broken-symlink"} <= codes
    assert {"binary-file", "unreadable-skill", "empty-skill-file", "not-a-skill"} <= codes
    fds = open_fds()
    with _parallel.session(corpus.env, min_items=8, timeout=HANG) as pool:
        assert pool is not None
        result = load(corpus, SKILLPATH_NO_INDEX="1")
    same(result, reference)
    assert pool.stats.forks == 1  # one worker for the whole load, across roots
    assert pool.stats.batches >= 5 and pool.stats.fallbacks == 0
    assert children_of_this_process() == set()  # reaped
    assert open_fds() == fds


def test_default_session_of_a_load_uses_the_worker(corpus: Env, no_threads: None) -> None:
    # load_skills opens its own session: SKILLPATH_PARALLEL_MIN brings the
    # threshold within reach of the corpus
    reference = sequential(corpus, SKILLPATH_NO_INDEX="1")
    fds = open_fds()
    same(load(corpus, SKILLPATH_NO_INDEX="1", SKILLPATH_PARALLEL_MIN="8"), reference)
    assert children_of_this_process() == set()
    assert open_fds() == fds


def test_parallel_load_with_the_index_equals_sequential(
    corpus: Env, tmp_path: Path, no_threads: None
) -> None:
    cache = {"SKILLPATH_CACHE_DIR": str(tmp_path / "cache"), "SKILLPATH_INDEX_RACY_MS": "0"}
    reference = sequential(corpus, SKILLPATH_NO_INDEX="1", **cache)
    assert not (tmp_path / "cache" / "index").exists()
    with _parallel.session(corpus.env, min_items=8, timeout=HANG) as pool:
        built = load(corpus, **cache)  # every file a miss: read in part by the worker
    assert pool is not None and pool.stats.batches >= 5
    same(built, reference)
    with _parallel.session(corpus.env, min_items=8, timeout=HANG) as pool:
        warm = load(corpus, **cache)  # every file a hit: nothing to read
    assert pool is not None and pool.stats.forks == 0
    same(warm, reference)
    # some files change: only they are read again, by both processes
    for root in (corpus.project / ".claude" / "skills", corpus.home / ".agents" / "skills"):
        for name in _names(root)[:30]:
            skill = root / name / "SKILL.md"
            if skill.is_file() and not skill.is_symlink():
                skill.write_bytes(skill.read_bytes().replace(b"Skill", b"Edited skill"))
    with _parallel.session(corpus.env, min_items=8, timeout=HANG) as pool:
        edited = load(corpus, **cache)
    assert pool is not None and pool.stats.batches >= 2
    same(edited, sequential(corpus, SKILLPATH_NO_INDEX="1", **cache))


@pytest.mark.parametrize("fault", FAULTS)
def test_failing_worker_falls_back_to_the_same_result(
    corpus: Env, fault: str, no_threads: None
) -> None:
    reference = sequential(corpus, SKILLPATH_NO_INDEX="1")
    fds = open_fds()
    with _parallel.session(corpus.env, min_items=8, timeout=0.3, fault=fault) as pool:
        result = load(corpus, SKILLPATH_NO_INDEX="1")
    same(result, reference)
    assert pool is not None and pool.stats.forks == 1
    if fault == "bad-items":
        # the answers arrived whole; each value that is not a record is read here
        assert pool.stats.fallbacks == 0
        assert pool.stats.items_retried > 0 and pool.stats.items_remote == 0
    elif fault == "gap":
        # a well-formed answer that does not cover every item: the rest is read here
        assert pool.stats.fallbacks == 0 and pool.stats.batches >= 5
    else:
        # one failure: the worker is stopped and every later root read here
        assert pool.stats.fallbacks == 1 and pool.stats.batches == 0
    assert children_of_this_process() == set()
    assert open_fds() == fds


def test_no_fork_while_another_thread_runs(corpus: Env) -> None:
    reference = sequential(corpus, SKILLPATH_NO_INDEX="1")
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        with _parallel.session(corpus.env, min_items=8, timeout=HANG) as pool:
            result = load(corpus, SKILLPATH_NO_INDEX="1")
    finally:
        stop.set()
        thread.join()
    same(result, reference)
    assert pool is not None and pool.stats.forks == 0 and pool.stats.fallbacks == 1


def test_no_fork_on_a_single_cpu(corpus: Env) -> None:
    # a real process pinned to one CPU: the same result, and no worker
    script = (
        "import os, sys, json\n"
        "from skillpath import _parallel, load_skills\n"
        "from skillpath.cli._common import dumps_json\n"
        "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})\n"
        "with _parallel.session(min_items=8) as pool:\n"
        "    res = load_skills(sys.argv[1])\n"
        "print(json.dumps([pool.stats.forks, dumps_json(res.to_json())]))\n"
    )
    env = {**corpus.env, "SKILLPATH_NO_INDEX": "1"}
    proc = subprocess.run(
        [sys.executable, "-c", script, str(corpus.project)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    forks, text = json.loads(proc.stdout)
    assert forks == 0
    assert text == dumps_json(sequential(corpus, SKILLPATH_NO_INDEX="1").to_json())


def test_no_fork_below_the_threshold(corpus: Env, no_threads: None) -> None:
    reference = sequential(corpus, SKILLPATH_NO_INDEX="1")
    with _parallel.session(corpus.env, timeout=HANG) as pool:  # the default threshold
        result = load(corpus, SKILLPATH_NO_INDEX="1")
    same(result, reference)
    assert pool is not None and pool.min_items == _parallel.MIN_ITEMS > 60
    assert pool.stats.forks == 0


def test_once_forked_smaller_roots_use_the_worker_too(isolated_env: Env, no_threads: None) -> None:
    # the first root scanned (opencode's) forks the worker; later roots of a
    # quarter of the threshold are worth handing it, smaller ones are not
    sizes = {".opencode/skills": 120, ".skillpath/skills": 40, ".claude/skills": 30}
    sizes[".agents/skills"] = 10
    for rel, count in sizes.items():
        for i in range(count):
            isolated_env.skill(rel, f"{rel.split('/')[0].strip('.')}-{i:03d}", f"Skill {i}.")
    reference = sequential(isolated_env, SKILLPATH_NO_INDEX="1")
    with _parallel.session(isolated_env.env, min_items=100, timeout=HANG) as pool:
        result = load(isolated_env, SKILLPATH_NO_INDEX="1")
    same(result, reference)
    assert pool is not None and pool.stats.forks == 1
    assert pool.stats.batches == 3  # 120, 40 and 30; not 10


def test_switch_turns_the_worker_off(corpus: Env) -> None:
    with _parallel.session({"SKILLPATH_NO_PARALLEL": "1"}, min_items=2) as pool:
        assert pool is None and _parallel.current() is None
    assert _parallel.parallel_enabled({"SKILLPATH_NO_PARALLEL": "yes"}) is False
    assert _parallel.parallel_enabled({}) is True


def test_large_root_at_the_default_threshold(isolated_env: Env, no_threads: None) -> None:
    root = isolated_env.project / ".claude" / "skills"
    for i in range(_parallel.MIN_ITEMS + 40):
        isolated_env.skill(root, f"s-{i:04d}", f"Skill {i}.")
    reference = sequential(isolated_env, SKILLPATH_NO_INDEX="1")
    with _parallel.session(isolated_env.env, timeout=HANG) as pool:
        result = load(isolated_env, SKILLPATH_NO_INDEX="1")
    same(result, reference)
    assert pool is not None and pool.stats.forks == 1 and pool.stats.batches == 1


# ----------------------------------------------------------------- the pool itself


def _names(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.is_symlink())


@pytest.mark.parametrize("fault", [None, *FAULTS])
def test_map_gives_what_the_parent_alone_gives(
    corpus: Env, fault: str | None, no_threads: None
) -> None:
    root = corpus.project / ".claude" / "skills"
    src = SkillSource("claude", "project", root)
    prefix = str(root) + os.sep
    names = _names(root)
    spec = (str(root), "claude", "project", "disk", False)

    def local(name: str) -> Any:
        return (*sw_scan._read_item(root, prefix, name, src, False), None, None)

    def slow(name: str) -> Any:
        # this process goes on once the worker has taken an item of its own, so
        # both take part however the two are scheduled
        for _ in range(600_000):  # a hang guard (10 min), never reached by a live worker
            counters = pool._counters if pool is not None else None
            if fault is not None or counters is None or counters[1] < len(names):
                break
            time.sleep(0.001)
        return local(name)

    expected = [local(name) for name in names]
    with _parallel.session(
        {}, min_items=4, timeout=0.3 if fault == "hang" else HANG, fault=fault
    ) as pool:
        assert pool is not None
        got = pool.map(
            sw_scan._remote_reader,
            spec,
            names,
            local=slow,
            accept=lambda value, name: (*sw_scan._accept_item(value), None, None),
        )
    if fault is None:
        assert pool.stats.items_remote > 0 and pool.stats.fallbacks == 0
    elif fault not in ("bad-items", "gap"):
        assert pool.stats.fallbacks == 1
    assert len(got) == len(expected)
    for (record, file_id, *_), (want, want_id, *_) in zip(got, expected, strict=True):
        assert file_id == want_id
        assert (record is None) == (want is None)
        if record is not None:
            assert record[:3] == want[:3]
            assert [sw_scan._diagnostic(d) for d in record[3]] == want[3]


@pytest.mark.parametrize("indexed", [False, True])
def test_relative_root_keeps_the_text_of_its_paths(
    isolated_env: Env,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    indexed: bool,
    no_threads: None,
) -> None:
    # a root given as "." makes paths whose text ("./x/SKILL.md") is not the
    # normal form pathlib would print; diagnostics read back from the worker
    # (or the index) must keep that text
    root = isolated_env.project / "skills"
    for i in range(30):
        isolated_env.skill(root, f"s-{i:02d}", None if i % 3 else "Has one.", body="")
    monkeypatch.chdir(root)
    src = SkillSource("custom", "user", Path("."))

    def scan() -> Any:
        res = sw_scan.scan_skills_dir(".", src, require_description=True)
        return res.skills, [(d.code, str(d.path)) for d in res.diagnostics]

    reference = scan()
    assert reference[1] and all(p.startswith("./") for _code, p in reference[1])
    for _ in range(2):  # with the index: built, then read back
        index = DiscoveryIndex(tmp_path / "cache", racy_window_ns=0) if indexed else None
        with sw_index.activate(index), _parallel.session({}, min_items=4, timeout=HANG) as pool:
            assert scan() == reference
        assert pool is not None and pool.stats.forks == (0 if indexed and _ else 1)
        if index is not None:
            index.flush()


def test_remote_must_be_found_by_name(corpus: Env, no_threads: None) -> None:
    root = corpus.project / ".claude" / "skills"
    names = _names(root)
    with _parallel.session({}, min_items=4, timeout=HANG) as pool:
        assert pool is not None
        got = pool.map(
            lambda spec: len,  # not reachable by module and name from the worker
            None,
            names,
            local=len,
            accept=lambda value, item: value,
        )
    assert got == [len(n) for n in names]
    assert pool.stats.forks == 0 and pool.stats.fallbacks == 1


def test_a_batch_started_inside_a_batch_is_computed_here(corpus: Env, no_threads: None) -> None:
    root = corpus.project / ".claude" / "skills"
    src = SkillSource("claude", "project", root)
    prefix = str(root) + os.sep
    names = _names(root)
    spec = (str(root), "claude", "project", "disk", False)
    with _parallel.session({}, min_items=4, timeout=HANG) as pool:
        assert pool is not None

        def local(name: str) -> Any:
            # a nested batch (the worker is busy with the outer one)
            inner = pool.map(sw_scan._remote_reader, spec, names[:8], local=plain, accept=take)
            assert [r[0][1] if r[0] else None for r in inner] == [
                r[0][1] if r[0] else None for r in map(plain, names[:8])
            ]
            return plain(name)

        def plain(name: str) -> Any:
            return (*sw_scan._read_item(root, prefix, name, src, False), None, None)

        def take(value: Any, name: str) -> Any:
            return (*sw_scan._accept_item(value), None, None)

        got = pool.map(sw_scan._remote_reader, spec, names, local=local, accept=take)
    assert [r[1] for r in got] == [plain(n)[1] for n in names]
    assert pool.stats.batches == 1 and pool.stats.fallbacks == 0


def test_nested_sessions_share_one_pool() -> None:
    with _parallel.session({}, min_items=3, timeout=HANG) as outer, _parallel.session({}) as inner:
        assert inner is outer and _parallel.current() is outer
    assert _parallel.current() is None


# ----------------------------------------------------------------- the CLI


@pytest.mark.parametrize("index", ["off", "on"])
def test_cli_output_is_byte_identical(corpus: Env, tmp_path: Path, index: str) -> None:
    env = {**corpus.env, "SKILLPATH_CACHE_DIR": str(tmp_path / "cache")}
    if index == "off":
        env["SKILLPATH_NO_INDEX"] = "1"

    def run(**extra: str) -> bytes:
        proc = subprocess.run(
            [str(SKILLPATH_EXE), "list", "--json"],
            cwd=corpus.project,
            env={**env, **extra},
            capture_output=True,
            check=True,
        )
        return proc.stdout

    reference = run(SKILLPATH_NO_PARALLEL="1", SKILLPATH_NO_INDEX="1")
    # the installers' records were looked for alongside the reads, and found
    assert reference.count(b'"kind": "openskills"') >= 5 * (60 // 7)
    assert run(SKILLPATH_PARALLEL_MIN="8") == reference
    assert run(SKILLPATH_PARALLEL_MIN="8") == reference  # warm, when the index is on


@pytest.mark.parametrize("parallel", [True, False])
def test_files_looked_for_beside_every_skill_read_ahead(
    corpus: Env, no_threads: None, parallel: bool
) -> None:
    switches = {} if parallel else {"SKILLPATH_NO_PARALLEL": "1"}
    with sw_scan.looking_for(".openskills.json") as found:
        result = load(corpus, SKILLPATH_NO_INDEX="1", SKILLPATH_PARALLEL_MIN="8", **switches)
    same(result, sequential(corpus, SKILLPATH_NO_INDEX="1"))
    if not parallel:
        assert found == {}  # nothing read ahead: each is looked at when it is needed
        return
    folders = {  # every plain folder of a large root (a linked one is resolved, not read ahead)
        str(s.base_dir)
        for s in result.skills
        if s.source.provider == "claude" and not os.path.islink(str(s.base_dir))
    }
    assert folders and folders <= set(found)
    for folder, there in found.items():
        assert there == os.path.lexists(os.path.join(folder, ".openskills.json")), folder
    assert sum(found.values()) >= 2 * (60 // 7)


def test_a_list_keeps_the_scans_leftovers_only_while_it_loads(corpus: Env) -> None:
    store: list[object] = []
    with sw_scan.keeping_until_exit(store):
        inside = load(corpus, SKILLPATH_NO_INDEX="1")
    kept = len(store)
    assert kept >= 5  # one (read ahead, listing) pair per root scanned
    after = load(corpus, SKILLPATH_NO_INDEX="1")
    assert len(store) == kept and sw_scan._SPARE is None  # a later load keeps nothing
    same(inside, after)
