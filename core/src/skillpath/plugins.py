"""Building the plugin manager, and the typed facade every hook call goes through.

Plugins are found through the ``skillpath`` entry-point group and loaded one at
a time: an import error, a registration error or a misspelled hook name in one
plugin becomes a :class:`PluginRecord` with status ``failed`` (and a
diagnostic), never a crash, unless strict mode is on.

Environment switches:

``SKILLPATH_DISABLE_PLUGINS``
    Comma-separated entry-point names never loaded (status ``blocked``).
``SKILLPATH_PLUGINS``
    Comma-separated allow-list; when set, only these entry points load.
``SKILLPATH_NO_AUTOLOAD``
    ``1`` turns entry-point loading off; only plugins registered in code run.
``SKILLPATH_STRICT``
    ``1`` re-raises plugin failures (for plugin authors and CI).
``SKILLPATH_NO_ENTRY_POINT_CACHE``
    ``1`` enumerates entry points with ``importlib_metadata`` on every start
    instead of reading the cache kept next to the discovery index (see
    :func:`entry_points`).
``SKILLPATH_SLOW_HOOK_SECONDS``
    A plugin import or hook call slower than this many seconds (default
    :data:`SLOW_HOOK_SECONDS`) is reported as a ``plugin-slow`` warning by
    ``skillpath doctor`` (:meth:`PluginHost.slow_findings`); it never changes
    what ``list``, ``show`` or ``prompt`` print.

A plugin that calls ``sys.exit()`` (at import or in a hook) is isolated like
one that raises; ``KeyboardInterrupt`` still stops the program.

Failures are isolated where that cannot weaken a policy and fail closed where
it could:

* ``discover_skills`` and ``resolve_url``: a failing implementation is reported
  (``plugin-hook-failed``, ``plugin-bad-return``) and the others still run;
* ``filter_skill``: a filter that raises or returns the wrong type drops the
  skill (``Skipped`` reason ``filter-error``, the detail naming the plugin), and
  the failure is reported once per plugin per load, not once per skill;
* ``transform_prompt``: a step that raises anything but ``PromptError``, or
  returns something that is not text, aborts the invocation with a
  ``PromptError`` naming the plugin (a redaction step that crashes must not let
  its input through).
"""

from __future__ import annotations

import os
import re
import time
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import attrs
import pluggy

from skillpath import filters as _filters
from skillpath import hookspecs
from skillpath.errors import PluginError, PromptError, ResolveError
from skillpath.hookspecs import step
from skillpath.model import Diagnostic, DiscoveryResult, Skill, Veto

if TYPE_CHECKING:
    from skillpath.contentscan import ContentFinding
    from skillpath.context import SkillContext
    from skillpath.prompt import Invocation
    from skillpath.resources import Resource
    from skillpath.search import SearchHit
    from skillpath.settings import SettingSpec

__all__ = [
    "DEPENDENCIES",
    "ENTRY_POINT_GROUP",
    "REPLAYED_HOOKS",
    "PluginHost",
    "PluginRecord",
    "Undeclared",
    "argument_only",
    "declared_dependencies",
    "depends_on",
    "entry_points",
    "get_plugin_host",
    "reset_plugin_host",
    "step",
]

#: The entry-point group plugins register in (the same string as the project name).
ENTRY_POINT_GROUP = "skillpath"
#: Hook calls slower than this many seconds are reported as a warning.
SLOW_HOOK_SECONDS = 2.0
_TRUE = {"1", "true", "yes", "on"}
#: What a plugin may raise without taking the host down (``SystemExit`` included).
_ISOLATED = (Exception, SystemExit)
#: A folder name a plugin may declare in the cache directory (``cache_folders``).
_PLAIN_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")


def _slow_seconds(env: Mapping[str, str]) -> float:
    raw = env.get("SKILLPATH_SLOW_HOOK_SECONDS", "").strip()
    try:
        value = float(raw) if raw else SLOW_HOOK_SECONDS
    except ValueError:
        return SLOW_HOOK_SECONDS
    return value if value >= 0 else SLOW_HOOK_SECONDS


def entry_points(group: str, env: Mapping[str, str] | None = None) -> list[Any]:
    """The installed entry points of a ``skillpath*`` group (``skillpath``,
    ``skillpath.packs`` …), in discovery order.

    Served from a cache kept across processes and refreshed whenever a
    distribution is installed, upgraded or removed, so callers do not import
    ``importlib_metadata`` on every start. Each item has ``name``, ``value``,
    ``group``, ``module``, ``attr``, ``load()`` and ``dist`` (``name``,
    ``version``, ``metadata["Name"]``).
    """
    from skillpath.cache.entrypoints import entry_points as cached

    return cached(group, env)


