"""Claude Code's plugins as Claude Code loads them: the one reader of plugins that the
``claude-code`` view (:mod:`skillpath.views`) and the ``claude-plugins`` provider share,
so the two cannot disagree on which plugins load, from where, in which order, and
under which names.

The rules, as the pinned Claude Code (2.1.332) behaves in ``tests/counterparts``
(``test_claude_plugins.py``):

- **Registry**: ``<config>/plugins/installed_plugins.json``, where ``<config>`` is
  ``$CLAUDE_CONFIG_DIR`` or ``~/.claude`` (:func:`config_dir`).
- **Enabled**: a plugin loads only when the merged ``enabledPlugins`` of the settings
  files says ``true`` for its ``plugin@marketplace`` key; a key absent from every file
  is *not* loaded (``claude plugin install`` writes the ``true``).
- **Settings files**, lowest precedence first (:func:`settings_files`): user
  ``<config>/settings.json``; project ``<cwd>/.claude/settings.json`` (the working
  directory's only, not the repository root's); local ``<cwd>/.claude/settings.local.json``
  when cwd is below the repository root, then ``<root>/.claude/settings.local.json`` (the
  root's wins); managed ``/etc/claude-code/managed-settings.json`` then
  ``managed-settings.d/*.json`` in name order (Claude Code's documented policy files; the
  managed ones cannot be observed in a test without writing ``/etc``, and
  ``SKILLPATH_CLAUDE_MANAGED_DIR`` moves them). A later file wins a key.
- **Order**: plugins load in the order of the merged ``enabledPlugins`` keys (a key keeps
  the place where it first appeared), not in the registry's order. The listing then has
  every plugin's commands first (plugin by plugin, each by name), then every plugin's
  skills (plugin by plugin, each by name).
- **Directory marketplaces**: a plugin from a marketplace whose ``source`` in
  ``<config>/plugins/known_marketplaces.json`` is ``{"source": "directory", "path": P}`` is
  read from ``P`` (the plugin's ``source`` in ``P/.claude-plugin/marketplace.json``),
  not from the cache copy at its ``installPath``: an edit in the folder shows at once.
- **Entries**: skills under ``<root>/skills`` and then the manifest's ``skills`` paths, named
  ``plugin:name``; commands ``commands/**/*.md`` (and the manifest's ``commands`` paths),
  named ``plugin:ns:file``; ``${CLAUDE_PLUGIN_ROOT}`` is the plugin folder.

Every function takes a ``report`` callable ``(level, code, message, path, line)`` for the
problems it meets (the provider turns them into diagnostics, the view ignores them); a
missing file is never a problem.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs

from skillpath.context import is_relative_to
from skillpath.safety import (
    ContainmentError,
    JSONLimitError,
    check_relative,
    describe_oserror,
    loads_bounded,
    read_bounded,
)

__all__ = [
    "MANAGED_DIR",
    "MANAGED_DIR_ENV",
    "MANIFEST",
    "MARKETPLACES",
    "MARKET_MANIFEST",
    "PROJECT_SCOPES",
    "REGISTRY",
    "InstalledPlugin",
    "PluginSwitch",
    "Report",
    "SettingsFile",
    "command_files",
    "config_dir",
    "enabled_plugins",
    "file_switches",
    "in_load_order",
    "loaded_plugins",
    "managed_dir",
    "marketplace_dirs",
    "merge_switches",
    "plugin_source",
    "read_json",
    "read_registry",
    "repo_root",
    "settings_files",
    "skill_files",
    "skill_roots",
    "skipped_plugins",
]

#: Registry file name (inside ``<config>/plugins``).
REGISTRY = "installed_plugins.json"
#: The marketplaces Claude Code knows (inside ``<config>/plugins``).
MARKETPLACES = "known_marketplaces.json"
#: Plugin manifest, relative to the plugin root.
MANIFEST = Path(".claude-plugin") / "plugin.json"
#: A marketplace's plugin list, relative to the marketplace folder.
MARKET_MANIFEST = Path(".claude-plugin") / "marketplace.json"
#: Claude Code's managed-policy folder on Linux (``managed-settings.json`` and ``.d``).
MANAGED_DIR = Path("/etc/claude-code")
#: Environment variable that moves :data:`MANAGED_DIR`.
MANAGED_DIR_ENV = "SKILLPATH_CLAUDE_MANAGED_DIR"
#: Install scopes that belong to one project (its ``projectPath``).
PROJECT_SCOPES = ("project", "local")
#: JSON files larger than this are refused.
MAX_JSON_BYTES = 4 * 1024 * 1024

#: ``report(level, code, message, path, line)``: one problem met while reading.
Report = Callable[[str, str, str, "Path | None", "int | None"], None]


def _quiet(level: str, code: str, message: str, path: Path | None, line: int | None) -> None:
    """The report that drops every problem (the view's)."""


def _env_dir(value: str | None, home: Path, cwd: Path) -> Path | None:
    if not value:
        return None
    if value == "~" or value.startswith("~/"):
        return home / value[2:]
    path = Path(value)
    return path if path.is_absolute() else cwd / path


def config_dir(home: Path, env: Mapping[str, str], cwd: Path | None = None) -> Path:
    """Claude Code's config folder: ``$CLAUDE_CONFIG_DIR`` (``~`` is ``home``, a relative
    value is taken against ``cwd``), else ``home/.claude``."""
    return _env_dir(env.get("CLAUDE_CONFIG_DIR"), home, cwd or home) or home / ".claude"


def managed_dir(env: Mapping[str, str]) -> Path:
    """The managed-policy folder: ``$SKILLPATH_CLAUDE_MANAGED_DIR`` or :data:`MANAGED_DIR`."""
    value = env.get(MANAGED_DIR_ENV, "")
    return Path(value) if value and Path(value).is_absolute() else MANAGED_DIR


def repo_root(cwd: Path) -> Path | None:
    """The first directory from ``cwd`` up holding ``.git`` (a folder or a file)."""
    for d in (cwd, *cwd.parents):
        if (d / ".git").exists():
            return d
    return None


def read_json(
    path: Path, what: str, report: Report = _quiet, level: str = "error"
) -> tuple[bool, Any]:
    """``(found, data)`` of a bounded JSON file; a missing file is ``(False, None)``, an
    unreadable or invalid one ``(True, None)`` with a ``bad-<what>`` or
    ``unreadable-<what>`` problem at ``level``."""
    try:
        raw = read_bounded(path, MAX_JSON_BYTES)
    except (FileNotFoundError, NotADirectoryError):
        return False, None
    except OSError as exc:
        if exc.errno == errno.EFBIG:
            report(
                level,
                f"bad-{what}",
                f"{what} is larger than {MAX_JSON_BYTES} bytes; ignored",
                path,
                None,
            )
        else:
            report(
                level,
                f"unreadable-{what}",
                f"cannot read {what}: {describe_oserror(exc)}",
                path,
                None,
            )
        return True, None
    try:
        return True, loads_bounded(raw, what=what)
    except JSONLimitError as exc:  # nested too deep, or not UTF-8
        report(level, f"bad-{what}", str(exc), path, None)
    except json.JSONDecodeError as exc:
        report(level, f"bad-{what}", f"{what} is not valid JSON: {exc.msg}", path, exc.lineno)
    return True, None


# --- enabledPlugins -------------------------------------------------------------


@attrs.frozen
class SettingsFile:
    """One settings file Claude Code reads: ``scope`` (``user``, ``project``, ``local``,
    ``managed``) and ``path``."""

    scope: str
    path: Path


@attrs.frozen
class PluginSwitch:
    """One ``enabledPlugins`` entry: the value that counts and the settings file it is from."""

    enabled: bool
    settings: Path
    scope: str = "user"


def settings_files(home: Path, env: Mapping[str, str], cwd: Path) -> list[SettingsFile]:
    """The settings files that may set ``enabledPlugins``, lowest precedence first
    (the module docstring gives the rule and what was observed)."""
    files = [SettingsFile("user", config_dir(home, env, cwd) / "settings.json")]
    files.append(SettingsFile("project", cwd / ".claude" / "settings.json"))
    root = repo_root(cwd) or cwd
    if root != cwd:
        files.append(SettingsFile("local", cwd / ".claude" / "settings.local.json"))
    files.append(SettingsFile("local", root / ".claude" / "settings.local.json"))
    managed = managed_dir(env)
    files.append(SettingsFile("managed", managed / "managed-settings.json"))
    try:
        drop_ins = sorted(
            n for n in os.listdir(managed / "managed-settings.d") if n.endswith(".json")
        )
    except OSError:
        drop_ins = []
    files += [SettingsFile("managed", managed / "managed-settings.d" / n) for n in drop_ins]
    return files


def file_switches(path: Path, data: Any, report: Report = _quiet) -> dict[str, bool]:
    """The valid ``enabledPlugins`` entries of one parsed settings file, in file order.

    A value of the wrong shape and a non-boolean entry are ``bad-claude-settings``
    warnings; what is valid in the same file still counts.
    """
    if data is None:
        return {}
    if not isinstance(data, dict):
        report(
            "warning",
            "bad-claude-settings",
            f"settings must be a JSON object, got {type(data).__name__}; "
            "its enabledPlugins are not read",
            path,
            None,
        )
        return {}
    enabled = data.get("enabledPlugins")
    if enabled is None:
        return {}
    if not isinstance(enabled, dict):
        report(
            "warning",
            "bad-claude-settings",
            f"'enabledPlugins' must be an object, got {type(enabled).__name__}; ignored",
            path,
            None,
        )
        return {}
    out: dict[str, bool] = {}
    for key, value in enabled.items():
        if isinstance(value, bool):
            out[key] = value
        else:
            report(
                "warning",
                "bad-claude-settings",
                f"enabledPlugins[{key!r}] must be true or false, got "
                f"{type(value).__name__}; ignored",
                path,
                None,
            )
    return out


def merge_switches(
    layers: Iterable[tuple[SettingsFile, Mapping[str, bool]]],
) -> dict[str, PluginSwitch]:
    """Merge per-file switches, lowest precedence first: a later file wins a key, and a
    key keeps the place where it first appeared (the order plugins load in)."""
    merged: dict[str, PluginSwitch] = {}
    for file, switches in layers:
        for key, value in switches.items():
            merged[key] = PluginSwitch(value, file.path, file.scope)
    return merged


def enabled_plugins(
    home: Path, env: Mapping[str, str], cwd: Path, report: Report = _quiet
) -> dict[str, PluginSwitch]:
    """The merged ``enabledPlugins`` of every :func:`settings_files`, as Claude Code
    reads them (no trust rule: that is the provider's, see its docs)."""
    layers = []
    for file in settings_files(home, env, cwd):
        _found, data = read_json(file.path, "claude-settings", report, "warning")
        layers.append((file, file_switches(file.path, data, report)))
    return merge_switches(layers)


# --- the registry and the marketplaces --------------------------------------------


@attrs.frozen
class InstalledPlugin:
    """One install of a plugin, as listed in a registry file.

    ``root`` is the ``installPath``; ``source`` the folder Claude Code reads instead
    when the plugin comes from a directory marketplace (:func:`plugin_source`).
    """

    key: str
    name: str
    marketplace: str | None
    version: str | None
    scope: str | None
    root: Path
    registry: Path
    project: Path | None = None
    source: Path | None = None

    @property
    def folder(self) -> Path:
        """The folder the plugin is read from: :attr:`source`, else :attr:`root`."""
        return self.source if self.source is not None else self.root

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
            "plugin_root": str(self.folder),
            "registry": str(self.registry),
        }


