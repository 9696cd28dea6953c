"""Every speed layer gives the bytes of the plain computation on the realistic corpus.

The corpus is ``benchmarks/bench.py``'s realistic shape at a small size: rich
frontmatter, 5% of the skill folders symlinked as ``npx skills`` installs them
(``.agents/skills/x -> ../../vendor/skills/x``, and links between two roots), 3%
broken files. The plain computation is a load with every layer of
:mod:`skillpath.cache` off (the discovery index, the in-process reuse and its
watching, the replay, the entry-point cache and the findings store); each layer
is then turned on alone, and all together, and must give the same bytes. No
timing is asserted; the one count asserted (``lstat`` calls) is deterministic.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from skillpath import LoadResult, SkillSession, load_skills

from .test_cold_list import _bench

SCRIPT = Path(sys.executable).with_name("skillpath")
PLAIN = {
    "SKILLPATH_NO_INDEX": "1",
    "SKILLPATH_NO_REUSE": "1",
    "SKILLPATH_NO_WATCH": "1",
    "SKILLPATH_NO_SNAPSHOT": "1",
    "SKILLPATH_NO_ENTRY_POINT_CACHE": "1",
    "SKILLPATH_NO_FINDINGS_CACHE": "1",
}


def _only(*switches: str) -> dict[str, str]:
    """The environment with every layer off but the ones ``switches`` name."""
    return {k: v for k, v in PLAIN.items() if k not in switches}


@pytest.fixture
def corpus(tmp_path: Path) -> tuple[dict[str, Any], dict[str, str]]:
    bench = _bench()
    manifest = bench.make_realistic_corpus(tmp_path / "corpus", 240)
    counts = manifest["counts"]
    assert counts["symlink-to-store"] and counts["symlink-to-other-root"]
    assert counts["bad-yaml"] and counts["no-description"] and counts["name-not-folder"]
    env = bench.corpus_env(manifest, tmp_path / "cache")
    env["SKILLPATH_INDEX_RACY_MS"] = "0"  # files written just now may be vouched for
    return manifest, env


def _list(manifest: dict[str, Any], env: dict[str, str], **extra: str) -> bytes:
    out = subprocess.run(
        [str(SCRIPT), "list", "--json"],
        cwd=manifest["project"],
        env={**env, **extra},
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def _text(result: LoadResult) -> str:
    return json.dumps(
        {
            "skills": [s.to_json() for s in result.skills],
            "conditional": [s.to_json() for s in result.conditional],
            "shadowed": [s.to_json() for s in result.shadowed],
            "diagnostics": [d.to_json() for d in result.diagnostics],
        },
        sort_keys=True,
    )


def test_the_command_line_layers_print_the_plain_bytes(
    corpus: tuple[dict[str, Any], dict[str, str]],
) -> None:
    manifest, env = corpus
    plain = _list(manifest, env, **PLAIN)
    data = json.loads(plain)
    codes = {d["code"] for d in data["diagnostics"]}
    assert {"frontmatter-yaml-error", "name-mismatch", "duplicate-file"} <= codes
    assert len(data["skills"]) > 200
    for alone in ("SKILLPATH_NO_ENTRY_POINT_CACHE", "SKILLPATH_NO_FINDINGS_CACHE"):
        for _ in range(2):  # the cache written, then read
            assert _list(manifest, env, **_only(alone)) == plain, alone
    index_only = {"SKILLPATH_NO_SNAPSHOT": "1"}
    for _ in range(2):  # building the index, then served by it
        assert _list(manifest, env, **index_only) == plain
    for _ in range(3):  # recorded, then replayed
        assert _list(manifest, env) == plain


def test_in_process_reuse_and_refresh_give_the_plain_result(
    corpus: tuple[dict[str, Any], dict[str, str]],
) -> None:
    manifest, env = corpus
    project, home = manifest["project"], manifest["home"]

    def plain() -> str:
        return _text(load_skills(project, home=home, env={**env, **PLAIN}))

    reference = plain()
    first = load_skills(project, home=home, env=env)
    second = load_skills(project, home=home, env=env)
    assert _text(first) == _text(second) == reference
    session = SkillSession.open(project, home=home, env=env)
    unwatched = SkillSession.open(project, home=home, env={**env, "SKILLPATH_NO_WATCH": "1"})
    assert _text(session.result) == _text(unwatched.result) == reference
    # one change, through a symlinked folder: the refresh sees it, as a plain load does
    linked = next(p for p in sorted(Path(project, ".agents", "skills").iterdir()) if p.is_symlink())
    skill_md = linked / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("\ndescription:", "\ndescription: Edited.", 1))
    session.refresh()
    unwatched.refresh()
    assert _text(session.result) == _text(unwatched.result) == plain() != reference
    # and one in a plain folder, seen by the watch (inotify) alone
    plain_folder = next(
        p for p in sorted(Path(project, ".claude", "skills").iterdir()) if not p.is_symlink()
    )
    skill_md = plain_folder / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("\ndescription:", "\ndescription: Again.", 1))
    session.refresh()
    unwatched.refresh()
    assert _text(session.result) == _text(unwatched.result) == plain()
    assert _text(load_skills(project, home=home, env=env)) == plain()


def test_a_second_load_through_symlinked_folders_stats_each_link_once(
    corpus: tuple[dict[str, Any], dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder link is checked with the load's cache of real parent folders, not with
    ``os.path.realpath`` (which calls ``lstat`` on every component of its path): a
    second load costs at most five more ``lstat`` calls per link than with copies."""
    manifest, env = corpus
    project, home = manifest["project"], manifest["home"]
    real = os.lstat

    def second_load_lstats() -> int:
        for _ in range(2):  # the index is built, then the in-process memo
            load_skills(project, home=home, env=env)
        calls = [0]

        def counting(*args: Any, **kw: Any) -> os.stat_result:
            calls[0] += 1
            return real(*args, **kw)

        monkeypatch.setattr(os, "lstat", counting)
        try:
            load_skills(project, home=home, env=env)
        finally:
            monkeypatch.setattr(os, "lstat", real)
        return calls[0]

    with_links = second_load_lstats()
    links = [
        Path(entry.path)
        for root in manifest["roots"]
        if os.path.isdir(root)
        for entry in os.scandir(root)
        if entry.is_symlink()
    ]
    assert len(links) >= 10
    for link in links:  # the same skills, as copies
        target = link.resolve()
        link.unlink()
        shutil.copytree(target, link)
    with_copies = second_load_lstats()
    # (os.path.realpath of each link cost about 13 more a link on this corpus)
    assert with_links <= with_copies + 5 * len(links), (with_links, with_copies, len(links))


