"""MkDocs hook: generate the parts of the docs that must never drift from the code.

Markers (HTML comments, so the Markdown reads fine unprocessed):

``<!-- settings:SECTION -->``
    the table of every key of ``settings.SCHEMA[SECTION]`` (key, type,
    default, meaning); the configuration page must hold one per section.
``<!-- cli-help:COMMAND -->``
    the ``--help`` text of ``skillpath COMMAND``; the CLI page must hold one
    per command in ``skillpath.cli.COMMANDS`` and ``skillpath.cli.PROVIDED`` (the
    commands a plugin distribution adds, such as ``serve``).
``<!-- implementers:HOOK -->``
    the built-in and installed plugins that implement ``HOOK``.
``<!-- lint-codes -->``
    the table of ``skillpath.lint.CODES`` with the level per target.
``<!-- api-reference -->``
    a ``::: module.name`` entry (rendered by mkdocstrings) for every name in
    ``skillpath.__all__``, grouped by the module that defines it, and for every
    other name in the ``__all__`` of each of ``skillpath.PUBLIC_MODULES``; the
    API page must hold it.

A missing or unknown marker fails the build (``mkdocs build --strict``).
"""

from __future__ import annotations

import re
from typing import Any

from mkdocs.exceptions import PluginError

_MARKER = re.compile(
    r"<!-- (settings|cli-help|implementers|lint-codes|api-reference)(?::([\w.-]+))? -->"
)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _type_name(spec: Any) -> str:
    t = spec.type
    if t is list:
        return "list of tables" if spec.item is dict else "list of strings"
    if isinstance(t, tuple):
        return " or ".join(x.__name__ for x in t)
    return {bool: "boolean", int: "integer", str: "string"}.get(t, t.__name__)


def _default(value: Any) -> str:
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if isinstance(value, (list, tuple)):
        return "`[" + ", ".join(f'"{v}"' for v in value) + "]`"
    if isinstance(value, str):
        return f'`"{value}"`'
    return f"`{value}`"


#: How each settings scope reads in the "Set in" column.
SCOPE_TEXT = {
    "any": "user or project config",
    "trusted": "user config, or a trusted project's",
    "user": "user config only",
}


def settings_table(section: str) -> str:
    """The Markdown table of one settings section."""
    from skillpath.settings import SCHEMA

    if section not in SCHEMA:
        raise PluginError(f"settings marker names unknown section [{section}]")
    rows = ["| Key | Type | Default | Set in | Meaning |", "| --- | --- | --- | --- | --- |"]
    for key, spec in SCHEMA[section].items():
        rows.append(
            f"| `{key}` | {_type_name(spec)} | {_default(spec.default)} "
            f"| {SCOPE_TEXT[spec.scope]} | {_cell(spec.doc)} |"
        )
    return "\n".join(rows)


def cli_help(command: str) -> str:
    """``skillpath COMMAND --help`` as a text block."""
    from click.testing import CliRunner
    from skillpath.cli import COMMANDS, PROVIDED, main

    if command not in COMMANDS and command not in PROVIDED:
        raise PluginError(f"cli-help marker names unknown command {command!r}")
    res = CliRunner().invoke(main, [command, "--help"], prog_name="skillpath", terminal_width=80)
    if res.exit_code != 0:
        raise PluginError(f"skillpath {command} --help failed: {res.output}")
    return "```text\n" + res.stdout.rstrip() + "\n```"


def implementers(hook: str) -> str:
    """Bullet list of the registered plugins that implement ``hook``."""
    from skillpath import hookspecs
    from skillpath.plugins import PluginHost

    if not hasattr(hookspecs, hook):
        raise PluginError(f"implementers marker names unknown hook {hook!r}")
    host = PluginHost.create(env={})
    lines = []
    for r in host.records:
        if hook in r.hooks:
            where = f"`{r.distribution}`" if r.distribution else "the core"
            value = f" (`{r.value}`)" if r.value else ""
            lines.append(f"- `{r.name}` — {where}{value}")
    return "\n".join(lines) if lines else "- none in this installation"


def lint_codes() -> str:
    """The table of lint codes and their level per target."""
    from skillpath.lint import CODES, TARGETS

    head = "| Code | Meaning | " + " | ".join(TARGETS) + " |"
    rows = [head, "| --- | --- | " + " | ".join("---" for _ in TARGETS) + " |"]
    for code, (meaning, levels) in CODES.items():
        cells = " | ".join(lv or "–" for lv in levels)
        rows.append(f"| `{code}` | {_cell(meaning)} | {cells} |")
    return "\n".join(rows)


