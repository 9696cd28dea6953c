"""The example plugins (``plugins/*``) are test fixtures, not part of the workspace install.

The workspace environment (``uv sync``, the README's first command) holds the core, the
built-in providers and the dev tools only: an example skill pack installed there would
put its skills into every project listed with that environment. The test run makes the
examples importable and discoverable (entry points) for itself only, as an editable
install would: each plugin's ``src`` folder goes on ``sys.path`` and a ``.dist-info``
folder written from its ``pyproject.toml`` into a temporary directory carries its
metadata. ``PYTHONPATH`` carries both to the subprocesses the tests start.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import sys
import tempfile
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
PLUGINS = ROOT / "plugins"
_SITE = pytest.StashKey[Path]()


def write_dist_info(project: Path, site: Path) -> Path:
    """Write ``<name>-<version>.dist-info`` for the distribution in ``project`` into ``site``."""
    meta = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    name, version = meta["name"], meta["version"]
    folder = site / f"{re.sub(r'[-_.]+', '_', name).lower()}-{version}.dist-info"
    folder.mkdir(parents=True)
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    lines += [f"Requires-Dist: {req}" for req in meta.get("dependencies", [])]
    (folder / "METADATA").write_text("\n".join(lines) + "\n", encoding="utf-8")
    groups = meta.get("entry-points", {})
    text = "".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) + "\n"
        for group, eps in groups.items()
    )
    (folder / "entry_points.txt").write_text(text, encoding="utf-8")
    (folder / "INSTALLER").write_text("skillpath-tests\n", encoding="utf-8")
    return folder


def _installed(project: Path) -> bool:
    """Whether the distribution in ``project`` is installed in this environment already."""
    name = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    try:
        importlib.metadata.distribution(name["name"])
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def pytest_configure(config: pytest.Config) -> None:
    """Put the example plugins on ``sys.path`` and ``PYTHONPATH`` for this run."""
    site = Path(tempfile.mkdtemp(prefix="skillpath-examples-"))
    config.stash[_SITE] = site
    entries = [str(site)]
    for project in sorted(p for p in PLUGINS.iterdir() if (p / "pyproject.toml").is_file()):
        if _installed(project):
            continue  # an environment made before the examples left the workspace
        write_dist_info(project, site)
        entries.append(str(project / "src"))
    sys.path[:0] = [e for e in entries if e not in sys.path]
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([*entries, *([old] if old else [])])


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the temporary metadata folder."""
    site = config.stash.get(_SITE, None)
    if site is not None:
        shutil.rmtree(site, ignore_errors=True)
