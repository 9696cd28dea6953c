"""Provider ``claude-plugins``: the skills and commands of installed Claude Code plugins,
as Claude Code loads them.

Which plugins load, from which folder, in which order and under which names comes from
:mod:`skillpath.claude_plugins`, the reader the ``claude-code`` agent view uses too, so
``skillpath list`` and ``skillpath list --agent claude-code`` cannot disagree:

- Claude Code's registry ``<CLAUDE_CONFIG_DIR or ~/.claude>/plugins/installed_plugins.json``:
  a plugin loads only when ``true`` in the merged ``enabledPlugins`` of Claude Code's
  settings (user, project, local, managed: :func:`skillpath.claude_plugins.settings_files`),
  in the order of those keys. One that no file enables is skipped with an ``info``
  diagnostic ``plugin-not-enabled``; one set to ``false`` with ``plugin-disabled``, both
  naming the settings file that decided.
- skillpath's own registry ``<SKILLPATH_HOME or ~/.skillpath>/plugins/installed_plugins.json``
  (same format) comes next, in file order: its plugins need no ``enabledPlugins`` entry
  (Claude Code does not know them), but a ``false`` there still skips them.

Format (version 2)::

    {"version": 2, "plugins": {"<plugin>@<marketplace>": [
        {"scope": "user", "installPath": "/abs/path", "version": "1.0.0", ...}]}}

A version 1 entry (one object instead of a list) is read too. A plugin of a directory
marketplace (``known_marketplaces.json``) is read from that directory, not from the cache
copy at its install path. Its skills roots are ``skills``, then the manifest's ``skills``
paths; its commands ``commands/**/*.md`` (and the manifest's ``commands`` paths).
Names are Claude Code's: ``<plugin>:<skill>`` and ``<plugin>:<ns>:<command>`` (the
setting ``[skills] namespace_plugin_skills = false`` gives them their own names back); a
bare name still resolves while one plugin skill alone ends in it
(:meth:`skillpath.LoadResult.get`). The plugin name, marketplace, version, scope, project
path, plugin folder and registry file are recorded in ``SkillSource.detail``.

Which installs apply:

- ``"scope": "project"`` (or ``"local"``) installs belong to the project at
  their ``projectPath``: they load, at level ``project``, only when the working
  directory is that directory or below it; elsewhere they are skipped with an
  ``info`` diagnostic (``plugin-other-project``). Every other install loads at
  level ``user``.
- A project's settings may disable a plugin, or enable one the user never mentioned
  (as in Claude Code), but not enable one the user's file disabled unless the user
  trusts the project (``settings-untrusted`` warning otherwise): a deliberate
  difference from Claude Code, which lets a project's file switch it back on.

A broken registry, manifest or settings file, an entry of the wrong shape or a
missing install path is a diagnostic naming the file; the rest still loads.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import attrs
from skillpath import Discovery, DiscoveryResult, SkillContext, SkillSource, hookimpl
from skillpath import claude_plugins as cp
from skillpath.claude_plugins import (
    MANIFEST,
    PROJECT_SCOPES,
    REGISTRY,
    InstalledPlugin,
    PluginSwitch,
    SettingsFile,
)
from skillpath.context import unsafe_dir_reason
from skillpath.safety import outside_area, project_area
from skillpath.scan import check_name, load_skill_file

__all__ = [
    "COMMAND_IGNORED_KEYS",
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
#: Frontmatter keys a plugin command file cannot set (its name is its path).
COMMAND_IGNORED_KEYS = ("name", "paths")


def _claude_dir(ctx: SkillContext) -> Path:
    return ctx.env_dir("CLAUDE_CONFIG_DIR") or ctx.home / ".claude"


def _report(d: Discovery) -> cp.Report:
    def report(level: str, code: str, message: str, path: Path | None, line: int | None) -> None:
        d.diagnostic(level, code, message, path, line)

    return report


def registry_files(ctx: SkillContext) -> list[Path]:
    """The registry files read, in order (Claude Code's, then skillpath's)."""
    return [_claude_dir(ctx) / "plugins" / REGISTRY, ctx.skillpath_home / "plugins" / REGISTRY]


def settings_files(ctx: SkillContext) -> list[Path]:
    """Claude Code settings files that may set ``enabledPlugins``, lowest precedence first
    (:func:`skillpath.claude_plugins.settings_files`)."""
    return [f.path for f in _settings(ctx)]


def _settings(ctx: SkillContext) -> list[SettingsFile]:
    env = {**ctx.env, "CLAUDE_CONFIG_DIR": str(_claude_dir(ctx))}
    return cp.settings_files(ctx.home, env, ctx.cwd)


def _readable(ctx: SkillContext, file: SettingsFile, d: Discovery) -> bool:
    """Whether a project's settings file may be read (user and managed ones always)."""
    if file.scope not in ("project", "local"):
        return True
    project = file.path.parent.parent
    if (why := unsafe_dir_reason(project, (".claude",))) is not None:
        if os.path.lexists(file.path):
            d.diagnostic(
                "warning",
                "unsafe-project-dir",
                f"project settings not read: {project} is {why}",
                file.path,
            )
        return False
    area = project_area(file.path.parent, ctx.home)
    outside = outside_area(file.path, area)
    if outside is not None:
        d.diagnostic(
            "warning",
            "settings-outside-project",
            f"project settings not read: they resolve to {outside}, outside the project {area}",
            file.path,
        )
        return False
    return True


