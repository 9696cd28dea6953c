"""Provenance: each installer's record is read and shown as the skill's origin."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from skillpath import load_skills, make_context
from skillpath.export import files_hash
from skillpath.provenance import ProvenanceIndex

from ..conftest import Env


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def origins(env: Env, *, verify: bool = False) -> dict[str, Any]:
    # every source approved (skillpath.trust): these tests are about where skills came from
    ctx, _ = make_context(env.project, env=env.env, settings={"trust": {"approve": ["*"]}})
    result = load_skills(ctx=ctx)
    index = ProvenanceIndex.build(ctx)
    out = {}
    skills = [*result.skills, *(s.skill for s in result.shadowed)]
    for skill in skills:
        origin = index.origin(skill, verify=verify)
        if origin is not None:
            out[f"{skill.source.provider}:{skill.name}"] = origin
    # the batch form list --json uses (its fast path included) finds the same
    assert index.origins(skills) == [index.origin(s) for s in skills]
    return out


def test_npx_skills_project_lock(isolated_env: Env) -> None:
    path = isolated_env.skill(".agents/skills", "pdf", "PDF work.")
    folder = path.parent
    digest = files_hash({"SKILL.md": path.read_bytes()})
    lock = write_json(
        isolated_env.project / "skills-lock.json",
        {
            "version": 1,
            "skills": {
                "pdf": {
                    "source": "anthropics/skills",
                    "ref": "main",
                    "sourceType": "github",
                    "computedHash": digest,
                }
            },
        },
    )
    got = origins(isolated_env, verify=True)["agents:pdf"]
    assert (got.kind, got.source, got.ref, got.record) == (
        "npx-skills",
        "anthropics/skills",
        "main",
        lock,
    )
    assert got.drift == "none"
    (folder / "SKILL.md").write_text(path.read_text() + "\nchanged\n")
    assert origins(isolated_env, verify=True)["agents:pdf"].drift == "changed"


def test_npx_skills_global_lock(isolated_env: Env) -> None:
    isolated_env.skill(isolated_env.home / ".agents" / "skills", "xlsx", "Spreadsheets.")
    lock = write_json(
        isolated_env.home / ".agents" / ".skill-lock.json",
        {
            "version": 3,
            "skills": {
                "xlsx": {
                    "source": "anthropics/skills",
                    "sourceType": "github",
                    "sourceUrl": "https://github.com/anthropics/skills.git",
                    "skillFolderHash": "abc123",
                    "installedAt": "2026-11-02T10:00:00.000Z",
                    "updatedAt": "2026-11-20T10:00:00.000Z",
                }
            },
        },
    )
    got = origins(isolated_env)["agents:xlsx"]
    assert (got.kind, got.source, got.record, got.hash) == (
        "npx-skills",
        "anthropics/skills",
        lock,
        "abc123",
    )
    assert got.installed_at == "2026-11-02T10:00:00.000Z"
    assert got.detail["updated_at"] == "2026-11-20T10:00:00.000Z"


def test_openskills_record_in_the_folder(isolated_env: Env) -> None:
    path = isolated_env.skill(".claude/skills", "docx", "Word documents.")
    write_json(
        path.parent / ".openskills.json",
        {
            "source": "anthropics/skills",
            "sourceType": "git",
            "repoUrl": "https://github.com/anthropics/skills",
            "subpath": "document-skills/docx",
            "installedAt": "2026-10-01T00:00:00Z",
        },
    )
    got = origins(isolated_env)["claude:docx"]
    assert (got.kind, got.source, got.ref) == (
        "openskills",
        "anthropics/skills",
        "document-skills/docx",
    )
    assert got.installed_at == "2026-10-01T00:00:00Z"


def test_claude_plugin_registry(isolated_env: Env, tmp_path: Path) -> None:
    root = tmp_path / "store" / "tools"
    isolated_env.skill(root / "skills", "fmt", "Format code.")
    reg = write_json(
        isolated_env.home / ".claude" / "plugins" / "installed_plugins.json",
        {
            "version": 2,
            "plugins": {
                "tools@acme": [
                    {
                        "scope": "user",
                        "installPath": str(root),
                        "version": "1.4.0",
                        "installedAt": "2026-09-09T09:09:09Z",
                        "lastUpdated": "2026-11-11T11:11:11Z",
                        "gitCommitSha": "0123456789abcdef0123456789abcdef01234567",
                    }
                ]
            },
        },
    )
    write_json(
        isolated_env.home / ".claude" / "settings.json", {"enabledPlugins": {"tools@acme": True}}
    )
    got = origins(isolated_env)["claude-plugins:tools:fmt"]
    assert (got.kind, got.source, got.ref, got.record) == ("claude-plugin", "tools", "1.4.0", reg)
    assert got.detail["commit"] == "0123456789abcdef0123456789abcdef01234567"
    assert got.detail["last_updated"] == "2026-11-11T11:11:11Z"
    assert got.installed_at == "2026-09-09T09:09:09Z"


def test_a_hand_written_skill_has_no_origin(isolated_env: Env) -> None:
    isolated_env.skill(".claude/skills", "mine", "My own.")
    assert "claude:mine" not in origins(isolated_env)


def test_a_broken_record_is_a_diagnostic_not_a_crash(isolated_env: Env) -> None:
    isolated_env.skill(".agents/skills", "pdf", "PDF work.")
    (isolated_env.project / "skills-lock.json").write_text("{not json")
    ctx, _ = make_context(isolated_env.project, env=isolated_env.env)
    index = ProvenanceIndex.build(ctx)
    assert [d.code for d in index.diagnostics] == ["provenance-unreadable"]
