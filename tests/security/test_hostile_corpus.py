"""The hostile corpus: every bad SKILL.md gives a diagnostic with path and reason,
the good skills in the same roots still load, and nothing hangs.

Checked-in texts live in ``fixtures/corpus/<case>/SKILL.md``. Entries that
cannot be checked in (FIFOs, 50 MB files, symlink loops, unreadable folders, a
root that is a file) are made at test time. Scans that could hang run in a
subprocess with a hard timeout.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from skillpath import SkillSource, scan_skills_dir
from skillpath.frontmatter import MAX_FILE_BYTES, MAX_FRONTMATTER_BYTES, read_head

from .conftest import run_python

CORPUS = Path(__file__).parent / "fixtures" / "corpus"
GOOD = {"good-alpha", "good-crlf-bom", "pdf-tools"}

# case -> (loaded when a description is optional, loaded when required,
#          diagnostic code that must name the case's SKILL.md, its level)
EXPECTED: dict[str, tuple[bool, bool, str | None, str | None]] = {
    "good-alpha": (True, True, None, None),
    "good-crlf-bom": (True, True, None, None),
    "pdf-tools": (True, True, None, None),
    "empty": (True, False, "empty-skill-file", "warning"),
    "binary": (False, False, "binary-file", "error"),
    "utf16": (False, False, "binary-file", "error"),
    "latin1": (True, True, "not-utf8", "warning"),
    "unclosed": (True, False, "frontmatter-unclosed", "warning"),
    "deep-nesting": (False, False, "frontmatter-too-complex", "error"),
    "deep-block": (False, False, "frontmatter-too-complex", "error"),
    "billion-laughs": (False, False, "frontmatter-too-complex", "error"),
    # merges are de-duplicated: the document is small once parsed, and loads
    "merge-bomb": (True, True, None, None),
    "python-tag": (True, True, "frontmatter-yaml-error", "warning"),
    "frontmatter-list": (True, False, "frontmatter-not-mapping", "warning"),
    "description-mapping": (True, False, "frontmatter-bad-value", "warning"),
    "name-traversal": (False, False, "invalid-name", "error"),
    "name-absolute": (False, False, "invalid-name", "error"),
    "name-backslash": (False, False, "invalid-name", "error"),
    "name-nul": (False, False, "invalid-name", "error"),
    "name-dotdot": (False, False, "invalid-name", "error"),
    "name-newline": (False, False, "invalid-name", "error"),
    "name-rtl": (False, False, "invalid-name", "error"),
    "name-zero-width": (False, False, "invalid-name", "error"),
    "name-too-long": (False, False, "invalid-name", "error"),
    "lookalike": (True, True, "confusable-name", "warning"),
    "desc-invisible": (True, True, "invisible-characters", "warning"),
    "desc-injection": (True, True, "suspicious-description", "warning"),
    "desc-html-comment": (True, True, "suspicious-description", "warning"),
    "desc-close-tag": (True, True, "suspicious-description", "warning"),
}

SRC = SkillSource("corpus", "project")


def test_every_checked_in_case_has_an_expectation() -> None:
    cases = {p.name for p in CORPUS.iterdir() if p.is_dir()}
    assert cases == set(EXPECTED)


@pytest.mark.parametrize("required", [False, True], ids=["description-optional", "required"])
def test_checked_in_corpus(required: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # where the python-tag case would drop its marker
    start = time.perf_counter()
    res = scan_skills_dir(CORPUS, SRC, require_description=required)
    assert time.perf_counter() - start < 5
    loaded = {s.path.parent.name for s in res.skills if s.path is not None}
    for case, (optional_ok, required_ok, code, level) in EXPECTED.items():
        should_load = required_ok if required else optional_ok
        assert (case in loaded) == should_load, case
        mine = [d for d in res.diagnostics if d.path == CORPUS / case / "SKILL.md"]
        if code is not None:
            hits = [d for d in mine if d.code == code]
            assert hits, (case, [d.code for d in mine])
            assert hits[0].level == level and hits[0].message
            assert hits[0].provider == "corpus"
        if not should_load:
            # a skipped skill always says why, at error level
            assert any(d.level == "error" for d in mine), (case, mine)
    assert loaded >= GOOD
    assert not (tmp_path / "SW_PWNED_BY_YAML").exists()
    names = {s.name for s in res.skills}
    assert "pdf-tools" in names and "pdf-t\u043e\u043els" in names  # both load; the fake is flagged
    for s in res.skills:
        json.dumps(s.frontmatter.raw, allow_nan=False)


def test_python_tags_are_data_not_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = scan_skills_dir(CORPUS, SRC)
    (skill,) = [s for s in res.skills if s.path and s.path.parent.name == "python-tag"]
    assert skill.description == "tries to run code while parsing"
    assert isinstance(skill.frontmatter.extra["x"], str)
    assert not (tmp_path / "SW_PWNED_BY_YAML").exists()


# -- entries made at test time, scanned in a subprocess with a timeout -------

SCAN_SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from skillpath import SkillSource, scan_skills_dir
    out = {}
    for spec in sys.argv[1:]:
        root, level, req = spec.split("|")
        t0 = time.perf_counter()
        res = scan_skills_dir(Path(root), SkillSource("t", level), require_description=req == "1")
        out[spec] = {
            "seconds": time.perf_counter() - t0,
            "skills": {str(s.path): s.name for s in res.skills},
            "diagnostics": [
                [d.level, d.code, str(d.path) if d.path else None, d.message]
                for d in res.diagnostics
            ],
        }
    # VmHWM is this process's own peak (ru_maxrss would count the parent's
    # resident set inherited through fork+exec)
    status = Path("/proc/self/status").read_text()
    out["maxrss_kb"] = int(
        next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))
    )
    print(json.dumps(out))
    """
)


