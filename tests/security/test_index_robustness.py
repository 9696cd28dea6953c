"""The discovery index never weakens a security decision and never breaks a load.

Loads served from the index keep every warning and refusal a fresh scan makes;
a SKILL.md symlink retargeted outside its folder is refused on the next load;
corrupt, truncated or misplaced index files are ignored.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from skillpath import load_skills

from ..conftest import Env

CORPUS = Path(__file__).parent / "fixtures" / "corpus"


def _env(env: Env, cache: Path, **extra: str) -> dict[str, str]:
    return {
        **env.env,
        "SKILLPATH_CACHE_DIR": str(cache),
        "SKILLPATH_PLUGINS": "native",
        # trust the index for entries however recent, so a stale cache would show
        "SKILLPATH_INDEX_RACY_MS": "0",
        **extra,
    }


def _load(env: Env, environ: dict[str, str]) -> dict[str, Any]:
    res = load_skills(env.project, home=env.home, env=environ)
    return {
        "skills": sorted((s.name, s.description, str(s.path)) for s in res.skills),
        "diagnostics": sorted((d.level, d.code, str(d.path)) for d in res.diagnostics),
    }


def test_index_keeps_every_finding_of_the_hostile_corpus(isolated_env: Env, tmp_path: Path) -> None:
    shutil.copytree(CORPUS, isolated_env.project / ".skillpath" / "skills")
    cache = tmp_path / "cache"
    fresh = _load(isolated_env, _env(isolated_env, tmp_path / "other", SKILLPATH_NO_INDEX="1"))
    first = _load(isolated_env, _env(isolated_env, cache))
    assert list((cache / "index").iterdir()), "the index was written"
    second = _load(isolated_env, _env(isolated_env, cache))
    assert fresh == first == second
    codes = {code for _lvl, code, _p in second["diagnostics"]}
    assert {"suspicious-description", "confusable-name", "invisible-characters"} <= codes
    assert {"invalid-name", "binary-file", "frontmatter-too-complex"} <= codes


def test_symlink_retargeted_outside_is_refused_through_the_index(
    isolated_env: Env, tmp_path: Path
) -> None:
    secret = isolated_env.home / "id_rsa"
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n")
    folder = isolated_env.project / ".skillpath" / "skills" / "linked"
    folder.mkdir(parents=True)
    (folder / "real.md").write_text("---\ndescription: linked inside\n---\nBody.\n")
    os.symlink("real.md", folder / "SKILL.md")
    environ = _env(isolated_env, tmp_path / "cache")
    assert ("linked", "linked inside") in {s[:2] for s in _load(isolated_env, environ)["skills"]}
    tmp_link = folder / ".swap"
    os.symlink(secret, tmp_link)
    os.replace(tmp_link, folder / "SKILL.md")
    after = _load(isolated_env, environ)
    assert after["skills"] == []
    assert ("error", "skill-file-outside", str(folder / "SKILL.md")) in after["diagnostics"]
    assert "BEGIN" not in repr(after)


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty", "directory", "flip"])
def test_damaged_index_files_are_ignored(isolated_env: Env, tmp_path: Path, damage: str) -> None:
    isolated_env.skill(".skillpath/skills", "one", "first skill")
    isolated_env.skill(".skillpath/skills", "two", "second skill")
    cache = tmp_path / "cache"
    environ = _env(isolated_env, cache)
    good = _load(isolated_env, environ)
    files = [p for p in (cache / "index").iterdir() if p.is_file()]
    assert files
    for p in files:
        data = p.read_bytes()
        if damage == "truncate":
            p.write_bytes(data[: len(data) // 2])
        elif damage == "garbage":
            p.write_bytes(os.urandom(len(data)))
        elif damage == "empty":
            p.write_bytes(b"")
        elif damage == "directory":
            p.unlink()
            p.mkdir()
        else:
            flipped = bytearray(data)
            flipped[len(flipped) // 2] ^= 0xFF
            p.write_bytes(bytes(flipped))
    assert _load(isolated_env, environ) == good
    assert _load(isolated_env, environ) == good


def test_an_index_directory_that_cannot_be_used(isolated_env: Env, tmp_path: Path) -> None:
    isolated_env.skill(".skillpath/skills", "one", "first skill")
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "index").write_text("a file where the index directory belongs")
    environ = _env(isolated_env, cache)
    expected = _load(isolated_env, _env(isolated_env, tmp_path / "x", SKILLPATH_NO_INDEX="1"))
    assert _load(isolated_env, environ) == expected