#: What a hook implementation may declare its output depends on
#: (:func:`depends_on`). Only ``"arguments"`` and ``"files"`` can be replayed.
DEPENDENCIES = ("arguments", "files", "clock", "network", "process", "random", "state")
#: The declarations a replayed ``list`` run allows (``"arguments"`` is narrower
#: than ``"files"``: nothing but the hook's arguments).
_REPLAYABLE = frozenset({"arguments", "files"})
#: The hooks whose implementations must declare what they depend on for a
#: ``skillpath list`` run to be replayed (see :func:`depends_on`).
REPLAYED_HOOKS = ("discover_skills", "filter_skill", "transform_prompt")
#: The hooks a ``list`` run calls: a declaration other than ``"files"`` on one
#: of them keeps the run from being recorded.
_LIST_HOOKS = frozenset({"discover_skills", "filter_skill"})
_DEPENDS_ATTR = "skillpath_depends_on"

#: One step of the ``filter_skill`` chain: ``(implementation, function, argument
#: names or None for the usual (skill, ctx), is-a-wrapper)``.
FilterEntry = tuple[pluggy.HookImpl, Any, tuple[str, ...] | None, bool]

_T = TypeVar("_T")


def depends_on(*what: str) -> Callable[[_T], _T]:
    """Declare what the output of a hook implementation (or of every hook of a
    plugin class) depends on, so an unchanged ``skillpath list`` may be replayed.

    ``"files"`` means: nothing but what a replay checks — the arguments, the
    current directory, the environment, the user, the files opened and the
    directories listed or ``stat``-ed by name through Python, and the plugin's
    own code. ``"arguments"`` is narrower: nothing but the hook's arguments (for
    ``filter_skill``, the skill and the context — its directories, environment,
    settings and session id), no file of its own; a long-lived process may then
    reuse a verdict for an unchanged skill and an equal context (see
    :func:`argument_only`). Anything else (``"clock"``, ``"network"``, ``"process"``,
    ``"random"``, ``"state"`` kept in memory across loads) means the output can
    change while every file stays the same: a ``list`` run that calls such a
    ``discover_skills`` or ``filter_skill`` is never recorded for replay.

    Use together with ``@hookimpl``, or on a plugin class::

        @hookimpl
        @depends_on("files")
        def discover_skills(ctx): ...

    A plugin module may instead set ``DEPENDS_ON = ("files",)``. A plugin that
    implements ``discover_skills``, ``filter_skill`` or ``transform_prompt``
    without declaring it turns the replay off for every ``list`` run while it
    is installed (``skillpath doctor`` names it).
    """
    bad = [w for w in what if w not in DEPENDENCIES]
    if not what or bad:
        raise ValueError(
            f"depends_on: {', '.join(map(repr, bad)) or 'nothing given'}; "
            f"expected one or more of {', '.join(DEPENDENCIES)}"
        )
    declared = tuple(dict.fromkeys(what))

    def mark(obj: _T) -> _T:
        setattr(obj, _DEPENDS_ATTR, declared)
        return obj

    return mark


def _valid(value: object) -> tuple[str, ...] | None:
    if isinstance(value, str):
        value = (value,)
    if isinstance(value, (tuple, list, frozenset, set)) and value:
        items = tuple(sorted(value)) if isinstance(value, (set, frozenset)) else tuple(value)
        if all(isinstance(v, str) and v in DEPENDENCIES for v in items):
            return items
    return None


def declared_dependencies(impl: pluggy.HookImpl) -> tuple[str, ...] | None:
    """What one hook implementation declared it depends on (:func:`depends_on` on
    the function, else on the plugin or its class, else the plugin's
    ``DEPENDS_ON``), or ``None`` when it declared nothing valid."""
    found = getattr(impl.function, _DEPENDS_ATTR, None)
    if found is None:
        found = getattr(impl.plugin, _DEPENDS_ATTR, None)
    if found is None:
        found = getattr(impl.plugin, "DEPENDS_ON", None)
    return None if found is None else _valid(found)


def argument_only(impl: pluggy.HookImpl) -> bool:
    """Whether hook implementation ``impl`` declared that its output depends on its
    arguments alone (``depends_on("arguments")``) and is a plain implementation
    (no wrapper): the same arguments give the same result."""
    if impl.hookwrapper or getattr(impl, "wrapper", False):
        return False
    return declared_dependencies(impl) == ("arguments",)


@attrs.frozen
class Undeclared:
    """Why the plugins' hooks keep a ``skillpath list`` run from being replayed:
    ``plugin`` did not declare what ``hooks`` depend on (``depends`` is empty),
    or declared something other than ``"files"`` or ``"arguments"`` for them
    (``depends``)."""

    plugin: str
    hooks: tuple[str, ...]
    depends: tuple[str, ...] = ()

    def message(self) -> str:
        """One line naming the plugin, its hooks and what to do."""
        hooks = ", ".join(self.hooks)
        if self.depends:
            return (
                f"plugin {self.plugin!r}: {hooks} depends on {', '.join(self.depends)}; "
                "`skillpath list` is not replayed"
            )
        return (
            f"plugin {self.plugin!r} has not declared what its {hooks} depends on "
            "(skillpath.depends_on); `skillpath list` is not replayed while it is installed"
        )


