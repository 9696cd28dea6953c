"""Settings: ``~/.skillpath/config.toml`` then ``<project>/.skillpath/config.toml``
then explicit arguments, later layers winning key by key.

The schema below is the single source of truth: validation, defaults and the
configuration reference in ``docs/`` all come from :data:`SCHEMA`. A bad value
(wrong type, unknown key) is a diagnostic naming the file and key, never a crash.

Trust: a project's config comes with the repository (a cloned repository is
untrusted input), so keys that can run commands or widen privileges have a
*scope* (:attr:`SettingSpec.scope`):

``any``
    every layer may set it;
``trusted``
    the user config, explicit arguments, or the config of a project the user
    trusts (``[trust] projects`` in the user config);
``user``
    the user config and explicit arguments only (``[trust]`` itself).

A project value for a key out of its reach is ignored with a
``settings-untrusted`` warning naming the file, the key and how to trust the
project. :meth:`Settings.origin` says which layer set each value.
"""

from __future__ import annotations

import builtins
import fnmatch
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any, NamedTuple

import attrs

from skillpath._lazyre import lazy_pattern
from skillpath.model import Diagnostic
from skillpath.safety import (
    MAX_CONFIG_BYTES,
    describe_oserror,
    outside_area,
    project_area,
    read_bounded,
)

__all__ = [
    "SCHEMA",
    "SCOPES",
    "SettingSpec",
    "Settings",
    "load_settings",
    "settings_paths",
    "trusted_pattern",
]

#: Where a key may be set from: every layer, trusted layers only, the user's only.
SCOPES = ("any", "trusted", "user")


@attrs.frozen
class SettingSpec:
    """One settings key: its type, default, one-line meaning and scope.

    ``scope`` is ``any`` (every layer may set it), ``trusted`` (the user
    config, arguments, or a trusted project's config) or ``user`` (the user
    config and arguments only); see the module docstring.
    """

    type: builtins.type | tuple[builtins.type, ...]
    default: Any
    doc: str
    item: builtins.type = str
    scope: str = "any"


def _list(doc: str) -> SettingSpec:
    return SettingSpec(list, (), doc)


