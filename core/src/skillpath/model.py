"""Immutable records that cross the plugin boundary.

Every object a hook receives or returns is an ``attrs`` frozen record. Change one
with :func:`attrs.evolve`. A :class:`Skill` is built from a ``SKILL.md`` by the
readers, :func:`skillpath.load_skill_file` and :func:`skillpath.skill_from_text`
(the records import no reader), or by hand: one built with a ``path`` and no
body loader reads its body from that file on first use, split where the
frontmatter parser splits it (both use one definition, in a leaf module below
the records).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

import attrs

from skillpath._skillfile import read_body

__all__ = [
    "Diagnostic",
    "DiscoveryResult",
    "Frontmatter",
    "Level",
    "LoadResult",
    "RootScan",
    "Shadowed",
    "Skill",
    "SkillSource",
    "Skipped",
    "Veto",
]

#: The level of a :class:`Diagnostic`.
Level = Literal["error", "warning", "info"]

_EMPTY: Mapping[str, Any] = {}


@attrs.frozen
class Diagnostic:
    """One finding about a file, a root, a plugin or a setting.

    ``level`` is ``error`` (something could not be loaded), ``warning`` (loaded,
    but not as written) or ``info`` (a decision worth knowing about). ``code`` is a
    stable kebab-case identifier; ``path`` and ``line`` say where, when known.
    """

    level: Level
    code: str
    message: str
    path: Path | None = None
    line: int | None = None
    provider: str | None = None

    def location(self) -> str:
        """``path:line`` (or just ``path``, or ``""``) for display."""
        if self.path is None:
            return ""
        return f"{self.path}:{self.line}" if self.line else str(self.path)

    def to_json(self) -> dict[str, Any]:
        """The JSON shape used by ``skillpath list --json`` and friends."""
        return {
            "level": self.level,
            "code": self.code,
            "message": self.message,
            "path": str(self.path) if self.path is not None else None,
            "line": self.line,
        }


@attrs.frozen
class SkillSource:
    """Where a skill came from.

    ``provider`` is the provider id (``native``, ``claude``, ``custom`` …),
    ``level`` is ``managed``, ``user``, ``project``, ``package`` or ``remote``,
    ``root`` is the skills root that was scanned (``None`` for skills that do not
    live on disk), ``loaded_from`` is ``disk``, ``commands`` (legacy command
    file), ``bundled``, ``pack`` or ``mcp``; ``detail`` holds provider-specific
    facts (plugin name, MCP server, distribution …).
    """

    provider: str
    level: str
    root: Path | None = None
    loaded_from: str = "disk"
    detail: Mapping[str, Any] = attrs.field(factory=dict, hash=False)


@attrs.frozen
class Frontmatter:
    """Typed view of a ``SKILL.md`` frontmatter.

    Kebab-case and camelCase keys are normalised to the snake_case field names
    below (``disable-model-invocation`` → ``disable_model_invocation``,
    ``alwaysApply`` → ``always_apply``). Keys that are not fields are kept in
    ``extra`` under their original spelling. ``raw`` is the JSON-safe mapping as
    parsed.
    """

    name: str | None = None
    description: str | None = None
    globs: tuple[str, ...] = ()
    always_apply: bool = False
    hide: bool = False
    disable_model_invocation: bool = False
    user_invocable: bool = True
    allowed_tools: tuple[str, ...] = ()
    disallowed_tools: tuple[str, ...] = ()
    argument_hint: str | None = None
    arguments: tuple[str, ...] = ()
    when_to_use: str | None = None
    model: str | None = None
    hooks: Mapping[str, Any] | None = attrs.field(default=None, hash=False)
    context: str | None = None
    agent: str | None = None
    effort: str | None = None
    shell: str | None = None
    paths: tuple[str, ...] = ()
    license: str | None = None
    compatibility: str | None = None
    metadata: Mapping[str, Any] = attrs.field(factory=dict, hash=False)
    extra: Mapping[str, Any] = attrs.field(factory=dict, hash=False)
    raw: Mapping[str, Any] = attrs.field(factory=dict, hash=False)


#: Makes the lock of a :class:`_BodyCache` on its first use.
_LOCK_FOR_LOCKS = threading.Lock()


class _BodyCache:
    """Lazily loaded, cached body text (shared by evolved copies of a skill).

    Its lock is made when the body is first asked for: most skills of a large
    catalog never are, and 10,000 locks were a megabyte of every load.
    """

    __slots__ = ("_loader", "_lock", "_value")

    def __init__(self, loader: Callable[[], str] | None) -> None:
        self._loader = loader
        self._lock: threading.Lock | None = None
        self._value: str | None = None

    def get(self, skill: Skill) -> str:
        if self._value is not None:
            return self._value
        lock = self._lock
        if lock is None:
            with _LOCK_FOR_LOCKS:
                if self._lock is None:
                    self._lock = threading.Lock()
                lock = self._lock
        with lock:
            if self._value is None:
                if self._loader is not None:
                    self._value = self._loader()
                elif skill.path is None:
                    self._value = ""
                else:
                    self._value = read_body(skill.path)
            return self._value


def _body_cache(value: _BodyCache | Callable[[], str] | None) -> _BodyCache:
    """``Skill(body_cache=...)``: a shared cache as it is, or a loader (``None``: read
    the file) wrapped in a new one."""
    return value if isinstance(value, _BodyCache) else _BodyCache(value)


@attrs.frozen
class Skill:
    """A discovered skill.

    Valid needs only ``name`` and ``path``; ``description`` quality decides how
    well a model matches it. ``path`` is the ``SKILL.md`` file (``None`` for
    skills that are not on disk, such as MCP prompts or unextracted pack
    skills), ``base_dir`` the folder that holds it. ``priority`` is the
    provider's priority. ``file_id`` is ``(st_dev, st_ino)`` of the file and is
    what realpath de-duplication compares. The body (the Markdown after the
    frontmatter) is read on first use of :attr:`body` and cached: from
    ``body_cache`` (a callable that returns it) when one was given, else from
    the file at ``path``, as :func:`skillpath.frontmatter.read_body` reads it.

    Build one from a file with :func:`skillpath.load_skill_file`, from text with
    :func:`skillpath.skill_from_text` (these parse and check the frontmatter),
    or by hand.
    """

    name: str
    description: str
    path: Path | None
    base_dir: Path | None
    source: SkillSource
    priority: int = 0
    frontmatter: Frontmatter = attrs.field(factory=Frontmatter)
    file_id: tuple[int, int] | None = attrs.field(default=None, eq=False, repr=False)
    _body: _BodyCache = attrs.field(
        default=None,
        eq=False,
        repr=False,
        alias="body_cache",
        converter=_body_cache,
    )
    #: The content findings of its ``SKILL.md`` that the scan made from the text it
    #: read (rows of :mod:`skillpath.findings`: id, severity, reason, file in the
    #: folder, line, excerpt); ``None`` when the scan did not check it.
    file_findings: tuple[tuple[Any, ...], ...] | None = attrs.field(
        default=None, eq=False, repr=False
    )

    @property
    def body(self) -> str:
        """The Markdown body without frontmatter (loaded on first access)."""
        return self._body.get(self)

    @property
    def body_loader(self) -> Callable[[], str] | None:
        """The callable that produces the body, when the skill is not a plain file."""
        return self._body._loader

    @property
    def hidden(self) -> bool:
        """True when the skill must not appear in the model-facing listing."""
        fm = self.frontmatter
        return fm.hide or fm.disable_model_invocation

    @property
    def conditional(self) -> bool:
        """True when ``paths`` holds the skill back until a matching file is touched.

        Patterns that are all ``**`` (after dropping a trailing ``/**``) make the
        skill unconditional (see :func:`normalize_patterns`).
        """
        if not self.frontmatter.paths:
            return False
        return normalize_patterns(self.frontmatter.paths) is not None

    @property
    def provider(self) -> str:
        """Shortcut for ``source.provider``."""
        return self.source.provider

    @property
    def level(self) -> str:
        """Shortcut for ``source.level``."""
        return self.source.level

    def to_json(self) -> dict[str, Any]:
        """The JSON shape used by ``skillpath list --json``."""
        return {
            "name": self.name,
            "description": self.description,
            "path": str(self.path) if self.path is not None else None,
            "base_dir": str(self.base_dir) if self.base_dir is not None else None,
            "provider": self.source.provider,
            "level": self.source.level,
            "hidden": self.hidden,
        }


@attrs.frozen
class RootScan:
    """One skills root that a provider looked at, and whether it existed.

    ``via`` says what named the root when a setting did rather than a provider's
    own rules: ``SKILLPATH`` (the environment variable) or ``custom_directories``.
    """

    provider: str
    level: str
    path: Path
    exists: bool
    count: int = 0
    via: str | None = None


@attrs.frozen
class DiscoveryResult:
    """What one provider found: the return value of ``discover_skills``.

    ``priority`` orders providers (higher first); ``late`` holds the result back
    to the third pass (after custom directories) so every other skill of the same
    name wins, as managed (auto-learned) skills need.
    """

    provider: str
    priority: int
    skills: tuple[Skill, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    roots: tuple[RootScan, ...] = ()
    late: bool = False
    #: Files and folders that decide what the provider loads (its settings and
    #: registries, the folders it listed below a root's first level; not the skills
    #: roots): a long-running host stats them and loads again when one changes
    #: (:meth:`Discovery.input`).
    inputs: tuple[Path, ...] = ()


@attrs.frozen
class Shadowed:
    """A skill that lost: to ``by``, because of ``reason``.

    ``reason`` is ``name`` (a higher-priority skill has the same name) or
    ``duplicate-file`` (the same file was already loaded through another path).
    """

    skill: Skill
    by: Skill
    reason: str

    def to_json(self) -> dict[str, Any]:
        """The JSON shape used by ``skillpath list --json``."""
        return {
            "name": self.skill.name,
            "path": str(self.skill.path) if self.skill.path is not None else None,
            "provider": self.skill.source.provider,
            "level": self.skill.source.level,
            "shadowed_by": str(self.by.path) if self.by.path is not None else self.by.name,
            "shadowed_by_provider": self.by.source.provider,
            "reason": self.reason,
        }


@attrs.frozen
class Skipped:
    """A skill that was found and filtered out, with the filter's reason.

    ``reason`` is a stable code: ``disabled``, ``source-disabled``, ``ignored``,
    ``not-included``, ``vetoed`` (by a plugin's ``filter_skill``) or
    ``filter-error`` (a ``filter_skill`` raised or returned the wrong type:
    filters fail closed); ``detail`` says more (the pattern that matched, the
    plugin that vetoed or failed).
    """

    skill: Skill
    reason: str
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        """JSON form for ``doctor``."""
        return {
            "name": self.skill.name,
            "path": str(self.skill.path) if self.skill.path is not None else None,
            "provider": self.skill.source.provider,
            "level": self.skill.source.level,
            "reason": self.reason,
            "detail": self.detail,
        }


@attrs.frozen
class Veto:
    """Returned by a ``filter_skill`` hookimpl to drop a skill, with the reason."""

    reason: str


@attrs.frozen
class LoadResult:
    """The outcome of :func:`skillpath.load_skills`.

    ``skills`` are the active skills (hidden ones included, conditional ones
    excluded) in deterministic order; ``conditional`` the skills held back until
    a matching path is touched; ``shadowed`` the losers of de-duplication;
    ``skipped`` what filters dropped; ``roots`` every root a provider looked at.
    """

    skills: tuple[Skill, ...] = ()
    conditional: tuple[Skill, ...] = ()
    shadowed: tuple[Shadowed, ...] = ()
    skipped: tuple[Skipped, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    roots: tuple[RootScan, ...] = ()
    #: Every provider's :attr:`DiscoveryResult.inputs`, sorted, each once: the
    #: files and folders besides the roots whose change changes the catalog.
    inputs: tuple[Path, ...] = ()

    def get(self, name: str) -> Skill | None:
        """The active or conditional skill called exactly ``name``, if any; else the
        one whose folder is called ``name`` when its frontmatter name differs
        (:func:`by_folder`); else the one called
        ``<namespace>:name`` (:func:`by_qualified`)."""
        for skill in self.skills:
            if skill.name == name:
                return skill
        for skill in self.conditional:
            if skill.name == name:
                return skill
        every = (*self.skills, *self.conditional)
        return by_folder(name, every) or by_qualified(name, every)

    @property
    def names(self) -> list[str]:
        """Names of the active skills, in order."""
        return [s.name for s in self.skills]

    @property
    def errors(self) -> list[Diagnostic]:
        """Diagnostics at level ``error``."""
        return [d for d in self.diagnostics if d.level == "error"]

    def to_json(self) -> dict[str, Any]:
        """The contract shape of ``skillpath list --json``."""
        return {
            "skills": [s.to_json() for s in self.skills],
            "shadowed": [s.to_json() for s in self.shadowed],
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }


def sort_key(skill: Skill) -> tuple[str, str, str]:
    """Deterministic output order: case-insensitive name, exact name, path."""
    return (skill.name.casefold(), skill.name, str(skill.path) if skill.path else "")


def normalize_patterns(patterns: Iterable[str]) -> tuple[str, ...] | None:
    """The patterns as matched, or ``None`` when they make a skill unconditional.

    A trailing ``/**`` is dropped and empty patterns are removed; no pattern
    left, or only ``**``, means unconditional.
    """
    out: list[str] = []
    for raw in patterns:
        pat = raw.strip()
        if pat.endswith("/**"):
            pat = pat[:-3]
        if pat:
            out.append(pat)
    if not out or all(p == "**" for p in out):
        return None
    return tuple(out)


def by_folder(name: str, skills: Iterable[Skill]) -> Skill | None:
    """The one skill whose folder is called ``name`` (and whose name is not),
    or ``None`` when none or several are. A skill called ``<namespace>:x`` (a Claude
    Code plugin's) is matched as ``<namespace>:<folder>``, as Claude Code lists it."""
    hit: Skill | None = None
    for s in skills:
        if s.base_dir is None or s.name == name:
            continue
        namespace, colon, _ = s.name.rpartition(":")
        folder = f"{namespace}{colon}{s.base_dir.name}"
        if folder == name:
            if hit is not None:
                return None
            hit = s
    return hit


def by_qualified(name: str, skills: Iterable[Skill]) -> Skill | None:
    """The one skill called ``<namespace>:name`` (a Claude Code plugin's
    ``plugin:skill``) when ``name`` has no namespace of its own, or ``None`` when
    none or several are: a bare name resolves only while it is unambiguous."""
    if ":" in name:
        return None
    hit: Skill | None = None
    for s in skills:
        if s.name.rpartition(":")[2] == name and ":" in s.name:
            if hit is not None:
                return None
            hit = s
    return hit