def _split_key(key: str) -> tuple[str, str | None]:
    name, at, marketplace = key.rpartition("@")
    if not at or not name:
        return key, None
    return name, marketplace or None


def _home_path(value: str, home: Path) -> Path:
    if value == "~" or value.startswith("~/"):
        return home / value[2:]
    return Path(value)


def read_registry(path: Path, home: Path, report: Report = _quiet) -> Iterator[InstalledPlugin]:
    """Every well-formed install listed in registry ``path``, in file order.

    A missing file yields nothing; unreadable or invalid JSON, a wrong top-level
    shape and each bad entry are problems naming the path.
    """
    found, data = read_json(path, "plugin-registry", report)
    if not found or data is None:
        return
    if not isinstance(data, dict):
        report(
            "error",
            "bad-plugin-registry",
            f"plugin registry must be a JSON object, got {type(data).__name__}",
            path,
            None,
        )
        return
    version = data.get("version")
    if version is not None and version not in (1, 2):
        report(
            "warning",
            "bad-plugin-registry",
            f"unknown plugin registry version {version!r}; reading it as version 2",
            path,
            None,
        )
    plugins = data.get("plugins")
    if not isinstance(plugins, dict):
        report(
            "error",
            "bad-plugin-registry",
            "plugin registry has no 'plugins' object"
            if plugins is None
            else f"'plugins' must be an object, got {type(plugins).__name__}",
            path,
            None,
        )
        return
    for key, installs in plugins.items():
        entries = [installs] if isinstance(installs, dict) else installs
        if not isinstance(entries, list):
            report(
                "error",
                "bad-plugin-entry",
                f"plugin {key!r}: expected a list of installs, got {type(installs).__name__}",
                path,
                None,
            )
            continue
        name, marketplace = _split_key(key)
        for index, entry in enumerate(entries):
            plugin = _install(key, name, marketplace, index, entry, path, home, report)
            if plugin is not None:
                yield plugin


