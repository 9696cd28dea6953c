"""The listing's fast paths give exactly what the straightforward algorithm gives.

``render_listing`` neutralises printable text without walking it, takes an
absolute normal path as its own ``abspath``, decides from the entries' fixed
parts alone that the whole listing does not fit, and splits the keep order
with prefix sums. :func:`reference` below is the plain algorithm of the module
docstring (every entry neutralised character by character, every cap measured
on all entries, entries left out and listed by name only one at a time from
the end of the keep order); both must agree on the text and on the report.
"""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skillpath import Frontmatter, Skill, SkillSource
from skillpath.listing import (
    DEFAULT_BUDGET,
    ENTRY_CAP,
    MIN_DESCRIPTION,
    BudgetReport,
    _desc_cost,
    _entry_text,
    _frame,
    _measure,
    _notice,
    _untag,
    neutralise,
    origin_rank,
    render_listing,
    shorten,
)
from skillpath.model import sort_key

SOURCE = SkillSource("native", "project", Path("/skills"))
#: One source per place in the keep order: written by the project, packaged, generated.
SOURCES = (
    SOURCE,
    SkillSource("packs", "package", None, "pack"),
    SkillSource("managed", "user", Path("/learned")),
)


def _clean(text: str) -> tuple[str, bool]:
    """Neutralising by its definition: one character at a time, no fast path."""
    out = []
    flagged = False
    for ch in text:
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Zl", "Zp", "Zs"):
            out.append(" ")
            if cat in ("Zl", "Zp") or (cat == "Cc" and ch not in "\t\n\r\x0b\x0c"):
                flagged = True
        elif cat in ("Cf", "Co", "Cs", "Cn"):
            flagged = True
        else:
            out.append(ch)
    return " ".join("".join(out).split()), flagged


def _entry(fmt: str, skill: Skill, entry_cap: int) -> tuple[dict, bool]:
    name, bad_name = _clean(skill.name)
    desc, bad_desc = _clean(skill.description or "")
    raw_when = skill.frontmatter.when_to_use
    when, bad_when = _clean(raw_when) if isinstance(raw_when, str) else ("", False)
    text = " - ".join(part for part in (desc, when) if part)
    raw_location = (
        os.path.abspath(os.fspath(skill.path))
        if skill.path is not None
        else f"skill://{skill.name}"
    )
    location, bad_location = _clean(raw_location)
    tagged = False
    if fmt == "skills":
        name, tag_name = _untag(name)
        text, tag_text = _untag(text)
        tagged = tag_name or tag_text
    capped = 0 < entry_cap < len(text)
    if capped:
        text = shorten(text, entry_cap)
    fixed = len(_entry_text(fmt, name, "", location))
    entry = {
        "name": name,
        "desc": text,
        "location": location,
        "priority": skill.priority,
        "rank": origin_rank(skill),
        "key": sort_key(skill),
        "fixed": fixed,
        "bare": len(_entry_text(fmt, name, "", location, bare=True)),
        "capped": capped,
    }
    return entry, bad_name or bad_desc or bad_when or bad_location or tagged


def _length(fmt: str, entry: dict, cap: int | None) -> int:
    desc = entry["desc"] if cap is None else shorten(entry["desc"], cap)
    return entry["fixed"] + _desc_cost(fmt, desc)


def _fits(
    fmt: str, described: list[dict], bare: list[dict], gone: int, cap: int | None, budget: int
) -> bool:
    total = sum(_length(fmt, e, cap) for e in described) + sum(e["bare"] for e in bare)
    named = sum(1 for e in bare if e["desc"])
    return _measure(fmt, total, len(described) + len(bare), named, gone, budget) <= budget


def _best_cap(
    fmt: str, described: list[dict], bare: list[dict], gone: int, budget: int
) -> int | None:
    longest = max((len(e["desc"]) for e in described), default=0)
    if _fits(fmt, described, bare, gone, None, budget):
        return longest
    lo, hi = MIN_DESCRIPTION, longest - 1
    if lo > hi or not _fits(fmt, described, bare, gone, lo, budget):
        return None
    best = lo
    lo += 1
    while lo <= hi:  # the largest cap that fits, by the module's bisection
        mid = (lo + hi) // 2
        if _fits(fmt, described, bare, gone, mid, budget):
            best = mid
            lo = mid + 1
        else:
            hi = mid - 1
    return best


