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

There is no cycle, and the records (:mod:`skillpath.model`) reach no reader:
both tests allow no exception. What the records do reach is named in
:data:`RECORD_HELPERS`, each with why it is not a reader.
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


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in sorted((CORE / PACKAGE).rglob("*.py")):
        if "templates" in path.relative_to(CORE / PACKAGE).parts:
            continue  # files copied into new projects, not modules of the core
        parts = list(path.relative_to(CORE).with_suffix("").parts)
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
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _type_checking(node):
            stack.extend(node.orelse)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _targets(
    module: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: set[str]
) -> Iterator[str]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
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
    if target != PACKAGE and not target.startswith(PACKAGE + "."):
        return
    for alias in node.names:
        sub = f"{target}.{alias.name}"
        yield sub if sub in known else target


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules of the core it imports (at run time, anywhere in it)."""
    modules = _modules()
    known = set(modules)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        deps: set[str] = set()
        for node in _imports(tree):
            for target in _targets(name, path.name == "__init__.py", node, known):
                while target not in known and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in known and target != name:
                    deps.add(target)
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


def test_trust_names_the_installers_record() -> None:
    """``skillpath.trust`` names ``skillpath add``'s record without importing the installer."""
    from skillpath.install import RECORD_FILE
    from skillpath.trust import ADD_RECORD_FILE

    assert ADD_RECORD_FILE == RECORD_FILE
