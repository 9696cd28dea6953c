"""The hook specifications: the whole contract between skillpath and its plugins.

Plugins implement these with ``from skillpath import hookimpl``. Each hook
receives the one :class:`~skillpath.context.SkillContext` (``ctx``) so hooks
can grow without breaking plugins; an implementation may accept fewer
arguments than the spec. skillpath calls every implementation itself, one at
a time, so a plugin that raises is reported (with its name) and the others
still run. How the results are combined is fixed per hook and written below.

Implementations of ``discover_skills``, ``filter_skill`` and ``transform_prompt``
declare what their output depends on with :func:`skillpath.depends_on` (or a
module-level ``DEPENDS_ON``): an unchanged ``skillpath list`` is replayed from a
snapshot, without calling any hook, only while every one of them has declared it
and those ``list`` calls declared ``"files"`` or ``"arguments"`` alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    import click

    from skillpath.contentscan import ContentFinding
    from skillpath.context import SkillContext
    from skillpath.model import DiscoveryResult, Skill, Veto
    from skillpath.prompt import Invocation
    from skillpath.resources import Resource
    from skillpath.search import SearchHit
    from skillpath.settings import SettingSpec

__all__ = [
    "PROJECT_NAME",
    "cache_folders",
    "discover_skills",
    "filter_skill",
    "hookimpl",
    "hookspec",
    "rank_skills",
    "register_commands",
    "resolve_url",
    "settings_schema",
    "transform_prompt",
]

#: The project name: pluggy's marker name and the entry-point group.
PROJECT_NAME = "skillpath"
hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


def step(order: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Set the position of a ``transform_prompt`` implementation in the chain.

    Use together with ``@hookimpl``::

        @hookimpl
        @step(order=600)
        def transform_prompt(text, invocation, ctx): ...

    Defined here, beside :data:`hookimpl`, so that the core's built-in plugins
    mark their steps without importing the plugin host that loads them; plugins
    import it as ``skillpath.step`` (:mod:`skillpath.plugins` re-exports it).
    """

    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn.skillpath_order = order  # type: ignore[attr-defined]
        return fn

    return mark


@hookspec
def discover_skills(ctx: SkillContext) -> DiscoveryResult | Sequence[DiscoveryResult] | None:
    """Find skills.

    :param ctx: the load context (cwd, home, repo root, settings, environment).
    :returns: one :class:`~skillpath.model.DiscoveryResult` per provider the
        plugin implements (a single result or a sequence), or ``None`` when the
        plugin has nothing to offer here.

    Semantics: *collect all*. Every implementation is called; results are then
    ordered by ``priority`` (higher first), ties broken by the fixed built-in
    order (``native, bundled, packs, libraries, claude, claude-plugins, agents, codex,
    opencode, github, mcp, managed``) and then by provider id. Within a result, skill
    order is the provider's own (it decides which copy of a name wins inside
    the provider). Results with ``late=True`` are merged after custom
    directories (pass 3). The first skill of a name wins; later ones are
    *shadowed* and reported.

    Dependencies: declare them with :func:`skillpath.depends_on`. ``"files"``
    (what a replay checks: arguments, cwd, environment, files read and
    directories listed or stat-ed through Python, the plugin's code) lets an
    unchanged ``skillpath list`` be replayed without calling this hook; anything
    else (``"clock"``, ``"network"`` …), or no declaration, means every ``list``
    calls it again.
    """