def reference(
    skills: list[Skill], fmt: str, budget: int, entry_cap: int
) -> tuple[str, BudgetReport]:
    """The listing by the letter of the module docstring, with no shortcut."""
    keyed = sorted(((sort_key(s), s) for s in skills), key=lambda ks: ks[0])
    visible = [s for _, s in keyed if not s.hidden]
    hidden = len(keyed) - len(visible)
    if not visible:
        return "", BudgetReport(
            budget, 0, 0, 0, hidden=hidden, omitted="no-skills", entry_cap=entry_cap
        )
    entries = []
    flagged = []
    for pos, s in enumerate(visible):
        entry, bad = _entry(fmt, s, entry_cap)
        entry["pos"] = pos
        entries.append(entry)
        if bad:
            flagged.append(s.name)
    described, bare, dropped, cap = entries, [], [], None
    if budget > 0 and not _fits(fmt, entries, [], 0, None, budget):
        keep = sorted(entries, key=lambda e: (e["rank"], -e["priority"], e["pos"]))
        kept = list(keep)
        while kept and not _fits(fmt, [], kept, len(dropped), None, budget):
            dropped.append(kept.pop())  # the end of the keep order goes first
        count = len(kept)
        while count and not _fits(
            fmt, kept[:count], kept[count:], len(dropped), MIN_DESCRIPTION, budget
        ):
            count -= 1  # one more listed by name only
        described, bare = kept[:count], kept[count:]
        cap = _best_cap(fmt, described, bare, len(dropped), budget) if described else None
    plain = {e["pos"] for e in bare}
    listed = sorted(described + bare, key=lambda e: e["pos"])
    items, shortened, capped, names_only = [], [], [], []
    for e in listed:
        if e["pos"] in plain:
            items.append(_entry_text(fmt, e["name"], "", e["location"], bare=True))
            if e["desc"]:
                names_only.append(e["name"])
            continue
        desc = e["desc"] if cap is None else shorten(e["desc"], cap)
        items.append(_entry_text(fmt, e["name"], desc, e["location"]))
        if e["capped"] or desc != e["desc"]:
            shortened.append(e["name"])
        if e["capped"]:
            capped.append(e["name"])
    dropped_names = tuple(e["name"] for e in dropped)
    if not listed:
        return "", BudgetReport(
            budget,
            0,
            len(visible),
            0,
            (),
            dropped_names,
            hidden,
            tuple(flagged),
            "budget",
            (),
            entry_cap,
        )
    head, tail = _frame(fmt)
    notice = _notice(fmt, len(names_only), len(dropped), budget)
    if notice:
        items.append(notice)
    text = head + "\n".join(items) + tail
    report = BudgetReport(
        budget,
        len(text),
        len(visible),
        len(listed),
        tuple(shortened),
        dropped_names,
        hidden,
        tuple(flagged),
        None,
        tuple(capped),
        entry_cap,
        tuple(names_only),
    )
    return text, report


def test_the_reference_neutralises_like_the_module() -> None:
    samples = ("plain", "  two  spaces ", "tab\there", "zero\u200bwidth", "bell\x07", "a\u2028b")
    for text in samples:
        assert _clean(text) == neutralise(text), text


