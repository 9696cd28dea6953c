"""Every distribution is ready to publish, and the example plugins stay out of the workspace.

Static checks of the ``pyproject.toml`` files; ``.ci/install-test`` (run by ``.ci/run``)
builds, checks (``twine check --strict``) and installs the real wheels.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
DISTS = sorted(
    [REPO, REPO / "core", REPO / "testing"]
    + [p for p in (REPO / "providers").iterdir() if not p.name.startswith("_")]
    + list((REPO / "plugins").iterdir())
    + list((REPO / "integrations").iterdir()),
    key=str,
)
EXAMPLES = {"acme-skills", "acme-policy", "pack-urls"}


def project(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = tomllib.loads((path / "pyproject.toml").read_text(encoding="utf-8"))
    return data


def names(requirements: list[str]) -> set[str]:
    return {re.split(r"[\s<>=!~\[;]", r, maxsplit=1)[0].lower() for r in requirements}


@pytest.mark.parametrize("path", DISTS, ids=lambda p: p.name)
def test_distribution_metadata(path: Path) -> None:
    data = project(path)
    meta = data["project"]
    assert (path / "LICENSE").read_text().startswith("MIT License")
    assert "skillpath contributors" in (path / "LICENSE").read_text()
    assert meta["license"] == "MIT" and meta["license-files"] == ["LICENSE"]
    assert meta["authors"] == [{"name": "skillpath contributors"}]
    assert "agent-skills" in meta["keywords"]
    assert set(meta["urls"]) == {"Homepage", "Documentation", "Repository", "Issues"}
    home = "https://github.com/skillpath/skillpath"
    assert all(u.startswith(home) for u in meta["urls"].values())
    classifiers = meta["classifiers"]
    assert "Programming Language :: Python :: 3 :: Only" in classifiers
    assert not [c for c in classifiers if c.startswith("License ::")]  # PEP 639: the expression
    private = "Private :: Do Not Upload" in classifiers
    assert private == (path.parent.name == "plugins"), path
    (backend,) = data["build-system"]["requires"]
    assert backend == "hatchling>=1.27"  # the first to write PEP 639 license metadata


def test_the_meta_readme_is_written_for_the_package_index() -> None:
    meta = project(REPO)["project"]
    readme = (REPO / meta["readme"]).read_text(encoding="utf-8")
    assert meta["readme"] != "README.md"
    assert "clone" not in readme.lower() and "uv run" not in readme
    assert "pip install skillpath" in readme


def test_examples_are_not_installed_by_the_workspace() -> None:
    data = project(REPO)
    default = data["tool"]["uv"].get("default-groups", [])
    reached = names(data["project"]["dependencies"])
    for group in default:
        reached |= names(data["dependency-groups"][group])
    for extra in data["project"].get("optional-dependencies", {}).values():
        reached |= names(extra)
    assert not reached & EXAMPLES
    # nor through a dependency of what is installed
    for path in DISTS:
        meta = project(path)["project"]
        if meta["name"] not in EXAMPLES:
            assert not names(meta.get("dependencies", [])) & EXAMPLES, path


def test_skillpath_mcp_requires_the_sdk_major_it_imports() -> None:
    deps = project(REPO / "providers" / "mcp")["project"]["dependencies"]
    # 2.3: the bounded stdio client and the HTTP session eviction use what 2.3 has
    assert "mcp>=2.3,<3" in deps and "mcp-types>=2.3,<3" in deps
    source = "\n".join(
        p.read_text() for p in (REPO / "providers/mcp/src/skillpath_mcp").glob("*.py")
    )
    assert "from mcp import MCPError" in source  # mcp 2.x (1.x spells it McpError)
    assert "import mcp_types" in source  # a distribution of its own since 2.0
    lock = (REPO / "uv.lock").read_text()
    (locked,) = re.findall(r'name = "mcp"\nversion = "([^"]+)"', lock)
    assert locked.startswith("2.")


def test_the_all_extra_is_every_other_extra_and_each_is_on_the_index_page() -> None:
    meta = project(REPO)["project"]
    extras = meta["optional-dependencies"]
    others = sorted({d for name, deps in extras.items() if name != "all" for d in deps})
    assert sorted(extras["all"]) == others
    readme = (REPO / meta["readme"]).read_text(encoding="utf-8")
    for name in extras:
        assert f"| `{name}` |" in readme, name
