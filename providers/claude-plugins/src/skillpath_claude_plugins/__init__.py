"""Provider ``claude-plugins``: skills shipped by installed Claude Code plugins.

Plugin registries read, in this order:

1. ``$CLAUDE_CONFIG_DIR/plugins/installed_plugins.json`` (default
   ``~/.claude/plugins/installed_plugins.json``),
2. ``<SKILLPATH_HOME or ~/.skillpath>/plugins/installed_plugins.json``.

Format (version 2)::

    {"version": 2, "plugins": {"<plugin>@<marketplace>": [
        {"scope": "user", "installPath": "/abs/path", "version": "1.0.0", ...}]}}

A version 1 entry (one object instead of a list) is read too. For every
install path, in file order, the skills roots are the directories listed by
the optional ``skills`` key of ``<root>/.claude-plugin/plugin.json`` (a string
or a list of paths relative to the plugin root), then ``<root>/skills``. Skills
keep their own names (Claude Code calls them ``plugin:skill``; the setting
``[skills] namespace_plugin_skills = true`` gives them that name here too); the
plugin name, marketplace, version, scope, project path, plugin root and
registry file are recorded in ``SkillSource.detail``.

Which installs apply:

- ``"scope": "project"`` (or ``"local"``) installs belong to the project at
  their ``projectPath``: they load, at level ``project``, only when the working
  directory is that directory or below it; elsewhere they are skipped with an
  ``info`` diagnostic (``plugin-other-project``). Every other install loads at
  level ``user``.
- A plugin set to ``false`` in ``enabledPlugins`` of Claude Code's settings is
  skipped with an ``info`` diagnostic (``plugin-disabled``) naming the settings
  file that decided. The files are read in this order, a later one overriding
  an earlier one key by key: ``<CLAUDE_CONFIG_DIR or ~/.claude>/settings.json``,
  ``<cwd>/.claude/settings.json``, ``<cwd>/.claude/settings.local.json`` (like
  Claude Code, project settings are read from the working directory only). A
  plugin that no file mentions is enabled. A project's files may disable a
  plugin but not enable one the user's file disabled, unless the user trusts
  the project (``settings-untrusted`` warning otherwise).

A broken registry, manifest or settings file, an entry of the wrong shape or a
missing install path is a diagnostic naming the file; the rest still loads.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
from skillpath import Discovery, DiscoveryResult, SkillContext, hookimpl
from skillpath.context import is_relative_to, unsafe_dir_reason
from skillpath.safety import (
    ContainmentError,
    JSONLimitError,
    check_relative,
    describe_oserror,
    loads_bounded,
    outside_area,
    project_area,
    read_bounded,
)
from skillpath.scan import check_name

__all__ = [
    "MANIFEST",
    "PRIORITY",
    "PROJECT_SCOPES",
    "PROVIDER_ID",
    "REGISTRY",
    "InstalledPlugin",
    "PluginSwitch",
    "discover_skills",
    "plugin_switches",
    "read_registry",
    "registry_files",
    "settings_files",
    "skill_roots",
]

PROVIDER_ID = "claude-plugins"
PRIORITY = 70
#: What the hooks here depend on (:func:`skillpath.depends_on`): only files, so an
#: unchanged ``skillpath list`` may be replayed.
DEPENDS_ON = ("files",)
#: Registry file name (inside a ``plugins`` folder).
REGISTRY = "installed_plugins.json"
#: Plugin manifest, relative to the plugin root.
MANIFEST = Path(".claude-plugin") / "plugin.json"
#: Registry files larger than this are refused.
MAX_JSON_BYTES = 4 * 1024 * 1024
#: Install scopes that belong to one project (its ``projectPath``).
PROJECT_SCOPES = ("project", "local")


@attrs.frozen
class InstalledPlugin:
    """One install of a plugin, as listed in a registry file."""

    key: str
    name: str
    marketplace: str | None
    version: str | None
    scope: str | None
    root: Path
    registry: Path
    project: Path | None = None

    @property
    def level(self) -> str:
        """``project`` for a project-scoped install, else ``user``."""
        return "project" if self.scope in PROJECT_SCOPES else "user"

    def applies_to(self, cwd: Path) -> bool:
        """Whether the install applies in ``cwd``: not project-scoped, or cwd in its project."""
        if self.scope not in PROJECT_SCOPES:
            return True
        if self.project is None:
            return False
        return is_relative_to(cwd, self.project) or is_relative_to(
            cwd, Path(os.path.realpath(self.project))
        )

    def detail(self) -> dict[str, Any]:
        """The facts recorded in ``SkillSource.detail`` of this plugin's skills."""
        return {
            "plugin": self.name,
            "marketplace": self.marketplace,
            "version": self.version,
            "scope": self.scope,
            "project_path": str(self.project) if self.project is not None else None,
            "plugin_root": str(self.root),
            "registry": str(self.registry),
        }


