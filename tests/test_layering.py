"""The layers of the core, read from the source: no import cycles, records import no readers.

The module graph is built from the ``ast`` of every module of
``core/src/skillpath``, with every import statement in it: at module level and
inside functions and methods (an import run on first use closes a cycle as
surely as one at the top). Only imports under ``if TYPE_CHECKING:`` are left
out: they are never run.

An edge goes to the module that is imported: ``from skillpath.a import b`` is
an edge to ``skillpath.a`` (and to ``skillpath.a.b`` when that is a module),
``from skillpath import x`` an edge to the package ``skillpath`` unless ``x``
is a module of it. A package is not counted as imported by its own
submodules (Python runs a package's ``__init__`` first, and the ones of the
core import nothing at run time: their names load on first use).

Imports by name are edges too. A module that calls ``importlib.import_module``
imports the modules its tables name: every string of a module-level assignment
in it (or of one it imports by name from the core, as the command group reads
the command table) that names a module of the core, alone or as
``"module:attribute"``. A package whose ``__getattr__`` loads its names from
such a table (a lazy export, PEP 562) has an edge to every module of it, and
``from package import name`` is an edge to the module the table names for
``name`` (that import runs that entry only). A module that imports by name and
names no module of the core must say why in :data:`NOT_CORE_EDGES`. The one
import by a name built at run time, ``skillpath.<name>`` for an attribute that
is a submodule, is the caller's own import of that submodule.

There is no cycle, and the records (:mod:`skillpath.model`) reach no reader:
both tests allow no exception. What the records do reach is named in
:data:`RECORD_HELPERS`, each with why it is not a reader.

The size of the scanner is held here too: ``scan.py`` has at most
:data:`SCAN_MAX_LINES` lines and no function of the core a cyclomatic
complexity above :data:`MAX_COMPLEXITY` (counted as :func:`complexity` says).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

CORE = Path(__file__).resolve().parent.parent / "core" / "src"
PACKAGE = "skillpath"

#: Modules that read files or parse text: the records of ``skillpath.model``
#: must not depend on any of them (a reader builds records, never the reverse).
READERS = frozenset(
    {
        "skillpath.scan",
        "skillpath.survey",
        "skillpath.frontmatter",
        "skillpath._yamlfast",
        "skillpath.activation",
        "skillpath.suggest",
        "skillpath.loader",
        "skillpath.safety",
        "skillpath.settings",
        "skillpath.context",
        "skillpath.plugins",
    }
)


#: The modules the records may use, and why none of them is a reader: the lazy
#: :attr:`Skill.body <skillpath.model.Skill.body>` of a skill built by hand with
#: a ``path`` (public behaviour: it reads its body on first use) needs the text of
#: the record's own ``SKILL.md`` after its frontmatter. ``_skillfile`` splits bytes
#: at the ``---`` fence (no YAML, no parsing, no record built) and reads that one
#: file; ``_openfile`` opens a file without blocking, regular files only. Both
#: import nothing else of the core; the frontmatter parser splits files with the
#: same ``_skillfile`` functions, so there is one definition of where a body starts.
RECORD_HELPERS = frozenset({"skillpath._skillfile", "skillpath._openfile"})

#: The modules that import by name (``importlib.import_module``) but no module
#: of the core, and why: their strings are not read as edges.
NOT_CORE_EDGES = {
    "skillpath.cache.entrypoints": "loads a plugin's entry point: a module of the plugin",
}


def _modules(root: Path = CORE, package: str = PACKAGE) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in sorted((root / package).rglob("*.py")):
        if "templates" in path.relative_to(root / package).parts:
            continue  # files copied into new projects, not modules of the core
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement run at some point: all but those under ``if TYPE_CHECKING``."""
    for node in _runs(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node


def _runs(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node run at some point: all but those under ``if TYPE_CHECKING``."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _type_checking(node):
            stack.extend(node.orelse)
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _imports_by_name(tree: ast.AST) -> bool:
    """Whether the module calls ``importlib.import_module`` (or ``import_module``)."""
    for node in _runs(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Attribute) and func.attr == "import_module") or (
                isinstance(func, ast.Name) and func.id == "import_module"
            ):
                return True
    return False


def _string(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _named_module(value: str, known: set[str]) -> str | None:
    module = value.partition(":")[0]
    return module if module in known else None


def _tables(tree: ast.Module, known: set[str]) -> dict[str, dict[str, str]]:
    """Module-level name -> {its string: the module of the core the string names}.

    The string is a dictionary's key when the value names a module (``{"Skill":
    "skillpath.model"}``: the key ``Skill`` is loaded from ``skillpath.model``),
    else the string itself (``"skillpath.cli.show:show_cmd"``).
    """
    out: dict[str, dict[str, str]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign):
            names = [t.id for t in stmt.targets if isinstance(t, ast.Name)]
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            names = [stmt.target.id]
        else:
            continue
        if stmt.value is None or not names:
            continue
        entries: dict[str, str] = {}
        for node in ast.walk(stmt.value):
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    k, v = _string(key), _string(value)
                    module = _named_module(v, known) if k is not None and v is not None else None
                    if k is not None and module is not None:
                        entries[k] = module
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                module = _named_module(node.value, known)
                if module is not None:
                    entries.setdefault(node.value, module)
        if entries:
            for name in names:
                out[name] = entries
    return out


def _defines_getattr(tree: ast.Module) -> bool:
    return any(isinstance(s, ast.FunctionDef) and s.name == "__getattr__" for s in tree.body)


def _targets(
    module: str,
    is_package: bool,
    node: ast.Import | ast.ImportFrom,
    known: set[str],
    package: str = PACKAGE,
    exports: dict[str, dict[str, str]] | None = None,
) -> Iterator[str]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name == package or alias.name.startswith(package + "."):
                yield alias.name
        return
    if node.level:
        base = module.split(".")
        if not is_package:
            base.pop()
        base = base[: len(base) - (node.level - 1)]
        target = ".".join([*base, *([node.module] if node.module else [])])
    else:
        target = node.module or ""
    if target != package and not target.startswith(package + "."):
        return
    lazy = (exports or {}).get(target, {})
    for alias in node.names:
        sub = f"{target}.{alias.name}"
        yield sub if sub in known else lazy.get(alias.name, target)


def _by_name(
    tree: ast.Module, tables: dict[str, dict[str, dict[str, str]]], module: str
) -> set[str]:
    """The modules of the core named by the tables ``module`` holds or imports by name."""
    named = {m for entries in tables[module].values() for m in entries.values()}
    for node in _imports(tree):
        if isinstance(node, ast.ImportFrom) and node.module in tables and not node.level:
            for alias in node.names:
                named.update(tables[node.module].get(alias.name, {}).values())
    return named


def import_graph(root: Path = CORE, package: str = PACKAGE) -> dict[str, set[str]]:
    """Module -> the modules of the core it imports (at run time, anywhere in it)."""
    modules = _modules(root, package)
    known = set(modules)
    trees = {
        name: ast.parse(path.read_text(encoding="utf-8"), str(path))
        for name, path in modules.items()
    }
    tables = {name: _tables(tree, known) for name, tree in trees.items()}
    dynamic = {name for name, tree in trees.items() if _imports_by_name(tree)}
    assert known & set(NOT_CORE_EDGES) <= dynamic, "NOT_CORE_EDGES names a module that does not"
    by_name = {
        name: _by_name(trees[name], tables, name) for name in sorted(dynamic - set(NOT_CORE_EDGES))
    }
    unnamed = [name for name, named in by_name.items() if not named]
    assert not unnamed, (
        "modules importing by name with no table of core modules: give the table, or the "
        f"reason in NOT_CORE_EDGES: {unnamed}"
    )
    exports = {
        name: {k: m for entries in tables[name].values() for k, m in entries.items()}
        for name, tree in trees.items()
        if modules[name].name == "__init__.py" and name in by_name and _defines_getattr(tree)
    }
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        deps: set[str] = set(by_name.get(name, ()))
        for node in _imports(trees[name]):
            for target in _targets(name, path.name == "__init__.py", node, known, package, exports):
                while target not in known and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in known:
                    deps.add(target)
        deps.discard(name)
        graph[name] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def _edges_within(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    inside = set(component)
    return [f"{m} -> {d}" for m in component for d in sorted(graph[m] & inside)]


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph()


def test_the_graph_sees_every_kind_of_import(graph: dict[str, set[str]]) -> None:
    # a module-level import, a function-level one and a relative-free package one
    assert "skillpath.cache.memo" in graph["skillpath.scan"]
    assert "skillpath.cache.index" in graph["skillpath.loader"]
    assert "skillpath.cache.launch" in graph["skillpath.__main__"]
    assert len(graph) > 50
    # imports by name: the lazy exports of the packages, the lazy command table
    assert "skillpath.scan" in graph["skillpath"]
    assert "skillpath.cache.folders" in graph["skillpath.cache"]
    assert "skillpath.cache.folders" in graph["skillpath.cli.cache"]  # via the lazy export
    assert "skillpath.cache" not in graph["skillpath.cli.cache"]
    assert "skillpath.cli.listing" in graph["skillpath.cli._group"]
    # a plugin's entry point is not a module of the core
    assert "skillpath" not in graph["skillpath.cache.entrypoints"]


def test_the_core_has_no_import_cycle(graph: dict[str, set[str]]) -> None:
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(
        "  " + ", ".join(c) + "\n    " + "\n    ".join(_edges_within(graph, c)) for c in found
    )


def _reached(graph: dict[str, set[str]], start: str) -> set[str]:
    reached: set[str] = set()
    todo = [start]
    while todo:
        for dep in graph[todo.pop()]:
            if dep not in reached:
                reached.add(dep)
                todo.append(dep)
    return reached


def test_records_import_no_reader(graph: dict[str, set[str]]) -> None:
    reached = _reached(graph, "skillpath.model")
    assert not reached & READERS, sorted(reached & READERS)
    # and nothing but the helpers named (a new module reached needs its reason there)
    assert reached <= RECORD_HELPERS, sorted(reached - RECORD_HELPERS)


def test_the_record_helpers_are_leaves(graph: dict[str, set[str]]) -> None:
    for helper in RECORD_HELPERS:
        assert graph[helper] <= RECORD_HELPERS, (helper, sorted(graph[helper] - RECORD_HELPERS))
    # the parser and the safe readers use the same definitions
    assert "skillpath._skillfile" in graph["skillpath.frontmatter"]
    assert "skillpath._openfile" in graph["skillpath.safety"]


def test_records_use_no_activation_suggestion_or_settings_code(
    graph: dict[str, set[str]],
) -> None:
    # what the records need of these (normalize_patterns, by_folder) lives in the model
    for reader in ("skillpath.activation", "skillpath.suggest", "skillpath.settings"):
        assert reader not in graph["skillpath.model"], reader


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def _write_package(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


_LAZY_INIT = """
import importlib
_EXPORTS = {"Thing": "pkg.a"}
def __getattr__(name):
    return getattr(importlib.import_module(_EXPORTS[name]), name)
"""


def test_the_graph_finds_a_cycle_through_a_lazy_export(tmp_path: Path) -> None:
    # pkg.a -> pkg.b at the top; pkg.b reaches pkg.a only through the package's table
    _write_package(
        tmp_path,
        {
            "pkg/__init__.py": _LAZY_INIT,
            "pkg/a.py": "from pkg.b import helper\nThing = 1\n",
            "pkg/b.py": "def helper():\n    from pkg import Thing\n    return Thing\n",
        },
    )
    graph = import_graph(tmp_path, "pkg")
    assert graph["pkg"] == {"pkg.a"}
    assert graph["pkg.b"] == {"pkg.a"}  # the module the table names, not the package
    assert cycles(graph) == [["pkg.a", "pkg.b"]]
    # without the table entry the same import is an edge to the package: no cycle
    _write_package(tmp_path, {"pkg/__init__.py": "Thing = 2\n"})
    assert cycles(import_graph(tmp_path, "pkg")) == []


def test_the_graph_finds_a_cycle_through_a_command_table(tmp_path: Path) -> None:
    # the group imports the table by name from a leaf and its commands by name
    _write_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/table.py": 'COMMANDS: dict[str, str] = {"run": "pkg.run:run_cmd"}\n',
            "pkg/group.py": (
                "import importlib\nfrom pkg.table import COMMANDS\n"
                "def get(name):\n"
                "    module, _, attr = COMMANDS[name].partition(':')\n"
                "    return getattr(importlib.import_module(module), attr)\n"
            ),
            "pkg/run.py": "from pkg.group import get\nrun_cmd = get\n",
        },
    )
    graph = import_graph(tmp_path, "pkg")
    assert graph["pkg.group"] == {"pkg.table", "pkg.run"}
    assert cycles(graph) == [["pkg.group", "pkg.run"]]


def test_an_import_by_name_without_a_table_needs_a_reason(tmp_path: Path) -> None:
    _write_package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/load.py": (
                "import importlib\ndef load(m):\n    return importlib.import_module(m)\n"
            ),
        },
    )
    with pytest.raises(AssertionError, match=r"pkg\.load"):
        import_graph(tmp_path, "pkg")


