"""Cold ``list --json`` prints the same bytes with its fast paths as without them.

The corpus is the benchmark's own (``benchmarks/bench.py``): its rich shape
(descriptions quoted, folded and plain, ``metadata`` maps with versions, dates
and nested lists, ``allowed-tools`` lists, Claude Code fields, ``hooks``) and
its default shape (broken YAML, repaired colons, CRLF, BOM, missing
descriptions …), in roots inside and outside the project, with lock files that
name some of the skills. The reference run sends every frontmatter block to
pyyaml and decides "inside the project" from ``Path.parents``; the output must
not differ by a byte. No timing is asserted.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import sys
from pathlib import Path
from types import ModuleType

import attrs
import pytest
from click.testing import CliRunner
from skillpath import frontmatter, load_skills, provenance, safety
from skillpath.cli import main

from ..conftest import Env

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("skillpath_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _write_corpus(env: Env, per_root: int) -> None:
    bench = _bench()
    rng = random.Random(19)
    roots = [
        env.project / ".claude" / "skills",
        env.project / ".agents" / "skills",
        env.home / ".claude" / "skills",
        env.home / ".agents" / "skills",
    ]
    kinds = ["ok", "bad-yaml", "colon", "no-description", "hidden", "conditional", "crlf", "bom"]
    names: list[str] = []
    for r, root in enumerate(roots):
        root.mkdir(parents=True, exist_ok=True)
        for i in range(per_root):
            name = f"skill-{r}-{i:03d}"
            if i % 3:
                raw = bench._rich_skill_text(rng, name).encode()
            else:
                kind = kinds[(i // 3) % len(kinds)]
                raw = bench._skill_text(rng, name, kind).encode()
                if kind == "crlf":
                    raw = raw.replace(b"\n", b"\r\n")
                elif kind == "bom":
                    raw = b"\xef\xbb\xbf" + raw
            (root / name).mkdir()
            (root / name / "SKILL.md").write_bytes(raw)
            names.append(name)
    # lock files that record some of them, as the installers write them
    entry = {"source": "owner/repo", "sourceType": "github", "computedHash": "0" * 64}
    lock = {"version": 1, "skills": {n: dict(entry) for n in names[::7]}}
    (env.project / "skills-lock.json").write_text(json.dumps(lock))
    (env.home / ".agents" / ".skill-lock.json").write_text(json.dumps(lock))


def _reference_within(path: Path, folder: Path) -> bool:
    return folder == path or folder in path.parents


def _list_json(env: Env) -> bytes:
    environ = {**env.env, "SKILLPATH_NO_INDEX": "1"}
    result = CliRunner().invoke(
        main, ["list", "--json", "--cwd", str(env.project)], env=environ, catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    return result.stdout_bytes


def test_rich_corpus_lists_the_same_bytes_without_the_fast_paths(
    isolated_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_corpus(isolated_env, 40)
    fast = _list_json(isolated_env)
    data = json.loads(fast)
    # the corpus is what it says: rich skills listed, origins found, problems reported
    assert len(data["skills"]) > 100
    assert any("origin" in s for s in data["skills"])
    assert any(d["code"] == "frontmatter-yaml-error" for d in data["diagnostics"])
    assert any(d["code"] == "frontmatter-repaired" for d in data["diagnostics"])

    parsed = _frontmatters(isolated_env)
    assert any(isinstance(v, int) for fm in parsed for v in fm["metadata"].values())

    # every block through pyyaml (a repaired colon too: its two pyyaml loads)
    monkeypatch.setattr(frontmatter, "parse_simple", lambda text: None)
    monkeypatch.setattr(frontmatter, "_plainly_repaired", lambda text: None)
    monkeypatch.setattr(provenance, "_within", _reference_within)
    assert _list_json(isolated_env) == fast
    # what the listing does not print (metadata, hooks, types: 1 is not 1.0) is the same too
    assert json.dumps(_frontmatters(isolated_env)) == json.dumps(parsed)


def _frontmatters(env: Env) -> list[dict[str, object]]:
    result = load_skills(
        env.project,
        home=env.home,
        env={**env.env, "SKILLPATH_NO_INDEX": "1"},
    )
    skills = [*result.skills, *result.conditional, *(s.skill for s in result.shadowed)]
    return [attrs.asdict(s.frontmatter) for s in skills]


@pytest.mark.parametrize(
    ("path", "folder"),
    [
        ("/p/proj", "/p/proj"),
        ("/p/proj/.claude/skills/x", "/p/proj"),
        ("/p/project/.claude/skills/x", "/p/proj"),
        ("/p/pro", "/p/proj"),
        ("/p", "/p/proj"),
        ("/x/y", "/"),
        ("/", "/"),
        ("//a/b", "//a"),
        ("//a/b", "/a"),
        ("/a/b", "//a"),
    ],
)
def test_within_is_the_parents_test(path: str, folder: str) -> None:
    assert provenance._within(Path(path), Path(folder)) is _reference_within(
        Path(path), Path(folder)
    )


def test_lexists_is_os_path_lexists(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "dir").mkdir()
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "link").symlink_to(tmp_path / "file")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    names = ["file", "dir", "dangling", "link", "loop", "missing", "file/below", "dir/x/y"]
    for name in names:
        path = str(tmp_path / name)
        assert safety.lexists(path) is os.path.lexists(path), name


@pytest.mark.parametrize("columns", [None, "120", "0", "-3", "wide", ""])
def test_terminal_width_is_shutils(columns: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from skillpath.cli._common import terminal_width

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.setenv("LINES", "40")
    assert terminal_width() == shutil.get_terminal_size((80, 24)).columns
