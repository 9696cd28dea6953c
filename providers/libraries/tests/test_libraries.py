"""Skills inside installed libraries: ``<package>/.agents/skills/<name>/SKILL.md``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from skillpath import load_skills
from skillpath.doctor import build_report, describe
from skillpath_libraries import PRIORITY, library_roots
from skillpath_testing import isolate_environment


def install(site: Path, dist: str, version: str, package: str, skills: dict[str, str]) -> None:
    """A distribution installed by hand: package files plus a ``.dist-info``."""
    pkg = site / package
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("")
    for name, text in skills.items():
        folder = pkg / ".agents" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(text)
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n\n")
    (info / "top_level.txt").write_text(package + "\n")


def skill(description: str, extra: str = "") -> str:
    return f"---\ndescription: {description}\n{extra}---\nUse it.\n"


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    home, project = isolate_environment(monkeypatch, tmp_path)
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.setenv("SKILLPATH_LIBRARIES", str(site))
    # library skills are quarantined until approved (skillpath.trust): these tests are
    # about discovery, so the user's config approves every library's
    (home / ".skillpath").mkdir(exist_ok=True)
    (home / ".skillpath" / "config.toml").write_text('[trust]\napprove = ["library:*"]\n')
    return home, project, site


def test_a_library_skill_is_quarantined_by_default(world: tuple[Path, Path, Path]) -> None:
    home, project, site = world
    (home / ".skillpath" / "config.toml").unlink()
    install(site, "web-kit", "2.3.1", "webkit", {"webkit": skill("Build web apps with webkit.")})
    result = load_skills(project, home=home)
    assert result.get("webkit") is None
    (held,) = [s for s in result.skipped if s.skill.name == "webkit"]
    assert held.reason == "quarantined"
    assert "library:web-kit" in held.detail and "not approved" in held.detail


def test_a_library_skill_loads_with_its_distribution(world: tuple[Path, Path, Path]) -> None:
    home, project, site = world
    install(site, "web-kit", "2.3.1", "webkit", {"webkit": skill("Build web apps with webkit.")})
    result = load_skills(project, home=home)
    got = result.get("webkit")
    assert got is not None
    assert (got.source.provider, got.source.level, got.priority) == ("libraries", "package", 9)
    assert got.source.detail == {"distribution": "web-kit", "version": "2.3.1", "package": "webkit"}
    assert got.path == site / "webkit" / ".agents" / "skills" / "webkit" / "SKILL.md"
    entry = next(e for e in build_report(result).skills if e.name == "webkit")
    assert "libraries/package" in describe(entry)


def test_distribution_found_through_top_level_txt(world: tuple[Path, Path, Path]) -> None:
    _home, _project, site = world
    install(site, "Odd.Name", "1.0", "oddpkg", {"odd": skill("Odd one.")})
    (lib,) = library_roots([str(site)], cwd="/")
    assert (lib.distribution, lib.version, lib.package) == ("Odd.Name", "1.0", "oddpkg")


def test_a_project_folder_on_sys_path_is_not_a_library(world: tuple[Path, Path, Path]) -> None:
    home, project, site = world
    stray = site / "notinstalled" / ".agents" / "skills" / "stray"
    stray.mkdir(parents=True)
    (stray / "SKILL.md").write_text(skill("Not from an installed distribution."))
    here = project / "pkg" / ".agents" / "skills" / "local"
    here.mkdir(parents=True)
    (here / "SKILL.md").write_text(skill("A project folder."))
    assert library_roots([str(site), str(project)], cwd=str(project)) == []
    names = [s.name for s in load_skills(project, home=home).skills]
    assert "stray" not in names and "local" not in names


def test_inline_shell_stays_off_for_library_skills(world: tuple[Path, Path, Path]) -> None:
    from skillpath import SkillSession

    home, project, site = world
    install(site, "shelly", "1.0", "shelly", {"shelly": skill("Runs a command.") + "!`echo hi`\n"})
    session = SkillSession.open(project, home=home)
    text = session.invoke("shelly", "").content
    assert "[shell command execution disabled by policy]" in text


def test_toggle_and_priority(world: tuple[Path, Path, Path]) -> None:
    home, project, site = world
    install(site, "twin", "1.0", "twin", {"twin": skill("From the library.")})
    off = load_skills(project, home=home, settings={"skills.enable_libraries": False})
    assert off.get("twin") is None
    assert any("enable_libraries" in s.detail for s in off.skipped)
    claude = project / ".claude" / "skills" / "twin"
    claude.mkdir(parents=True)
    (claude / "SKILL.md").write_text(skill("The project's own."))
    assert PRIORITY < 10


def test_a_library_skill_without_description_is_a_diagnostic(
    world: tuple[Path, Path, Path],
) -> None:
    home, project, site = world
    install(site, "bare", "1.0", "bare", {"bare": "---\nname: bare\n---\nNo description.\n"})
    result = load_skills(project, home=home)
    assert result.get("bare") is None
    assert any(d.code == "missing-description" for d in result.diagnostics)


def test_the_installed_environment_scan_is_harmless() -> None:
    """The real ``sys.path`` of this environment: nothing breaks, every root is real."""
    for lib in library_roots(sys.path, cwd="/"):
        assert lib.path.is_dir() and lib.distribution


def _record(site: Path, info: str, files: list[str]) -> None:
    lines = [f"{f},sha256=x,1" for f in files] + [f"{info}/RECORD,,"]
    (site / info / "RECORD").write_text("\n".join(lines) + "\n")


def test_a_skill_dropped_into_another_package_is_credited_to_its_installer(
    world: tuple[Path, Path, Path],
) -> None:
    """Before: a wheel that put ``webkit/.agents/skills/deploy/SKILL.md`` into another
    distribution's package had ``show deploy`` credit that other distribution."""
    from click.testing import CliRunner
    from skillpath.cli import main

    home, project, site = world
    install(site, "web-kit", "2.3.1", "webkit", {"webkit": skill("Build web apps.")})
    _record(
        site,
        "web_kit-2.3.1.dist-info",
        ["webkit/__init__.py", "webkit/.agents/skills/webkit/SKILL.md"],
    )
    # a second wheel that writes into webkit's folder
    dropped = site / "webkit" / ".agents" / "skills" / "deploy" / "SKILL.md"
    dropped.parent.mkdir(parents=True)
    dropped.write_text(skill("Deploy everything."))
    evil = site / "evil_drop-0.1.dist-info"
    evil.mkdir()
    (evil / "METADATA").write_text("Metadata-Version: 2.1\nName: evil-drop\nVersion: 0.1\n\n")
    _record(site, "evil_drop-0.1.dist-info", ["webkit/.agents/skills/deploy/SKILL.md"])
    # and a file no installer wrote
    stray = site / "webkit" / ".agents" / "skills" / "stray" / "SKILL.md"
    stray.parent.mkdir(parents=True)
    stray.write_text(skill("Nobody installed me."))

    result = load_skills(project, home=home)
    by_name = {s.name: s.source.detail for s in result.skills if s.source.provider == "libraries"}
    assert by_name["webkit"]["distribution"] == "web-kit"
    assert (by_name["deploy"]["distribution"], by_name["deploy"]["version"]) == ("evil-drop", "0.1")
    assert by_name["deploy"]["package_distribution"] == "web-kit"
    assert by_name["stray"]["distribution"] == ""
    flagged = {(d.code, d.path) for d in result.diagnostics if d.code.startswith("library-skill")}
    assert flagged == {
        ("library-skill-foreign", dropped),
        ("library-skill-unrecorded", stray),
    }
    shown = CliRunner().invoke(main, ["show", "--cwd", str(project), "deploy"])
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert "origin:      evil-drop 0.1 (python-package)" in lines
    assert "distribution:evil-drop" in lines
    assert "package_distribution:web-kit" in lines  # whose folder it sits in, said as such


def test_without_a_record_skills_are_credited_by_package(world: tuple[Path, Path, Path]) -> None:
    """Distributions installed without a RECORD cannot be checked: no warning."""
    home, project, site = world
    install(site, "plain", "1.0", "plain", {"one": skill("One."), "two": skill("Two.")})
    result = load_skills(project, home=home)
    ours = [s for s in result.skills if s.source.provider == "libraries"]
    assert {s.source.detail["distribution"] for s in ours} == {"plain"}
    assert not [d for d in result.diagnostics if d.code.startswith("library-skill")]
