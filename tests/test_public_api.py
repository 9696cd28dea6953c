"""Meta-tests: the distributions of this repository use only the public API.

A provider, an adapter, a plugin or the testing kit may import a name in
``skillpath.__all__``, or a name in the ``__all__`` of one of
``skillpath.PUBLIC_MODULES`` (each documented on the API page); never a
``skillpath._*`` module, a module not listed, or a name outside ``__all__``.
Every import counts: at module level or inside a function, ``import x.y`` or
``from x import y``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest
import skillpath

ROOT = Path(__file__).resolve().parents[1]
#: The folders holding the sources of the distributions beside the core.
FOLDERS = ("providers/*/src", "integrations/*/src", "plugins/*/src", "testing/src")

#: Imports that wait for the cache seam (``skillpath/cache/``): the speed layers
#: (``_replay``, ``_notify``, ``_cachefile`` and the change detection inside
#: ``watch``) are being moved behind one public change-detector API, which
#: ``skillpath_mcp`` will use instead. ``(importing file, module, name)``; delete
#: this set when that API lands. Nothing may be added to it.
PENDING_CACHE_SEAM: frozenset[tuple[str, str, str | None]] = frozenset()


def _sources() -> list[Path]:
    return sorted(
        p for pattern in FOLDERS for folder in ROOT.glob(pattern) for p in folder.rglob("*.py")
    )


def core_imports(path: Path) -> Iterator[tuple[int, str, str | None]]:
    """``(line, module, name)`` for every import of ``skillpath`` in ``path``: ``name``
    is ``None`` for ``import skillpath.x``; ``from skillpath import x`` where ``x``
    is a submodule is reported as that module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "skillpath":
                    yield node.lineno, alias.name, None
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] != "skillpath":
                continue
            for alias in node.names:
                yield node.lineno, node.module, alias.name