@attrs.frozen
class PluginRecord:
    """One plugin as ``skillpath providers`` shows it.

    ``status`` is ``loaded``, ``blocked`` (by an environment switch or setting),
    ``failed`` (``error`` says why) or ``builtin`` (registered by the core).
    """

    name: str
    status: str
    distribution: str | None = None
    version: str | None = None
    value: str | None = None
    hooks: tuple[str, ...] = ()
    priority: int | None = None
    provider: str | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        """JSON form for ``skillpath providers --json``."""
        return attrs.asdict(self)


class _Manager(pluggy.PluginManager):
    """pluggy's manager, finding a module plugin's hooks without ``getattr_static``.

    ``register`` looks at every name ``dir(plugin)`` gives, and pluggy's own look
    (:func:`inspect.getattr_static`, so that no property runs) costs about as much
    as the rest of registering: a provider module has a hundred names or more. In a
    plain module's own ``__dict__`` a value is what ``getattr_static`` would return,
    so a plain function there is read directly; anything else (a ``staticmethod``,
    ``classmethod`` or bound method, a name not in ``__dict__``, a name the module
    type itself defines, a class or instance plugin) goes to pluggy's look. The same
    hooks are found either way."""

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
        if type(plugin) is types.ModuleType and name not in _MODULE_TYPE_NAMES:
            value = plugin.__dict__.get(name, _ABSENT)
            if type(value) is types.FunctionType:
                opts = getattr(value, self._impl_attr, None)
                return opts if isinstance(opts, dict) else None
            if value is not _ABSENT and not isinstance(
                value, (staticmethod, classmethod, types.MethodType)
            ):
                return None  # not a function: never a hook (as pluggy decides)
        return super().parse_hookimpl_opts(plugin, name)

    @property
    def _impl_attr(self) -> str:
        return self.project_name + "_impl"


_ABSENT = object()
#: What the module type defines (``__dict__``, ``__class__``, ``__annotations__`` …):
#: such a name may not be read from a module's ``__dict__`` as ``getattr_static`` reads it.
_MODULE_TYPE_NAMES = frozenset(dir(types.ModuleType))


def _env_list(env: Mapping[str, str], key: str) -> list[str]:
    return [p.strip() for p in env.get(key, "").split(",") if p.strip()]


def _hook_names(plugin: object) -> tuple[str, ...]:
    names = []
    for attr in dir(plugin):
        if attr.startswith("_"):
            continue
        try:
            obj = getattr(plugin, attr)
        except Exception:  # noqa: BLE001, S112 - a broken attribute is not a hook
            continue
        if hasattr(obj, f"{hookspecs.PROJECT_NAME}_impl"):
            names.append(attr)
    return tuple(sorted(names))


#: The exact type of a skill (the fast path of the check in :meth:`PluginHost.discover`).
_SKILL_TYPE = frozenset({Skill})


