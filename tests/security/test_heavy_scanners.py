"""The ``scan_skill`` hook (skillpath.scanners): called per skill, cached per content
digest, failures isolated, and run by ``trust approve``, ``trust scan``, ``add`` and
``export`` — never by a load."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from skillpath import (
    PluginHost,
    Skill,
    SkillSource,
    hookimpl,
    load_skill_file,
    load_skills,
    make_context,
)
from skillpath.cli import main
from skillpath.contentscan import ContentFinding
from skillpath.scanners import heavy_scan, heavy_scan_all

from ..conftest import Env


class Counting:
    """A scanner that flags every script calling ``requests.post`` and counts its calls."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    @hookimpl
    def scan_skill(self, skill: Skill, ctx: Any) -> list[ContentFinding] | None:
        self.calls.append(skill.name)
        if skill.base_dir is None:
            return None
        out = []
        for path in sorted(Path(skill.base_dir).rglob("*.py")):
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if "requests.post" in line:
                    out.append(ContentFinding("net-post", "high", "posts data", path, n, line))
        return out


class Broken:
    @hookimpl
    def scan_skill(self, skill: Skill, ctx: Any) -> Any:
        raise RuntimeError("scanner crashed")


class Wrong:
    @hookimpl
    def scan_skill(self, skill: Skill, ctx: Any) -> Any:
        return "not findings"


def _folder(root: Path, name: str, script: str | None) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Does {name}.\n---\nUse.\n")
    if script is not None:
        (folder / "scripts").mkdir()
        (folder / "scripts" / "run.py").write_text(script)
    return folder


def _skill(folder: Path) -> Skill:
    skill, diags = load_skill_file(folder / "SKILL.md", SkillSource("t", "package", folder.parent))
    assert skill is not None, diags
    return skill


def _host(*plugins: object) -> PluginHost:
    host = PluginHost.create(autoload=False, env={})
    for i, p in enumerate(plugins):
        host.add(p, f"scanner-{i}")
    return host


def test_results_are_cached_per_content_digest(isolated_env: Env, tmp_path: Path) -> None:
    scanner = Counting()
    host = _host(scanner)
    ctx, _ = make_context(isolated_env.project, home=isolated_env.home, env=isolated_env.env)
    folder = _folder(tmp_path, "poster", "import requests\nrequests.post('https://x.example')\n")
    first = heavy_scan(_skill(folder), ctx, host, [])
    assert [(s, f.id, f.line) for s, f in first.findings] == [("scanner-0", "net-post", 2)]
    assert first.cached == () and first.worst() == "high"
    again = heavy_scan(_skill(folder), ctx, host, [])
    assert again.cached == ("scanner-0",) and again.findings == first.findings
    assert scanner.calls == ["poster"]
    (folder / "scripts" / "run.py").write_text("print('hi')\n")  # new content: scanned again
    third = heavy_scan(_skill(folder), ctx, host, [])
    assert third.findings == () and scanner.calls == ["poster", "poster"]


def test_a_failing_or_wrong_scanner_is_reported_and_the_others_count(
    isolated_env: Env, tmp_path: Path
) -> None:
    host = _host(Broken(), Wrong(), Counting())
    ctx, _ = make_context(isolated_env.project, home=isolated_env.home, env=isolated_env.env)
    folder = _folder(tmp_path, "poster", "requests.post('https://x.example')\n")
    diags: list[Any] = []
    (report,) = heavy_scan_all([_skill(folder)], ctx, host, diags)
    assert report.scanners == ("scanner-2",) and report.worst() == "high"
    failed = [d.message for d in diags if d.code == "scanner-failed"]
    assert len(failed) == 2
    assert any("scanner crashed" in m for m in failed) and any("returned str" in m for m in failed)
    assert any(d.code == "scan-finding" for d in diags)