def _scan(*specs: str, timeout: float = 60, prefix: list[str] | None = None) -> dict:
    argv = [*(prefix or [sys.executable]), "-c", SCAN_SCRIPT, *specs]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _skill(folder: Path, text: str = "---\ndescription: fine\n---\nBody.\n") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / "SKILL.md"
    p.write_text(text)
    return p


def _by_path(result: dict, path: Path) -> list[tuple[str, str, str]]:
    return [(lvl, code, msg) for lvl, code, p, msg in result["diagnostics"] if p == str(path)]


def test_special_files_links_and_loops(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    shutil.copytree(CORPUS, root)
    secret = tmp_path / "secret.txt"
    secret.write_text("-----BEGIN PRIVATE KEY-----\nAAAA\n")
    (root / "fifo").mkdir()
    os.mkfifo(root / "fifo" / "SKILL.md")
    (root / "dir-skill-md" / "SKILL.md").mkdir(parents=True)
    (root / "md-loop").mkdir()
    os.symlink("SKILL.md", root / "md-loop" / "SKILL.md")
    (root / "md-dangling").mkdir()
    os.symlink(tmp_path / "gone.md", root / "md-dangling" / "SKILL.md")
    (root / "md-outside").mkdir()
    os.symlink(secret, root / "md-outside" / "SKILL.md")
    (root / "md-inside").mkdir()
    (root / "md-inside" / "real.md").write_text("---\ndescription: linked inside\n---\n")
    os.symlink("real.md", root / "md-inside" / "SKILL.md")
    os.symlink(root / "entry-loop", root / "entry-loop")
    os.symlink(tmp_path / "nowhere", root / "entry-dangling")
    os.symlink("entry-loop-b", root / "entry-loop-a")
    os.symlink("entry-loop-a", root / "entry-loop-b")
    os.mkfifo(root / "stray-fifo")
    big_fm = "---\ndescription: huge\nx: '" + "a" * (MAX_FRONTMATTER_BYTES + 10) + "'\n---\n"
    _skill(root / "huge-frontmatter", big_fm)

    project = _scan(f"{root}|project|0", f"{root}|user|0")
    res = project[f"{root}|project|0"]
    user = project[f"{root}|user|0"]
    assert res["seconds"] < 10
    loaded = {Path(p).parent.name for p in res["skills"]}
    assert loaded >= GOOD and "md-inside" in loaded
    expect = {
        "fifo": ("error", "unreadable-skill", "not a regular file"),
        "dir-skill-md": ("error", "unreadable-skill", "SKILL.md is a directory"),
        "md-loop": ("error", "unreadable-skill", "symlink loop"),
        "md-dangling": ("error", "broken-symlink", "dangling"),
        "md-outside": ("error", "skill-file-outside", "outside its folder"),
        "huge-frontmatter": ("error", "frontmatter-too-large", "limit"),
    }
    for case, (level, code, words) in expect.items():
        diags = _by_path(res, root / case / "SKILL.md")
        assert any(lvl == level and c == code and words in m for lvl, c, m in diags), (case, diags)
        assert case not in loaded
    for entry, words in [
        ("entry-loop", "symlink loop"),
        ("entry-loop-a", "symlink loop"),
        ("entry-dangling", "dangling symlink"),
    ]:
        diags = _by_path(res, root / entry)
        assert any(c == "broken-symlink" and words in m for _lvl, c, m in diags), (entry, diags)
    # the secret never becomes a skill, a description or a listing entry
    assert "-----BEGIN" not in json.dumps(res)
    # a user's own folder may link SKILL.md elsewhere: loaded, but reported
    assert str(root / "md-outside" / "SKILL.md") in user["skills"]
    assert any(
        lvl == "warning" and c == "skill-file-outside"
        for lvl, c, _m in _by_path(user, root / "md-outside" / "SKILL.md")
    )


@pytest.mark.parametrize(
    "kind", ["file", "fifo", "loop", "dangling", "device"], ids=lambda k: f"root-is-{k}"
)
def test_a_root_that_is_not_a_directory(tmp_path: Path, kind: str) -> None:
    root = tmp_path / "root"
    if kind == "file":
        root.write_text("not a folder")
    elif kind == "fifo":
        os.mkfifo(root)
    elif kind == "loop":
        os.symlink(root, root)
    elif kind == "dangling":
        os.symlink(tmp_path / "nowhere", root)
    else:
        os.symlink("/dev/null", root)
    res = _scan(f"{root}|project|0", timeout=30)[f"{root}|project|0"]
    assert res["skills"] == {}
    if kind == "dangling":
        assert res["diagnostics"] == []  # a missing root is not an error
        return
    ((level, code, path, message),) = res["diagnostics"]
    assert (level, code, path) == ("error", "unreadable-root", str(root))
    assert ("symlink loop" if kind == "loop" else "not a directory") in message


# -- 50 MB files: only the head is read for listing --------------------------

_FIFTY_MB = 50 * 1024 * 1024


def _write_big(path: Path, head: bytes, filler: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    chunk = filler * (1024 * 1024 // len(filler))
    with open(path, "wb") as f:
        f.write(head)
        left = _FIFTY_MB - len(head)
        while left > 0:
            f.write(chunk[:left])
            left -= len(chunk)


def test_fifty_megabyte_files_are_not_read_whole(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    _skill(root / "good-alpha", "---\ndescription: fine\n---\n")
    _write_big(root / "big-body" / "SKILL.md", b"---\ndescription: big\n---\n", b"line\n")
    _write_big(root / "big-no-fm" / "SKILL.md", b"", b"x")
    _write_big(root / "big-unclosed" / "SKILL.md", b"---\ndescription: never\n", b"k: v\n")
    _write_big(root / "big-one-line" / "SKILL.md", b"---", b"-")
    baseline = _scan(f"{tmp_path / 'none'}|user|0")["maxrss_kb"]
    out = _scan(f"{root}|user|0")
    res = out[f"{root}|user|0"]
    assert res["seconds"] < 5
    # four 50 MB files scanned: memory grows by far less than one of them
    assert out["maxrss_kb"] - baseline < 20 * 1024, (baseline, out["maxrss_kb"])
    assert set(res["skills"].values()) >= {"good-alpha", "big-body", "big-no-fm"}
    for case in ("big-body", "big-no-fm", "big-unclosed", "big-one-line"):
        head, st_ = read_head(root / case / "SKILL.md")
        assert st_.st_size == _FIFTY_MB
        assert len(head) <= MAX_FRONTMATTER_BYTES + 8192 + 65536
    unclosed = _by_path(res, root / "big-unclosed" / "SKILL.md")
    assert any(c == "frontmatter-unclosed" for _lvl, c, _m in unclosed)


def test_fifty_megabyte_body_is_capped_when_read(tmp_path: Path) -> None:
    path = tmp_path / "s" / "big" / "SKILL.md"
    _write_big(path, b"---\ndescription: big\n---\n", b"line\n")
    code = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from skillpath import SkillSource, scan_skills_dir
        (s,) = scan_skills_dir(Path({str(path.parent.parent)!r}), SkillSource("t", "user")).skills
        body = s.body
        # VmHWM is this process's own peak; ru_maxrss would include the parent's
        # resident set inherited through fork+exec
        status = Path("/proc/self/status").read_text()
        hwm = next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))
        print(len(body), hwm)
        """
    )
    proc = run_python(code, timeout=60)
    assert proc.returncode == 0, proc.stderr
    length, rss_kb = map(int, proc.stdout.split())
    assert length <= MAX_FILE_BYTES
    assert rss_kb < 200 * 1024


# -- unreadable folders: as an unprivileged user, and as root ----------------


def _unreadable_tree(base: Path) -> Path:
    root = base / "skills"
    _skill(root / "good-alpha")
    _skill(root / "locked-dir")
    (root / "locked-dir").chmod(0)
    _skill(root / "locked-file").chmod(0)
    _skill(root / "no-exec")
    (root / "no-exec").chmod(0o644)  # readable listing, not traversable
    return root


def test_unreadable_entries_as_unprivileged_user(
    shared_tmp: Path, nobody_python: list[str]
) -> None:
    root = _unreadable_tree(shared_tmp)
    res = _scan(f"{root}|project|0", prefix=nobody_python)[f"{root}|project|0"]
    assert set(res["skills"].values()) == {"good-alpha"}
    for case in ("locked-dir", "locked-file", "no-exec"):
        diags = _by_path(res, root / case / "SKILL.md")
        assert any(
            lvl == "error" and c == "unreadable-skill" and "ermission denied" in m
            for lvl, c, m in diags
        ), (case, res["diagnostics"])
    root.chmod(0)
    res = _scan(f"{root}|project|0", prefix=nobody_python)[f"{root}|project|0"]
    ((level, code, path, message),) = res["diagnostics"]
    assert (level, code, path) == ("error", "unreadable-root", str(root))
    assert "permission denied" in message


@pytest.mark.skipif(os.geteuid() != 0, reason="root only")
def test_unreadable_entries_as_root_still_load(tmp_path: Path) -> None:
    # root's DAC override reads mode-000 files: the observed result is a load
    root = _unreadable_tree(tmp_path)
    res = _scan(f"{root}|project|0")[f"{root}|project|0"]
    assert set(res["skills"].values()) == {"good-alpha", "locked-dir", "locked-file", "no-exec"}


@pytest.mark.skipif(os.geteuid() == 0, reason="covered by the unprivileged subprocess test")
def test_unreadable_entries_as_this_user(tmp_path: Path) -> None:
    root = _unreadable_tree(tmp_path)
    try:
        res = _scan(f"{root}|project|0")[f"{root}|project|0"]
    finally:
        for p in root.iterdir():
            p.chmod(0o755)
    assert set(res["skills"].values()) == {"good-alpha"}