@attrs.frozen
class PluginSwitch:
    """One ``enabledPlugins`` entry: the value that counts and the settings file it is from."""

    enabled: bool
    settings: Path


def _claude_dir(ctx: SkillContext) -> Path:
    return ctx.env_dir("CLAUDE_CONFIG_DIR") or ctx.home / ".claude"


def registry_files(ctx: SkillContext) -> list[Path]:
    """The registry files read, in order (Claude Code's, then skillpath's)."""
    return [_claude_dir(ctx) / "plugins" / REGISTRY, ctx.skillpath_home / "plugins" / REGISTRY]


def settings_files(ctx: SkillContext) -> list[Path]:
    """Claude Code settings files that may set ``enabledPlugins``, lowest precedence first."""
    project = ctx.cwd / ".claude"
    return [
        _claude_dir(ctx) / "settings.json",
        project / "settings.json",
        project / "settings.local.json",
    ]


def _read_json(path: Path, d: Discovery, what: str, level: str = "error") -> tuple[bool, Any]:
    """``(found, data)``; a missing file is ``(False, None)``, a bad one a diagnostic."""
    try:
        raw = read_bounded(path, MAX_JSON_BYTES)
    except FileNotFoundError:
        return False, None
    except OSError as exc:
        if exc.errno == errno.EFBIG:
            d.diagnostic(
                level, f"bad-{what}", f"{what} is larger than {MAX_JSON_BYTES} bytes; ignored", path
            )
        else:
            d.diagnostic(
                level, f"unreadable-{what}", f"cannot read {what}: {describe_oserror(exc)}", path
            )
        return True, None
    try:
        return True, loads_bounded(raw, what=what)
    except JSONLimitError as exc:  # nested too deep, or not UTF-8
        d.diagnostic(level, f"bad-{what}", str(exc), path)
    except json.JSONDecodeError as exc:
        d.diagnostic(level, f"bad-{what}", f"{what} is not valid JSON: {exc.msg}", path, exc.lineno)
    return True, None


def plugin_switches(ctx: SkillContext, d: Discovery) -> dict[str, PluginSwitch]:
    """``enabledPlugins`` merged over :func:`settings_files` (a later file wins a key).

    A project's files may disable a plugin but not enable one the user's file
    disabled, unless the user trusts the project (``[trust] projects``): such
    an entry is ignored with a ``settings-untrusted`` warning. A project's
    files are not read at all when its directory is unsafe
    (:func:`skillpath.context.unsafe_dir_reason`). A missing file is silent.
    Unreadable or invalid JSON, a value of the wrong shape and a non-boolean
    entry are warnings naming the file; what is valid in the same file still
    counts.
    """
    switches: dict[str, PluginSwitch] = {}
    user_file = settings_files(ctx)[0]
    user_off: dict[str, PluginSwitch] = {}
    for path in settings_files(ctx):
        if path == user_file:
            pass
        elif (why := unsafe_dir_reason(ctx.cwd)) is not None:
            if os.path.lexists(path):
                d.diagnostic(
                    "warning",
                    "unsafe-project-dir",
                    f"project settings not read: {ctx.cwd} is {why}",
                    path,
                )
            continue
        else:
            area = project_area(path.parent, ctx.home)
            outside = outside_area(path, area)
            if outside is not None:
                d.diagnostic(
                    "warning",
                    "settings-outside-project",
                    f"project settings not read: they resolve to {outside}, outside the "
                    f"project {area}",
                    path,
                )
                continue
        found, data = _read_json(path, d, "claude-settings", "warning")
        if not found or data is None:
            continue
        if not isinstance(data, dict):
            d.diagnostic(
                "warning",
                "bad-claude-settings",
                f"settings must be a JSON object, got {type(data).__name__}; "
                "its enabledPlugins are not read",
                path,
            )
            continue
        enabled = data.get("enabledPlugins")
        if enabled is None:
            continue
        if not isinstance(enabled, dict):
            d.diagnostic(
                "warning",
                "bad-claude-settings",
                f"'enabledPlugins' must be an object, got {type(enabled).__name__}; ignored",
                path,
            )
            continue
        for key, value in enabled.items():
            if isinstance(value, bool):
                if path == user_file and not value:
                    user_off[key] = PluginSwitch(value, path)
                switches[key] = PluginSwitch(value, path)
            else:
                d.diagnostic(
                    "warning",
                    "bad-claude-settings",
                    f"enabledPlugins[{key!r}] must be true or false, got "
                    f"{type(value).__name__}; ignored",
                    path,
                )
    if ctx.settings.trusted_by is None:
        # a project may turn plugins off, never back on against the user's say
        for key, off in user_off.items():
            switch = switches.get(key)
            if switch is not None and switch.enabled:
                d.diagnostic(
                    "warning",
                    "settings-untrusted",
                    f"enabledPlugins[{key!r}] = true ignored: the user disabled the plugin in "
                    f"{off.settings}, and a project's settings may enable it only when the "
                    "user trusts the project (add its root to [trust] projects in "
                    f"{ctx.skillpath_home / 'config.toml'})",
                    switch.settings,
                )
                switches[key] = off
    return switches


