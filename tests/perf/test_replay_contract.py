"""The replay of an unchanged ``skillpath list`` never serves a plugin's stale output.

A plugin declares what its hooks depend on (:func:`skillpath.depends_on`). A run
with a plugin that declared nothing, or declared anything but ``"files"`` for a
hook ``list`` calls, is not recorded, so the next run calls the plugin again.
Each case runs the real console script, in new processes, three times.
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.perf.test_replay import Project, recorded, replayed

CLOCK = """
import time
from pathlib import Path
from skillpath import DiscoveryResult, Skill, SkillSource, hookimpl{imports}

{decorator}
@hookimpl
def discover_skills(ctx):
    source = SkillSource("clock", "user")
    now = str(time.time_ns())
    return DiscoveryResult("clock", 5, (Skill("clock", "now " + now, None, None, source),))
"""

HTTP = """
import json, os, urllib.request
from skillpath import DiscoveryResult, Skill, SkillSource, hookimpl{imports}

{decorator}
@hookimpl
def discover_skills(ctx):
    with urllib.request.urlopen(ctx.env["REGISTRY_URL"], timeout=30) as response:
        listing = json.load(response)
    source = SkillSource("registry", "remote")
    skills = tuple(Skill(s["name"], s["description"], None, None, source) for s in listing)
    return DiscoveryResult("registry", 5, skills)
"""


def _source(template: str, declared: tuple[str, ...] | None) -> str:
    if declared is None:
        return template.format(imports="", decorator="")
    args = ", ".join(repr(d) for d in declared)
    return template.format(imports=", depends_on", decorator=f"@depends_on({args})")


def _described(output: bytes, name: str) -> str:
    skills = json.loads(output)["skills"]
    return next(s["description"] for s in skills if s["name"] == name)


def _not_recorded(p: Project, why: str) -> None:
    decisions = p.decisions()
    assert any(d.startswith("not recorded: ") and why in d for d in decisions), decisions
    assert not any(d.startswith(("recorded ", "replayed ")) for d in decisions), decisions


@pytest.fixture
def proj(tmp_path: Path) -> Project:
    p = Project(tmp_path)
    p.fill_mixed()
    p.fresh("list", "--json")  # the index's first run is never recorded
    return p


@pytest.mark.parametrize(
    ("declared", "why"),
    [
        (None, "has not declared what its discover_skills depends on"),
        (("files", "clock"), "discover_skills depends on clock"),
    ],
    ids=["undeclared", "declared-clock"],
)
def test_a_clock_plugin_is_called_on_every_run(
    proj: Project, declared: tuple[str, ...] | None, why: str
) -> None:
    proj.plugin("clock_plugin", _source(CLOCK, declared))
    seen = []
    for _ in range(3):
        out = proj.run("list", "--json")
        assert out.returncode == 0, out.stderr
        _not_recorded(proj, why)
        seen.append(_described(out.stdout, "clock"))
    assert len(set(seen)) == 3, seen
    assert proj.snapshots() == []


def test_a_plugin_that_declares_files_only_is_replayed(proj: Project) -> None:
    """The control: the same plugin shape, depending on files only, is replayed."""
    proj.plugin(
        "files_plugin",
        """
        from skillpath import depends_on, hookimpl

        @hookimpl
        @depends_on("files")
        def filter_skill(skill, ctx):
            return False if skill.name == "claude-1" else None
        """,
    )
    first = recorded(proj)
    assert replayed(proj) == first
    assert "claude-1" not in [s["name"] for s in json.loads(first)["skills"]]


class Registry:
    """A skill registry over HTTP on 127.0.0.1, whose listing the test changes."""

    def __init__(self) -> None:
        self.listing: list[dict[str, str]] = []
        registry = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = json.dumps(registry.listing).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/skills.json"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def registry() -> Iterator[Registry]:
    r = Registry()
    yield r
    r.close()


@pytest.mark.parametrize(
    ("declared", "why"),
    [
        (None, "has not declared what its discover_skills depends on"),
        (("network",), "discover_skills depends on network"),
        # a wrong declaration is still caught: opening a socket stops recording
        (("files",), "socket.connect"),
    ],
    ids=["undeclared", "declared-network", "declared-files-wrongly"],
)
def test_an_http_provider_is_never_replayed_stale(
    proj: Project, registry: Registry, declared: tuple[str, ...] | None, why: str
) -> None:
    proj.plugin("registry_plugin", _source(HTTP, declared))
    proj.env["REGISTRY_URL"] = registry.url
    # a plugin provider's remote skills are third party, quarantined until approved
    # (skillpath.trust): the user's config approves them, as this test is about replays
    config = proj.home / ".skillpath" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[trust]\napprove = ["remote:*"]\n')
    for version in range(3):
        registry.listing = [{"name": "company-style", "description": f"version {version}"}]
        if version == 2:
            registry.listing.append({"name": "company-new", "description": "added"})
        out = proj.run("list", "--json")
        assert out.returncode == 0, out.stderr
        _not_recorded(proj, why)
        assert _described(out.stdout, "company-style") == f"version {version}"
        has_new = "company-new" in [s["name"] for s in json.loads(out.stdout)["skills"]]
        assert has_new == (version == 2)
    assert proj.snapshots() == []


def test_doctor_names_the_plugins_that_turn_the_replay_off(proj: Project) -> None:
    proj.plugin("clock_plugin", _source(CLOCK, None))
    out = proj.run("doctor", "--json")
    assert out.returncode == 0, out.stderr
    notes = [d for d in json.loads(out.stdout)["diagnostics"] if d["code"] == "replay-off"]
    assert [(d["level"], d["message"]) for d in notes] == [
        (
            "info",
            "plugin 'clock_plugin' has not declared what its discover_skills depends on "
            "(skillpath.depends_on); `skillpath list` is not replayed while it is installed",
        )
    ]
    providers = proj.run("providers")
    assert providers.returncode == 0, providers.stderr
    text = providers.stdout.decode()
    assert "\nNot replayable:\n  plugin 'clock_plugin' has not declared" in text