def _is_module(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def problem(module: str, name: str | None) -> str | None:
    """Why importing ``name`` from ``module`` is outside the public API (or ``None``)."""
    public = set(skillpath.PUBLIC_MODULES)
    submodule = f"skillpath.{name}"
    if module == "skillpath" and name not in (None, *skillpath.__all__) and _is_module(submodule):
        module, name = submodule, None
    if any(part.startswith("_") for part in module.split(".")):
        return f"{module} is a private module"
    if name is None:
        if module != "skillpath" and module not in public:
            return f"{module} is not a public module"
        return None
    if module == "skillpath":
        return None if name in skillpath.__all__ else f"{name} is not in skillpath.__all__"
    if module not in public:
        return f"{module} is not a public module (skillpath.PUBLIC_MODULES)"
    exported = getattr(importlib.import_module(module), "__all__", ())
    return None if name in exported else f"{name} is not in {module}.__all__"


def test_there_are_sources_to_check() -> None:
    rels = {p.relative_to(ROOT).parts[:2] for p in _sources()}
    assert ("providers", "mcp") in rels and ("integrations", "langchain") in rels
    assert ("testing", "src") in rels and ("plugins", "acme-policy") in rels


def test_distributions_import_only_the_public_api() -> None:
    found: list[str] = []
    pending_seen: set[tuple[str, str, str | None]] = set()
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        for line, module, name in core_imports(path):
            if (rel, module, name) in PENDING_CACHE_SEAM:
                pending_seen.add((rel, module, name))
                continue
            why = problem(module, name)
            if why is not None:
                found.append(f"{rel}:{line}: {why}")
    assert found == []
    # an entry no longer needed is deleted, so the set only shrinks
    assert pending_seen == PENDING_CACHE_SEAM


@pytest.mark.parametrize(
    ("module", "name", "bad"),
    [
        ("skillpath", "load_skills", False),
        ("skillpath", "_cachefile", True),
        ("skillpath", "scan", False),
        ("skillpath", "loader", True),
        ("skillpath._split", "split_words", True),
        ("skillpath.transforms", "split_words", False),
        ("skillpath.watch", "_file_state", True),
        ("skillpath.cli._common", "echo", True),
        ("skillpath.cli", "echo", False),
        ("skillpath.safety", None, False),
        ("skillpath.cache.reuse", None, True),
        ("skillpath.scan", "Record", True),
    ],
)
def test_the_checker_tells_public_from_private(module: str, name: str | None, bad: bool) -> None:
    assert (problem(module, name) is not None) is bad


def test_function_level_and_dotted_imports_are_seen(tmp_path: Path) -> None:
    source = tmp_path / "x.py"
    source.write_text(
        "import skillpath.index\n"
        "def f():\n"
        "    from skillpath._replay import cache_root\n"
        "    import skillpath\n",
        encoding="utf-8",
    )
    assert list(core_imports(source)) == [
        (1, "skillpath.index", None),
        (3, "skillpath._replay", "cache_root"),
        (4, "skillpath", None),
    ]


def _commented(module_name: str, name: str) -> bool:
    """Whether ``name`` is assigned in ``module_name``'s source right under a ``#:``
    comment (the documentation of a constant), following a ``from x import name``
    to the module it comes from."""
    source = inspect.getsource(importlib.import_module(module_name))
    lines = source.splitlines()
    for node in ast.parse(source).body:
        if (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and node.module
            and any((a.asname or a.name) == name for a in node.names)
        ):
            original = next(a.name for a in node.names if (a.asname or a.name) == name)
            return _commented(node.module, original)
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        assigned = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        if name in assigned:
            above = node.lineno - 2
            while above >= 0 and lines[above].startswith("#") and not lines[above].startswith("#:"):
                above -= 1
            return above >= 0 and lines[above].startswith("#:")
    return False


def _own_doc(obj: object) -> str:
    if inspect.isclass(obj):
        return str(vars(obj).get("__doc__") or "").strip()
    return (getattr(obj, "__doc__", None) or "").strip()


@pytest.mark.parametrize("module_name", skillpath.PUBLIC_MODULES)
def test_each_public_module_names_what_exists_and_documents_it(module_name: str) -> None:
    module = importlib.import_module(module_name)
    assert (module.__doc__ or "").strip(), f"{module_name} has no docstring"
    exported = getattr(module, "__all__", None)
    assert isinstance(exported, list) and exported, f"{module_name} has no __all__"
    assert len(exported) == len(set(exported)), f"{module_name}.__all__ repeats a name"
    undocumented = []
    for name in exported:
        assert hasattr(module, name), f"{module_name}.__all__ names {name!r}, which is missing"
        obj = getattr(module, name)
        if inspect.isroutine(obj) or inspect.isclass(obj):
            documented = bool(_own_doc(obj))
        else:
            home = getattr(obj, "__module__", None)
            documented = _commented(module_name, name) or (
                isinstance(home, str) and home != module_name and bool(_own_doc(obj))
            )
        if not documented:
            undocumented.append(name)
    assert undocumented == [], f"{module_name}: no docstring or #: comment for {undocumented}"


def test_public_modules_are_listed_once_and_exist() -> None:
    names = skillpath.PUBLIC_MODULES
    assert len(names) == len(set(names)) and list(names) == sorted(names)
    for name in names:
        assert not any(part.startswith("_") for part in name.split("."))
        assert (ROOT / "core" / "src" / Path(*name.split("."))).with_suffix(".py").is_file() or (
            ROOT / "core" / "src" / Path(*name.split(".")) / "__init__.py"
        ).is_file()


def test_the_public_api_is_type_checked_strictly() -> None:
    """pyproject's strict mypy override names exactly skillpath and its public modules,
    and .ci/run runs mypy over the core and the providers."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    strict = [
        o
        for o in config["tool"]["mypy"]["overrides"]
        if o.get("disallow_untyped_defs") and o.get("warn_return_any")
    ]
    assert len(strict) == 1
    assert sorted(strict[0]["module"]) == sorted(["skillpath", *skillpath.PUBLIC_MODULES])
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "mypy core/src providers/*/src" in ci
