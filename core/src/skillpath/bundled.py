"""Code-registered ("bundled") skills and the ``bundled`` provider.

A host application ships skills in its own code::

    from skillpath.bundled import BundledSkill, register_bundled_skill

    register_bundled_skill(
        BundledSkill(
            "triage",
            "Triage a failing CI run: read the log, find the first error, propose a fix.",
            body="Read the CI log first ...",
            files={"references/common-failures.md": "..."},
            is_enabled=lambda: shutil.which("gh") is not None,
        )
    )

Each definition is rendered to ``SKILL.md`` text and built by
:func:`skillpath.scan.skill_from_text` (the one builder every skill goes
through), so a bundled skill is the same :class:`~skillpath.model.Skill` as a
disk skill. ``is_enabled`` is called at load time: a skill can hide itself by a
runtime condition (an ``info`` diagnostic says so). Reference files are not
written when the skill is listed; they are extracted on first use by
:mod:`skillpath.extract`, the same code that extracts skill packs.

The provider id is ``bundled``, priority 95 (below ``native``, so a user's own
skill of the same name replaces a host's bundled one; above ``packs``), level
``package``, ``loaded_from`` ``bundled``. Skill packs whose entry point is a
callable return these same definitions.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from skillpath.extract import ExtractionError, Member, check_member, make_tree, register_tree
from skillpath.frontmatter import parse_frontmatter
from skillpath.hookspecs import hookimpl
from skillpath.model import Diagnostic, DiscoveryResult, Skill, SkillSource
from skillpath.safety import ContainmentError
from skillpath.scan import SKILL_FILE, check_name, skill_from_text

if TYPE_CHECKING:
    from skillpath.context import SkillContext

__all__ = [
    "PRIORITY",
    "PROVIDER_ID",
    "BundledSkill",
    "clear_bundled_skills",
    "definition_members",
    "definition_text",
    "discover_skills",
    "evaluate_enabled",
    "get_bundled_skills",
    "register_bundled_skill",
    "unregister_bundled_skill",
]

#: What the hooks here depend on (:func:`skillpath.depends_on`): only files, so
#: an unchanged ``skillpath list`` may be replayed.
DEPENDS_ON = ("files",)

#: The provider id of bundled skills (``source.provider``).
PROVIDER_ID = "bundled"
#: Between the native skills (100) and the skill packs.
PRIORITY = 95


def _tuple(value: str | Iterable[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(value.split())
    return tuple(str(v) for v in value)


@attrs.frozen(eq=False)
class BundledSkill:
    """A skill defined in code.

    ``name`` and ``description`` are required. The prompt is ``body``; when
    ``body`` is ``None`` and ``files`` holds a ``SKILL.md``, that file's text is
    used (its frontmatter merged under the fields given here). ``files`` maps
    relative paths (``references/x.md``, ``scripts/run.py``) to text or bytes.
    ``is_enabled`` (no arguments, returns a bool) is evaluated at load time.
    The other fields are the usual frontmatter fields; ``frontmatter`` carries
    any further keys verbatim.
    """

    name: str
    description: str
    body: str | None = None
    files: Mapping[str, str | bytes] = attrs.field(factory=dict, converter=dict)
    is_enabled: Callable[[], bool] | None = None
    argument_hint: str | None = None
    arguments: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    when_to_use: str | None = None
    allowed_tools: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    user_invocable: bool = True
    disable_model_invocation: bool = False
    hide: bool = False
    model: str | None = None
    effort: str | None = None
    context: str | None = None
    agent: str | None = None
    paths: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    frontmatter: Mapping[str, Any] = attrs.field(factory=dict, converter=dict)

    def frontmatter_data(self) -> dict[str, Any]:
        """The frontmatter mapping written to ``SKILL.md`` (kebab-case keys)."""
        data: dict[str, Any] = {"name": self.name, "description": self.description}
        optional: list[tuple[str, Any, Any]] = [
            ("argument-hint", self.argument_hint, None),
            ("arguments", list(self.arguments), []),
            ("when_to_use", self.when_to_use, None),
            ("allowed-tools", list(self.allowed_tools), []),
            ("user-invocable", self.user_invocable, True),
            ("disable-model-invocation", self.disable_model_invocation, False),
            ("hide", self.hide, False),
            ("model", self.model, None),
            ("effort", self.effort, None),
            ("context", self.context, None),
            ("agent", self.agent, None),
            ("paths", list(self.paths), []),
        ]
        for key, value, default in optional:
            if value != default:
                data[key] = value
        for key, value in self.frontmatter.items():
            data.setdefault(key, value)
        return data


def definition_text(defn: BundledSkill) -> tuple[str, list[str]]:
    """The ``SKILL.md`` text of a definition, and warnings about it."""
    warnings: list[str] = []
    data = defn.frontmatter_data()
    body = defn.body
    given = defn.files.get(SKILL_FILE)
    if given is not None:
        if body is not None:
            warnings.append(f"files[{SKILL_FILE!r}] ignored: 'body' is given")
        else:
            text = given.decode("utf-8", "replace") if isinstance(given, bytes) else given
            parsed = parse_frontmatter(text)
            merged = dict(parsed.data)
            merged.update(data)
            data = merged
            body = parsed.body or ""
    import yaml  # only when a bundled skill is built

    head = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=10_000)
    return f"---\n{head}---\n{body or ''}", warnings


def definition_members(
    defn: BundledSkill, prefix: str, diags: list[Diagnostic], provider: str
) -> list[Member]:
    """The files of a definition as tree members under ``prefix`` (``""`` or ``"<dir>/"``).

    ``SKILL.md`` is the rendered text; every other path must pass
    :func:`skillpath.safety.check_relative` — a refused one is an ``error``
    diagnostic and is left out.
    """
    text, _ = definition_text(defn)
    members = [Member.from_bytes(f"{prefix}{SKILL_FILE}", text.encode("utf-8"))]
    for rel, content in sorted(defn.files.items(), key=lambda kv: str(kv[0])):
        if rel == SKILL_FILE:
            continue
        if not isinstance(rel, str) or not isinstance(content, (str, bytes)):
            diags.append(
                Diagnostic(
                    "error",
                    "bundled-bad-file",
                    f"skill {defn.name!r}: files must map str paths to str or bytes "
                    f"(got {type(rel).__name__} -> {type(content).__name__})",
                    None,
                    None,
                    provider,
                )
            )
            continue
        try:
            clean = check_member(rel)
        except ContainmentError as exc:
            diags.append(
                Diagnostic(
                    "error",
                    "pack-member-refused",
                    f"skill {defn.name!r}: file refused: {exc}",
                    None,
                    None,
                    provider,
                )
            )
            continue
        data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
        members.append(Member.from_bytes(prefix + clean, data))
    return members


def evaluate_enabled(defn: BundledSkill, diags: list[Diagnostic], provider: str) -> bool:
    """Call ``defn.is_enabled`` (if any); a raising callable disables the skill, with an error."""
    if defn.is_enabled is None:
        return True
    try:
        on = bool(defn.is_enabled())
    except Exception as exc:  # noqa: BLE001 - a host callable must not break loading
        diags.append(
            Diagnostic(
                "error",
                "bundled-is-enabled-failed",
                f"skill {defn.name!r}: is_enabled raised {exc!r}; skill not loaded",
                None,
                None,
                provider,
            )
        )
        return False
    if not on:
        diags.append(
            Diagnostic(
                "info",
                "bundled-disabled",
                f"skill {defn.name!r}: is_enabled() is false; not loaded",
                None,
                None,
                provider,
            )
        )
    return on


# -- the registry ---------------------------------------------------------------

_lock = threading.Lock()
_REGISTRY: dict[str, BundledSkill] = {}


def register_bundled_skill(defn: BundledSkill) -> None:
    """Register a bundled skill; a later definition of the same name replaces the earlier.

    Raises :class:`TypeError` for a non-:class:`BundledSkill` and
    :class:`ValueError` for a name that can never be a skill name.
    """
    if not isinstance(defn, BundledSkill):
        raise TypeError(f"expected BundledSkill, got {type(defn).__name__}")
    why = check_name(defn.name)
    if why is not None:
        raise ValueError(f"bundled skill: {why}")
    with _lock:
        _REGISTRY[defn.name] = defn


def unregister_bundled_skill(name: str) -> bool:
    """Remove one registered skill; ``True`` when it was registered."""
    with _lock:
        return _REGISTRY.pop(name, None) is not None


def get_bundled_skills() -> list[BundledSkill]:
    """The registered definitions, in registration order."""
    with _lock:
        return list(_REGISTRY.values())


def clear_bundled_skills() -> None:
    """Forget every registered definition (tests)."""
    with _lock:
        _REGISTRY.clear()


def _build(
    defn: BundledSkill,
    ctx_env: Mapping[str, str],
    diags: list[Diagnostic],
) -> Skill | None:
    text, warnings = definition_text(defn)
    for w in warnings:
        diags.append(
            Diagnostic("warning", "bundled-definition", f"skill {defn.name!r}: {w}", None, None)
        )
    members = definition_members(defn, f"{defn.name}/", diags, PROVIDER_ID)
    try:
        tree = make_tree(
            "bundled", defn.name, members, label=f"bundled skill {defn.name!r}", env=ctx_env
        )
    except (ExtractionError, ContainmentError) as exc:
        diags.append(Diagnostic("error", "bundled-invalid", str(exc), None, None, PROVIDER_ID))
        return None
    source = SkillSource(PROVIDER_ID, "package", None, "bundled", {"files": len(members)})
    skill, sdiags = skill_from_text(
        text,
        name=defn.name,
        source=source,
        priority=PRIORITY,
        path=tree.target / defn.name / SKILL_FILE,
        base_dir=tree.target / defn.name,
        require_description=True,
    )
    diags.extend(sdiags)
    if skill is not None:
        register_tree(tree)
    return skill


@hookimpl
def discover_skills(ctx: SkillContext) -> DiscoveryResult | None:
    """The ``bundled`` provider: every registered definition whose ``is_enabled`` holds."""
    defs = get_bundled_skills()
    if not defs:
        return None
    diags: list[Diagnostic] = []
    skills: list[Skill] = []
    for defn in defs:
        if not evaluate_enabled(defn, diags, PROVIDER_ID):
            continue
        skill = _build(defn, ctx.env, diags)
        if skill is not None:
            skills.append(skill)
    diags = [d if d.provider else attrs.evolve(d, provider=PROVIDER_ID) for d in diags]
    return DiscoveryResult(PROVIDER_ID, PRIORITY, tuple(skills), tuple(diags))