#: The longest ``scan.py`` may be: the scanner stays a loop a reader can follow.
SCAN_MAX_LINES = 1_000
#: The highest cyclomatic complexity a function of the core may have.
MAX_COMPLEXITY = 50

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _decisions(node: ast.AST) -> int:
    """The decision points ``node`` itself adds (radon's rules, see :func:`complexity`)."""
    if isinstance(node, (ast.If, ast.IfExp, ast.Assert)):
        return 1
    if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
        return 1 + bool(node.orelse)
    if isinstance(node, (ast.Try, ast.TryStar)):
        return len(node.handlers) + bool(node.orelse)
    if isinstance(node, ast.BoolOp):
        return len(node.values) - 1
    if isinstance(node, ast.comprehension):
        return 1 + len(node.ifs)
    if isinstance(node, ast.Match):
        catch_all = any(
            isinstance(case.pattern, ast.MatchAs) and case.pattern.pattern is None
            for case in node.cases
        )
        return max(0, len(node.cases) - catch_all)
    return 0


def complexity(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """McCabe's cyclomatic complexity of ``function``, counted as radon counts it.

    1, plus 1 for each ``if``, ``elif``, conditional expression and ``assert``;
    1 for each ``for`` and ``while`` loop (2 with an ``else``); 1 for each
    ``except`` clause and 1 for a ``try``'s ``else``; each ``and``/``or`` adds its
    operands but one; each comprehension's ``for`` 1 and each of its ``if``s 1;
    each ``match`` case 1 but a catch-all one (``case _``). ``with``, lambdas
    (their expressions count in the function), decorators and default values
    add nothing. A function or class defined inside is not counted in it: each
    function is measured on its own.
    """
    total = 1
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            continue
        total += _decisions(node)
        stack.extend(ast.iter_child_nodes(node))
    return total


def _functions(
    tree: ast.AST, prefix: str = ""
) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function and method of ``tree`` (nested ones too), with its dotted name."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, _FUNCTIONS):
            yield prefix + node.name, node
            yield from _functions(node, f"{prefix}{node.name}.")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, f"{prefix}{node.name}.")
        else:
            yield from _functions(node, prefix)