@hookspec
def filter_skill(skill: Skill, ctx: SkillContext) -> Veto | bool | None:
    """Decide whether a discovered skill is kept.

    :param skill: the candidate skill (already parsed).
    :param ctx: the load context.
    :returns: ``None`` to abstain, ``True`` to vote keep (has no power over a
        veto), ``False`` or a :class:`~skillpath.model.Veto` to drop it.

    Semantics: *veto*. Built-in filters run first, in the order
    ``disabled_extensions``, source toggles, ``ignored``, ``include``; then
    plugin filters. The first veto drops the skill and is recorded in
    ``LoadResult.skipped`` with its reason (a ``Veto``'s text, or the plugin's
    name for a bare ``False``). Filters fail closed: an implementation that
    raises or returns another type drops the skill too (reason
    ``filter-error``), reported once per plugin per load.

    Dependencies: as for :func:`discover_skills` (declare ``"files"`` with
    :func:`skillpath.depends_on` when the verdict depends on nothing else, or
    ``skillpath list`` is not replayed). Declare ``"arguments"`` when it depends
    on ``skill`` and ``ctx`` alone (no file of its own): a process that loads
    again may then reuse its verdicts on unchanged skills with an equal context,
    instead of offering every skill again.
    """


@hookspec
def transform_prompt(text: str, invocation: Invocation, ctx: SkillContext) -> str | None:
    """Rewrite the prompt text of a skill invocation.

    :param text: the text produced by the previous step (the raw ``SKILL.md``
        for the first step).
    :param invocation: the skill, its arguments, the session and the shell
        policy for this invocation.
    :param ctx: the context, with ``ctx.skills`` filled in.
    :returns: the new text, or ``None`` to leave it unchanged.

    Semantics: *chain*. Implementations run in ascending ``order`` (set with
    :func:`skillpath.step`; default 500), ties by plugin name; each receives
    the previous output. Built-in steps: frontmatter strip (100), arguments
    (200), variables (300), inline shell (400), base-directory prefix (900).
    Each built-in step is a plugin of its own that can be blocked and replaced.
    Raising :class:`~skillpath.errors.PromptError` aborts the invocation with
    that message. Steps fail closed: any other exception, or a return value that
    is not text, aborts the invocation too, with a ``PromptError`` naming the
    plugin (a redaction step that crashes must not let its input through).

    Dependencies: declare them with :func:`skillpath.depends_on`. ``list`` never
    calls this hook, so any declaration (``"process"`` for a step that runs
    commands) keeps the replay on; a step that declares nothing turns it off.
    """


@hookspec
def resolve_url(url: str, ctx: SkillContext) -> Resource | None:
    """Read the resource behind ``url`` (``skill://name/path`` and any other scheme).

    :param url: the URL as given by the model or user.
    :param ctx: the context, with ``ctx.skills`` filled in.
    :returns: a :class:`~skillpath.resources.Resource`, or ``None`` when this
        implementation does not handle the URL.

    Semantics: *first result*. Implementations are tried in pluggy's call order
    (``tryfirst`` first); the first non-``None`` result wins. The built-in
    ``skill://`` resolver is ``trylast``, so a plugin can override it or add
    schemes. Raising :class:`~skillpath.errors.ResolveError` refuses the URL
    with that message (the search stops); other exceptions are reported and
    the next implementation is tried.
    """


@hookspec
def settings_schema() -> Mapping[str, Mapping[str, SettingSpec]] | None:
    """Declare the plugin's own config sections.

    :returns: a mapping of section name to ``{key: SettingSpec}``, or ``None``.
        A section declared with no keys (``{"acme": {}}``) is the plugin's to
        validate: its keys are kept as written, with no note that it is unknown.

    Semantics: *collect all*. A declared section is validated like skillpath's
    own: an unknown key or a value of the wrong type is a diagnostic naming
    the file and line, a key's :attr:`~skillpath.settings.SettingSpec.scope`
    (``any``, ``trusted``, ``user``) holds an untrusted project's config to the
    same rule as skillpath's own keys, ``ctx.settings.section(name)`` fills in
    the defaults, and ``doctor`` no longer says the section is unknown. The
    hook is called when a config file holds a section skillpath does not know
    (before discovery; it receives no context). Plugins are asked in name
    order; a section of skillpath's own, or one an earlier plugin declared,
    cannot be redeclared (reported).
    """