#: Every known settings key, by section. Other modules add sections here.
SCHEMA: dict[str, dict[str, SettingSpec]] = {
    "skills": {
        "enabled": SettingSpec(bool, True, "Discover skills at all; false gives an empty result."),
        "enable_skill_commands": SettingSpec(
            bool, True, "Recognise `/skill:<name> [args]` messages."
        ),
        "custom_directories": _list(
            "Extra skills roots scanned one level deep (description required); "
            "`~` expands; relative paths resolve against the project root in a "
            "project's config, against home (with a warning) in the user's."
        ),
        "ignored": _list("Glob patterns on skill names to drop."),
        "include": _list("Glob patterns on skill names to keep; empty keeps all."),
        "disabled_extensions": _list("Entries `skill:<name>` disable one skill by name."),
        "enable_native_user": SettingSpec(bool, True, "Load `~/.skillpath/skills`."),
        "enable_native_project": SettingSpec(
            bool, True, "Load `.skillpath/skills` in the project."
        ),
        "enable_claude_user": SettingSpec(
            bool, True, "Load Claude Code user (and managed-policy) skills."
        ),
        "enable_claude_project": SettingSpec(bool, True, "Load Claude Code project skills."),
        "enable_codex_user": SettingSpec(bool, True, "Load Codex skills."),
        "enable_agents_user": SettingSpec(bool, True, "Load `~/.agent(s)/skills`."),
        "enable_agents_project": SettingSpec(bool, True, "Load `.agent(s)/skills` in the project."),
        "enable_libraries": SettingSpec(
            bool, True, "Load the skills installed Python libraries ship in `.agents/skills`."
        ),
        "libraries_environment": SettingSpec(
            str,
            "project",
            "Whose libraries the `libraries` provider reads: `project` (the project's "
            "environment: `UV_PROJECT_ENVIRONMENT`, a `.venv` up to the repository root, "
            "`VIRTUAL_ENV`, Poetry's), `interpreter` (the environment skillpath runs in) "
            "or the path of a virtual environment.",
            scope="trusted",
        ),
        "namespace_plugin_skills": SettingSpec(
            bool,
            True,
            "Name Claude Code plugin skills and commands `plugin:name`, as Claude Code does "
            "(a bare name still resolves while unambiguous); false gives them their own "
            "names, the plugin recorded in the source.",
        ),
    },
    "listing": {
        "budget": SettingSpec(int, 8000, "Character budget of the system-prompt listing."),
        "format": SettingSpec(
            str, "skills", "Listing format: `skills`, `agentskills` (XML) or `claude`."
        ),
        "pinned": SettingSpec(
            list,
            (),
            "Skill names always listed first and in full, in this order (the listing then "
            "keeps a byte-stable order: see Search).",
        ),
        "quotas": SettingSpec(
            dict,
            {},
            "At most this many listing entries per provider id or level, e.g. "
            "`{libraries = 3, package = 10}` (pinned skills do not count).",
            item=int,
        ),
    },
    "shell": {
        "enabled": SettingSpec(
            bool,
            True,
            "Master switch for inline shell (`!`cmd``) in skill prompts.",
            scope="trusted",
        ),
        "levels": SettingSpec(
            list,
            ("user", "managed"),
            "Source levels whose skills may run inline shell "
            "(project, package, remote and learned — auto-learned — skills are off "
            "unless listed; MCP never).",
            scope="trusted",
        ),
        "timeout": SettingSpec(
            int, 30, "Seconds before an inline shell command is killed.", scope="trusted"
        ),
        "max_output": SettingSpec(
            int, 30000, "Characters of output kept per command.", scope="trusted"
        ),
        "pass_env": SettingSpec(
            list,
            ("PATH", "HOME", "LANG", "LC_ALL", "TERM", "USER", "TMPDIR", "SHELL"),
            "Environment variables an inline shell command may see.",
            scope="trusted",
        ),
    },
    "autolearn": {
        "enabled": SettingSpec(
            bool,
            False,
            "Allow writing auto-learned skills into the managed directory.",
            scope="trusted",
        ),
    },
    "index": {
        "enabled": SettingSpec(bool, True, "Use the persistent discovery index (cache)."),
    },
    "mcp": {
        "servers": SettingSpec(
            list,
            (),
            "MCP servers to load skills from: tables with `name` and either "
            "`command`/`args`/`env` (stdio) or `url` (streamable HTTP).",
            item=dict,
            scope="trusted",
        ),
        "timeout": SettingSpec(int, 15, "Seconds to wait for one MCP server."),
        "cache_ttl": SettingSpec(
            int,
            900,
            "Seconds an MCP server's listing is reused from the cache (0: list it every "
            "run); `list --refresh` fetches it again at once.",
            scope="trusted",
        ),
        "retry_after": SettingSpec(
            int,
            300,
            "Seconds an MCP server that could not be listed (did not start or answer) "
            "is not tried again (0: every run); `list --refresh` tries it at once.",
            scope="trusted",
        ),
        "max_items": SettingSpec(
            int,
            1000,
            "Prompts, skills, and files per skill kept from one MCP server (each); "
            "the rest are cut and the cut reported.",
            scope="trusted",
        ),
        "max_description": SettingSpec(
            int,
            1024,
            "Characters kept of a description or title from an MCP server.",
            scope="trusted",
        ),
        "max_content": SettingSpec(
            int,
            8 * 1024 * 1024,
            "Characters of a prompt or file an MCP server may return; a larger one is refused.",
            scope="trusted",
        ),
    },
    "plugins": {
        "blocked": SettingSpec(
            list, (), "Plugin (entry-point) names never loaded.", scope="trusted"
        ),
        "strict": SettingSpec(
            bool, False, "Re-raise plugin failures instead of reporting them.", scope="trusted"
        ),
    },
    "trust": {
        "projects": SettingSpec(
            list,
            (),
            "Projects whose own `.skillpath/config.toml` may set every key: glob patterns "
            "on the project root (`~` expands; `*` matches within one path component, "
            '`**` any number of them), e.g. `"~/work/*"`.',
            scope="user",
        ),
        "organisation": SettingSpec(
            list,
            (),
            'Sources of the organisation tier: patterns on `kind:id`, e.g. `"pack:acme-*"`, '
            '`"plugin:*@acme-marketplace"`, `"library:acme-tools"`, `"mcp:corp"` (see Security).',
            scope="user",
        ),
        "approve": SettingSpec(
            list,
            (),
            "Rules approving skills without a recorded digest: patterns on `kind:id` or "
            '`skill:<name>`, e.g. `"library:fastapi"`, `"plugin:*@acme"` (added to '
            "`default_approve`; see Security).",
            scope="user",
        ),
        "default_approve": SettingSpec(
            list,
            ("mcp:*", "pack:*"),
            "The built-in approval rules (MCP servers and skill packs are named or "
            "installed on purpose); `[]` quarantines their skills too.",
            scope="user",
        ),
        "sources": SettingSpec(
            dict,
            {},
            'The tier of a kind of source, e.g. `{library = "organisation"}` '
            "(tiers: `hand-written`, `organisation`, `third-party`).",
            scope="user",
        ),
        "listed": SettingSpec(
            dict,
            {},
            "Per tier: `yes`, `approved` (quarantined until approved) or `no`, e.g. "
            '`{organisation = "approved"}` (default: third-party `approved`).',
            scope="user",
        ),
        "shell": SettingSpec(
            dict,
            {},
            "Per tier: whether its skills may run inline shell and scripts (within "
            "[shell] levels), e.g. `{organisation = false}` (default: third-party false).",
            item=bool,
            scope="user",
        ),
        "block": SettingSpec(
            dict,
            {},
            "Per tier: the content-finding severity (`high`, `medium`, `low`, `none`) from "
            "which a skill is not loaded (default: hand-written `none`, others `high`).",
            scope="user",
        ),
    },
}