@attrs.define(eq=False)
class PluginHost:
    """The plugin manager plus what is known about each plugin, and a typed
    facade over the hooks that isolates failures.

    Build one with :func:`get_plugin_host` (cached per process) or
    ``PluginHost.create(...)`` for a private one.
    """

    pm: pluggy.PluginManager
    records: list[PluginRecord] = attrs.field(factory=list)
    diagnostics: list[Diagnostic] = attrs.field(factory=list)
    strict: bool = False
    slow_seconds: float = SLOW_HOOK_SECONDS
    _sorted_filters: tuple[list[Any], list[Any]] | None = attrs.field(
        default=None, init=False, repr=False
    )
    #: The slowest time over :attr:`slow_seconds` of each ``(plugin, import or hook)``.
    timings: dict[tuple[str, str], float] = attrs.field(factory=dict, init=False, repr=False)
    _commands: tuple[dict[str, Any], list[Diagnostic]] | None = attrs.field(
        default=None, init=False, repr=False
    )

    # -- construction -------------------------------------------------------
    @classmethod
    def create(
        cls,
        *,
        env: Mapping[str, str] | None = None,
        strict: bool | None = None,
        autoload: bool | None = None,
        builtins: bool = True,
        blocked: Iterable[str] = (),
    ) -> PluginHost:
        """Make a manager, register the core's built-in plugins and load entry points."""
        env = os.environ if env is None else env
        if strict is None:
            strict = env.get("SKILLPATH_STRICT", "").lower() in _TRUE
        if autoload is None:
            autoload = env.get("SKILLPATH_NO_AUTOLOAD", "").lower() not in _TRUE
        pm = _Manager(hookspecs.PROJECT_NAME)
        pm.add_hookspecs(hookspecs)
        host = cls(pm=pm, strict=strict, slow_seconds=_slow_seconds(env))
        block = set(_env_list(env, "SKILLPATH_DISABLE_PLUGINS")) | set(blocked)
        if builtins:
            from skillpath import builtins as core_builtins

            for name, plugin in core_builtins.plugins():
                if name in block:
                    pm.set_blocked(name)
                    host.records.append(PluginRecord(name, "blocked", "skillpath-core"))
                    continue
                pm.register(plugin, name=name)
                host.records.append(
                    PluginRecord(name, "builtin", "skillpath-core", hooks=_hook_names(plugin))
                )
        if autoload:
            host.load_entry_points(
                allow=_env_list(env, "SKILLPATH_PLUGINS") or None, block=block, env=env
            )
        return host

    def load_entry_points(
        self,
        *,
        allow: Sequence[str] | None = None,
        block: Iterable[str] = (),
        env: Mapping[str, str] | None = None,
    ) -> None:
        """Load every ``skillpath`` entry point, one at a time, isolating failures.

        The list of entry points comes from a cache kept across processes and
        refreshed whenever a distribution is installed, upgraded or removed
        (:mod:`skillpath.cache.entrypoints`), so start-up does not pay for
        ``importlib_metadata``.
        """
        blocked = set(block)
        seen: set[str] = set()
        eps = sorted(entry_points(ENTRY_POINT_GROUP, env), key=lambda e: (e.name, e.value))
        for ep in eps:
            if ep.name in seen:  # the same distribution seen twice on sys.path
                continue
            seen.add(ep.name)
            dist = ep.dist
            dist_name = dist.name if dist is not None else None
            version = dist.version if dist is not None else None
            if ep.name in blocked or (allow is not None and ep.name not in allow):
                self.pm.set_blocked(ep.name)
                self.records.append(PluginRecord(ep.name, "blocked", dist_name, version, ep.value))
                continue
            start = time.perf_counter()
            try:
                plugin = ep.load()
            except _ISOLATED as exc:  # any import failure is isolated
                self._fail(ep.name, dist_name, version, ep.value, f"import failed: {exc!r}", exc)
                continue
            elapsed = time.perf_counter() - start
            if elapsed > self.slow_seconds:
                self._slow(f"{ep.name!r} ({dist_name or '?'})", "import", elapsed)
            self.add(plugin, ep.name, distribution=dist_name, version=version, value=ep.value)

    def add(
        self,
        plugin: object,
        name: str,
        *,
        distribution: str | None = None,
        version: str | None = None,
        value: str | None = None,
    ) -> bool:
        """Register one plugin object; a bad one is recorded as ``failed``."""
        try:
            self.pm.register(plugin, name=name)
        except Exception as exc:  # noqa: BLE001
            self._fail(name, distribution, version, value, f"registration failed: {exc}", exc)
            return False
        try:
            self.pm.check_pending()
        except pluggy.PluginValidationError as exc:
            self.pm.unregister(name=name)
            self._fail(name, distribution, version, value, f"unknown hook: {exc}", exc)
            return False
        self.records.append(
            PluginRecord(
                name,
                "loaded",
                distribution,
                version,
                value,
                _hook_names(plugin),
                getattr(plugin, "PRIORITY", None),
                getattr(plugin, "PROVIDER_ID", None),
            )
        )
        return True

    def _fail(
        self,
        name: str,
        dist: str | None,
        version: str | None,
        value: str | None,
        message: str,
        exc: BaseException,
    ) -> None:
        if self.strict:
            raise PluginError(name, message) from exc
        self.records.append(PluginRecord(name, "failed", dist, version, value, error=message))
        self.diagnostics.append(
            Diagnostic("error", "plugin-failed", f"plugin {name!r} ({dist or '?'}): {message}")
        )

    def _slow(self, plugin: str, what: str, elapsed: float) -> None:
        key = (plugin, what)
        if elapsed > self.timings.get(key, 0.0):
            self.timings[key] = elapsed

    def slow_findings(self) -> list[Diagnostic]:
        """A ``plugin-slow`` warning for each plugin import or hook that took more
        than :attr:`slow_seconds` in this process (its slowest time).

        Kept apart from the diagnostics of a load: they depend on the machine's
        load, so ``list``, ``show`` and ``prompt`` never print them and their
        output stays the same bytes; ``skillpath doctor`` reports them.
        """
        return [
            Diagnostic(
                "warning",
                "plugin-slow",
                f"plugin {plugin}: {what} took {elapsed:.3g}s"
                f" (over {self.slow_seconds:g}s, SKILLPATH_SLOW_HOOK_SECONDS)",
            )
            for (plugin, what), elapsed in sorted(self.timings.items())
        ]

    def replay_blockers(self) -> list[Undeclared]:
        """The plugins whose hooks keep a ``list`` run from being recorded for
        replay, one entry per plugin in name order (see :func:`depends_on`)."""
        undeclared: dict[str, list[str]] = {}
        other: dict[str, tuple[list[str], set[str]]] = {}
        for hook in REPLAYED_HOOKS:
            for impl in self._impls(hook):
                deps = declared_dependencies(impl)
                if deps is None:
                    undeclared.setdefault(impl.plugin_name, []).append(hook)
                elif hook in _LIST_HOOKS and set(deps) - _REPLAYABLE:
                    hooks, what = other.setdefault(impl.plugin_name, ([], set()))
                    hooks.append(hook)
                    what.update(d for d in deps if d not in _REPLAYABLE)
        out = [Undeclared(name, tuple(hooks)) for name, hooks in undeclared.items()]
        out += [
            Undeclared(name, tuple(hooks), tuple(sorted(what)))
            for name, (hooks, what) in other.items()
            if name not in undeclared
        ]
        return sorted(out, key=lambda u: u.plugin)

    # -- the facade ---------------------------------------------------------
    def _impls(self, hook: str) -> list[pluggy.HookImpl]:
        caller = getattr(self.pm.hook, hook)
        return list(reversed(caller.get_hookimpls()))  # pluggy's call order

    def _call(
        self,
        impl: pluggy.HookImpl,
        hook: str,
        kwargs: Mapping[str, Any],
        diags: list[Diagnostic],
        passthrough: tuple[type[BaseException], ...] = (),
        *,
        report: bool = True,
    ) -> tuple[bool, Any]:
        """Call one implementation: ``(True, result)``, or ``(False, None)`` when it
        failed (reported) or is a wrapper; with ``report=False`` a failure is
        ``(False, exception)`` and the caller reports it."""
        if impl.hookwrapper or getattr(impl, "wrapper", False):
            diags.append(
                Diagnostic(
                    "warning",
                    "plugin-wrapper-ignored",
                    f"plugin {impl.plugin_name!r}: wrappers are not supported for {hook}",
                )
            )
            return False, None
        args = [kwargs[a] for a in impl.argnames]
        start = time.perf_counter()
        try:
            result = impl.function(*args)
        except passthrough:
            raise
        except _ISOLATED as exc:
            if self.strict:
                raise PluginError(impl.plugin_name, f"{hook} raised {exc!r}") from exc
            if not report:
                return False, exc
            diags.append(
                Diagnostic(
                    "error",
                    "plugin-hook-failed",
                    f"plugin {impl.plugin_name!r}: {hook} raised {exc!r}",
                )
            )
            return False, None
        elapsed = time.perf_counter() - start
        if elapsed > self.slow_seconds:
            self._slow(repr(impl.plugin_name), hook, elapsed)
        return True, result

    def _bad_return(
        self, impl: pluggy.HookImpl, hook: str, result: Any, diags: list[Diagnostic]
    ) -> None:
        msg = f"plugin {impl.plugin_name!r}: {hook} returned {type(result).__name__}, ignored"
        if self.strict:
            raise PluginError(impl.plugin_name, msg)
        diags.append(Diagnostic("error", "plugin-bad-return", msg))

    def settings_schema(self) -> tuple[dict[str, dict[str, SettingSpec]], list[Diagnostic]]:
        """Collect every ``settings_schema`` result: the declared sections and the
        problems found. Plugins are asked in name order, and the first to declare a
        section keeps it (deterministic, whatever order they were installed in)."""
        from skillpath.settings import SCHEMA, SettingSpec

        diags: list[Diagnostic] = []
        out: dict[str, dict[str, SettingSpec]] = {}
        owner: dict[str, str] = {}
        for impl in sorted(self._impls("settings_schema"), key=lambda i: i.plugin_name):
            ok, res = self._call(impl, "settings_schema", {}, diags)
            if not ok or res is None:
                continue
            if not isinstance(res, Mapping) or not all(
                isinstance(sec, str)
                and isinstance(keys, Mapping)
                and all(isinstance(k, str) and isinstance(v, SettingSpec) for k, v in keys.items())
                for sec, keys in res.items()
            ):
                self._bad_return(impl, "settings_schema", res, diags)
                continue
            for section, keys in res.items():
                taken = "skillpath" if section in SCHEMA else owner.get(section)
                if taken is not None:
                    diags.append(
                        Diagnostic(
                            "error",
                            "plugin-settings-conflict",
                            f"plugin {impl.plugin_name!r}: settings section [{section}] is "
                            f"already declared by {taken}; its declaration is ignored",
                        )
                    )
                    continue
                owner[section] = repr(impl.plugin_name)
                out[section] = dict(keys)
        return out, diags

    def commands(self, taken: Iterable[str] = ()) -> tuple[dict[str, Any], list[Diagnostic]]:
        """Collect the click commands plugins add with ``register_commands``:
        ``(name -> click.Command, problems)``. Plugins are asked in name order,
        each with a group of its own; a command whose name is in ``taken`` (the
        core's own) or was added by an earlier plugin is reported and dropped.
        Computed once per host."""
        if self._commands is not None:
            return self._commands
        import click

        diags: list[Diagnostic] = []
        out: dict[str, Any] = {}
        owner: dict[str, str] = dict.fromkeys(taken, "skillpath")
        for impl in sorted(self._impls("register_commands"), key=lambda i: i.plugin_name):
            group = click.Group(impl.plugin_name)
            ok, _res = self._call(impl, "register_commands", {"cli": group}, diags)
            if not ok:
                continue
            for name, command in group.commands.items():
                if name in owner:
                    diags.append(
                        Diagnostic(
                            "error",
                            "plugin-command-conflict",
                            f"plugin {impl.plugin_name!r}: command {name!r} is already "
                            f"provided by {owner[name]}; it is ignored",
                        )
                    )
                    continue
                owner[name] = repr(impl.plugin_name)
                out[name] = command
        self._commands = (out, diags)
        return self._commands

    def cache_folders(self, taken: Iterable[str] = ()) -> tuple[dict[str, str], list[Diagnostic]]:
        """Collect every ``cache_folders`` declaration: ``(folder -> description,
        problems)``. Plugins are asked in name order; a name that is not one plain
        path component, or is in ``taken`` (the core's parts) or was declared by an
        earlier plugin, is reported and ignored."""
        diags: list[Diagnostic] = []
        out: dict[str, str] = {}
        owner: dict[str, str] = dict.fromkeys(taken, "skillpath")
        for impl in sorted(self._impls("cache_folders"), key=lambda i: i.plugin_name):
            ok, res = self._call(impl, "cache_folders", {}, diags)
            if not ok or res is None:
                continue
            if not isinstance(res, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in res.items()
            ):
                self._bad_return(impl, "cache_folders", res, diags)
                continue
            for name, what in res.items():
                problem = None
                if not _PLAIN_NAME.fullmatch(name):
                    problem = f"cache folder {name!r} is not a plain folder name"
                elif name in owner:
                    problem = f"cache folder {name!r} is already declared by {owner[name]}"
                if problem is not None:
                    diags.append(
                        Diagnostic(
                            "error",
                            "plugin-cache-conflict",
                            f"plugin {impl.plugin_name!r}: {problem}; it is ignored",
                        )
                    )
                    continue
                owner[name] = repr(impl.plugin_name)
                out[name] = what
        return out, diags

    def discover(self, ctx: SkillContext) -> tuple[list[DiscoveryResult], list[Diagnostic]]:
        """Call every ``discover_skills`` and collect valid results."""
        diags: list[Diagnostic] = []
        results: list[DiscoveryResult] = []
        for impl in self._impls("discover_skills"):
            ok, res = self._call(impl, "discover_skills", {"ctx": ctx}, diags)
            if not ok or res is None:
                continue
            items = [res] if isinstance(res, DiscoveryResult) else res
            if not isinstance(items, (list, tuple)):
                self._bad_return(impl, "discover_skills", res, diags)
                continue
            for item in items:
                if not isinstance(item, DiscoveryResult) or not (
                    # every item a Skill exactly (checked in C), else one by one
                    set(map(type, item.skills)) <= _SKILL_TYPE
                    or all(isinstance(s, Skill) for s in item.skills)
                ):
                    self._bad_return(impl, "discover_skills", item, diags)
                    continue
                results.append(item)
        return results, diags

    def filter(
        self,
        skill: Skill,
        ctx: SkillContext,
        diags: list[Diagnostic],
        *,
        reported: set[str] | None = None,
        chain: Sequence[FilterEntry] | None = None,
    ) -> tuple[str, str] | None:
        """Run the veto chain; ``(reason, detail)`` of the first veto, or ``None``.

        Fails closed: a filter that raises or returns the wrong type drops the
        skill with reason ``filter-error`` (strict mode raises ``PluginError``).
        Its failure is reported once per plugin: ``reported`` holds the plugins
        already reported during this load (the loader passes one set per load);
        without it, ``diags`` is searched. ``chain`` is what :meth:`filter_chain`
        gave for this load's context (default: every implementation).
        """
        # the loop runs once per skill: the chain is precomputed (see
        # _filter_chain) and each call is inlined; same checks as ``_call``
        pair = (skill, ctx)
        perf_counter = time.perf_counter
        for impl, function, argnames, wrapper in self._filter_chain() if chain is None else chain:
            if wrapper:
                # reports the wrapper
                self._call(impl, "filter_skill", {"skill": skill, "ctx": ctx}, diags)
                continue
            if argnames is None:
                args: Sequence[Any] = pair
            else:
                kwargs = {"skill": skill, "ctx": ctx}
                args = [kwargs[a] for a in argnames]
            start = perf_counter()
            try:
                res = function(*args)
            except _ISOLATED as exc:
                if self.strict:
                    raise PluginError(impl.plugin_name, f"filter_skill raised {exc!r}") from exc
                what = f"filter_skill raised {exc!r}"
                self._filter_failed(impl, "plugin-hook-failed", what, skill, diags, reported)
                return "filter-error", f"plugin {impl.plugin_name!r}: {what}"
            elapsed = perf_counter() - start
            if elapsed > self.slow_seconds:
                self._slow(repr(impl.plugin_name), "filter_skill", elapsed)
            if res is None or res is True:
                continue
            if res is False:
                return "vetoed", f"by plugin {impl.plugin_name!r}"
            if isinstance(res, Veto):
                if impl.plugin_name.startswith("skillpath."):
                    code, _, detail = res.reason.partition(":")
                    return code, detail.strip()
                return "vetoed", f"{res.reason} (plugin {impl.plugin_name!r})"
            if self.strict:
                self._bad_return(impl, "filter_skill", res, diags)  # raises
            what = f"filter_skill returned {type(res).__name__}, not a Veto, a bool or None"
            self._filter_failed(impl, "plugin-bad-return", what, skill, diags, reported)
            return "filter-error", f"plugin {impl.plugin_name!r}: {what}"
        return None

    @staticmethod
    def _filter_failed(
        impl: pluggy.HookImpl,
        code: str,
        what: str,
        skill: Skill,
        diags: list[Diagnostic],
        reported: set[str] | None,
    ) -> None:
        """Report a failing filter once per plugin (per ``reported`` set, or per ``diags``)."""
        name = impl.plugin_name
        prefix = f"plugin {name!r}: filter_skill "
        if reported is not None:
            if name in reported:
                return
            reported.add(name)
        elif any(d.code == code and d.message.startswith(prefix) for d in diags):
            return
        diags.append(
            Diagnostic(
                "error",
                code,
                f"plugin {name!r}: {what} (first on skill {skill.name!r}); every skill it "
                "fails on is dropped (skipped: filter-error)",
            )
        )

    def filter_chain(self, ctx: SkillContext) -> list[FilterEntry]:
        """The ``filter_skill`` implementations one load under ``ctx`` runs on each
        skill (pass it to :meth:`filter` as ``chain``), in the order :meth:`filter`
        calls them.

        That is every implementation, but the core's own filter
        (:func:`skillpath.filters.filter_skill`) when ``ctx``'s settings give it
        nothing to veto (:func:`skillpath.filters.idle`: the defaults). A
        plugin's filter is always in the chain and sees every skill.
        """
        chain = self._filter_chain()
        core = _filters.filter_skill
        if any(entry[1] is core for entry in chain) and _filters.idle(ctx):
            return [entry for entry in chain if entry[1] is not core]
        return chain

    def _filter_chain(self) -> list[FilterEntry]:
        # called once per skill: the sorted chain is cached until the registered
        # implementations change; each entry is (impl, function, argnames or
        # None for the usual ``(skill, ctx)``, is-a-wrapper)
        current = self.pm.hook.filter_skill.get_hookimpls()
        cached = self._sorted_filters
        if cached is not None and cached[0] == current:
            return cached[1]
        impls = list(reversed(current))  # pluggy's call order
        # the core's filters first, in their fixed order, then plugins by name
        ordered = sorted(
            impls,
            key=lambda i: (
                (0, i.plugin_name) if i.plugin_name.startswith("skillpath.") else (1, i.plugin_name)
            ),
        )
        chain = [
            (
                impl,
                impl.function,
                None if tuple(impl.argnames) == ("skill", "ctx") else tuple(impl.argnames),
                bool(impl.hookwrapper or getattr(impl, "wrapper", False)),
            )
            for impl in ordered
        ]
        self._sorted_filters = (current, chain)
        return chain

    def transform(
        self, text: str, invocation: Invocation, ctx: SkillContext, diags: list[Diagnostic]
    ) -> str:
        """Run the ``transform_prompt`` chain, feeding each output to the next step.

        :raises PromptError: when a step raises it, and — failing closed — when a
            step raises anything else or returns something that is not text (the
            message names the plugin; strict mode raises ``PluginError``).
        """
        impls = sorted(
            self._impls("transform_prompt"),
            key=lambda i: (getattr(i.function, "skillpath_order", 500), i.plugin_name),
        )
        for impl in impls:
            ok, res = self._call(
                impl,
                "transform_prompt",
                {"text": text, "invocation": invocation, "ctx": ctx},
                diags,
                passthrough=(PromptError,),
                report=False,
            )
            if not ok:
                if isinstance(res, BaseException):
                    raise PromptError(
                        f"plugin {impl.plugin_name!r}: transform_prompt raised {res!r}; "
                        "the invocation is aborted rather than skip the step"
                    ) from res
                continue  # a wrapper: ignored (and reported)
            if res is None:
                continue
            if not isinstance(res, str):
                if self.strict:
                    self._bad_return(impl, "transform_prompt", res, diags)  # raises
                raise PromptError(
                    f"plugin {impl.plugin_name!r}: transform_prompt returned "
                    f"{type(res).__name__}, not text; the invocation is aborted rather "
                    "than skip the step"
                )
            text = res
        return text

    def rank(
        self, query: str, hits: Sequence[SearchHit], ctx: SkillContext, diags: list[Diagnostic]
    ) -> list[SearchHit]:
        """Run the ``rank_skills`` chain over the ranked ``hits``, feeding each output to
        the next implementation (by plugin name). A result that is not a sequence of
        :class:`~skillpath.search.SearchHit` drawn from the hits it was given (a skill
        added, or one twice) is reported and ignored; a failing ranker is reported and
        skipped, so search always answers with at least the BM25 ranking."""
        current = list(hits)
        # the kind of hit the caller ranks (search's SearchHit): checked by the hits
        # given, so the host needs nothing of the search module
        kinds = tuple({type(h) for h in current})
        for impl in sorted(self._impls("rank_skills"), key=lambda i: i.plugin_name):
            ok, res = self._call(
                impl, "rank_skills", {"query": query, "hits": tuple(current), "ctx": ctx}, diags
            )
            if not ok or res is None:
                continue
            allowed = {h.name for h in current}
            if (
                isinstance(res, (str, bytes))
                or not isinstance(res, Sequence)
                or not all(isinstance(h, kinds) for h in res)
                or not {h.name for h in res} <= allowed
                or len({h.name for h in res}) != len(res)
            ):
                self._bad_return(impl, "rank_skills", res, diags)
                continue
            current = list(res)
        return current

    def scanners(self) -> list[tuple[str, str]]:
        """``(plugin name, version)`` of every ``scan_skill`` implementation, by name."""
        versions = {r.name: r.version or "" for r in self.records}
        names = sorted({i.plugin_name for i in self._impls("scan_skill")})
        return [(n, versions.get(n, "")) for n in names]

    def scan(
        self, plugin: str, skill: Skill, ctx: SkillContext, diags: list[Diagnostic]
    ) -> list[ContentFinding] | None:
        """Call ``plugin``'s ``scan_skill`` on ``skill``: its findings, or ``None``
        when it abstained or failed (a failure is reported as ``scanner-failed``)."""
        from skillpath.contentscan import ContentFinding

        for impl in self._impls("scan_skill"):
            if impl.plugin_name != plugin:
                continue
            ok, res = self._call(
                impl, "scan_skill", {"skill": skill, "ctx": ctx}, diags, report=False
            )
            if not ok:
                diags.append(
                    Diagnostic(
                        "error",
                        "scanner-failed",
                        f"scanner {plugin!r} failed on skill {skill.name!r}: {res!r}",
                        skill.path,
                    )
                )
                return None
            if res is None:
                return None
            if (
                isinstance(res, (str, bytes))
                or not isinstance(res, Sequence)
                or not all(isinstance(f, ContentFinding) for f in res)
            ):
                diags.append(
                    Diagnostic(
                        "error",
                        "scanner-failed",
                        f"scanner {plugin!r} returned {type(res).__name__} for skill "
                        f"{skill.name!r}, ignored",
                        skill.path,
                    )
                )
                return None
            return list(res)
        return None

    def resolve(self, url: str, ctx: SkillContext, diags: list[Diagnostic]) -> Resource:
        """First non-``None`` ``resolve_url`` result; ``ResolveError`` when none."""
        from skillpath.resources import Resource

        for impl in self._impls("resolve_url"):
            ok, res = self._call(
                impl, "resolve_url", {"url": url, "ctx": ctx}, diags, passthrough=(ResolveError,)
            )
            if not ok or res is None:
                continue
            if not isinstance(res, Resource):
                self._bad_return(impl, "resolve_url", res, diags)
                continue
            return _visible(res, diags)
        raise ResolveError(f"no resolver handles {url!r}")


