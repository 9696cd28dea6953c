"""What ``skillpath list`` does, without click.

:func:`run_list` is the body of the ``list`` command (:mod:`skillpath.cli.listing`
declares its options). Nothing here imports click, so the launcher can run a
plain ``skillpath list`` or ``skillpath list --json`` without it
(:func:`skillpath.cache.launch.main`); the bytes written are the same either way.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillpath.cli._common import (
    JSONItems,
    echo,
    echo_diagnostics,
    echo_table,
    emit_json,
    fail,
    table,
    wrap,
)
from skillpath.cli._load import host_for, load
from skillpath.model import Diagnostic, LoadResult, Skill

if TYPE_CHECKING:
    from skillpath.contentscan import ContentFinding
    from skillpath.context import SkillContext
    from skillpath.doctor import SkillReport
    from skillpath.provenance import Origin

#: The last catalog listed (see list_cmd), and what its scans no longer needed
#: (scan.keeping_until_exit): kept until the process ends.
_KEEP: list[Any] = []
#: The source levels every installation knows (more may come from plugins).
BASE_LEVELS = ("managed", "user", "project", "package", "remote")


def known_values(result: LoadResult, ctx: SkillContext) -> tuple[list[str], list[str]]:
    """The provider ids and levels ``--provider``/``--level`` accept.

    Providers: every provider in the load (roots, skills, shadowed and skipped
    ones), every plugin that registered one, the built-in order and ``custom``.
    Levels: the base levels plus every level the load produced.
    """
    from skillpath.loader import BUILTIN_ORDER

    sources = [
        *(s.source for s in result.skills),
        *(s.source for s in result.conditional),
        *(s.skill.source for s in result.shadowed),
        *(s.skill.source for s in result.skipped),
    ]
    providers = {*BUILTIN_ORDER, "custom", *(r.provider for r in result.roots)}
    providers.update(src.provider for src in sources)
    providers.update(r.provider for r in host_for(ctx).records if r.provider)
    levels = {*BASE_LEVELS, *(r.level for r in result.roots), *(src.level for src in sources)}
    return sorted(providers), sorted(levels)


def _check_filter(option: str, what: str, given: Iterable[str], known: Sequence[str]) -> None:
    for value in given:
        if value in known:
            continue
        import difflib  # only for the error message

        near = [k for k in known if k.casefold() == value.casefold()]
        near += [k for k in difflib.get_close_matches(value, known, n=2) if k not in near]
        hint = f"; did you mean {near[0]!r}?" if near else ""
        fail(
            f"{option}: unknown {what} {value!r} (known: {', '.join(known)}){hint}",
            error="bad-option",
        )


def _footer(result: LoadResult, keep: Any) -> str | None:
    """The counts under the table: the same words and numbers as ``doctor``."""
    if not (
        result.conditional
        or result.shadowed
        or result.skipped
        or any(d.path is not None for d in result.diagnostics)
    ):
        return None  # nothing the report would count (and no import of the doctor)
    from skillpath.doctor import build_report

    entries = [
        e for e in build_report(result, include_loaded=False).skills if keep(e.provider, e.level)
    ]
    if not entries:
        return None
    counts = {s: sum(1 for e in entries if e.status == s) for s in ("conditional", "shadowed")}
    skipped = [e for e in entries if e.status == "skipped"]
    failed_paths = {d.path for d in result.diagnostics if d.level == "error" and d.path}
    failed = sum(1 for e in skipped if e.path in failed_paths)
    parts = [f"{counts['conditional']} conditional", f"{counts['shadowed']} shadowed"]
    parts.append(f"{len(skipped)} skipped" + (f" ({failed} with errors)" if failed else ""))
    return f"{', '.join(parts)} (`skillpath list --all`)."


def finding_json(f: ContentFinding) -> dict[str, Any]:
    """One entry of a skill's ``findings`` in ``list --json``."""
    return {
        "id": f.id,
        "severity": f.severity,
        "file": str(f.path) if f.path is not None else None,
        "line": f.line,
        "reason": f.reason,
    }


def skill_entries(
    skills: Sequence[Skill],
    origins: Sequence[Origin | None],
    pad: str = "    ",
    findings: Sequence[Sequence[ContentFinding]] | None = None,
) -> list[Any]:
    """The ``skills`` of ``list --json``: ``skill.to_json()``, with ``origin`` when
    there is one and ``findings`` (:func:`finding_json` of each of the skill's content
    findings, when ``findings`` gives them, aligned with ``skills``), for each of
    ``skills`` — as :func:`dumps_json` writes it at ``pad``.

    Runs of skills without an origin are written straight to their JSON text
    (a :class:`JSONItems`, made as it is written), without building each
    mapping for the C encoder to sort and encode; a subclass of :class:`Skill`
    (its ``to_json`` may differ) or a value not of the type the text is made
    for gets its mapping.
    """
    from json.encoder import encode_basestring as enc  # not at start-up: a plain list

    deep = pad + "  "
    empty = "" if findings is None else f'\n{deep}"findings": [],'
    found: Sequence[Sequence[ContentFinding]] = (
        findings if findings is not None else [()] * len(skills)
    )

    # the text between the values, made once (not interpolated for every skill)
    k_base = f'{{\n{deep}"base_dir": '
    k_description = f',\n{deep}"description": '
    k_hidden = f',{empty}\n{deep}"hidden": '
    k_level = f',\n{deep}"level": '
    k_name = f',\n{deep}"name": '
    k_path = f',\n{deep}"path": '
    k_provider = f',\n{deep}"provider": '
    k_end = f"\n{pad}}}"

    def text(skill: Skill) -> str:
        path, base, src = skill.path, skill.base_dir, skill.source
        return (
            f"{k_base}{'null' if base is None else enc(str(base))}"
            f"{k_description}{enc(skill.description)}"
            f"{k_hidden}{'true' if skill.hidden else 'false'}"
            f"{k_level}{enc(src.level)}"
            f"{k_name}{enc(skill.name)}"
            f"{k_path}{'null' if path is None else enc(str(path))}"
            f"{k_provider}{enc(src.provider)}{k_end}"
        )

    out: list[Any] = []
    run: list[Skill] = []
    for skill, origin, its in zip(skills, origins, found, strict=True):
        if origin is None and not its and type(skill) is Skill:
            src = skill.source
            hidden = skill.hidden
            if (
                type(skill.name) is str
                and type(skill.description) is str
                and type(src.provider) is str
                and type(src.level) is str
                and (hidden is True or hidden is False)
            ):
                run.append(skill)
                continue
        if run:
            out.append(JSONItems(run, pad, text))
            run = []
        entry = skill.to_json()
        if origin is not None:
            entry["origin"] = origin.to_json()
        if findings is not None:
            entry["findings"] = [finding_json(f) for f in its]
        out.append(entry)
    if run:
        out.append(JSONItems(run, pad, text))
    return out