@attrs.frozen
class Settings:
    """Merged settings. ``data`` maps section → key → value (defaults filled in
    for known keys; unknown sections are kept for plugins); ``files`` are the
    config files that were read.

    ``origins`` maps section → key → the layer that set the value (``user``,
    ``project`` or ``arguments``); ``layers`` pairs each layer read from a
    file with its path; ``trusted_by`` is the ``[trust] projects`` pattern
    that made the project trusted (``None``: the project's config was held to
    keys of scope ``any``); ``trusted_data`` is ``data`` without what an
    untrusted project's config set (see :meth:`trusted_section`).
    """

    data: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict)
    files: tuple[Path, ...] = ()
    origins: Mapping[str, Mapping[str, str]] = attrs.field(factory=dict)
    layers: tuple[tuple[str, Path], ...] = ()
    trusted_by: str | None = None
    trusted_data: Mapping[str, Mapping[str, Any]] | None = None
    #: sections declared by plugins (``settings_schema`` hook), validated like SCHEMA's
    plugin_schema: Mapping[str, Mapping[str, SettingSpec]] = attrs.field(factory=dict)
    # section() is called once per skill by the built-in filter: memoised
    _sections: dict[str, tuple[int, Mapping[str, Any]]] = attrs.field(
        factory=dict, init=False, eq=False, repr=False, hash=False
    )
    # trusted_section() is called once per skill too (the scan's checks, plugins'
    # filters): memoised the same way
    _trusted_sections: dict[str, tuple[int, Mapping[str, Any]]] = attrs.field(
        factory=dict, init=False, eq=False, repr=False, hash=False
    )

    def get(self, section: str, key: str, default: Any = None) -> Any:
        """The value of ``[section] key``, or the schema default, or ``default``."""
        sec = self.data.get(section, {})
        if key in sec:
            return sec[key]
        spec = self.spec(section).get(key)
        return spec.default if spec is not None else default

    def section(self, section: str) -> Mapping[str, Any]:
        """One section with schema defaults filled in (a read-only mapping)."""
        spec = self.spec(section)
        cached = self._sections.get(section)
        if cached is not None and cached[0] == len(spec):
            return cached[1]
        out = {k: s.default for k, s in spec.items()}
        out.update(self.data.get(section, {}))
        view = MappingProxyType(out)
        self._sections[section] = (len(spec), view)
        return view

    @property
    def skills(self) -> Mapping[str, Any]:
        """The ``[skills]`` section with defaults filled in."""
        return self.section("skills")

    @property
    def trusted(self) -> bool:
        """Whether the project's config was trusted (``[trust] projects`` matched)."""
        return self.trusted_by is not None

    def origin(self, section: str, key: str) -> str | None:
        """The layer that set ``[section] key``: ``user``, ``project``, ``arguments``,
        or ``None`` for a default (or settings built in code)."""
        return self.origins.get(section, {}).get(key)

    def trusted_section(self, section: str) -> Mapping[str, Any]:
        """One section as the user's config, a trusted project's config and
        arguments set it — an untrusted project's values left out, the user's own
        kept even where the project set the same key — with schema defaults filled in.

        For plugins' own sections whose keys a cloned repository must not set
        (or loosen). Settings built in code have no record: ``data`` is used.
        """
        spec = self.spec(section)
        cached = self._trusted_sections.get(section)
        if cached is not None and cached[0] == len(spec):
            return cached[1]
        source = self.data if self.trusted_data is None else self.trusted_data
        out = {k: s.default for k, s in spec.items()}
        out.update(source.get(section, {}))
        view = MappingProxyType(out)
        self._trusted_sections[section] = (len(spec), view)
        return view

    def spec(self, section: str) -> Mapping[str, SettingSpec]:
        """The keys of ``section``: skillpath's own, or a plugin's declared section
        (empty for a section nobody declared)."""
        own = SCHEMA.get(section)
        if own is not None:
            return own
        return self.plugin_schema.get(section, {})

    def origin_path(self, section: str, key: str) -> Path | None:
        """The config file that set ``[section] key``, or ``None`` (default, arguments)."""
        origin = self.origin(section, key)
        for name, path in self.layers:
            if name == origin:
                return path
        return None


