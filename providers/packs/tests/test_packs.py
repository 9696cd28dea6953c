"""Provider packs: listing from real distributions, lazy extraction, refusals, diagnostics."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from importlib import resources
from pathlib import Path

import pytest
import skillpath_packs
from skillpath import load_skills
from skillpath.extract import MANIFEST, ensure_extracted, materialize, verify_tree
from skillpath.safety import ContainmentError
from skillpath.session import SkillSession
from skillpath_packs import find_pack, load_packs

from .conftest import Link, World, skill_md, unique


def written(cache: Path) -> list[str]:
    """Files and dirs under the cache, except the discovery index (disk roots only)."""
    if not cache.exists():
        return []
    return sorted(
        str(p.relative_to(cache))
        for p in cache.rglob("*")
        if p.relative_to(cache).parts[0] != "index"
    )


def codes(diags, code):  # type: ignore[no-untyped-def]
    return [d for d in diags if d.code == code]


def test_provider_entry_point_and_priority() -> None:
    from importlib.metadata import entry_points

    (ep,) = [e for e in entry_points(group="skillpath") if e.name == "packs"]
    assert ep.value == "skillpath_packs"
    # late, priority 10: after every hand-written skill, before managed (5)
    assert skillpath_packs.PROVIDER_ID == "packs" and skillpath_packs.PRIORITY == 10


def test_the_installed_example_pack_lists_without_writing(world: World) -> None:
    res = load_skills(world.project, home=world.home, env=world.env)
    review = res.get("code-review")
    release = res.get("release-checklist")
    assert review is not None and release is not None
    assert review.source.provider == "packs" and review.priority == 10
    assert review.source.level == "package" and review.source.loaded_from == "pack"
    assert review.source.detail == {
        "distribution": "acme-skills",
        "version": "1.0.0",
        "entry_point": "acme = acme_skills",
        "pack": "acme",
    }
    assert review.frontmatter.arguments == ("base",)
    assert "checklist" in review.description
    assert review.base_dir is not None
    assert review.base_dir.parent.parent == world.cache / "packs"
    assert review.base_dir.parent.name.startswith("acme-skills-1.0.0-")
    assert written(world.cache) == []  # nothing written by listing
    assert written(world.home / ".cache" / "skillpath") == []


def test_extraction_on_first_use(world: World) -> None:
    session = SkillSession.open(world.project, home=world.home, env=world.env)
    skill = session.get("code-review")
    assert skill is not None and skill.base_dir is not None
    assert written(world.cache) == []
    res = session.resolve("skill://code-review/references/checklist.md")
    source = resources.files("acme_skills") / "code-review" / "references" / "checklist.md"
    assert res.content == source.read_text(encoding="utf-8")
    assert (skill.base_dir / "scripts" / "diffstat.py").stat().st_mode & 0o777 == 0o700
    # the whole pack came out at once, with its manifest at the pack root
    assert (skill.base_dir.parent / "release-checklist" / "SKILL.md").is_file()
    assert (skill.base_dir.parent / MANIFEST).is_file()
    rendered = session.invoke("code-review", "origin/dev")
    assert f"python3 {skill.base_dir}/scripts/diffstat.py origin/dev" in rendered.text
    assert f"Base directory for this skill: {skill.base_dir}" in rendered.text
    assert "${SKILL_DIR}" not in rendered.text


def test_the_scripts_of_the_example_pack_run_after_extraction(world: World) -> None:
    (pack,) = [p for p in load_packs(world.env)[0] if p.name == "acme"]
    root = ensure_extracted(pack.tree)
    script = root / "release-checklist" / "scripts" / "check_release.py"
    proc = subprocess.run(
        [str(script), "1.2.3", str(world.project)], capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 1
    assert "no version found" in proc.stdout and "no CHANGELOG.md" in proc.stdout


def test_hostile_members_are_refused_with_diagnostics(world: World, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET\n")
    outside_skill = tmp_path / "outside-skill"
    outside_skill.mkdir()
    (outside_skill / "SKILL.md").write_text(skill_md("Linked in from outside."))
    pkg = unique("hostile")
    world.dist(
        "hostile-pack",
        "0.1",
        {"hostile": pkg, "hostile-defs": f"{pkg}.defs:skills"},
        {
            f"{pkg}/__init__.py": "",
            f"{pkg}/defs.py": (
                "from skillpath.bundled import BundledSkill\n"
                "def skills():\n"
                "    return [BundledSkill('generated', 'Generated.', body='x',\n"
                "        files={'../x.txt': 'up', '/abs/y.txt': 'abs', 'fine.md': 'ok'})]\n"
            ),
            f"{pkg}/ok/SKILL.md": skill_md("A fine skill."),
            f"{pkg}/ok/ref.md": "reference\n",
            f"{pkg}/ok/leak.txt": Link(str(secret)),
            f"{pkg}/ok/bad\\name.txt": "backslash\n",
            f"{pkg}/linked": Link(str(outside_skill)),
        },
    )
    res = load_skills(world.project, home=world.home, env=world.env)
    assert res.get("ok") is not None and res.get("generated") is not None
    assert res.get("linked") is None
    refused = codes(res.diagnostics, "pack-member-refused")
    by_text = "\n".join(f"{d.path}: {d.message}" for d in refused)
    assert len(refused) == 5, by_text
    assert f"{world.site / pkg / 'ok' / 'leak.txt'}: " in by_text
    assert "symbolic link" in by_text
    assert "skill folder 'linked' refused" in by_text
    assert "backslash" in by_text
    assert "traversal" in by_text and "absolute" in by_text
    assert all(d.level == "error" and d.provider == "packs" for d in refused)

    for name in ("ok", "generated"):
        base = materialize(res.get(name))
        assert base is not None
    pack_root = res.get("ok").base_dir.parent
    files = sorted(str(p.relative_to(pack_root)) for p in pack_root.rglob("*") if not p.is_dir())
    assert files == [MANIFEST, "ok/SKILL.md", "ok/ref.md"]
    gen_root = res.get("generated").base_dir.parent
    assert sorted(p.name for p in (gen_root / "generated").iterdir()) == ["SKILL.md", "fine.md"]
    assert not any(p.is_symlink() for p in world.cache.rglob("*"))
    assert not (world.cache / "x.txt").exists() and not list(world.cache.rglob("x.txt"))
    assert "TOP SECRET" not in "".join(
        p.read_text(errors="replace") for p in world.cache.rglob("*") if p.is_file()
    )


def test_a_pack_that_lost_its_skills_is_a_diagnostic(world: World) -> None:
    pkg = unique("emptypack")
    world.dist(
        "lost-data",
        "2.0",
        {"lost": pkg},
        {f"{pkg}/__init__.py": "", f"{pkg}/helpers.py": "X = 1\n", f"{pkg}/sub/__init__.py": ""},
    )
    res = load_skills(world.project, home=world.home, env=world.env)
    (diag,) = codes(res.diagnostics, "pack-empty")
    assert diag.level == "warning" and diag.path == world.site / pkg
    assert "lost-data 2.0" in diag.message and "package data" in diag.message


def test_broken_entry_points_are_diagnostics(world: World) -> None:
    pkg = unique("brokenpack")
    world.dist(
        "broken-packs",
        "1.0",
        {
            "missing": unique("nosuchpackage"),
            "raises": f"{pkg}.defs:boom",
            "not-callable": f"{pkg}.defs:VALUE",
            "wrong-type": f"{pkg}.defs:strings",
            "empty-list": f"{pkg}.defs:nothing",
        },
        {
            f"{pkg}/__init__.py": "",
            f"{pkg}/defs.py": (
                "VALUE = 3\n"
                "def boom():\n    raise RuntimeError('pack exploded')\n"
                "def strings():\n    return ['not a definition']\n"
                "def nothing():\n    return []\n"
            ),
        },
    )
    packs, diags = load_packs(world.env)
    assert [p.name for p in packs] == ["acme"]
    unloadable = "\n".join(d.message for d in codes(diags, "pack-unloadable"))
    assert "pack 'missing'" in unloadable
    assert "pack exploded" in unloadable
    assert "is not callable" in unloadable
    assert "expected BundledSkill" in "\n".join(d.message for d in diags)
    assert "returned no skill definitions" in "\n".join(
        d.message for d in codes(diags, "pack-empty")
    )


def test_callable_packs_honour_is_enabled(world: World) -> None:
    pkg = unique("gatedpack")
    world.dist(
        "gated-pack",
        "1.0",
        {"gated": f"{pkg}:skills"},
        {
            f"{pkg}/__init__.py": (
                "import os\n"
                "from skillpath.bundled import BundledSkill\n"
                "def skills():\n"
                "    return [\n"
                "        BundledSkill('always-on', 'On.', body='x'),\n"
                "        BundledSkill('needs-flag', 'Flagged.', body='x',\n"
                "            is_enabled=lambda: os.environ.get('GATED_FLAG') == '1'),\n"
                "    ]\n"
            )
        },
    )
    res = load_skills(world.project, home=world.home, env=world.env)
    assert res.get("always-on") is not None and res.get("needs-flag") is None
    assert codes(res.diagnostics, "bundled-disabled")
    os.environ["GATED_FLAG"] = "1"
    try:
        res = load_skills(world.project, home=world.home, env=world.env)
    finally:
        del os.environ["GATED_FLAG"]
    assert res.get("needs-flag").source.detail["entry_point"] == f"gated = {pkg}:skills"


def test_description_is_required(world: World) -> None:
    pkg = unique("nodesc")
    world.dist(
        "nodesc-pack",
        "1.0",
        {"nodesc": pkg},
        {
            f"{pkg}/__init__.py": "",
            f"{pkg}/bare/SKILL.md": "---\nname: bare\n---\nNo description.\n",
            f"{pkg}/good/SKILL.md": skill_md("Good."),
        },
    )
    res = load_skills(world.project, home=world.home, env=world.env)
    assert res.get("bare") is None and res.get("good") is not None
    (diag,) = [d for d in codes(res.diagnostics, "missing-description") if "bare" in d.message]
    assert diag.path == world.site / pkg / "bare" / "SKILL.md"


def test_zipped_packs_work_through_importlib_resources(world: World, tmp_path: Path) -> None:
    pkg = unique("zipped")
    archive = tmp_path / "zipped-site.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(f"{pkg}/__init__.py", "")
        zf.writestr(f"{pkg}/zskill/SKILL.md", skill_md("From a zip."))
        zf.writestr(f"{pkg}/zskill/notes/n.md", "zipped notes\n")
        zf.writestr(
            "zipped_pack-3.1.dist-info/METADATA",
            "Metadata-Version: 2.1\nName: zipped-pack\nVersion: 3.1\n",
        )
        zf.writestr(
            "zipped_pack-3.1.dist-info/entry_points.txt", f"[skillpath.packs]\nzp = {pkg}\n"
        )
    sys.path.insert(0, str(archive))
    try:
        session = SkillSession.open(world.project, home=world.home, env=world.env)
        skill = session.get("zskill")
        assert skill is not None and skill.source.root is None
        assert session.resolve("skill://zskill/notes/n.md").content == "zipped notes\n"
    finally:
        sys.path.remove(str(archive))


def test_switches_and_duplicate_pack_names(world: World) -> None:
    a, b = unique("dupa"), unique("dupb")
    world.dist(
        "dup-a",
        "1.0",
        {"same": a},
        {f"{a}/__init__.py": "", f"{a}/from-a/SKILL.md": skill_md("A.")},
    )
    world.dist(
        "dup-b",
        "1.0",
        {"same": b},
        {f"{b}/__init__.py": "", f"{b}/from-b/SKILL.md": skill_md("B.")},
    )
    packs, diags = load_packs(world.env)
    assert sorted(p.name for p in packs) == ["acme", "same"]
    assert [p.distribution for p in packs if p.name == "same"] == ["dup-a"]
    (dup,) = codes(diags, "pack-duplicate")
    assert "dup-b" in dup.message and "dup-a" in dup.message
    packs, diags = load_packs({**world.env, "SKILLPATH_DISABLE_PACKS": "acme"})
    assert [p.name for p in packs] == ["same"]
    assert codes(diags, "pack-blocked")
    packs, _ = load_packs({**world.env, "SKILLPATH_PACKS": "acme"})
    assert [p.name for p in packs] == ["acme"]


def test_pack_api_reads_package_data_without_extracting(world: World) -> None:
    pack = find_pack("ACME_Skills")
    assert pack is not None and pack.kind == "package" and pack.name == "acme"
    assert find_pack("acme") is not None  # by pack name too
    assert find_pack("no-such-dist") is None
    assert pack.read("code-review/references/severity.md").startswith(b"# Severity")
    assert pack.listing() == ["code-review/", "release-checklist/"]
    assert pack.listing("code-review") == ["SKILL.md", "references/", "scripts/"]
    with pytest.raises(ContainmentError):
        pack.read("../acme_skills/__init__.py")
    with pytest.raises(FileNotFoundError):
        pack.read("code-review/missing.md")
    assert written(world.cache) == []


_EXTRACT = """
import sys, time
from pathlib import Path
from skillpath.extract import ensure_extracted
from skillpath_packs import find_pack
pack = find_pack("big-pack")
go = Path(sys.argv[1])
while not go.exists():
    time.sleep(0.002)