def _visible(res: Resource, diags: list[Diagnostic]) -> Resource:
    """``res`` without invisible characters (tags, bidi controls, zero-width), reported."""
    from skillpath.textguard import strip_invisible

    content, removed = strip_invisible(res.content)
    if not removed:
        return res
    diags.append(
        Diagnostic(
            "warning",
            "invisible-characters-removed",
            f"{res.url}: {removed} invisible character(s) (Unicode tags, bidi controls, "
            "zero-width) removed before the text reached the model",
            res.path,
        )
    )
    return attrs.evolve(res, content=content)


_HOSTS: dict[tuple[Any, ...], PluginHost] = {}


def _cache_key(
    env: Mapping[str, str], blocked: Iterable[str], strict: bool | None
) -> tuple[Any, ...]:
    return (
        env.get("SKILLPATH_DISABLE_PLUGINS", ""),
        env.get("SKILLPATH_PLUGINS", ""),
        env.get("SKILLPATH_NO_AUTOLOAD", ""),
        env.get("SKILLPATH_STRICT", ""),
        env.get("SKILLPATH_SLOW_HOOK_SECONDS", ""),
        tuple(sorted(blocked)),
        strict,
    )


def get_plugin_host(
    env: Mapping[str, str] | None = None,
    *,
    blocked: Iterable[str] = (),
    strict: bool | None = None,
) -> PluginHost:
    """The process-wide plugin host for these switches (entry points resolved once)."""
    env = os.environ if env is None else env
    key = _cache_key(env, blocked, strict)
    host = _HOSTS.get(key)
    if host is None:
        host = PluginHost.create(env=env, strict=strict, blocked=blocked)
        _HOSTS[key] = host
    return host


def reset_plugin_host() -> None:
    """Forget cached plugin hosts (tests, or after installing a plugin at run time)."""
    _HOSTS.clear()