def settings_paths(home_dir: Path, project_root: Path | None) -> list[tuple[str, Path]]:
    """The config files read, in merge order (``SKILLPATH_HOME`` already applied)."""
    out = [("user", home_dir / "config.toml")]
    if project_root is not None:
        out.append(("project", project_root / ".skillpath" / "config.toml"))
    return out


_HEADER_RE = lazy_pattern(r"\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(?:#.*)?$")


def _toml_name(raw: str) -> str:
    """A TOML key or table name without quotes and spaces around dots."""
    return ".".join(part.strip().strip("\"'") for part in raw.split("."))


def _toml_key_line(text: str, section: str, key: str | None = None) -> int | None:
    """The 1-based line of ``[section] key`` in TOML ``text`` (or of the
    ``[section]`` header when ``key`` is ``None`` or not found); ``None`` when
    the section is not in the text.

    Finds ``key = …`` under ``[section]``, ``section.key = …`` at the top
    level, ``[[section.key]]`` and ``[section.key]`` headers, and ``section =
    {…}`` inline tables.
    """
    table = ""
    header: int | None = None
    for number, line in enumerate(text.splitlines(), 1):
        m = _HEADER_RE.match(line)
        if m:
            table = _toml_name(m.group(1))
            if table == section and header is None:
                header = number
            if key is not None and table == f"{section}.{key}":
                return number
            if table.startswith(section + ".") and header is None:
                header = number
            continue
        name, eq, _rest = line.partition("=")
        if not eq or line.lstrip().startswith("#"):
            continue
        name = _toml_name(name)
        full = f"{table}.{name}" if table else name
        if key is not None and full == f"{section}.{key}":
            return number
        if header is None and (full == section or full.startswith(section + ".")):
            header = number
    return header


def _line_finder(path: Path | None) -> Any:
    """``(section, key) -> line`` in the config file ``path`` (read on first use)."""
    cache: list[str] = []

    def find(section: str, key: str | None = None) -> int | None:
        if path is None:
            return None
        if not cache:
            try:
                raw = read_bounded(path, MAX_CONFIG_BYTES)
                cache.append(raw.decode("utf-8-sig", errors="replace"))
            except OSError:
                cache.append("")
        return _toml_key_line(cache[0], section, key)

    return find


