"""Provider ``packs``: skills shipped inside installed Python distributions.

A distribution declares one entry point per pack in the group
``skillpath.packs``::

    [project.entry-points."skillpath.packs"]
    acme = "acme_skills"                     # a package holding <name>/SKILL.md folders
    acme-dynamic = "acme_skills.defs:skills" # a callable returning BundledSkill definitions

A *package pack* is read through :mod:`importlib.resources` (so zipped and
editable installs work): every direct sub-directory holding a ``SKILL.md`` is a
skill, and every file below it is one of the skill's files. A *callable pack*
returns :class:`skillpath.bundled.BundledSkill` definitions (``is_enabled`` is
honoured).

Precedence: the result is *late* (``late=True``, priority 10): packs merge after
every provider's hand-written skills and the custom directories, and before the
managed (auto-learned) skills, so installing a package never replaces a skill of
the same name a person wrote (see ``docs/concepts.md``).

Listing writes nothing. Each skill gets ``base_dir`` =
``<cache>/packs/<distribution>-<version>-<hash16>/<skill>`` and the files are
extracted there the first time something needs them (see
:mod:`skillpath.extract`). Skills are level ``package``, ``loaded_from``
``pack``, with ``detail`` = distribution, version, entry point and pack name;
a description is required.

Problems are diagnostics: an entry point that does not import, a pack without
any skill folder (a wheel built without its package data), a member refused by
the containment check (``..``, absolute, backslash, control characters) or a
symbolic link (never followed), a pack over the size limits.

Environment switches (like the plugin switches): ``SKILLPATH_DISABLE_PACKS``
(comma-separated pack names never loaded) and ``SKILLPATH_PACKS`` (an
allow-list).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs
from skillpath import Diagnostic, DiscoveryResult, RootScan, Skill, SkillContext, hookimpl
from skillpath.bundled import BundledSkill, definition_members, definition_text, evaluate_enabled
from skillpath.cache.changes import kept_while_unchanged
from skillpath.extract import (
    MAX_MEMBERS,
    MAX_TOTAL_BYTES,
    ExtractionError,
    LazyTree,
    Member,
    check_member,
    make_tree,
    prune_trees,
    register_tree,
)
from skillpath.model import SkillSource
from skillpath.safety import ContainmentError, read_bounded
from skillpath.scan import SKILL_FILE, check_name, skill_from_text

__all__ = [
    "PACK_GROUP",
    "PRIORITY",
    "PROVIDER_ID",
    "Pack",
    "discover_skills",
    "find_pack",
    "load_pack",
    "load_packs",
    "normalize_dist",
    "pack_entry_points",
]

PROVIDER_ID = "packs"
#: Packs merge late (after custom directories, before managed skills): a skill a person
#: wrote, in any provider's project or user folder, is never replaced by an installed
#: package's skill of the same name.
PRIORITY = 10
#: What the hooks here depend on (:func:`skillpath.depends_on`): only files, so an
#: unchanged ``skillpath list`` may be replayed.
DEPENDS_ON = ("files",)
#: The entry-point group third-party distributions declare packs in.
PACK_GROUP = "skillpath.packs"
#: Deepest directory nesting read inside one skill folder.
MAX_DEPTH = 32

_SKIP = {"__pycache__"}


def normalize_dist(name: str) -> str:
    """A distribution name normalised as in PEP 503 (``Acme_Skills`` → ``acme-skills``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


@attrs.frozen
class Pack:
    """One loaded pack: where it comes from, its skills and its lazy file tree.

    ``name`` is the entry-point name, ``kind`` is ``package`` or ``callable``,
    ``root`` the package directory when it is a real directory (``None`` for
    zipped packages and callables).
    """

    name: str
    distribution: str
    version: str
    entry_point: str
    kind: str
    root: Path | None
    tree: LazyTree
    skills: tuple[Skill, ...]

    def member(self, rel: str) -> Member | None:
        """The member at ``rel`` (checked with the containment rules), if any."""
        clean = check_member(rel)
        for m in self.tree.members:
            if m.rel == clean:
                return m
        return None

    def read(self, rel: str) -> bytes:
        """The bytes of one member, straight from the installed package (no extraction).

        Raises :class:`~skillpath.safety.ContainmentError` for a refused path and
        :class:`FileNotFoundError` when the pack has no such file.
        """
        m = self.member(rel)
        if m is None:
            raise FileNotFoundError(rel)
        return m.read()

    def listing(self, rel: str = "") -> list[str]:
        """Entries directly under directory ``rel`` (``""`` = the pack root); dirs end in ``/``."""
        prefix = "" if rel in ("", "/") else check_member(rel.rstrip("/")) + "/"
        out: set[str] = set()
        for m in self.tree.members:
            if m.rel.startswith(prefix):
                head, sep, _ = m.rel[len(prefix) :].partition("/")
                out.add(head + sep)
        return sorted(out)


def _env_list(env: Mapping[str, str], key: str) -> list[str]:
    return [p.strip() for p in env.get(key, "").split(",") if p.strip()]


def _dist_of(ep: Any) -> str:
    dist = getattr(ep, "dist", None)
    return normalize_dist(dist.metadata["Name"]) if dist is not None else ""


def _sorted_entry_points() -> list[Any]:
    """The ``skillpath.packs`` entry points, sorted.

    They come from the core's cross-process entry-point cache (its fingerprint of
    ``sys.path`` taken once per load), so listing does not import
    ``importlib_metadata``.
    """
    from skillpath.plugins import entry_points

    return sorted(entry_points(PACK_GROUP), key=lambda e: (e.name, _dist_of(e), e.value))


def pack_entry_points(env: Mapping[str, str] | None = None) -> tuple[list[Any], list[Diagnostic]]:
    """The ``skillpath.packs`` entry points to load, sorted, with duplicates reported.

    The same distribution seen twice on ``sys.path`` counts once; two
    distributions claiming one pack name: the first (by distribution name) wins
    and the other is a warning. ``SKILLPATH_DISABLE_PACKS`` / ``SKILLPATH_PACKS``
    apply.
    """
    env = os.environ if env is None else env
    block = set(_env_list(env, "SKILLPATH_DISABLE_PACKS"))
    allow = set(_env_list(env, "SKILLPATH_PACKS"))
    diags: list[Diagnostic] = []
    eps = _sorted_entry_points()
    seen: dict[str, tuple[str, str]] = {}
    out = []
    for ep in eps:
        ident = (_dist_of(ep), ep.value)
        first = seen.get(ep.name)
        if first is not None:
            if first != ident:
                diags.append(
                    Diagnostic(
                        "warning",
                        "pack-duplicate",
                        f"pack {ep.name!r} from {ident[0] or '?'} ({ep.value}) ignored: "
                        f"already provided by {first[0] or '?'} ({first[1]})",
                        None,
                        None,
                        PROVIDER_ID,
                    )
                )
            continue
        seen[ep.name] = ident
        if ep.name in block or (allow and ep.name not in allow):
            diags.append(
                Diagnostic(
                    "info",
                    "pack-blocked",
                    f"pack {ep.name!r} not loaded (SKILLPATH_DISABLE_PACKS/SKILLPATH_PACKS)",
                    None,
                    None,
                    PROVIDER_ID,
                )
            )
            continue
        out.append(ep)
    return out, diags


class _Ctx:
    """What one pack load needs to report and to build skills."""

    def __init__(self, ep: Any, env: Mapping[str, str]) -> None:
        dist = getattr(ep, "dist", None)
        self.ep = ep
        self.env = env
        self.distribution = dist.metadata["Name"] if dist is not None else "unknown"
        self.version = dist.version if dist is not None else "0"
        self.entry_point = f"{ep.name} = {ep.value}"
        self.label = f"pack {ep.name!r} ({self.distribution} {self.version})"
        self.diags: list[Diagnostic] = []
        self.total = 0
        #: every folder listed and file read on disk (what a kept pack depends on)
        self.read: list[str] = []

    def diag(self, level: str, code: str, message: str, path: Path | None = None) -> None:
        self.diags.append(
            Diagnostic(level, code, f"{self.label}: {message}", path, None, PROVIDER_ID)  # type: ignore[arg-type]
        )

    def source(self, root: Path | None) -> SkillSource:
        return SkillSource(
            PROVIDER_ID,
            "package",
            root,
            "pack",
            {
                "distribution": self.distribution,
                "version": self.version,
                "entry_point": self.entry_point,
                "pack": self.ep.name,
            },
        )


def _real_path(trav: Any) -> Path | None:
    return trav if isinstance(trav, Path) else None


def _path_reader(path: Path) -> Any:
    def read() -> bytes:
        # not a symlink, not a FIFO or device, never more than a whole pack may hold
        return read_bounded(path, MAX_TOTAL_BYTES, follow=False)

    return read


def _walk(trav: Any, rel: str, depth: int, pc: _Ctx, out: list[Member], budget: list[int]) -> None:
    """Collect the files under ``trav`` (a Traversable) as members, refusing bad ones."""
    if depth > MAX_DEPTH:
        pc.diag("error", "pack-member-refused", f"{rel!r}: nested too deep", _real_path(trav))
        return
    try:
        children = sorted(trav.iterdir(), key=lambda c: c.name)
    except OSError as exc:
        pc.diag("error", "pack-unreadable", f"cannot list {rel!r}: {exc}", _real_path(trav))
        return
    pc.read.append(os.fspath(trav) if isinstance(trav, Path) else "")
    for child in children:
        name = child.name
        if name in _SKIP or name.endswith(".pyc"):
            continue
        child_rel = f"{rel}/{name}"
        where = _real_path(child)
        if where is not None and where.is_symlink():
            pc.diag(
                "error",
                "pack-member-refused",
                f"{child_rel!r} refused: symbolic link (links are never followed)",
                where,
            )
            continue
        try:
            check_member(child_rel)
        except ContainmentError as exc:
            pc.diag("error", "pack-member-refused", f"member refused: {exc}", where)
            continue
        if child.is_dir():
            _walk(child, child_rel, depth + 1, pc, out, budget)
            continue
        if not child.is_file():
            pc.diag("error", "pack-member-refused", f"{child_rel!r}: not a regular file", where)
            continue
        if len(out) >= MAX_MEMBERS:
            budget[0] = -1
            return
        reader = _path_reader(where) if where is not None else child.read_bytes
        try:
            data = reader()
        except OSError as exc:
            pc.diag("error", "pack-unreadable", f"cannot read {child_rel!r}: {exc}", where)
            continue
        pc.read.append(os.fspath(where) if where is not None else "")
        budget[0] -= len(data)
        if budget[0] < 0:
            return
        member = Member.from_bytes(child_rel, data)
        out.append(attrs.evolve(member, read=reader))


def _skill_from_member(
    pc: _Ctx, tree: LazyTree, folder: str, member: Member, root: Path | None, origin: Path | None
) -> Skill | None:
    text = member.read().decode("utf-8-sig", "replace")
    base = tree.target / folder
    skill, diags = skill_from_text(
        text,
        name=folder,
        source=pc.source(root),
        priority=PRIORITY,
        path=base / SKILL_FILE,
        base_dir=base,
        require_description=True,
    )
    for d in diags:
        pc.diags.append(attrs.evolve(d, path=origin or d.path))
    return skill


def _package_files(module: str) -> Any:
    """``importlib.resources.files(module)``: for a package imported from its folder
    on disk, the folder itself (the ``pathlib.Path`` ``files`` returns for it) without
    importing ``importlib.resources``, which brings ``zipfile``, ``tempfile``,
    ``shutil`` and the compression modules; any other package (zipped, a namespace,
    an unusual loader) goes through ``files``."""
    import importlib
    import importlib.machinery

    package = importlib.import_module(module)
    spec = getattr(package, "__spec__", None)
    loader = getattr(spec, "loader", None)
    if (
        type(loader) is importlib.machinery.SourceFileLoader
        and spec is not None
        and spec.submodule_search_locations is not None
        and loader.name == spec.name
    ):
        return Path(loader.path).parent  # what its resource reader (FileReader) answers
    from importlib import resources

    return resources.files(module)


def _load_package(pc: _Ctx) -> Pack | None:
    module = pc.ep.module
    try:
        root = _package_files(module)
    except Exception as exc:  # noqa: BLE001 - an installed pack may be broken in any way
        pc.diag("error", "pack-unloadable", f"cannot import package {module!r}: {exc!r}")
        return None
    if not isinstance(root, Path):  # zipped or unusual: read every time
        return _read_package(pc, root)
    key = (
        PROVIDER_ID,
        "package",
        pc.entry_point,
        pc.distribution,
        pc.version,
        os.fspath(root),
        tuple(sys.path),
        tuple(sorted(pc.env.items())),
    )

    def compute() -> tuple[tuple[Pack | None, tuple[Diagnostic, ...]], list[str]]:
        fresh = _Ctx(pc.ep, pc.env)
        pack = _read_package(fresh, root)
        # below a folder on disk every folder and file is on disk: each has a stat
        return (pack, tuple(fresh.diags)), [os.fspath(root), *fresh.read]

    # kept in this process while every folder listed and file read is unchanged
    # (a session's refresh then rebuilds nothing)
    pack, diags = kept_while_unchanged(key, compute)
    pc.diags.extend(diags)
    return pack


def _read_package(pc: _Ctx, root: Any) -> Pack | None:
    """The pack of package folder ``root`` (a Traversable), read and checked."""
    module = pc.ep.module
    root_path = _real_path(root)
    folders: list[tuple[str, Path | None]] = []
    members: list[Member] = []
    budget = [MAX_TOTAL_BYTES]
    try:
        children = sorted(root.iterdir(), key=lambda c: c.name)
    except OSError as exc:
        pc.diag("error", "pack-unreadable", f"cannot list package {module!r}: {exc}", root_path)
        return None
    pc.read.append(os.fspath(root_path) if root_path is not None else "")
    for child in children:
        name = child.name
        if name.startswith((".", "_")) or not child.is_dir():
            continue
        where = _real_path(child)
        # a folder whose SKILL.md is written later: its own mtime tells
        pc.read.append(os.fspath(where) if where is not None else "")
        if where is not None and where.is_symlink():
            pc.diag(
                "error",
                "pack-member-refused",
                f"skill folder {name!r} refused: symbolic link (links are never followed)",
                where,
            )
            continue
        if not (child / SKILL_FILE).is_file():
            continue
        if check_name(name) is not None:
            pc.diag("error", "pack-member-refused", f"folder {name!r}: {check_name(name)}", where)
            continue
        before = len(members)
        _walk(child, name, 1, pc, members, budget)
        if budget[0] < 0:
            pc.diag(
                "error",
                "pack-too-large",
                f"more than {MAX_TOTAL_BYTES} bytes or {MAX_MEMBERS} files; pack not loaded",
                root_path,
            )
            return None
        if any(m.rel == f"{name}/{SKILL_FILE}" for m in members[before:]):
            folders.append((name, where))
    if not folders:
        pc.diag(
            "warning",
            "pack-empty",
            f"package {module!r} holds no <name>/{SKILL_FILE} folders"
            + (f" (looked in {root_path})" if root_path else "")
            + "; was the package data left out of the wheel?",
            root_path,
        )
        return None
    try:
        tree = make_tree(
            "packs", f"{pc.distribution}-{pc.version}", members, label=pc.label, env=pc.env
        )
    except (ExtractionError, ContainmentError) as exc:
        pc.diag("error", "pack-invalid", str(exc), root_path)
        return None
    by_rel = {m.rel: m for m in tree.members}
    skills: list[Skill] = []
    for folder, where in folders:
        origin = where / SKILL_FILE if where is not None else None
        skill = _skill_from_member(
            pc, tree, folder, by_rel[f"{folder}/{SKILL_FILE}"], root_path, origin
        )
        if skill is not None:
            skills.append(skill)
    return Pack(
        pc.ep.name,
        pc.distribution,
        pc.version,
        pc.entry_point,
        "package",
        root_path,
        tree,
        tuple(skills),
    )


def _load_callable(pc: _Ctx) -> Pack | None:
    try:
        obj = pc.ep.load()
    except Exception as exc:  # noqa: BLE001
        pc.diag("error", "pack-unloadable", f"cannot load {pc.ep.value!r}: {exc!r}")
        return None
    if not callable(obj):
        pc.diag("error", "pack-unloadable", f"{pc.ep.value!r} is not callable")
        return None
    try:
        defs = list(obj())
    except Exception as exc:  # noqa: BLE001
        pc.diag("error", "pack-unloadable", f"{pc.ep.value!r} raised {exc!r}")
        return None
    members: list[Member] = []
    chosen: list[BundledSkill] = []
    names: set[str] = set()
    for defn in defs:
        if not isinstance(defn, BundledSkill):
            pc.diag(
                "error",
                "pack-bad-definition",
                f"{pc.ep.value!r} returned {type(defn).__name__}, expected BundledSkill",
            )
            continue
        why = check_name(defn.name) if isinstance(defn.name, str) else "name is not a string"
        if why is not None:
            pc.diag("error", "invalid-name", f"definition skipped: {why}")
            continue
        if defn.name in names:
            pc.diag("warning", "pack-duplicate-skill", f"skill {defn.name!r} defined twice")
            continue
        if not evaluate_enabled(defn, pc.diags, PROVIDER_ID):
            continue
        names.add(defn.name)
        chosen.append(defn)
        members.extend(definition_members(defn, f"{defn.name}/", pc.diags, PROVIDER_ID))
    if not chosen:
        if not defs:
            pc.diag("warning", "pack-empty", f"{pc.ep.value!r} returned no skill definitions")
        return None
    try:
        tree = make_tree(
            "packs", f"{pc.distribution}-{pc.version}", members, label=pc.label, env=pc.env
        )
    except (ExtractionError, ContainmentError) as exc:
        pc.diag("error", "pack-invalid", str(exc))
        return None
    skills: list[Skill] = []
    for defn in chosen:
        text, warnings = definition_text(defn)
        for w in warnings:
            pc.diag("warning", "bundled-definition", f"skill {defn.name!r}: {w}")
        base = tree.target / defn.name
        skill, diags = skill_from_text(
            text,
            name=defn.name,
            source=pc.source(None),
            priority=PRIORITY,
            path=base / SKILL_FILE,
            base_dir=base,
            require_description=True,
        )
        pc.diags.extend(diags)
        if skill is not None:
            skills.append(skill)
    return Pack(
        pc.ep.name,
        pc.distribution,
        pc.version,
        pc.entry_point,
        "callable",
        None,
        tree,
        tuple(skills),
    )


def load_pack(
    ep: Any, env: Mapping[str, str] | None = None
) -> tuple[Pack | None, list[Diagnostic]]:
    """Load one ``skillpath.packs`` entry point; never raises, never writes."""
    pc = _Ctx(ep, os.environ if env is None else env)
    pack = _load_callable(pc) if ep.attr else _load_package(pc)
    if pack is not None:
        register_tree(pack.tree)
    return pack, pc.diags


def load_packs(env: Mapping[str, str] | None = None) -> tuple[list[Pack], list[Diagnostic]]:
    """Every installed pack, in entry-point order, with the diagnostics found on the way."""
    eps, diags = pack_entry_points(env)
    packs: list[Pack] = []
    for ep in eps:
        pack, pdiags = load_pack(ep, env)
        diags.extend(pdiags)
        if pack is not None:
            packs.append(pack)
    return packs, diags


def find_pack(name: str, env: Mapping[str, str] | None = None) -> Pack | None:
    """The installed pack of distribution ``name`` (normalised), or with that pack name."""
    wanted = normalize_dist(name)
    eps, _ = pack_entry_points(env)

    ordered = [ep for ep in eps if _dist_of(ep) == wanted]
    ordered += [ep for ep in eps if normalize_dist(ep.name) == wanted and ep not in ordered]
    for ep in ordered:
        pack, _ = load_pack(ep, env)
        if pack is not None:
            return pack
    return None


def _roots(packs: Iterable[Pack]) -> list[RootScan]:
    return [
        RootScan(PROVIDER_ID, "package", p.root, True, len(p.skills))
        for p in packs
        if p.root is not None
    ]


@hookimpl
def discover_skills(ctx: SkillContext) -> DiscoveryResult:
    """Skills of every installed pack, listed without writing anything to disk."""
    packs, diags = load_packs(ctx.env)
    # trees of packs no longer installed (or of older versions) go, once unused
    prune_trees("packs", [p.tree.target for p in packs], env=ctx.env)
    skills = [s for p in packs for s in p.skills]
    return DiscoveryResult(
        PROVIDER_ID, PRIORITY, tuple(skills), tuple(diags), tuple(_roots(packs)), late=True
    )