def plugin_switches(ctx: SkillContext, d: Discovery) -> dict[str, PluginSwitch]:
    """``enabledPlugins`` merged over :func:`settings_files` (a later file wins a key;
    a key keeps its first place, the order plugins load in).

    A project's files may disable a plugin, or enable one the user's file does not
    mention, but not enable one the user's file disabled, unless the user trusts the
    project (``[trust] projects``): such an entry is ignored with a
    ``settings-untrusted`` warning. A project's files are not read at all when its
    directory is unsafe (:func:`skillpath.context.unsafe_dir_reason`) or the file
    resolves outside it. A missing file is silent. Unreadable or invalid JSON, a
    value of the wrong shape and a non-boolean entry are warnings naming the file;
    what is valid in the same file still counts.
    """
    report = _report(d)
    layers: list[tuple[SettingsFile, dict[str, bool]]] = []
    for file in _settings(ctx):
        if not _readable(ctx, file, d):
            continue
        _found, data = cp.read_json(file.path, "claude-settings", report, "warning")
        layers.append((file, cp.file_switches(file.path, data, report)))
    switches = cp.merge_switches(layers)
    if ctx.settings.trusted_by is None:
        # a project may turn plugins off, never back on against the user's say
        user_off = {
            key: PluginSwitch(False, file.path, file.scope)
            for file, values in layers
            if file.scope == "user"
            for key, value in values.items()
            if not value
        }
        for key, off in user_off.items():
            switch = switches.get(key)
            if switch is not None and switch.enabled and switch.scope in ("project", "local"):
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


def read_registry(path: Path, ctx: SkillContext, d: Discovery) -> Iterator[InstalledPlugin]:
    """Every well-formed install listed in registry ``path``, in file order
    (:func:`skillpath.claude_plugins.read_registry`, its problems as diagnostics)."""
    return cp.read_registry(path, ctx.home, _report(d))


def skill_roots(plugin: InstalledPlugin, d: Discovery) -> list[Path]:
    """The plugin's skills roots (:func:`skillpath.claude_plugins.skill_roots`)."""
    return cp.skill_roots(plugin.folder, _report(d))


def _plugins(ctx: SkillContext, d: Discovery) -> list[InstalledPlugin]:
    """The plugins to load, in order: Claude Code's enabled ones in ``enabledPlugins``
    order, then skillpath's registry in file order; every skip is an ``info``."""
    claude_registry, own_registry = registry_files(ctx)
    # what decides the plugins besides their folders: a long-running host stats these
    for path in (claude_registry, own_registry, *settings_files(ctx)):
        d.input(path)
    d.input(_claude_dir(ctx) / "plugins" / cp.MARKETPLACES)
    claude: dict[str, InstalledPlugin] = {}
    own: list[InstalledPlugin] = []
    for registry in (claude_registry, own_registry):
        for plugin in read_registry(registry, ctx, d):
            if not plugin.applies_to(ctx.cwd):
                d.diagnostic(
                    "info",
                    "plugin-other-project",
                    f"plugin {plugin.key!r} is installed for project {plugin.project} "
                    f"(scope {plugin.scope!r}); not loaded outside it",
                    registry,
                )
            elif registry == own_registry:
                own.append(plugin)
            else:
                claude.setdefault(plugin.key, plugin)
    if not claude and not own:
        return []
    switches = plugin_switches(ctx, d)
    markets = cp.marketplace_dirs(_claude_dir(ctx), _report(d)) if claude else {}
    claude = {
        k: attrs.evolve(p, source=cp.plugin_source(p, markets, _report(d)))
        for k, p in claude.items()
    }
    namespaced = bool(ctx.settings.get("skills", "namespace_plugin_skills"))
    files = ", ".join(str(p) for p in settings_files(ctx))
    for key, plugin in claude.items():
        switch = switches.get(key)
        if switch is None:
            d.diagnostic(
                "info",
                "plugin-not-enabled",
                f"plugin {key!r}{_held(plugin, namespaced)} is installed but no settings "
                f"file enables it (enabledPlugins in {files}); Claude Code does not load it",
                plugin.registry,
            )
        elif not switch.enabled:
            _disabled(d, plugin, switch, namespaced)
    chosen = cp.in_load_order(claude, switches)
    for plugin in own:
        switch = switches.get(plugin.key)
        if switch is not None and not switch.enabled:
            _disabled(d, plugin, switch, namespaced)
        else:
            chosen.append(plugin)
    return chosen


