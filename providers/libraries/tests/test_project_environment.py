"""Whose libraries: the project's environment, never skillpath's own unless configured."""

from __future__ import annotations

import base64
import hashlib
import os
import sys
from pathlib import Path

import pytest
from skillpath import load_skills
from skillpath_libraries import environment_dirs
from skillpath_testing import isolate_environment

from .test_libraries import install, skill


def make_env(root: Path) -> Path:
    """A virtual environment layout: ``pyvenv.cfg`` and ``lib/python3.X/site-packages``."""
    site = root / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    site.mkdir(parents=True)
    (root / "pyvenv.cfg").write_text("home = /usr/bin\n")
    return site


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """A project, and a library on skillpath's own ``sys.path`` that must stay out."""
    home, project = isolate_environment(monkeypatch, tmp_path)
    monkeypatch.delenv("SKILLPATH_LIBRARIES")
    for var in ("VIRTUAL_ENV", "UV_PROJECT_ENVIRONMENT", "POETRY_VIRTUALENVS_PATH"):
        monkeypatch.delenv(var, raising=False)
    # library skills are quarantined until approved (skillpath.trust): these tests are
    # about whose environment is read, so the user's config approves every library's
    (home / ".skillpath").mkdir(exist_ok=True)
    (home / ".skillpath" / "config.toml").write_text('[trust]\napprove = ["library:*"]\n')
    own = tmp_path / "own-site"
    own.mkdir()
    install(own, "own-lib", "1.0", "ownlib", {"own-skill": skill("From skillpath's own env.")})
    monkeypatch.setattr(sys, "path", [*sys.path, str(own)])
    return home, project, tmp_path


def names(project: Path, home: Path, **settings: object) -> set[str]:
    result = load_skills(project, home=home, settings={"skills": settings} if settings else None)
    return {s.name for s in result.skills if s.source.provider == "libraries"}


def test_the_projects_venv_is_read_and_skillpaths_own_environment_is_not(
    world: tuple[Path, Path, Path],
) -> None:
    home, project, _tmp = world
    site = make_env(project / ".venv")
    install(site, "web-kit", "2.3.1", "webkit", {"webkit": skill("Build web apps.")})
    assert names(project, home) == {"webkit"}
    # from a sub-folder of the project too (the .venv of a parent, up to the repo root)
    sub = project / "src" / "app"
    sub.mkdir(parents=True)
    result = load_skills(sub, home=home)
    got = result.get("webkit")
    assert got is not None and got.source.detail["distribution"] == "web-kit"


def test_no_project_environment_means_no_library_skills(world: tuple[Path, Path, Path]) -> None:
    home, project, _tmp = world
    assert names(project, home) == set()


def test_the_interpreter_setting_reads_skillpaths_own_environment(
    world: tuple[Path, Path, Path],
) -> None:
    home, project, _tmp = world
    make_env(project / ".venv")
    assert "own-skill" in names(project, home, libraries_environment="interpreter")


def test_a_path_setting_names_the_environment(world: tuple[Path, Path, Path]) -> None:
    home, project, tmp = world
    site = make_env(tmp / "envs" / "a")
    install(site, "kit-a", "1", "kita", {"kit-a": skill("Kit A.")})
    assert names(project, home, libraries_environment=str(tmp / "envs" / "a")) == {"kit-a"}


def test_virtual_env_is_the_projects_environment_when_not_skillpaths_own(
    world: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    home, project, tmp = world
    site = make_env(tmp / "active")
    install(site, "active-kit", "1", "activekit", {"active": skill("Active.")})
    monkeypatch.setenv("VIRTUAL_ENV", str(tmp / "active"))
    assert names(project, home) == {"active"}
    # skillpath's own environment, activated outside the project, does not count
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    assert names(project, home) == set()


def test_uv_project_environment_wins_over_the_default_venv(
    world: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    home, project, _tmp = world
    install(make_env(project / ".venv"), "plain", "1", "plainpkg", {"plain": skill("Plain.")})
    install(make_env(project / "envs" / "uv"), "uvkit", "1", "uvkit", {"uvkit": skill("Uv.")})
    monkeypatch.setenv("UV_PROJECT_ENVIRONMENT", "envs/uv")
    assert names(project, home) == {"uvkit"}


def test_poetrys_environment_in_its_cache(
    world: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    home, project, tmp = world
    (project / "pyproject.toml").write_text('[tool.poetry]\nname = "My App"\nversion = "0"\n')
    digest = base64.urlsafe_b64encode(hashlib.sha256(os.fspath(project).encode()).digest())
    venvs = tmp / "poetry-venvs"
    env_dir = venvs / f"my_app-{digest.decode()[:8]}-py3.12"
    install(make_env(env_dir), "poetry-kit", "1", "pkit", {"pkit": skill("Poetry kit.")})
    monkeypatch.setenv("POETRY_VIRTUALENVS_PATH", str(venvs))
    assert names(project, home) == {"pkit"}


def test_an_editable_install_of_the_project_environment_is_credited_there(
    world: tuple[Path, Path, Path],
) -> None:
    home, project, tmp = world
    site = make_env(project / ".venv")
    src = tmp / "checkout" / "src"
    folder = src / "editkit" / ".agents" / "skills" / "editkit"
    folder.mkdir(parents=True)
    (src / "editkit" / "__init__.py").write_text("")
    (folder / "SKILL.md").write_text(skill("Editable kit."))
    (site / "_editkit.pth").write_text(f"{src}\nimport os\n")
    info = site / "edit_kit-0.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: edit-kit\nVersion: 0.3\n\n")
    (info / "top_level.txt").write_text("editkit\n")
    assert str(src.resolve()) in environment_dirs(project / ".venv")
    result = load_skills(project, home=home)
    got = result.get("editkit")
    assert got is not None
    assert (got.source.detail["distribution"], got.source.detail["version"]) == ("edit-kit", "0.3")


def test_skillpath_libraries_still_overrides_everything(
    world: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    home, project, tmp = world
    install(make_env(project / ".venv"), "plain", "1", "plainpkg", {"plain": skill("Plain.")})
    other = tmp / "other"
    install(other, "other-kit", "1", "otherkit", {"other": skill("Other.")})
    monkeypatch.setenv("SKILLPATH_LIBRARIES", str(other))
    assert names(project, home) == {"other"}