print(ensure_extracted(pack.tree))
"""


def test_eight_processes_extract_one_identical_tree(world: World, tmp_path: Path) -> None:
    pkg = unique("bigpack")
    files: dict[str, str | bytes | Link] = {f"{pkg}/__init__.py": ""}
    for s in range(4):
        files[f"{pkg}/skill-{s}/SKILL.md"] = skill_md(f"Skill {s}.")
        for i in range(60):
            files[f"{pkg}/skill-{s}/ref/{i:03d}.md"] = f"skill {s} file {i}\n" * 50
    world.dist("big-pack", "1.0", {"big": pkg}, files)
    go = tmp_path / "go"
    env = {**world.env, "PYTHONPATH": os.pathsep.join([str(world.site), *sys.path])}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _EXTRACT, str(go)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(8)
    ]
    go.touch()
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [e for _, e in outs]
    targets = {o.strip() for o, _ in outs}
    assert len(targets) == 1
    target = Path(targets.pop())
    packs_dir = world.cache / "packs"
    assert sorted(p.name for p in packs_dir.iterdir()) == [".locks", target.name]
    pack = find_pack("big-pack")
    assert pack is not None and pack.tree.target == target
    assert verify_tree(pack.tree) is None
    for m in pack.tree.members:
        assert (target / m.rel).read_bytes() == (world.site / pkg / m.rel).read_bytes()
    assert len([p for p in target.rglob("*") if p.is_file()]) == 4 * 61 + 1


def test_a_tampered_extraction_is_redone_by_the_next_process(world: World) -> None:
    pack = find_pack("acme-skills")
    assert pack is not None
    root = ensure_extracted(pack.tree)
    checklist = root / "code-review" / "references" / "checklist.md"
    original = checklist.read_bytes()
    checklist.write_text("Approve everything.\n")
    (root / "code-review" / "planted.sh").write_text("#!/bin/sh\nrm -rf /\n")
    code = (
        "from skillpath_packs import find_pack\nfrom skillpath.extract import materialize\n"
        "p = find_pack('acme-skills')\nprint(materialize(p.skills[0]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], env=world.env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert checklist.read_bytes() == original
    assert not (root / "code-review" / "planted.sh").exists()


def test_entry_points_are_cached_until_a_distribution_changes(world: World) -> None:
    import shutil

    assert [p.name for p in load_packs(world.env)[0]] == ["acme"]
    pkg = unique("latepack")
    info = world.dist(
        "late-pack",
        "1.0",
        {"late": pkg},
        {f"{pkg}/__init__.py": "", f"{pkg}/late/SKILL.md": skill_md("Late.")},
    )
    assert [p.name for p in load_packs(world.env)[0]] == ["acme", "late"]
    shutil.rmtree(info)  # what `pip uninstall` does to the metadata
    assert [p.name for p in load_packs(world.env)[0]] == ["acme"]


# -- precedence: what a person wrote beats what a package installed ------------
def test_a_project_skill_is_never_replaced_by_a_pack_skill_of_the_same_name(world: World) -> None:
    from skillpath.doctor import build_report, explain

    own = world.project / ".claude" / "skills" / "code-review"
    own.mkdir(parents=True)
    (own / "SKILL.md").write_text(skill_md("Our own review rules."), encoding="utf-8")
    mine = world.project / ".skillpath" / "skills" / "release-checklist"
    mine.mkdir(parents=True)
    (mine / "SKILL.md").write_text(skill_md("Our own release steps."), encoding="utf-8")
    custom = world.home / "custom"
    (custom / "code-review").mkdir(parents=True)
    (custom / "code-review" / "SKILL.md").write_text(skill_md("Custom."), encoding="utf-8")
    res = load_skills(world.project, home=world.home, env=world.env)
    review, release = res.get("code-review"), res.get("release-checklist")
    assert review is not None and review.source.provider == "claude"
    assert review.description == "Our own review rules."
    assert release is not None and release.source.provider == "native"
    lost = {s.skill.name: s for s in res.shadowed if s.skill.source.provider == "packs"}
    assert sorted(lost) == ["code-review", "release-checklist"]
    assert lost["code-review"].by is review and lost["release-checklist"].by is release

    report = build_report(res)
    entry = next(e for e in explain(report, "code-review").entries if e.provider == "packs")
    assert entry.status == "shadowed"
    assert "installed skill packs merge after every hand-written skill" in entry.detail

    # a custom directory (pass 2) beats a pack too
    settings = {"skills": {"custom_directories": [str(custom)]}}
    own.joinpath("SKILL.md").unlink()
    own.rmdir()
    res = load_skills(world.project, home=world.home, env=world.env, settings=settings)
    review = res.get("code-review")
    assert review is not None and review.source.provider == "custom"


def test_a_pack_skill_still_beats_managed_and_fills_in_missing_names(world: World) -> None:
    managed = world.home / ".skillpath" / "managed-skills" / "code-review"
    managed.mkdir(parents=True)
    (managed / "SKILL.md").write_text(skill_md("Learned."), encoding="utf-8")
    res = load_skills(world.project, home=world.home, env=world.env)
    review = res.get("code-review")
    assert review is not None and review.source.provider == "packs"


def test_package_files_is_what_importlib_resources_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A package on disk is its folder, read without ``importlib.resources``; a zipped
    package and a namespace package go through ``files`` itself; a module that is not a
    package fails as ``files`` fails."""
    from skillpath_packs import _package_files

    disk = tmp_path / "disk"
    (disk / "pf_disk" / "one").mkdir(parents=True)
    (disk / "pf_disk" / "__init__.py").write_text("")
    (disk / "pf_ns" / "two").mkdir(parents=True)
    (disk / "pf_plain.py").write_text("")
    archive = tmp_path / "zipped.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("pf_zip/__init__.py", "")
        zf.writestr("pf_zip/three/SKILL.md", "---\ndescription: d\n---\n")
    monkeypatch.syspath_prepend(str(archive))
    monkeypatch.syspath_prepend(str(disk))
    for name in ("pf_disk", "pf_ns", "pf_zip"):
        ours, theirs = _package_files(name), resources.files(name)
        assert type(ours) is type(theirs) and str(ours) == str(theirs)
        assert sorted(c.name for c in ours.iterdir()) == sorted(c.name for c in theirs.iterdir())
    assert isinstance(_package_files("pf_disk"), Path)
    assert _package_files("pf_disk") == (disk / "pf_disk")
    with pytest.raises(Exception) as ours_error:
        _package_files("pf_plain")
    with pytest.raises(Exception) as theirs_error:
        resources.files("pf_plain")
    assert type(ours_error.value) is type(theirs_error.value)
    with pytest.raises(ModuleNotFoundError):
        _package_files("pf_missing")


