"""scan_skills_dir: one level deep, dot entries skipped, symlinks followed, errors reported."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from skillpath import SkillSource, load_skills_from_dir, scan_skills_dir
from skillpath.scan import check_name


def _write(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / "SKILL.md"
    p.write_text(text, encoding="utf-8")
    return p


SRC = SkillSource("test", "project")


def test_one_level_sorted_dot_skipped_nested_reported(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    _write(root / "b", "---\ndescription: B\n---\n")
    _write(root / "a", "---\ndescription: A\n---\n")
    _write(root / ".hidden", "---\ndescription: H\n---\n")
    _write(root / "group" / "inner", "---\ndescription: nested\n---\n")
    (root / "notes.txt").write_text("x")
    res = scan_skills_dir(root, SRC, priority=7)
    assert [s.name for s in res.skills] == ["a", "b"]
    assert all(s.priority == 7 for s in res.skills)
    assert res.root.exists and res.root.count == 2
    nested = {d.path: d.message for d in res.diagnostics if d.code == "nested-skills-ignored"}
    assert set(nested) == {root / ".hidden" / "SKILL.md", root / "group" / "inner" / "SKILL.md"}
    assert "rename the folder without the leading dot" in nested[root / ".hidden" / "SKILL.md"]
    fix = f'add "{root / "group"}" to skills.custom_directories'
    assert "'group/inner' is 2 levels below" in nested[root / "group" / "inner" / "SKILL.md"]
    assert fix in nested[root / "group" / "inner" / "SKILL.md"]


def test_name_defaults_to_directory_and_frontmatter_name_wins(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    _write(root / "dir-name", "---\ndescription: x\n---\n")
    _write(root / "other", "---\nname: custom\ndescription: x\n---\n")
    res = scan_skills_dir(root, SRC)
    assert sorted(s.name for s in res.skills) == ["custom", "dir-name"]
    assert any(d.code == "name-mismatch" for d in res.diagnostics)


def test_symlinked_skill_dir_is_followed(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # project skills may link within their repository
    real = tmp_path / "elsewhere" / "linked"
    _write(real, "---\ndescription: via link\n---\n")
    root = tmp_path / "skills"
    root.mkdir()
    os.symlink(real, root / "linked")
    (skill,) = scan_skills_dir(root, SRC).skills
    assert skill.name == "linked"
    assert skill.path == root / "linked" / "SKILL.md"
    st = os.stat(real / "SKILL.md")
    assert skill.file_id == (st.st_dev, st.st_ino)


def test_dangling_symlink_and_loop_are_diagnostics(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    _write(root / "ok", "---\ndescription: ok\n---\n")
    os.symlink(tmp_path / "missing", root / "dangling")
    os.symlink(root / "loop", root / "loop")
    res = scan_skills_dir(root, SRC)
    assert [s.name for s in res.skills] == ["ok"]
    codes = {(d.code, d.path.name) for d in res.diagnostics if d.path}
    assert ("broken-symlink", "dangling") in codes
    assert ("broken-symlink", "loop") in codes


def test_missing_root_is_silent_and_file_root_is_reported(tmp_path: Path) -> None:
    res = scan_skills_dir(tmp_path / "nope", SRC)
    assert res.skills == () and res.diagnostics == () and not res.root.exists
    f = tmp_path / "file"
    f.write_text("x")
    res = scan_skills_dir(f, SRC)
    assert res.diagnostics[0].code == "unreadable-root"
    assert "not a directory" in res.diagnostics[0].message


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read anything")
def test_unreadable_root_is_reported(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    _write(root / "a", "---\ndescription: A\n---\n")
    root.chmod(0)
    try:
        res = scan_skills_dir(root, SRC)
    finally:
        root.chmod(0o755)
    assert res.diagnostics[0].code == "unreadable-root"
    assert "permission denied" in res.diagnostics[0].message


def test_require_description(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    _write(root / "nodesc", "---\nname: nodesc\n---\nFirst paragraph\nof the body.\n\nSecond.\n")
    res = scan_skills_dir(root, SRC, require_description=True)
    assert res.skills == ()
    assert res.diagnostics[0].code == "missing-description"
    assert res.diagnostics[0].path == root / "nodesc" / "SKILL.md"
    res = scan_skills_dir(root, SRC, require_description=False)
    assert res.skills[0].description == "First paragraph of the body."


def test_skill_md_that_is_a_directory_or_fifo(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    (root / "dirskill" / "SKILL.md").mkdir(parents=True)
    (root / "fifo").mkdir()
    os.mkfifo(root / "fifo" / "SKILL.md")
    _write(root / "good", "---\ndescription: fine\n---\n")
    res = scan_skills_dir(root, SRC)
    assert [s.name for s in res.skills] == ["good"]
    bad = {d.path.parent.name for d in res.diagnostics if d.code == "unreadable-skill"}
    assert bad == {"dirskill", "fifo"}


def test_body_is_lazy_and_cached(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    p = _write(root / "a", "---\ndescription: A\n---\nHello body\n")
    (skill,) = scan_skills_dir(root, SRC).skills
    p.write_text("---\ndescription: A\n---\nChanged before first access\n")
    assert skill.body == "Changed before first access\n"
    p.write_text("---\ndescription: A\n---\nChanged again\n")
    assert skill.body == "Changed before first access\n"


@pytest.mark.parametrize(
    "name", ["", ".", "..", "a/b", "a\\b", "a\x00b", " lead", "rtl\u202eevil", "zero\u200bwidth"]
)
def test_bad_names_are_refused(name: str) -> None:
    assert check_name(name) is not None


def test_invalid_frontmatter_name_is_a_diagnostic(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    _write(root / "a", "---\nname: ../escape\ndescription: x\n---\n")
    res = scan_skills_dir(root, SRC)
    assert res.skills == ()
    assert res.diagnostics[0].code == "invalid-name"


def test_load_skills_from_dir(tmp_path: Path) -> None:
    _write(tmp_path / "a", "---\ndescription: A\n---\n")
    _write(tmp_path / "b", "---\nname: b\n---\n")
    skills, diags = load_skills_from_dir(tmp_path)
    assert [s.name for s in skills] == ["a"]
    assert skills[0].source.provider == "custom"
    assert diags[0].code == "missing-description"


@pytest.mark.parametrize("spelling", ["plain", "trailing-slash", "dot-segments"])
def test_scanned_paths_read_as_pathlib_builds_them(tmp_path: Path, spelling: str) -> None:
    root = tmp_path / "skills"
    _write(root / "one", "---\ndescription: one\n---\n")
    given = {
        "plain": str(root),
        "trailing-slash": str(root) + os.sep,
        "dot-segments": str(tmp_path / "." / "skills") + os.sep + os.sep,
    }[spelling]
    (skill,) = scan_skills_dir(given, SRC).skills
    for p, expected in ((skill.path, root / "one" / "SKILL.md"), (skill.base_dir, root / "one")):
        assert str(p) == os.fspath(p) == str(Path(str(p))) == str(expected)
        assert p == expected and hash(p) == hash(expected)
        assert p.parent == expected.parent and p.name == expected.name