def _install(
    key: str,
    name: str,
    marketplace: str | None,
    index: int,
    entry: Any,
    path: Path,
    home: Path,
    report: Report,
) -> InstalledPlugin | None:
    where = f"plugin {key!r} install #{index}"
    if not isinstance(entry, dict):
        report(
            "error",
            "bad-plugin-entry",
            f"{where}: expected an object, got {type(entry).__name__}",
            path,
            None,
        )
        return None
    install = entry.get("installPath")
    if not isinstance(install, str) or not install.strip():
        report(
            "error",
            "bad-plugin-entry",
            f"{where}: 'installPath' is missing"
            if install is None
            else f"{where}: 'installPath' must be a non-empty string",
            path,
            None,
        )
        return None
    root = _home_path(install, home)
    if not root.is_absolute():
        report(
            "error",
            "bad-plugin-entry",
            f"{where}: 'installPath' must be absolute, got {install!r}",
            path,
            None,
        )
        return None
    version_value = entry.get("version")
    scope = entry.get("scope")
    project: Path | None = None
    if scope in PROJECT_SCOPES:
        raw_project = entry.get("projectPath")
        if isinstance(raw_project, str) and raw_project.strip():
            project = _home_path(raw_project, home)
        if project is None or not project.is_absolute():
            report(
                "warning",
                "bad-plugin-entry",
                f"{where}: scope {scope!r} needs an absolute 'projectPath', got "
                f"{raw_project!r}; skipped",
                path,
                None,
            )
            return None
    return InstalledPlugin(
        key=key,
        name=name,
        marketplace=marketplace,
        version=None if version_value is None else str(version_value),
        scope=scope if isinstance(scope, str) else None,
        root=root,
        registry=path,
        project=project,
    )