def _split_key(key: str) -> tuple[str, str | None]:
    name, at, marketplace = key.rpartition("@")
    if not at or not name:
        return key, None
    return name, marketplace or None


def read_registry(path: Path, ctx: SkillContext, d: Discovery) -> Iterator[InstalledPlugin]:
    """Every well-formed install listed in registry ``path``, in file order.

    A missing file yields nothing silently; unreadable or invalid JSON, a wrong
    top-level shape and each bad entry are diagnostics on ``d`` with the path.
    """
    found, data = _read_json(path, d, "plugin-registry")
    if not found or data is None:
        return
    if not isinstance(data, dict):
        d.diagnostic(
            "error",
            "bad-plugin-registry",
            f"plugin registry must be a JSON object, got {type(data).__name__}",
            path,
        )
        return
    version = data.get("version")
    if version is not None and version not in (1, 2):
        d.diagnostic(
            "warning",
            "bad-plugin-registry",
            f"unknown plugin registry version {version!r}; reading it as version 2",
            path,
        )
    plugins = data.get("plugins")
    if not isinstance(plugins, dict):
        d.diagnostic(
            "error",
            "bad-plugin-registry",
            "plugin registry has no 'plugins' object"
            if plugins is None
            else f"'plugins' must be an object, got {type(plugins).__name__}",
            path,
        )
        return
    for key, installs in plugins.items():
        entries = [installs] if isinstance(installs, dict) else installs
        if not isinstance(entries, list):
            d.diagnostic(
                "error",
                "bad-plugin-entry",
                f"plugin {key!r}: expected a list of installs, got {type(installs).__name__}",
                path,
            )
            continue
        name, marketplace = _split_key(key)
        for index, entry in enumerate(entries):
            where = f"plugin {key!r} install #{index}"
            if not isinstance(entry, dict):
                d.diagnostic(
                    "error",
                    "bad-plugin-entry",
                    f"{where}: expected an object, got {type(entry).__name__}",
                    path,
                )
                continue
            install = entry.get("installPath")
            if not isinstance(install, str) or not install.strip():
                d.diagnostic(
                    "error",
                    "bad-plugin-entry",
                    f"{where}: 'installPath' is missing"
                    if install is None
                    else f"{where}: 'installPath' must be a non-empty string",
                    path,
                )
                continue
            if install == "~" or install.startswith("~/"):
                root = ctx.home / install[2:]
            else:
                root = Path(install)
            if not root.is_absolute():
                d.diagnostic(
                    "error",
                    "bad-plugin-entry",
                    f"{where}: 'installPath' must be absolute, got {install!r}",
                    path,
                )
                continue
            version_value = entry.get("version")
            scope = entry.get("scope")
            project: Path | None = None
            if scope in PROJECT_SCOPES:
                raw_project = entry.get("projectPath")
                if isinstance(raw_project, str) and (
                    raw_project == "~" or raw_project.startswith("~/")
                ):
                    project = ctx.home / raw_project[2:]
                elif isinstance(raw_project, str) and raw_project.strip():
                    project = Path(raw_project)
                if project is None or not project.is_absolute():
                    d.diagnostic(
                        "warning",
                        "bad-plugin-entry",
                        f"{where}: scope {scope!r} needs an absolute 'projectPath', got "
                        f"{raw_project!r}; skipped",
                        path,
                    )
                    continue
            yield InstalledPlugin(
                key=key,
                name=name,
                marketplace=marketplace,
                version=None if version_value is None else str(version_value),
                scope=scope if isinstance(scope, str) else None,
                root=root,
                registry=path,
                project=project,
            )