@hookspec
def rank_skills(
    query: str, hits: Sequence[SearchHit], ctx: SkillContext
) -> Sequence[SearchHit] | None:
    """Re-rank (or narrow) the results of a skill search.

    :param query: the words the user or the model searched for.
    :param hits: the ranking so far, best first: skillpath's BM25 ranking
        (:mod:`skillpath.search`), up to four times the number of results
        asked for, or the output of the previous ``rank_skills``
        implementation.
    :param ctx: the load context.
    :returns: the hits in a new order (a subset of ``hits``, each once; build
        new scores with ``attrs.evolve(hit, score=...)``), or ``None`` to keep
        the ranking.

    Semantics: *chain*. Implementations run one after another, sorted by
    plugin name, each given the previous one's output; the first ``k`` of the
    last ranking are returned. A result that adds a skill, repeats one or is
    not a sequence of hits is reported (``plugin-bad-return``) and ignored; an
    implementation that raises is reported and skipped, so search always
    answers. Use it for an embedding model or a reranker; see the
    ``search-rerank`` example plugin.
    """


@hookspec
def register_commands(cli: click.Group) -> None:
    """Add commands to the ``skillpath`` command line.

    :param cli: the ``skillpath`` click group; call ``cli.add_command(command)``
        with each :class:`click.Command` (or group) the plugin offers.
    :returns: nothing; the commands added to ``cli`` are what counts.

    Semantics: *collect all*. Called once per process, and only when the click
    group resolves a command that is not one of the core's own (or lists them
    all, for ``--help``): ``skillpath list`` and every other core command never
    call it, so a plugin's command line costs nothing there. Plugins are asked
    in name order; a name that is already taken (a core command, or a command
    an earlier plugin added) is kept by its first owner and the clash is
    reported. An implementation that raises is reported (``plugin-hook-failed``)
    and the others still run. Import the command's heavy dependencies inside it,
    not at module level. This is how the ``skillpath-mcp`` distribution adds
    ``skillpath serve``.
    """


@hookspec
def cache_folders() -> Mapping[str, str] | None:
    """Declare the folders the plugin keeps in skillpath's cache directory.

    :returns: a mapping of folder name (one plain path component, such as
        ``"mcp"``) to a short description of what it holds, or ``None``.

    Semantics: *collect all*. ``skillpath cache`` shows each declared folder
    beside the core's own parts (``index``, ``snapshots``, ``packs``,
    ``bundled``) and ``skillpath cache clean`` empties it; a folder nobody
    declared is never touched. A name that is not a plain component, or that
    the core or an earlier plugin (in name order) already uses, is reported
    and ignored. Everything in a declared folder must be rebuildable on demand.
    """


@hookspec
def scan_skill(skill: Skill, ctx: SkillContext) -> Sequence[ContentFinding] | None:
    """Scan one skill with a scanner too slow to run on every load.

    :param skill: the skill to scan (its ``path``/``base_dir`` when on disk; its
        ``body`` otherwise).
    :param ctx: the context of the command that asked (``add``, ``export``,
        ``trust approve``, ``trust scan``).
    :returns: the findings (:class:`~skillpath.contentscan.ContentFinding`, each with
        an ``id``, a ``severity`` of ``high``/``medium``/``low``, the file and
        line), an empty sequence when the skill is clean, or ``None`` when this
        scanner does not look at such skills.

    Semantics: *collect all*, never during a load. skillpath calls every
    implementation, one at a time and sorted by plugin name, when a skill is
    installed (``skillpath add``/``update``), exported, approved (``skillpath
    trust approve``) or scanned on demand (``skillpath trust scan``). Results are
    kept per skill content digest, plugin and plugin version in the cache
    (``<cache>/scans``), so an unchanged skill is never scanned twice. A
    scanner that raises or returns another type is reported
    (``scanner-failed``) and the others still count; a ``high`` finding makes
    ``trust approve`` refuse the skill unless ``--force`` is given.
    """