def marketplace_dirs(config: Path, report: Report = _quiet) -> dict[str, Path]:
    """Marketplace name -> folder, for every ``directory`` marketplace in
    ``<config>/plugins/known_marketplaces.json``."""
    path = config / "plugins" / MARKETPLACES
    _found, data = read_json(path, "known-marketplaces", report, "warning")
    out: dict[str, Path] = {}
    if not isinstance(data, dict):
        return out
    for name, entry in data.items():
        source = entry.get("source") if isinstance(entry, dict) else None
        if isinstance(source, dict) and source.get("source") == "directory":
            folder = source.get("path")
            if isinstance(folder, str) and Path(folder).is_absolute():
                out[name] = Path(folder)
    return out


def plugin_source(
    plugin: InstalledPlugin, markets: Mapping[str, Path], report: Report = _quiet
) -> Path | None:
    """The folder Claude Code reads ``plugin`` from when its marketplace is a local
    directory (its ``source`` in that folder's ``marketplace.json``, which must stay
    inside the folder), else ``None`` (the install path is read)."""
    base = markets.get(plugin.marketplace or "")
    if base is None:
        return None
    manifest = base / MARKET_MANIFEST
    _found, data = read_json(manifest, "marketplace-manifest", report, "warning")
    entries = data.get("plugins") if isinstance(data, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        if not (isinstance(entry, dict) and entry.get("name") == plugin.name):
            continue
        src = entry.get("source")
        if not isinstance(src, str):
            return None  # a git or url source: Claude Code reads its cache copy
        try:
            clean = check_relative(src)
        except ContainmentError as exc:
            report(
                "warning",
                "bad-marketplace-manifest",
                f"plugin {plugin.key!r}: source refused ({exc}); its install path is read",
                manifest,
                None,
            )
            return None
        return base.joinpath(*clean.parts)
    return None


def loaded_plugins(
    home: Path,
    env: Mapping[str, str],
    cwd: Path,
    report: Report = _quiet,
    switches: Mapping[str, PluginSwitch] | None = None,
) -> list[InstalledPlugin]:
    """The plugins Claude Code loads in ``cwd``, in its order: every key ``true`` in
    ``enabledPlugins`` (``switches``, default :func:`enabled_plugins`) that the registry
    lists with an install applying to ``cwd``, with :attr:`InstalledPlugin.source` set
    for a directory marketplace."""
    config = config_dir(home, env, cwd)
    if switches is None:
        switches = enabled_plugins(home, env, cwd, report)
    installed: dict[str, InstalledPlugin] = {}
    for plugin in read_registry(config / "plugins" / REGISTRY, home, report):
        if plugin.key not in installed and plugin.applies_to(cwd):
            installed[plugin.key] = plugin
    markets = marketplace_dirs(config, report) if installed else {}
    return [
        attrs.evolve(p, source=plugin_source(p, markets, report))
        for p in in_load_order(installed, switches)
    ]


def skipped_plugins(
    home: Path,
    env: Mapping[str, str],
    cwd: Path,
    switches: Mapping[str, PluginSwitch] | None = None,
) -> list[tuple[InstalledPlugin, str]]:
    """``(plugin, why)`` for every install of the registry that applies to ``cwd`` but
    that Claude Code does not load, in registry order, ``why`` in a few words; the
    plugin's :attr:`~InstalledPlugin.source` is set as in :func:`loaded_plugins`."""
    config = config_dir(home, env, cwd)
    if switches is None:
        switches = enabled_plugins(home, env, cwd)
    out: list[tuple[InstalledPlugin, str]] = []
    seen: set[str] = set()
    markets: dict[str, Path] | None = None
    for plugin in read_registry(config / "plugins" / REGISTRY, home):
        if plugin.key in seen or not plugin.applies_to(cwd):
            continue
        seen.add(plugin.key)
        switch = switches.get(plugin.key)
        if switch is not None and switch.enabled:
            continue
        if markets is None:
            markets = marketplace_dirs(config)
        why = (
            f"its plugin {plugin.key!r} is set to false in enabledPlugins ({switch.settings})"
            if switch is not None
            else f"its plugin {plugin.key!r} is installed but no settings file enables it "
            "(enabledPlugins)"
        )
        out.append((attrs.evolve(plugin, source=plugin_source(plugin, markets)), why))
    return out


def in_load_order(
    installed: Mapping[str, InstalledPlugin], switches: Mapping[str, PluginSwitch]
) -> list[InstalledPlugin]:
    """The ``installed`` plugins (by key) that ``switches`` enable, in the order of the
    ``enabledPlugins`` keys: the order Claude Code loads and lists them in."""
    return [installed[k] for k, s in switches.items() if s.enabled and k in installed]


# --- what a plugin holds ------------------------------------------------------------


def _manifest_paths(folder: Path, key: str, report: Report) -> list[Path]:
    """The plugin's manifest paths under ``key`` (``skills`` or ``commands``)."""
    manifest = folder / MANIFEST
    # a broken manifest is reported once, by skill_roots
    found, data = read_json(manifest, "plugin-manifest", report if key == "skills" else _quiet)
    if not found or data is None:
        return []
    if not isinstance(data, dict):
        if key == "skills":  # report a broken manifest once
            report(
                "error",
                "bad-plugin-manifest",
                f"plugin manifest must be a JSON object, got {type(data).__name__}",
                manifest,
                None,
            )
        return []
    declared = data.get(key)
    if isinstance(declared, str):
        declared = [declared]
    if declared is None:
        return []
    if not (isinstance(declared, list) and all(isinstance(p, str) for p in declared)):
        report(
            "error",
            "bad-plugin-manifest",
            f"'{key}' must be a path or a list of paths relative to the plugin root",
            manifest,
            None,
        )
        return []
    out = []
    for rel in declared:
        try:
            clean = check_relative(rel)
        except ContainmentError as exc:
            report("error", "bad-plugin-manifest", f"{key} path refused: {exc}", manifest, None)
            continue
        out.append(folder.joinpath(*clean.parts))
    return out


def _unique(paths: Iterable[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        if p not in out:
            out.append(p)
    return out


def skill_roots(folder: Path, report: Report = _quiet) -> list[Path]:
    """The plugin's skills roots: ``folder/skills``, then the manifest's ``skills`` paths
    (Claude Code lists a plugin's skills root by root in this order, each by name).

    Manifest paths must stay inside the plugin folder (no absolute paths, no ``..``); a
    bad manifest or path is a problem and the default root is still used. The same
    directory listed twice is given once.
    """
    return _unique([folder / "skills", *_manifest_paths(folder, "skills", report)])


def skill_files(plugin: str, folder: Path, report: Report = _quiet) -> list[tuple[str, Path, Path]]:
    """``(name, SKILL.md, skills root)`` of every skill of the plugin, root by root
    (:func:`skill_roots`), each root by folder name, named ``plugin:folder``."""
    out = []
    for root in skill_roots(folder, report):
        try:
            children = sorted(os.listdir(root))
        except OSError:
            continue
        for child in children:
            path = root / child / "SKILL.md"
            if path.is_file():
                out.append((f"{plugin}:{child}", path, root))
    return out


def command_files(
    plugin: str, folder: Path, report: Report = _quiet
) -> list[tuple[str, Path, Path]]:
    """``(name, file, commands root)`` of every command of the plugin: ``*.md`` under
    the manifest's ``commands`` paths and ``folder/commands``, named
    ``plugin:ns:file`` (sub-folders are namespaces), sorted by name; dot entries are
    skipped and a name found twice is given once (the first root's)."""
    roots = _unique([*_manifest_paths(folder, "commands", report), folder / "commands"])
    seen: set[str] = set()
    out = []
    for root in roots:
        if root.is_file() and root.suffix == ".md":
            found = [(f"{plugin}:{root.stem}", root, root.parent)]
        elif root.is_dir():
            found = []
            for file in root.rglob("*.md"):
                rel = file.relative_to(root)
                if any(p.startswith(".") for p in rel.parts) or not file.is_file():
                    continue
                found.append((f"{plugin}:" + ":".join(rel.with_suffix("").parts), file, root))
        else:
            continue
        for name, file, base in found:
            if name not in seen:
                seen.add(name)
                out.append((name, file, base))
    return sorted(out)
