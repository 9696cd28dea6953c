"""Settings: ``~/.skillweave/config.toml`` then ``<project>/.skillweave/config.toml``
then explicit arguments, later layers winning key by key.

The schema below is the single source of truth: validation, defaults and the
configuration reference in ``docs/`` all come from :data:`SCHEMA`. A bad value
(wrong type, unknown key) is a diagnostic naming the file and key, never a crash.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import attrs

from skillweave.model import Diagnostic

__all__ = ["SCHEMA", "SettingSpec", "Settings", "load_settings", "settings_paths"]


@attrs.frozen
class SettingSpec:
    """One settings key: its type, default and one-line meaning."""

    type: type | tuple[type, ...]
    default: Any
    doc: str
    item: type = str


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
            "`~` expands, relative paths resolve against the project root."
        ),
        "ignored": _list("Glob patterns on skill names to drop."),
        "include": _list("Glob patterns on skill names to keep; empty keeps all."),
        "disabled_extensions": _list("Entries `skill:<name>` disable one skill by name."),
        "enable_native_user": SettingSpec(bool, True, "Load `~/.skillweave/skills`."),
        "enable_native_project": SettingSpec(
            bool, True, "Load `.skillweave/skills` in the project."
        ),
        "enable_claude_user": SettingSpec(
            bool, True, "Load Claude Code user (and managed-policy) skills."
        ),
        "enable_claude_project": SettingSpec(bool, True, "Load Claude Code project skills."),
        "enable_codex_user": SettingSpec(bool, True, "Load Codex skills."),
        "enable_agents_user": SettingSpec(bool, True, "Load `~/.agent(s)/skills`."),
        "enable_agents_project": SettingSpec(bool, True, "Load `.agent(s)/skills` in the project."),
    },
    "listing": {
        "budget": SettingSpec(int, 8000, "Character budget of the system-prompt listing."),
        "format": SettingSpec(
            str, "skills", "Listing format: `skills`, `agentskills` (XML) or `claude`."
        ),
    },
    "shell": {
        "enabled": SettingSpec(
            bool, True, "Master switch for inline shell (`!`cmd``) in skill prompts."
        ),
        "levels": SettingSpec(
            list,
            ("user", "managed"),
            "Source levels whose skills may run inline shell "
            "(project, package, remote and learned — auto-learned — skills are off "
            "unless listed; MCP never).",
        ),
        "timeout": SettingSpec(int, 30, "Seconds before an inline shell command is killed."),
        "max_output": SettingSpec(int, 30000, "Characters of output kept per command."),
        "pass_env": SettingSpec(
            list,
            ("PATH", "HOME", "LANG", "LC_ALL", "TERM", "USER", "TMPDIR", "SHELL"),
            "Environment variables an inline shell command may see.",
        ),
    },
    "autolearn": {
        "enabled": SettingSpec(
            bool, False, "Allow writing auto-learned skills into the managed directory."
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
        ),
        "timeout": SettingSpec(int, 15, "Seconds to wait for one MCP server."),
    },
    "plugins": {
        "blocked": SettingSpec(list, (), "Plugin (entry-point) names never loaded."),
        "strict": SettingSpec(bool, False, "Re-raise plugin failures instead of reporting them."),
    },
}


@attrs.frozen
class Settings:
    """Merged settings. ``data`` maps section → key → value (defaults filled in
    for known keys; unknown sections are kept for plugins); ``files`` are the
    config files that were read."""

    data: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict)
    files: tuple[Path, ...] = ()
    # section() is called once per skill by the built-in filter: memoised
    _sections: dict[str, tuple[int, Mapping[str, Any]]] = attrs.field(
        factory=dict, init=False, eq=False, repr=False, hash=False
    )

    def get(self, section: str, key: str, default: Any = None) -> Any:
        """The value of ``[section] key``, or the schema default, or ``default``."""
        sec = self.data.get(section, {})
        if key in sec:
            return sec[key]
        spec = SCHEMA.get(section, {}).get(key)
        return spec.default if spec is not None else default

    def section(self, section: str) -> Mapping[str, Any]:
        """One section with schema defaults filled in (a read-only mapping)."""
        spec = SCHEMA.get(section, {})
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


def settings_paths(home_dir: Path, project_root: Path | None) -> list[tuple[str, Path]]:
    """The config files read, in merge order (``SKILLWEAVE_HOME`` already applied)."""
    out = [("user", home_dir / "config.toml")]
    if project_root is not None:
        out.append(("project", project_root / ".skillweave" / "config.toml"))
    return out


def _check_value(
    section: str, key: str, value: Any, origin: str, diags: list[Diagnostic], path: Path | None
) -> tuple[bool, Any]:
    spec = SCHEMA[section][key]
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


def _merge_layer(
    merged: dict[str, dict[str, Any]],
    layer: Mapping[str, Any],
    origin: str,
    path: Path | None,
    diags: list[Diagnostic],
) -> None:
    for section, table in layer.items():
        if section not in SCHEMA:
            merged.setdefault(section, {})
            if isinstance(table, Mapping):
                merged[section].update(table)
            else:
                merged[section] = {"value": table}
            if origin != "arguments":
                diags.append(
                    Diagnostic(
                        "info",
                        "settings-unknown-section",
                        f"{origin}: [{section}] is not a skillweave section; kept for plugins",
                        path,
                    )
                )
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
            continue
        for key, value in table.items():
            if key not in SCHEMA[section]:
                diags.append(
                    Diagnostic(
                        "error",
                        "settings-unknown-key",
                        f"{origin}: unknown key [{section}] {key}",
                        path,
                    )
                )
                continue
            ok, checked = _check_value(section, key, value, origin, diags, path)
            if ok:
                merged.setdefault(section, {})[key] = checked


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


def load_settings(
    home_dir: Path,
    project_root: Path | None,
    overrides: Mapping[str, Any] | None = None,
) -> tuple[Settings, list[Diagnostic]]:
    """Read and merge the user and project config files and ``overrides``.

    ``home_dir`` is the skillweave home (``SKILLWEAVE_HOME`` or ``~/.skillweave``).
    Returns the settings and the diagnostics found on the way.
    """
    diags: list[Diagnostic] = []
    merged: dict[str, dict[str, Any]] = {}
    files: list[Path] = []
    for origin, path in settings_paths(home_dir, project_root):
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            continue
        except OSError as exc:
            diags.append(
                Diagnostic(
                    "error",
                    "settings-unreadable",
                    f"cannot read {origin} config: {exc.strerror}",
                    path,
                )
            )
            continue
        try:
            layer = tomllib.loads(raw.decode("utf-8-sig"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            diags.append(
                Diagnostic(
                    "error", "settings-invalid", f"{origin} config is not valid TOML: {exc}", path
                )
            )
            continue
        files.append(path)
        _merge_layer(merged, layer, f"{origin} config", path, diags)
    if overrides:
        _merge_layer(merged, _expand_overrides(overrides), "arguments", None, diags)
    return Settings(data=merged, files=tuple(files)), diags