def _check_value(
    spec: SettingSpec,
    section: str,
    key: str,
    value: Any,
    origin: str,
    diags: list[Diagnostic],
    path: Path | None,
) -> tuple[bool, Any]:
    expected = spec.type
    if expected is list:
        if isinstance(value, (list, tuple)) and all(isinstance(v, spec.item) for v in value):
            return True, tuple(value)
        what = "tables" if spec.item is dict else "strings"
        diags.append(
            Diagnostic(
                "error",
                "settings-bad-value",
                f"{origin}: [{section}] {key} must be a list of {what}, got {value!r}",
                path,
            )
        )
        return False, None
    if expected is dict and spec.item in (str, bool) and isinstance(value, dict):
        if all(isinstance(k, str) and isinstance(v, spec.item) for k, v in value.items()):
            return True, dict(value)
        what = "strings" if spec.item is str else "booleans"
        diags.append(
            Diagnostic(
                "error",
                "settings-bad-value",
                f"{origin}: [{section}] {key} must be a table of {what}, got {value!r}",
                path,
            )
        )
        return False, None
    if expected is dict and spec.item is int:
        if isinstance(value, dict) and all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0
            for k, v in value.items()
        ):
            return True, dict(value)
        diags.append(
            Diagnostic(
                "error",
                "settings-bad-value",
                f"{origin}: [{section}] {key} must be a table of counts (integers >= 0), "
                f"got {value!r}",
                path,
            )
        )
        return False, None
    if expected is bool and not isinstance(value, bool):
        diags.append(
            Diagnostic(
                "error",
                "settings-bad-value",
                f"{origin}: [{section}] {key} must be true or false, got {value!r}",
                path,
            )
        )
        return False, None
    if expected is int and (isinstance(value, bool) or not isinstance(value, int)):
        diags.append(
            Diagnostic(
                "error",
                "settings-bad-value",
                f"{origin}: [{section}] {key} must be an integer, got {value!r}",
                path,
            )
        )
        return False, None
    if expected not in (list, bool, int) and not isinstance(value, expected):
        diags.append(
            Diagnostic(
                "error",
                "settings-bad-value",
                f"{origin}: [{section}] {key} has the wrong type ({type(value).__name__})",
                path,
            )
        )
        return False, None
    return True, value


class _Layer(NamedTuple):
    """One source of settings, as :func:`_merge_layer` applies it (a plain record: an
    attrs class costs its compiled methods in every process that reads settings)."""

    name: str  # user, project or arguments
    data: Mapping[str, Any]
    path: Path | None = None
    #: scopes this layer may set (a project: ``any``, or ``any`` and ``trusted``)
    scopes: tuple[str, ...] = SCOPES
    #: how to trust the project, for the warning on a key out of reach
    hint: str = ""


def _refused(section: str, key: str, spec: SettingSpec, layer: _Layer) -> Diagnostic | None:
    """The warning for a key this layer may not set, or ``None`` when it may."""
    if spec.scope in layer.scopes:
        return None
    if spec.scope == "user":
        why = "only the user config (or explicit arguments) can set it"
        code = "settings-user-only"
    else:
        why = f"this project is not trusted; {layer.hint}"
        code = "settings-untrusted"
    return Diagnostic(
        "warning",
        code,
        f"{layer.name} config: [{section}] {key} is ignored: {why}",
        layer.path,
    )


def _merge_layer(
    merged: dict[str, dict[str, Any]],
    layer: _Layer,
    diags: list[Diagnostic],
    origins: dict[str, dict[str, str]],
    trusted: dict[str, dict[str, Any]],
    schema: Mapping[str, Mapping[str, SettingSpec]],
) -> None:
    origin = f"{layer.name} config" if layer.name != "arguments" else "arguments"
    path = layer.path
    untrusted = "trusted" not in layer.scopes
    find_line = _line_finder(path)

    def locate(start: int, section: str, key: str | None = None) -> None:
        """Give the diagnostics added since ``start`` the line of the key in the file."""
        if path is None or len(diags) == start:
            return
        line = find_line(section, key)
        if line is not None:
            diags[start:] = [d if d.line else attrs.evolve(d, line=line) for d in diags[start:]]

    def put(section: str, key: str, value: Any) -> None:
        merged.setdefault(section, {})[key] = value
        origins.setdefault(section, {})[key] = layer.name
        if not untrusted:
            trusted.setdefault(section, {})[key] = value

    for section, table in layer.data.items():
        start = len(diags)
        free_form = section in schema and not schema[section]
        if section not in schema or free_form:
            # unknown, or declared by a plugin that validates it itself (no keys given)
            merged.setdefault(section, {})
            if isinstance(table, Mapping):
                for key, value in table.items():
                    put(section, key, value)
            else:
                merged[section] = {}
                put(section, "value", table)
            if origin != "arguments" and not free_form:
                diags.append(
                    Diagnostic(
                        "info",
                        "settings-unknown-section",
                        f"{origin}: [{section}] is not a skillpath section and no installed "
                        "plugin declares it; kept for plugins",
                        path,
                    )
                )
            locate(start, section)
            continue
        if not isinstance(table, Mapping):
            diags.append(
                Diagnostic(
                    "error",
                    "settings-bad-value",
                    f"{origin}: [{section}] must be a table",
                    path,
                )
            )
            locate(start, section)
            continue
        for key, value in table.items():
            start = len(diags)
            if key not in schema[section]:
                diags.append(
                    Diagnostic(
                        "error",
                        "settings-unknown-key",
                        f"{origin}: unknown key [{section}] {key}",
                        path,
                    )
                )
                locate(start, section, key)
                continue
            spec = schema[section][key]
            refusal = _refused(section, key, spec, layer)
            if refusal is not None:
                diags.append(refusal)
                locate(start, section, key)
                continue
            ok, checked = _check_value(spec, section, key, value, origin, diags, path)
            locate(start, section, key)
            if ok:
                put(section, key, checked)