#: Order of the modules on the API page (others follow, alphabetically).
API_MODULE_ORDER = (
    "skillpath.loader",
    "skillpath.session",
    "skillpath.context",
    "skillpath.model",
    "skillpath.scan",
    "skillpath.hookspecs",
    "skillpath.plugins",
    "skillpath.settings",
)


def api_names() -> dict[str, list[str]]:
    """Every name of ``skillpath.__all__`` (but ``__version__``) by defining module."""
    import skillpath

    exports: dict[str, str] = skillpath._EXPORTS
    by_module: dict[str, list[str]] = {}
    for name in skillpath.__all__:
        if name == "__version__":
            continue
        module = exports.get(name)
        if module is None:
            raise PluginError(f"skillpath.__all__ names {name!r}, which _EXPORTS lacks")
        by_module.setdefault(module, []).append(name)
    ordered = [m for m in API_MODULE_ORDER if m in by_module]
    ordered += sorted(m for m in by_module if m not in API_MODULE_ORDER)
    return {m: by_module[m] for m in ordered}


def module_names() -> dict[str, list[str]]:
    """For each module of ``skillpath.PUBLIC_MODULES``: the names of its ``__all__``
    that ``skillpath.__all__`` does not already document (imported from that module)."""
    import importlib

    import skillpath

    top = api_names()
    out: dict[str, list[str]] = {}
    for module in skillpath.PUBLIC_MODULES:
        exported = list(getattr(importlib.import_module(module), "__all__", ()))
        if not exported:
            raise PluginError(f"public module {module} has no __all__")
        out[module] = [n for n in exported if n not in top.get(module, ())]
    return out


def api_reference() -> str:
    """The API page's body: one section per module, one entry per public name:
    first the names of ``skillpath.__all__``, then the other names of the module's
    ``__all__`` when it is one of ``skillpath.PUBLIC_MODULES``."""
    import importlib

    top = api_names()
    more = module_names()
    modules = [*top, *sorted(m for m in more if m not in top)]
    out = []
    for module in modules:
        doc = (importlib.import_module(module).__doc__ or "").strip().split("\n\n")[0]
        summary = " ".join(doc.split())
        out.append(f"## `{module}`\n\n{summary}\n")
        out.extend(
            f"::: {module}.{name}\n    options:\n      heading_level: 3\n"
            for name in top.get(module, ())
        )
        extra = more.get(module, [])
        if extra:
            out.append(f"Import these from `{module}` itself:\n")
            out.extend(
                f"::: {module}.{name}\n    options:\n      heading_level: 3\n" for name in extra
            )
    return "\n".join(out)


def render(markdown: str) -> str:
    """Replace every marker in ``markdown``."""

    def sub(m: re.Match[str]) -> str:
        kind, arg = m.group(1), m.group(2)
        if kind == "lint-codes":
            return lint_codes()
        if kind == "api-reference":
            return api_reference()
        if arg is None:
            raise PluginError(f"marker {m.group(0)} needs an argument")
        if kind == "settings":
            return settings_table(arg)
        if kind == "cli-help":
            return cli_help(arg)
        return implementers(arg)

    return _MARKER.sub(sub, markdown)


def missing_markers(markdown: str, kind: str, expected: list[str]) -> list[str]:
    """Names in ``expected`` without a ``<!-- kind:name -->`` marker in ``markdown``."""
    present = {m.group(2) for m in _MARKER.finditer(markdown) if m.group(1) == kind}
    return [name for name in expected if name not in present]


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """MkDocs event: check the reference pages are complete, then fill in the markers."""
    src = page.file.src_uri
    if src == "reference/configuration.md":
        from skillpath.settings import SCHEMA

        missing = missing_markers(markdown, "settings", list(SCHEMA))
        if missing:
            raise PluginError(f"{src}: no table for settings section(s) {missing}")
    if src == "reference/api.md" and "<!-- api-reference -->" not in markdown:
        raise PluginError(f"{src}: no <!-- api-reference --> marker")
    if src == "reference/cli.md":
        from skillpath.cli import COMMANDS

        missing = missing_markers(markdown, "cli-help", sorted(COMMANDS))
        if missing:
            raise PluginError(f"{src}: no help for command(s) {missing}")
    return render(markdown)