def skill_roots(plugin: InstalledPlugin, d: Discovery) -> list[Path]:
    """The plugin's skills roots: the manifest's ``skills`` paths, then ``<root>/skills``.

    Manifest paths must stay inside the plugin root (no absolute paths, no
    ``..``); a bad manifest or path is a diagnostic and the default root is
    still used. Like every root, a listed directory that does not exist is
    silent. The same directory listed twice is scanned once.
    """
    manifest = plugin.root / MANIFEST
    roots: list[Path] = []
    found, data = _read_json(manifest, d, "plugin-manifest")
    declared: Any = None
    if found and data is not None:
        if not isinstance(data, dict):
            d.diagnostic(
                "error",
                "bad-plugin-manifest",
                f"plugin manifest must be a JSON object, got {type(data).__name__}",
                manifest,
            )
        else:
            declared = data.get("skills")
            if isinstance(declared, str):
                declared = [declared]
            if declared is not None and not (
                isinstance(declared, list) and all(isinstance(p, str) for p in declared)
            ):
                d.diagnostic(
                    "error",
                    "bad-plugin-manifest",
                    "'skills' must be a path or a list of paths relative to the plugin root",
                    manifest,
                )
                declared = None
    for rel in declared or ():
        try:
            clean = check_relative(rel)
        except ContainmentError as exc:
            d.diagnostic("error", "bad-plugin-manifest", f"skills path refused: {exc}", manifest)
            continue
        roots.append(plugin.root.joinpath(*clean.parts))
    roots.append(plugin.root / "skills")
    unique: list[Path] = []
    for root in roots:
        if root not in unique:
            unique.append(root)
    return unique


@hookimpl
def discover_skills(ctx: SkillContext) -> DiscoveryResult:
    """Skills of every installed plugin, by registry and then by plugin in file order."""
    d = Discovery(PROVIDER_ID, PRIORITY)
    namespaced = bool(ctx.settings.get("skills", "namespace_plugin_skills"))
    switches: dict[str, PluginSwitch] | None = None  # read when the first plugin is found
    for registry in registry_files(ctx):
        for plugin in read_registry(registry, ctx, d):
            if not plugin.applies_to(ctx.cwd):
                d.diagnostic(
                    "info",
                    "plugin-other-project",
                    f"plugin {plugin.key!r} is installed for project {plugin.project} "
                    f"(scope {plugin.scope!r}); not loaded outside it",
                    registry,
                )
                continue
            if switches is None:
                switches = plugin_switches(ctx, d)
            switch = switches.get(plugin.key)
            if switch is not None and not switch.enabled:
                d.diagnostic(
                    "info",
                    "plugin-disabled",
                    f"plugin {plugin.key!r} is disabled in {switch.settings} "
                    "(enabledPlugins); its skills are not loaded",
                    switch.settings,
                )
                continue
            if not plugin.root.is_dir():
                d.diagnostic(
                    "warning",
                    "plugin-missing",
                    f"plugin {plugin.key!r} from {registry}: install path "
                    + ("is not a directory" if plugin.root.exists() else "does not exist"),
                    plugin.root,
                )
                continue
            for root in skill_roots(plugin, d):
                found = d.scan(root, plugin.level, **plugin.detail())
                if namespaced and found.skills:
                    _namespace(d, plugin, len(found.skills))
    return d.result()


def _namespace(d: Discovery, plugin: InstalledPlugin, count: int) -> None:
    """Rename the last ``count`` skills of ``d`` to ``<plugin>:<name>``.

    A combined name that is not a valid skill name (the registry key holds
    characters a name cannot) keeps the skill's own name, with a warning.
    """
    start = len(d.skills) - count
    for i in range(start, len(d.skills)):
        skill = d.skills[i]
        name = f"{plugin.name}:{skill.name}"
        why = check_name(name)
        if why is not None:
            d.diagnostic(
                "warning",
                "invalid-name",
                f"cannot name the skill {name!r} ({why}); it keeps its own name",
                skill.path,
            )
            continue
        d.skills[i] = attrs.evolve(skill, name=name)