def test_a_session_refresh_sees_every_change_of_a_pack(world: World) -> None:
    """A pack is kept in-process between refreshes while its files are unchanged; an
    edit, a new skill folder (its SKILL.md written later), a new file, a deleted
    folder and a second distribution are each seen, equal to a load with every
    layer off."""
    import shutil

    from skillpath.cache import reuse

    pkg = unique("keptpack")
    world.dist(
        "kept-pack",
        "1.0",
        {"kept": pkg},
        {f"{pkg}/__init__.py": "", f"{pkg}/alpha/SKILL.md": skill_md("Alpha one.")},
    )
    env = {**world.env, "SKILLPATH_INDEX_RACY_MS": "0"}
    off = {**env, "SKILLPATH_NO_INDEX": "1", "SKILLPATH_NO_REUSE": "1"}
    s = SkillSession.open(world.project, home=world.home, env=env)

    def same_as_fresh() -> dict[str, str]:
        fresh = load_skills(world.project, home=world.home, env=off)
        assert [x.to_json() for x in s.result.skills] == [x.to_json() for x in fresh.skills]
        assert [d.to_json() for d in s.result.diagnostics] == [
            d.to_json() for d in fresh.diagnostics
        ]
        mine = ("alpha", "beta", "gamma")
        return {x.name: x.description for x in s.result.skills if x.name in mine}

    assert s.refresh() == ()
    before = reuse.stats.get("values_reused", 0)
    assert s.refresh() == ()
    assert reuse.stats.get("values_reused", 0) > before  # kept, not rebuilt
    assert same_as_fresh() == {"alpha": "Alpha one."}
    folder = world.site / pkg
    (folder / "alpha" / "SKILL.md").write_text(skill_md("Alpha two."))
    s.refresh()
    assert same_as_fresh() == {"alpha": "Alpha two."}
    (folder / "beta").mkdir()
    s.refresh()
    same_as_fresh()
    (folder / "beta" / "SKILL.md").write_text(skill_md("Beta."))
    s.refresh()
    assert same_as_fresh() == {"alpha": "Alpha two.", "beta": "Beta."}
    (folder / "alpha" / "notes").mkdir()
    (folder / "alpha" / "notes" / "n.md").write_text("note\n")
    s.refresh()
    same_as_fresh()
    (folder / "alpha" / "notes" / "n.md").write_text("note, longer\n")
    s.refresh()
    same_as_fresh()
    shutil.rmtree(folder / "alpha")
    s.refresh()
    assert same_as_fresh() == {"beta": "Beta."}
    other = unique("laterpack")
    world.dist(
        "later-pack",
        "1.0",
        {"later": other},
        {f"{other}/__init__.py": "", f"{other}/gamma/SKILL.md": skill_md("Gamma.")},
    )
    s.refresh()
    assert same_as_fresh() == {"beta": "Beta.", "gamma": "Gamma."}
