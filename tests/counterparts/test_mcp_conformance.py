"""The official MCP conformance suite's SEP-2640 (skills extension) scenarios against
``skillpath serve``: over streamable HTTP (``serve --http``) and over stdio (through
``mcp_stdio_bridge.py``, since the suite's ``server`` command speaks HTTP only), at both
protocol versions the MCP SDK serves (the 2025-11-25 handshake and the 2026-07-28
per-request envelope). Every check of every scenario passes or is skipped as not
applicable; none fails or warns.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from skillpath_testing import isolate_environment

BRIDGE = Path(__file__).with_name("mcp_stdio_bridge.py")
VERSIONS = ("2025-11-25", "2026-07-28")


def _project(root: Path) -> Path:
    """Skills with nested files, a binary file and frontmatter beyond name/description."""
    skills = root / ".claude" / "skills"
    files: dict[str, str | bytes] = {
        "pdf-tools/SKILL.md": (
            "---\nname: pdf-tools\ndescription: Extract and fill PDF forms.\n"
            "metadata:\n  owner: docs-team\n  version: '1.2'\nallowed-tools: [Read, Bash]\n"
            "---\nRead references/FORMS.md first.\n"
        ),
        "pdf-tools/references/FORMS.md": "# Forms\n\nFill them in.\n",
        "pdf-tools/scripts/fill.py": "print('filled')\n",
        "pdf-tools/assets/logo.png": b"\x89PNG\r\n\x1a\n\x00\x00binary",
        "release-notes/SKILL.md": (
            "---\nname: release-notes\ndescription: Write release notes from the git log.\n"
            "---\nSummarise the changes since the last tag.\n"
        ),
    }
    for rel, content in files.items():
        path = skills / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    _home, project = isolate_environment(monkeypatch, tmp_path)
    return _project(project)


def _serve(project: Path) -> list[str]:
    return [sys.executable, "-m", "skillpath", "serve", "--cwd", str(project), "--poll", "0"]


def _url_from(proc: subprocess.Popen[str], stream: Any) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        found = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line)
        if found:
            return found.group(1)
    proc.kill()
    raise AssertionError("the server did not print its URL")


@pytest.fixture(params=["http", "stdio"])
def server_url(request: pytest.FixtureRequest, project: Path) -> Iterator[str]:
    """``serve --http 0``, or ``serve`` on stdio behind the bridge; its URL."""
    if request.param == "http":
        proc = subprocess.Popen(
            [*_serve(project), "--http", "0"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        url = _url_from(proc, proc.stderr)
    else:
        proc = subprocess.Popen(
            [sys.executable, str(BRIDGE), *_serve(project)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        url = _url_from(proc, proc.stdout)
    try:
        yield url
    finally:
        if request.param == "stdio":
            assert proc.stdin is not None
            proc.stdin.close()  # the bridge stops its servers and exits
        else:
            proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _skills_scenarios(conformance: Path, env: dict[str, str]) -> list[str]:
    out = subprocess.run(
        [str(conformance), "list"], capture_output=True, text=True, env=env, timeout=120
    )
    assert out.returncode == 0, out.stderr
    servers = out.stdout.split("Client scenarios")[0]
    return sorted(set(re.findall(r"- (sep-2640-[a-z0-9-]+)", servers)))


def _run(
    conformance: Path, env: dict[str, str], url: str, scenario: str, version: str, out: Path
) -> list[dict[str, Any]]:
    done = subprocess.run(
        [
            str(conformance),
            "server",
            "--url",
            url,
            "--scenario",
            scenario,
            "--spec-version",
            version,
            "--force",  # extension scenarios are on no spec timeline: run them at this one
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    found = sorted(out.glob(f"*{scenario}*/checks.json"))
    assert found, f"{scenario} at {version}: no results\n{done.stdout}\n{done.stderr}"
    checks: list[dict[str, Any]] = json.loads(found[-1].read_text(encoding="utf-8"))
    return checks


@pytest.mark.parametrize("version", VERSIONS)
def test_skills_scenarios_pass(
    counterpart: Callable[[str], Path],
    node_path: str,
    server_url: str,
    version: str,
    tmp_path: Path,
) -> None:
    conformance = counterpart("conformance")
    env = {**os.environ, "PATH": node_path, "NO_COLOR": "1"}
    scenarios = _skills_scenarios(conformance, env)
    assert {"sep-2640-skills-enumeration", "sep-2640-skills-manifest"} <= set(scenarios)
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for scenario in scenarios:
        checks = _run(conformance, env, server_url, scenario, version, tmp_path / scenario)
        results[scenario] = {c["id"]: c for c in checks}
    bad = [
        f"{scenario}: {c['id']} {c['status']}: {c.get('errorMessage')}"
        for scenario, checks in results.items()
        for c in checks.values()
        if c["status"] not in ("SUCCESS", "SKIPPED", "INFO")
    ]
    assert bad == []
    enumeration = results["sep-2640-skills-enumeration"]
    # the extension is seen at both versions (declared under capabilities.extensions) ...
    for check in (
        "sep-2640-capability-empty-object",
        "sep-2640-capability-requires-resources",
        "sep-2640-skills-list-implemented",
        "sep-2640-resources-size-required",
        "sep-2640-resources-complete",
        "sep-2640-skills-get-implemented",
        "sep-2640-skills-get-unknown-uri-invalid-params",
        "sep-2640-entry-frontmatter-identical",
    ):
        assert enumeration[check]["status"] == "SUCCESS", (check, enumeration[check])
    # resources/directory/read is declared (directoryRead) and every check of it runs
    directory = results["sep-2640-skills-directory"]
    for check in (
        "sep-2640-capability-directory-read-flag",
        "sep-2640-directory-read-method-registered",
        "sep-2640-directory-read-result-resources-shape",
        "sep-2640-directory-read-subdir-mimetype",
        "sep-2640-directory-read-invalid-params",
        "sep-2640-directory-read-pagination",
    ):
        assert directory[check]["status"] == "SUCCESS", (check, directory[check])
    manifest = results["sep-2640-skills-manifest"]
    assert manifest["sep-2640-skillmd-mimetype"]["status"] == "SUCCESS"
    # ... and the version asked for is the one negotiated: the cache attributes are
    # checked (and present) at 2026-07-28, not applicable at 2025-11-25
    cache = enumeration["sep-2640-skills-list-cache-attributes"]
    get_cache = enumeration["sep-2640-skills-get-cache-attributes"]
    if version == "2026-07-28":
        assert cache["status"] == "SUCCESS", cache
        assert get_cache["status"] == "SUCCESS", get_cache
    else:
        assert cache["status"] == "SKIPPED"
        assert "negotiated protocol 2025-11-25" in cache["errorMessage"]