def _nested(folder: Path, name: str, description: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    skill_md = folder / "SKILL.md"
    skill_md.write_text(f"---\nname: {name}\ndescription: {description}\n---\nBody.\n")
    return skill_md


def test_the_codex_nested_walk_is_kept_only_while_its_folders_are_unchanged(
    corpus: tuple[dict[str, Any], dict[str, str]], tmp_path: Path
) -> None:
    """The Codex provider's walk below the first level of a root is done again on a
    refresh only when a folder it listed or a link it met changed: every kind of change
    shows at once, and the result is always that of a plain load."""
    from skillpath.cache import reuse

    manifest, env = corpus
    project, home = manifest["project"], manifest["home"]
    root = Path(home, ".codex", "skills")
    # the realistic corpus's links and broken files, plus nested skills below the first
    # level: one two folders down, a broken one, one inside a linked folder
    for i, entry in enumerate(sorted(Path(project, ".agents", "skills").iterdir())[:12]):
        target = root / f"top-{i}"
        if entry.is_symlink():
            target.symlink_to(os.readlink(entry), target_is_directory=True)
        else:
            shutil.copytree(entry, target)
    _nested(root / "group" / "deep" / "inner", "inner", "Nested two folders down.")
    (root / "group" / "broken").mkdir(parents=True)
    (root / "group" / "broken" / "SKILL.md").write_text("---\nname: [broken\n---\n")
    elsewhere = tmp_path / "elsewhere"
    _nested(elsewhere / "a" / "sub", "via-link-a", "Through a link, first target.")
    _nested(elsewhere / "b" / "sub", "via-link-b", "Through a link, second target.")
    (root / "linked").symlink_to(elsewhere / "a", target_is_directory=True)

    def plain() -> str:
        return _text(load_skills(project, home=home, env={**env, **PLAIN}))

    session = SkillSession.open(project, home=home, env=env)
    session.refresh()
    assert _text(session.result) == plain()
    names = {s.name for s in session.result.skills}
    assert {"inner", "via-link-a"} <= names

    before = reuse.stats["values_reused"]
    assert not session.refresh()  # nothing changed: the kept walks stand
    assert reuse.stats["values_reused"] > before
    assert _text(session.result) == plain()

    def changed_to(expect_in: set[str], expect_out: set[str]) -> None:
        session.refresh()
        got = {s.name for s in session.result.skills}
        assert expect_in <= got and not (expect_out & got)
        assert _text(session.result) == plain()

    # a new nested skill three folders down (only its parent folder changed)
    _nested(root / "group" / "deep" / "more" / "new", "brand-new", "Added later.")
    changed_to({"brand-new"}, set())
    # a nested SKILL.md edited in place
    inner = root / "group" / "deep" / "inner" / "SKILL.md"
    inner.write_text(inner.read_text().replace("Nested two", "Edited, nested two"))
    session.refresh()
    assert session.get("inner").description.startswith("Edited")  # type: ignore[union-attr]
    assert _text(session.result) == plain()
    # a nested skill folder removed
    shutil.rmtree(root / "group" / "deep" / "more")
    changed_to(set(), {"brand-new"})
    # the link retargeted (replaced by one to another folder)
    (root / "linked").unlink()
    (root / "linked").symlink_to(elsewhere / "b", target_is_directory=True)
    changed_to({"via-link-b"}, {"via-link-a"})
    # what the link leads to changes with no change in the root
    shutil.rmtree(elsewhere / "b" / "sub")
    _nested(elsewhere / "b" / "other", "via-link-c", "A new folder behind the link.")
    changed_to({"via-link-c"}, {"via-link-b"})
    # the broken file fixed
    (root / "group" / "broken" / "SKILL.md").write_text(
        "---\nname: broken\ndescription: Fixed.\n---\n"
    )
    changed_to({"broken"}, set())


def test_a_folder_link_is_checked_with_one_readlink_and_the_same_key(
    corpus: tuple[dict[str, Any], dict[str, str]], tmp_path: Path
) -> None:
    """The check of a symlinked skill folder in a watched root reads the link once and
    gives the key the index compares (:func:`skillpath.cache.memo.file_key`), for every
    link of the realistic corpus and for chained, relative and dangling ones."""
    from skillpath.cache import memo

    manifest, _env = corpus
    root = Path(manifest["project"], ".agents", "skills")
    links = [p for p in sorted(root.iterdir()) if p.is_symlink()]
    plain = next(p for p in sorted(root.iterdir()) if not p.is_symlink() and p.is_dir())
    (root / "chained").symlink_to(links[0].name, target_is_directory=True)  # link to a link
    (root / "relative").symlink_to(os.path.relpath(plain, root), target_is_directory=True)
    (root / "dangling").symlink_to(tmp_path / "nowhere", target_is_directory=True)
    via = tmp_path / "via"
    via.symlink_to(root, target_is_directory=True)  # the root reached through a link
    folders = [*links, root / "chained", root / "relative", root / "dangling"]
    for base in (root, via):
        parents: dict[str, str] = {}
        for folder in folders:
            linked = os.path.join(os.fspath(base), folder.name)
            skill_md = os.path.join(linked, "SKILL.md")
            real = functools.partial(memo.realpath_cached, parents=parents)
            want = memo.file_key(skill_md, linked, real)
            assert memo._folder_link_key(skill_md, linked, parents) == want, linked
    assert len(links) > 5


def _pack(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An installed pack of one skill (a package on ``sys.path`` with its entry point beside
    the real ones): its folder, whose files a test edits as a pack's files change."""
    import skillpath.plugins
    from skillpath.cache.entrypoints import CachedEntryPoint, _Dist

    package = tmp / "site" / "refresh_pack"
    (package / "pack-notes").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "pack-notes" / "SKILL.md").write_text(
        "---\nname: pack-notes\ndescription: Notes from a pack.\n---\nPack body.\n"
    )
    monkeypatch.syspath_prepend(str(tmp / "site"))
    real = skillpath.plugins.entry_points

    def entry_points(group: str, env: Any = None) -> list[Any]:
        found = list(real(group, env))
        if group == "skillpath.packs":
            found.append(
                CachedEntryPoint(group, "refresh", "refresh_pack", _Dist("refresh-pack", "1.0"))
            )
        return found

    monkeypatch.setattr(skillpath.plugins, "entry_points", entry_points)
    return package / "pack-notes"


def test_refresh_after_each_kind_of_edit_gives_a_fresh_load(
    corpus: tuple[dict[str, Any], dict[str, str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whatever a refresh spares (the kept merge and its patch, the kept trust judgement,
    the watched roots and their links), it gives what a fresh load gives, over a sequence
    of edits: a plain folder, a skill shadowed by its symlinked copy in another root, a
    quarantined third-party skill whose content changes after it was approved, and a pack."""
    from skillpath.context import make_context
    from skillpath.trust import content_digest, record_approval

    manifest, env = corpus
    project, home = manifest["project"], manifest["home"]
    pack_folder = _pack(tmp_path, monkeypatch)
    # the home's skills are third party here: quarantined until approved
    settings = {"trust": {"sources": {"user": "third-party"}}}

    def fresh() -> str:
        return _text(load_skills(project, home=home, env={**env, **PLAIN}, settings=settings))

    ctx, _ = make_context(project, home=home, env=env, settings=settings)
    quarantined = [s.skill for s in load_skills(ctx=ctx).skipped if s.reason == "quarantined"]
    assert len(quarantined) > 50
    for skill in quarantined[1:]:  # every one approved but the first
        record_approval(ctx, skill)
    session = SkillSession.open(project, home=home, env=env, settings=settings)
    assert _text(session.result) == fresh()
    assert [s.skill.name for s in session.result.skipped if s.reason == "quarantined"] == [
        quarantined[0].name
    ]
    listed = (*session.result.skills, *session.result.conditional)
    assert [s.description for s in listed if s.name == "pack-notes"] == ["Notes from a pack."]

    def edit(path: Path, text: str) -> None:
        path.write_text(path.read_text().replace("\ndescription:", f"\ndescription: {text}", 1))

    def refreshed() -> str:
        session.refresh()
        got = _text(session.result)
        assert got == fresh()
        return got

    # 1. a plain folder
    plain_folder = next(
        p for p in sorted(Path(project, ".claude", "skills").iterdir()) if not p.is_symlink()
    )
    edit(plain_folder / "SKILL.md", "Plain edit.")
    refreshed()
    # 2. a skill reached twice: its folder in one root, a symlink to it in another
    roots = [Path(r) for r in manifest["roots"]]
    link = next(
        p
        for r in roots
        if r.is_dir()
        for p in sorted(r.iterdir())
        if p.is_symlink() and any(p.resolve().parent == o for o in roots if o != r)
    )
    before = refreshed()
    edit(link.resolve() / "SKILL.md", "Shadowing edit.")
    assert refreshed() != before
    # 3. third-party skills: one approved now, one whose content changes after its approval
    record_approval(ctx, quarantined[0])
    refreshed()
    assert session.get(quarantined[0].name) is not None
    assert not any(s.reason == "quarantined" for s in session.result.skipped)
    held = quarantined[1]
    assert held.base_dir is not None
    approved = content_digest(held)
    # a file beside its SKILL.md: the skill object is the same, its digest is not
    (held.base_dir / "notes.txt").write_text("A file added after the approval.\n")
    assert content_digest(held) != approved
    refreshed()
    assert session.get(held.name) is None and session.held_back(held.name) is not None
    # 4. a pack's skill changes
    edit(pack_folder / "SKILL.md", "Pack edit.")
    refreshed()
    assert session.get("pack-notes").description.startswith("Pack edit.")  # type: ignore[union-attr]
    # and once more with nothing changed, then a second edit of the shadowing kind
    refreshed()
    edit(link.resolve() / "SKILL.md", "Second shadowing edit.")
    refreshed()