WORDS = st.sampled_from(
    [
        "Use",
        "it",
        "for",
        "PDFs.",
        "tables!",
        "why?",
        "a",
        "verylongwordwithoutanyspacesatallthatgoesonandon",
        "<skills>",
        "</ SKILLS>",
        "<b>",
        "&",
        "'q'",
        '"dq"',
        "é",
        "—",
        "x\u200by",
        "\u202e",
        "\t",
        "\n",
        "",
        " ",
        "-",
        "end,",
    ]
)
TEXT = st.lists(WORDS, max_size=40).map(" ".join)
NAMES = st.sampled_from(["pdf", "PDF", "alpha", "beta", "b c", " sp", "x<skills>", "z\u200b", "é"])
PATHS = st.sampled_from(
    [
        None,
        "auto",
        "/skills/a/../b/SKILL.md",
        "//net/x/SKILL.md",
        "/skills/./c/SKILL.md",
        "/skills/.hidden/SKILL.md",
        "rel/SKILL.md",
        "/skills/sp  ace/SKILL.md",
        "/skills/bell\x07/SKILL.md",
    ]
)


@st.composite
def skills(draw: st.DrawFn) -> Skill:
    name = draw(NAMES) + draw(st.sampled_from(["", "-1", "-2", "-10"]))
    raw = draw(PATHS)
    path = Path(f"/skills/{name}/SKILL.md") if raw == "auto" else (Path(raw) if raw else None)
    when = draw(st.one_of(st.none(), TEXT))
    return Skill(
        name=name,
        description=draw(TEXT),
        path=path,
        base_dir=path.parent if path is not None else None,
        source=draw(st.sampled_from(SOURCES)),
        priority=draw(st.sampled_from([0, 50, 100])),
        frontmatter=Frontmatter(
            hide=draw(st.booleans()) and draw(st.booleans()),
            when_to_use=when,
        ),
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(skills(), max_size=25),
    st.sampled_from(["skills", "agentskills", "claude"]),
    st.one_of(st.sampled_from([0, 1, 200, 400, DEFAULT_BUDGET]), st.integers(100, 3000)),
    st.sampled_from([0, 1, 40, 100, ENTRY_CAP]),
)
def test_fast_render_matches_the_reference(
    items: list[Skill], fmt: str, budget: int, entry_cap: int
) -> None:
    listing = render_listing(items, format=fmt, budget=budget, entry_cap=entry_cap)
    text, report = reference(items, fmt, budget, entry_cap)
    assert listing.text == text
    assert listing.report == report


def test_duplicates_drop_in_reference_order() -> None:
    """The same name and path given again: equal keys keep their input order."""
    items = [
        Skill(
            name="dup",
            description=f"Copy {i}. " + "word " * (5 + i % 2),
            path=Path("/skills/dup/SKILL.md"),
            base_dir=Path("/skills/dup"),
            source=SOURCE,
            priority=100,
        )
        for i in range(6)
    ]
    dropped = 0
    for fmt in ("skills", "agentskills", "claude"):
        for budget in range(150, 1500, 23):
            listing = render_listing(items, format=fmt, budget=budget)
            dropped += bool(listing.report.names_only and listing.report.listed)
            assert (listing.text, listing.report) == reference(items, fmt, budget, ENTRY_CAP)
    assert dropped >= 3


def _catalog(n: int) -> list[Skill]:
    return [
        Skill(
            name=f"skill-{i:05d}",
            description=f"Skill {i}: " + " ".join(["does things"] * (1 + i % 20)) + ".",
            path=Path(f"/corpus/skill-{i:05d}/SKILL.md"),
            base_dir=Path(f"/corpus/skill-{i:05d}"),
            source=SOURCE,
            priority=100,
        )
        for i in range(n)
    ]


def test_large_catalog_matches_the_reference() -> None:
    """The benchmark's shape at 1,500 skills, in the drop regime and the shortening one."""
    items = _catalog(1500)
    for fmt in ("skills", "agentskills", "claude"):
        for budget in (8000, 150_000):
            listing = render_listing(items, format=fmt, budget=budget)
            assert (listing.text, listing.report) == reference(items, fmt, budget, ENTRY_CAP)


def test_ten_thousand_skills_drop_to_fit_the_budget() -> None:
    """The benchmark's 10,000-skill shape: entries are left out until the text fits.

    (How fast this is, is measured by benchmarks/bench.py, not asserted here.)
    """
    items = _catalog(10_000)
    listing = render_listing(items, budget=8000)
    assert listing.report.dropped and len(listing.text) <= 8000