def _expand_overrides(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Accept ``{"skills": {...}}`` and dotted ``{"skills.enabled": False}`` alike."""
    out: dict[str, Any] = {}
    for key, value in overrides.items():
        if "." in key and not isinstance(value, Mapping):
            section, _, sub = key.partition(".")
            out.setdefault(section, {})[sub] = value
        elif isinstance(value, Mapping):
            out.setdefault(key, {}).update(value)
        else:
            out[key] = value
    return out


def _glob_parts(pattern: tuple[str, ...], path: tuple[str, ...]) -> bool:
    """Match path components; ``**`` matches any number of them (none included)."""
    if not pattern:
        return not path
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(_glob_parts(rest, path[i:]) for i in range(len(path) + 1))
    return bool(path) and fnmatch.fnmatchcase(path[0], head) and _glob_parts(rest, path[1:])


def _pattern_parts(pattern: str, home: Path) -> tuple[str, ...] | None:
    """The components of a trust pattern, ``~`` expanded and its literal prefix
    resolved (symlinks followed); ``None`` for a relative pattern."""
    if pattern == "~" or pattern.startswith("~/"):
        pattern = str(home) + pattern[1:]
    if not os.path.isabs(pattern):
        return None
    parts = Path(os.path.normpath(pattern)).parts
    literal = 0
    while literal < len(parts) and not any(c in parts[literal] for c in "*?["):
        literal += 1
    try:
        prefix = Path(*parts[:literal]).resolve().parts
    except (OSError, RuntimeError):
        prefix = parts[:literal]
    return tuple(prefix) + tuple(parts[literal:])


def trusted_pattern(
    project_root: Path, patterns: Sequence[str], home: Path | None = None
) -> str | None:
    """The first of ``patterns`` (``[trust] projects``) that matches ``project_root``.

    ``~`` expands against ``home`` (default: ``Path.home()``); ``*``, ``?`` and
    ``[…]`` match within one path component and ``**`` matches any number of
    components. Both the root as given and its real path (symlinks followed)
    are tried. Relative patterns never match.
    """
    home = Path.home() if home is None else home
    candidates = [Path(os.path.normpath(project_root)).parts]
    try:
        real = project_root.resolve().parts
    except (OSError, RuntimeError):
        real = candidates[0]
    if real != candidates[0]:
        candidates.append(real)
    for pattern in patterns:
        parts = _pattern_parts(pattern, home)
        if parts is None:
            continue
        if any(_glob_parts(parts, c) for c in candidates):
            return pattern
    return None


def _read_layer(origin: str, path: Path, diags: list[Diagnostic]) -> dict[str, Any] | None:
    try:
        # without blocking: a FIFO or a device in place of the config is refused
        raw = read_bounded(path, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return None
    except OSError as exc:
        diags.append(
            Diagnostic(
                "error",
                "settings-unreadable",
                f"cannot read {origin} config: {describe_oserror(exc)}",
                path,
            )
        )
        return None
    import tomllib  # only when a config file exists: most runs have none

    try:
        return tomllib.loads(raw.decode("utf-8-sig"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        at = re.search(r"\(at line (\d+)", str(exc))
        diags.append(
            Diagnostic(
                "error",
                "settings-invalid",
                f"{origin} config is not valid TOML: {exc}",
                path,
                int(at.group(1)) if at else None,
            )
        )
        return None


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _trust_patterns(layer: Mapping[str, Any] | None) -> tuple[str, ...] | None:
    """``[trust] projects`` of a layer when it is a valid list of strings."""
    table = layer.get("trust") if layer is not None else None
    value = table.get("projects") if isinstance(table, Mapping) else None
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def load_settings(
    home_dir: Path,
    project_root: Path | None,
    overrides: Mapping[str, Any] | None = None,
    *,
    home: Path | None = None,
    plugin_schema: Mapping[str, Mapping[str, SettingSpec]] | None = None,
) -> tuple[Settings, list[Diagnostic]]:
    """Read and merge the user and project config files and ``overrides``.

    ``home_dir`` is the skillpath home (``SKILLPATH_HOME`` or ``~/.skillpath``);
    ``home`` is the user's home directory, against which ``~`` in
    ``[trust] projects`` expands (default: ``Path.home()``). The project's
    config may set keys of scope ``trusted`` only when ``[trust] projects``
    (from the user config, or from ``overrides``) matches ``project_root``;
    keys of scope ``user`` never. Returns the settings and the diagnostics
    found on the way.

    ``plugin_schema`` holds the sections plugins declared (``settings_schema``
    hook): their keys are validated and held to their scope like skillpath's
    own; a section of skillpath's own cannot be redeclared.
    """
    diags: list[Diagnostic] = []
    extra = {k: v for k, v in (plugin_schema or {}).items() if k not in SCHEMA}
    schema: Mapping[str, Mapping[str, SettingSpec]] = {**SCHEMA, **extra} if extra else SCHEMA
    merged: dict[str, dict[str, Any]] = {}
    origins: dict[str, dict[str, str]] = {}
    trusted: dict[str, dict[str, Any]] = {}
    files: list[Path] = []
    read: list[tuple[str, Path, dict[str, Any]]] = []
    user_path = home_dir / "config.toml"
    for origin, path in settings_paths(home_dir, project_root):
        if origin == "project" and _same_file(path, user_path):
            continue  # the project is the skillpath home's parent: the user's own file
        if origin == "project":
            area = project_area(path.parent, home)
            outside = outside_area(path, area)
            if outside is not None:
                diags.append(
                    Diagnostic(
                        "warning",
                        "settings-outside-project",
                        f"project config not read: it resolves to {outside}, outside the "
                        f"project {area}",
                        path,
                    )
                )
                continue
        layer = _read_layer(origin, path, diags)
        if layer is None:
            continue
        files.append(path)
        read.append((origin, path, layer))
    expanded = _expand_overrides(overrides) if overrides else {}
    user_layer = next((data for origin, _p, data in read if origin == "user"), None)
    patterns = _trust_patterns(expanded)
    if patterns is None:
        patterns = _trust_patterns(user_layer) or ()
    for pattern in patterns:
        if _pattern_parts(pattern, home or Path.home()) is None:
            diags.append(
                Diagnostic(
                    "warning",
                    "settings-bad-value",
                    f"[trust] projects entry {pattern!r} is not an absolute path or "
                    "pattern (nor starts with ~/); it never matches",
                    user_path if _trust_patterns(expanded) is None else None,
                )
            )
    trusted_by = (
        trusted_pattern(project_root, patterns, home)
        if project_root is not None and patterns
        else None
    )
    hint = (
        f"to trust it, add {str(project_root)!r} (or a pattern matching it) to "
        f"[trust] projects in {user_path}"
    )
    layers: list[tuple[str, Path]] = []
    for origin, path, data in read:
        if origin == "project":
            scopes: tuple[str, ...] = ("any", "trusted") if trusted_by else ("any",)
            if trusted_by:
                diags.append(
                    Diagnostic(
                        "info",
                        "settings-trusted",
                        f"project config: trusted by [trust] projects pattern {trusted_by!r}",
                        path,
                    )
                )
        else:
            scopes = SCOPES
        file_layer = _Layer(origin, data, path, scopes, hint)
        _merge_layer(merged, file_layer, diags, origins, trusted, schema)
        layers.append((origin, path))
    if expanded:
        _merge_layer(merged, _Layer("arguments", expanded), diags, origins, trusted, schema)
    settings = Settings(
        data=merged,
        files=tuple(files),
        origins=origins,
        layers=tuple(layers),
        trusted_by=trusted_by,
        trusted_data=trusted,
        plugin_schema=extra,
    )
    return settings, diags
