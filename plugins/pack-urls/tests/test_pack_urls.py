"""pack:// through the real plugin host (entry points installed in the environment)."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest
from skillpath import ResolveError, reset_plugin_host
from skillpath.safety import ContainmentError
from skillpath.session import SkillSession
from skillpath_testing import isolate_environment


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SkillSession]:
    home, project = isolate_environment(monkeypatch, tmp_path, cache_dir=tmp_path / "cache")
    yield SkillSession.open(project, home=home)
    reset_plugin_host()


def test_reading_never_extracts(session: SkillSession, tmp_path: Path) -> None:
    session.resolve("pack://acme-skills/code-review/references/checklist.md")
    session.resolve("pack://acme-skills/")
    assert not (tmp_path / "cache" / "packs").exists()


def test_reads_a_pack_file(session: SkillSession) -> None:
    res = session.resolve("pack://acme-skills/code-review/references/checklist.md")
    expected = (resources.files("acme_skills") / "code-review/references/checklist.md").read_text()
    assert res.content == expected
    assert res.mime_type == "text/markdown" and res.skill == "code-review"
    assert res.path is None and not res.is_directory
    script = session.resolve("pack://ACME_Skills/release-checklist/scripts/check_release.py")
    assert script.mime_type == "text/plain" and script.content.startswith("#!/usr/bin/env python3")
    assert session.resolve("pack://acme/code-review/SKILL.md").skill == "code-review"


def test_directory_listings(session: SkillSession) -> None:
    root = session.resolve("pack://acme-skills/")
    assert root.is_directory and root.content == "code-review/\nrelease-checklist/\n"
    sub = session.resolve("pack://acme-skills/code-review/references")
    assert sub.is_directory and sub.content == "checklist.md\nseverity.md\n"


@pytest.mark.parametrize(
    "url",
    [
        "pack://acme-skills/../acme_skills/__init__.py",
        "pack://acme-skills/code-review/%2e%2e/%2e%2e/x",
        "pack://acme-skills//etc/passwd",
        "pack://acme-skills/code-review%5cSKILL.md",
    ],
)
def test_escapes_are_refused(session: SkillSession, url: str) -> None:
    with pytest.raises(ContainmentError):
        session.resolve(url)


def test_unknown_pack_and_missing_file(session: SkillSession) -> None:
    with pytest.raises(ResolveError, match="No installed skill pack 'nope'"):
        session.resolve("pack://nope/x.md")
    with pytest.raises(ResolveError, match="File not found"):
        session.resolve("pack://acme-skills/code-review/missing.md")
    with pytest.raises(ResolveError, match="without a distribution"):
        session.resolve("pack:///x")


def test_other_schemes_are_left_alone(session: SkillSession) -> None:
    assert session.resolve("skill://code-review").content.startswith("---")
    with pytest.raises(ResolveError, match="no resolver"):
        session.resolve("nope://x")