def test_a_load_never_calls_a_scanner(isolated_env: Env) -> None:
    scanner = Counting()
    isolated_env.skill(".claude/skills", "plain", "Plain.")
    host = _host(scanner)
    load_skills(isolated_env.project, home=isolated_env.home, env=isolated_env.env, host=host)
    assert scanner.calls == []


@pytest.fixture
def with_scanner(monkeypatch: pytest.MonkeyPatch) -> Counting:
    """The command line's plugin host with the counting scanner added."""
    from skillpath import plugins

    scanner = Counting()
    real = plugins.get_plugin_host

    def host_with_scanner(*args: Any, **kwargs: Any) -> PluginHost:
        host = real(*args, **kwargs)
        if host.pm.get_plugin("test-scanner") is None:
            host.add(scanner, "test-scanner")
        return host

    monkeypatch.setattr(plugins, "get_plugin_host", host_with_scanner)
    monkeypatch.setattr("skillpath.cli._load.get_plugin_host", host_with_scanner)
    return scanner


def _library(isolated_env: Env, monkeypatch: pytest.MonkeyPatch, script: str) -> Path:
    site = isolated_env.home.parent / "site"
    pkg = site / "postkit"
    folder = _folder(pkg / ".agents" / "skills", "postkit", script)
    (pkg / "__init__.py").write_text("")
    info = site / "postkit-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: postkit\nVersion: 1.0\n\n")
    (info / "top_level.txt").write_text("postkit\n")
    monkeypatch.setenv("SKILLPATH_LIBRARIES", str(site))
    return folder


def _cli(isolated_env: Env, *args: str) -> Any:
    return CliRunner().invoke(main, [*args, "--cwd", str(isolated_env.project)])


def test_trust_approve_runs_the_scanners_and_refuses_a_high_finding(
    isolated_env: Env, monkeypatch: pytest.MonkeyPatch, with_scanner: Counting
) -> None:
    _library(isolated_env, monkeypatch, "import requests\nrequests.post('https://api.example')\n")
    refused = _cli(isolated_env, "trust", "approve", "postkit")
    assert refused.exit_code == 1
    assert "test-scanner found net-post (high)" in refused.output
    assert not (isolated_env.home / ".skillpath" / "trust-lock.json").exists()
    scan = _cli(isolated_env, "trust", "scan", "postkit", "--json")
    assert scan.exit_code == 1
    data = json.loads(scan.stdout)
    assert data["scanners"] == ["test-scanner"]
    assert data["reports"][0]["cached"] == ["test-scanner"]  # the approve's scan was kept
    assert with_scanner.calls == ["postkit"]
    forced = _cli(isolated_env, "trust", "approve", "postkit", "--force")
    assert forced.exit_code == 0, forced.output
    listed = _cli(isolated_env, "list", "--json")
    assert "postkit" in [s["name"] for s in json.loads(listed.stdout)["skills"]]


def test_add_and_export_run_the_scanners(
    isolated_env: Env, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, with_scanner: Counting
) -> None:
    source = tmp_path / "src"
    _folder(source, "poster", "import requests\nrequests.post('https://api.example')\n")
    added = _cli(isolated_env, "add", str(source))
    assert added.exit_code == 0, added.output
    assert "scan-finding" in added.output and "net-post" in added.output
    assert with_scanner.calls == ["poster"]  # the canonical copy and its twin: once
    # an approved library skill is exported, and scanned on the way (cached: not again)
    _library(isolated_env, monkeypatch, "import requests\nrequests.post('https://api.example')\n")
    config = isolated_env.home / ".skillpath" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[trust]\napprove = ["library:*"]\n')
    for _ in range(2):
        exported = _cli(isolated_env, "export", "--to", "codex", "--json")
        assert exported.exit_code == 0, exported.output
        found = [
            d["message"]
            for d in json.loads(exported.stdout)["diagnostics"]
            if d["code"] == "scan-finding"
        ]
        assert any("postkit" in m for m in found), found
    assert with_scanner.calls.count("postkit") == 1
