"""Meta-tests: the reference docs cover every hook, every setting and every command."""

from __future__ import annotations

import importlib.util
import inspect
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from skillpath import hookspecs
from skillpath.cli import ALIASES, COMMANDS, PROVIDED
from skillpath.settings import SCHEMA

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_generate", DOCS / "_hooks" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _annotation(value: Any) -> str:
    return value if isinstance(value, str) else inspect.formatannotation(value)


def signature_text(name: str, fn: Any) -> str:
    """``name(a: T, b: U) -> R`` as written in the source (annotations unevaluated)."""
    sig = inspect.signature(fn)
    params = ", ".join(
        f"{p.name}: {_annotation(p.annotation)}" if p.annotation is not p.empty else p.name
        for p in sig.parameters.values()
    )
    ret = "" if sig.return_annotation is sig.empty else f" -> {_annotation(sig.return_annotation)}"
    return f"{name}({params}){ret}"


def hook_specs() -> dict[str, Any]:
    """Every hookspec in ``skillpath.hookspecs``."""
    marker = f"{hookspecs.PROJECT_NAME}_spec"
    return {
        name: fn for name, fn in vars(hookspecs).items() if callable(fn) and hasattr(fn, marker)
    }


def test_there_are_hookspecs() -> None:
    assert {"discover_skills", "filter_skill", "transform_prompt", "resolve_url"} <= set(
        hook_specs()
    )


@pytest.mark.parametrize("name", sorted(hook_specs()))
def test_every_hookspec_is_documented_with_its_exact_signature(name: str) -> None:
    text = (DOCS / "reference" / "hooks.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## `([^`]+)`", text, re.MULTILINE)
    expected = signature_text(name, hook_specs()[name])
    assert expected in headings, f"docs/reference/hooks.md needs the heading ## `{expected}`"
    section = text.split(f"## `{expected}`", 1)[1].split("\n## ", 1)[0]
    for part in ("**Parameters**", "**Returns**", "**Semantics", "**Example**", "```python"):
        assert part in section, f"{name}: section lacks {part}"
    assert f"<!-- implementers:{name} -->" in section


def test_every_settings_key_is_in_the_configuration_reference() -> None:
    gen = _generator()
    page = (DOCS / "reference" / "configuration.md").read_text(encoding="utf-8")
    assert gen.missing_markers(page, "settings", list(SCHEMA)) == []
    rendered = gen.render(page)
    for section, keys in SCHEMA.items():
        table = gen.settings_table(section)
        assert table in rendered
        for key, spec in keys.items():
            row = next(line for line in table.splitlines() if line.startswith(f"| `{key}` |"))
            assert spec.doc.replace("|", "\\|") in row, (section, key)
            assert gen.SCOPE_TEXT[spec.scope] in row, (section, key)


def test_every_cli_command_is_in_the_cli_reference() -> None:
    page = (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    headings = set(re.findall(r"^## skillpath (\S+)$", page, re.MULTILINE))
    commands = {*COMMANDS, *PROVIDED}
    assert commands <= headings, sorted(commands - headings)
    assert _generator().missing_markers(page, "cli-help", sorted(commands)) == []
    for alias in ALIASES:
        assert f"`skillpath {alias}`" in page


def test_cli_help_is_generated_for_each_command() -> None:
    gen = _generator()
    for name in sorted({*COMMANDS, *PROVIDED}):
        block = gen.cli_help(name)
        assert block.startswith("```text\nUsage: skillpath ") and name in block


def test_unknown_markers_fail_the_build() -> None:
    from mkdocs.exceptions import PluginError

    gen = _generator()
    for bad in ("<!-- settings:nope -->", "<!-- cli-help:nope -->", "<!-- implementers:nope -->"):
        with pytest.raises(PluginError):
            gen.render(bad)


def test_lint_codes_table_lists_every_code() -> None:
    from skillpath.lint import CODES

    table = _generator().lint_codes()
    for code in CODES:
        assert f"| `{code}` |" in table


def test_every_page_in_the_nav_exists_and_every_page_is_in_the_nav() -> None:
    import yaml

    config = yaml.safe_load((DOCS.parent / "mkdocs.yml").read_text(encoding="utf-8"))

    def walk(items: list[Any]) -> list[str]:
        out = []
        for item in items:
            for value in item.values():
                out += walk(value) if isinstance(value, list) else [value]
        return out

    nav = set(walk(config["nav"]))
    pages = {
        p.relative_to(DOCS).as_posix()
        for p in DOCS.rglob("*.md")
        if not p.relative_to(DOCS).as_posix().startswith(("_hooks/", "examples/"))
    }
    assert nav == pages


def test_every_exported_name_is_in_the_api_reference_and_documented() -> None:
    """The API page is generated from ``skillpath.__all__``: every public name has an
    entry there, and a docstring for mkdocstrings to render."""
    import skillpath

    gen = _generator()
    page = (DOCS / "reference" / "api.md").read_text(encoding="utf-8")
    assert "<!-- api-reference -->" in page
    rendered = gen.render(page)
    undocumented = []
    for name in skillpath.__all__:
        if name == "__version__":
            continue
        module = skillpath._EXPORTS[name]
        assert f"::: {module}.{name}\n" in rendered, name
        if not (inspect.getdoc(getattr(skillpath, name)) or "").strip():
            undocumented.append(name)
    assert undocumented == []


def test_every_exported_name_is_importable_and_listed_once() -> None:
    import skillpath

    names = [n for n in skillpath.__all__ if n != "__version__"]
    assert len(names) == len(set(names))
    assert set(names) == set(skillpath._EXPORTS)
    for name in names:
        assert getattr(skillpath, name) is not None


def test_every_public_module_name_is_in_the_api_reference() -> None:
    """Each name of a public module's ``__all__`` has an entry on the API page, and
    the page names every public module."""
    import importlib

    import skillpath

    page = (DOCS / "reference" / "api.md").read_text(encoding="utf-8")
    rendered = _generator().render(page)
    for module in skillpath.PUBLIC_MODULES:
        assert f"`{module}`" in page, module
        assert f"## `{module}`\n" in rendered, module
        for name in importlib.import_module(module).__all__:
            documented = f"::: {module}.{name}\n" in rendered or (
                name in skillpath.__all__ and f".{name}\n" in rendered
            )
            assert documented, f"{module}.{name}"