#: At most this many entry names are quoted in a skipped plugin's message.
MAX_NAMES_SHOWN = 10


def _held(plugin: InstalledPlugin, namespaced: bool) -> str:
    """`` (holds a, b …)``: the entries a skipped plugin holds, by the names they would
    have, so ``skillpath explain <name>`` finds why one is missing; ``""`` for none."""
    names = [n for n, _f, _r in cp.command_files(plugin.name, plugin.folder)]
    names += [n for n, _f, _r in cp.skill_files(plugin.name, plugin.folder)]
    if not namespaced:
        names = [n.partition(":")[2] for n in names]
    if not names:
        return ""
    more = len(names) - MAX_NAMES_SHOWN
    return f" (holds {', '.join(names[:MAX_NAMES_SHOWN])}" + (
        f" and {more} more)" if more > 0 else ")"
    )


def _disabled(
    d: Discovery, plugin: InstalledPlugin, switch: PluginSwitch, namespaced: bool
) -> None:
    d.diagnostic(
        "info",
        "plugin-disabled",
        f"plugin {plugin.key!r}{_held(plugin, namespaced)} is disabled in {switch.settings} "
        "(enabledPlugins); its skills are not loaded",
        switch.settings,
    )


@hookimpl
def discover_skills(ctx: SkillContext) -> DiscoveryResult:
    """Skills, then commands, of every plugin that loads, plugin by plugin."""
    d = Discovery(PROVIDER_ID, PRIORITY)
    namespaced = bool(ctx.settings.get("skills", "namespace_plugin_skills"))
    for plugin in _plugins(ctx, d):
        folder = plugin.folder
        if not folder.is_dir():
            d.diagnostic(
                "warning",
                "plugin-missing",
                f"plugin {plugin.key!r} from {plugin.registry}: "
                + ("source folder" if plugin.source is not None else "install path")
                + (" is not a directory" if folder.exists() else " does not exist"),
                folder,
            )
            continue
        d.input(folder / cp.MANIFEST)  # its skills paths
        for root in skill_roots(plugin, d):
            found = d.scan(root, plugin.level, **plugin.detail())
            if namespaced and found.skills:
                _namespace(d, plugin, len(found.skills))
        _commands(d, plugin, namespaced)
    return d.result()


def _commands(d: Discovery, plugin: InstalledPlugin, namespaced: bool) -> None:
    """Add the plugin's command files (one file each, ``base_dir`` ``None``)."""
    for name, file, root in cp.command_files(plugin.name, plugin.folder, _report(d)):
        own = name.partition(":")[2]
        if namespaced and check_name(name) is not None:
            d.diagnostic(
                "warning",
                "invalid-name",
                f"cannot name the command {name!r} ({check_name(name)}); it keeps its own name",
                file,
            )
            namespaced_name = own
        else:
            namespaced_name = name if namespaced else own
        source = SkillSource(PROVIDER_ID, plugin.level, root, "commands", plugin.detail())
        skill, diags = load_skill_file(
            file,
            source,
            priority=PRIORITY,
            default_name=namespaced_name,
            ignore_keys=COMMAND_IGNORED_KEYS,
        )
        d.diagnostics.extend(diags)
        if skill is not None:
            d.add([attrs.evolve(skill, base_dir=None)])


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