def core_complexities() -> list[tuple[int, str]]:
    """(complexity, ``module:function``) of every function of the core, the worst first."""
    out: list[tuple[int, str]] = []
    for name, path in _modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        out.extend((complexity(node), f"{name}:{qual}") for qual, node in _functions(tree))
    return sorted(out, key=lambda row: (-row[0], row[1]))


def test_scan_py_stays_short() -> None:
    path = CORE / PACKAGE / "scan.py"
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= SCAN_MAX_LINES, f"scan.py has {lines} lines (at most {SCAN_MAX_LINES})"


def test_no_function_of_the_core_is_too_complex() -> None:
    ranked = core_complexities()
    assert len(ranked) > 500  # every module was read
    worst = "\n".join(f"  {score:4d}  {where}" for score, where in ranked[:5])
    assert ranked[0][0] <= MAX_COMPLEXITY, (
        f"cyclomatic complexity above {MAX_COMPLEXITY}; the worst five:\n{worst}"
    )


def _complexity_of(source: str) -> int:
    function = ast.parse(source).body[0]
    assert isinstance(function, _FUNCTIONS)
    return complexity(function)


def test_complexity_counts_as_radon_does() -> None:
    assert _complexity_of("def f():\n    return 1\n") == 1
    branches = (
        "def f(a, b, xs):\n"
        "    if a and b or a:\n"  # if 1, boolean operands 2
        "        pass\n"
        "    elif b:\n"  # 1
        "        pass\n"
        "    for x in xs:\n"  # 1, and its else 1
        "        pass\n"
        "    else:\n"
        "        pass\n"
        "    while a:\n"  # 1
        "        break\n"
        "    try:\n"
        "        pass\n"
        "    except ValueError:\n"  # 1
        "        pass\n"
        "    except OSError:\n"  # 1
        "        pass\n"
        "    else:\n"  # 1
        "        pass\n"
        "    with open(a):\n"  # 0
        "        pass\n"
        "    assert a\n"  # 1
        "    y = [x for x in xs if x if not x]\n"  # 1 + 2
        "    z = a if b else None\n"  # 1
        "    match a:\n"
        "        case 1:\n"  # 1
        "            pass\n"
        "        case [_, _]:\n"  # 1
        "            pass\n"
        "        case _:\n"  # 0
        "            pass\n"
        "    return lambda: y if z else y\n"  # 1 (the lambda's expression)
    )
    assert _complexity_of(branches) == 1 + 3 + 1 + 2 + 1 + 3 + 1 + 3 + 1 + 2 + 1
    nested = "def f(a):\n    def g():\n        if a:\n            pass\n    return g\n"
    assert _complexity_of(nested) == 1
    tree = ast.parse(nested + "class C:\n    def m(self):\n        pass\n")
    assert [name for name, _ in _functions(tree)] == ["f", "f.g", "C.m"]


def test_trust_names_the_installers_record() -> None:
    """``skillpath.trust`` names ``skillpath add``'s record without importing the installer."""
    from skillpath.install import RECORD_FILE
    from skillpath.trust import ADD_RECORD_FILE

    assert ADD_RECORD_FILE == RECORD_FILE
