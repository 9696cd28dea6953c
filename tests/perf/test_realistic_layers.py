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