def _keep(
    provider: str | None, level: str | None, providers: Sequence[str], levels: Sequence[str]
) -> bool:
    return (not providers or provider in providers) and (not levels or level in levels)


def _skipped_json(e: SkillReport) -> dict[str, Any]:
    return {
        "name": e.name,
        "path": str(e.path) if e.path is not None else None,
        "line": e.line,
        "provider": e.provider,
        "level": e.level,
        "reason": e.reason,
        "detail": e.detail,
    }


def _status(e: SkillReport) -> str:
    return f"skipped:{e.reason}" if e.status == "skipped" else e.status


def _shown(d: Diagnostic) -> bool:
    """Diagnostics under the table: all but ``info``, and skills being turned off."""
    return d.level != "info" or d.code == "skills-disabled"


def run_list(
    show_all: bool,
    providers: Sequence[str],
    levels: Sequence[str],
    no_index: bool,
    cwd: Path | None,
    as_json: bool,
) -> None:
    """List the skills an agent started in the project would see (``skillpath list``;
    the JSON shape is documented on :func:`skillpath.cli.listing.list_cmd`)."""
    # a one-shot command: the cyclic collector would only walk the thousands of
    # objects a large catalog is made of, and free nothing
    gc.disable()
    _KEEP.clear()
    from skillpath.scan import keeping_until_exit

    with contextlib.ExitStack() as stack:
        # what each scan no longer needs stays in _KEEP (freed with the process)
        stack.enter_context(keeping_until_exit(_KEEP))
        if no_index:
            from skillpath.cache.index import disabled

            stack.enter_context(disabled())
        result, ctx = load(cwd)
    if not no_index:
        from skillpath.cache.index import index_enabled

        if index_enabled(ctx.settings, ctx.env):
            from skillpath.cache.replay import allow, volatile

            blockers = host_for(ctx).replay_blockers()
            for blocker in blockers:
                # a plugin whose output may change while every file stays the same
                volatile(blocker.message())
            if not blockers:
                allow()  # the run may be replayed while nothing it read changes
    # the catalog lives until the process ends (which frees it at once);
    # freeing it object by object when this function returns costs more
    _KEEP.append(result)
    if providers or levels:
        known_providers, known_levels = known_values(result, ctx)
        _check_filter("--provider", "provider", providers, known_providers)
        _check_filter("--level", "level", levels, known_levels)

    def keep(provider: str | None, level: str | None) -> bool:
        return _keep(provider, level, providers, levels)

    skills = [s for s in result.skills if keep(s.provider, s.level)]
    shadowed = [s for s in result.shadowed if keep(s.skill.provider, s.skill.level)]
    report = None
    if show_all:
        from skillpath.doctor import build_report

        report = build_report(result)
    if as_json:
        from skillpath.findings import findings_for_all
        from skillpath.provenance import ProvenanceIndex

        entries = skill_entries(
            skills,
            ProvenanceIndex.build(ctx).origins(skills),
            # the SKILL.md checks the scan made (a skill's other files: doctor, validate)
            findings=findings_for_all(skills, env=ctx.env, home=ctx.home, resources=False),
        )
        data: dict[str, Any] = {
            "skills": entries,
            "shadowed": [s.to_json() for s in shadowed],
            "diagnostics": [d.to_json() for d in result.diagnostics],
        }
        if report is not None:
            data["conditional"] = [
                s.to_json() for s in result.conditional if keep(s.provider, s.level)
            ]
            data["skipped"] = [
                _skipped_json(e)
                for e in report.skills
                if e.status == "skipped" and keep(e.provider, e.level)
            ]
        emit_json(data)
        return
    if report is not None:
        entries = [e for e in report.skills if keep(e.provider, e.level)]
        if not entries:
            echo("No skills found.")
        else:
            rows = [
                [
                    e.name,
                    _status(e),
                    f"{e.provider}/{e.level}",
                    e.skill.description if e.status != "skipped" and e.skill else e.detail,
                ]
                for e in entries
            ]
            echo_table(table(["NAME", "STATUS", "SOURCE", "DETAIL"], rows))
        echo_diagnostics(result.diagnostics, _shown)
        return
    if not skills:
        echo("No skills found.")
    else:
        rows = [
            [s.name + (" (hidden)" if s.hidden else ""), f"{s.provider}/{s.level}", s.description]
            for s in skills
        ]
        echo_table(table(["NAME", "SOURCE", "DESCRIPTION"], rows))
    footer = _footer(result, keep)
    if footer:
        echo("\n" + "\n".join(wrap(footer)))
    echo_diagnostics(result.diagnostics, _shown)
