"""The system-prompt listing of skills, within a character budget.

Formats (``[listing] format``):

``skills`` (default)
    A ``<skills>`` block: a line telling the model to read ``skill://<name>``
    before acting, then one ``- name: description`` line per skill.
``agentskills``
    The open Agent Skills ``<available_skills>`` XML (as ``skills-ref
    to-prompt`` writes it): ``<name>``, ``<description>`` and ``<location>``
    (the absolute ``SKILL.md`` path, or ``skill://<name>`` for skills not on
    disk), every value HTML-escaped.
``claude``
    Claude Code's list: a header line, a blank line, ``- name: description``.

The description of an entry (in every format) is the skill's ``description``
followed by its ``when_to_use``, joined as Claude Code joins them:
``description - when_to_use`` (either alone when the other is empty). Each
entry's description is capped at :data:`ENTRY_CAP` characters (1,536, Claude
Code's cap; ``render_listing(entry_cap=...)``, ``0`` for no cap), cut by the
rule of step 1 below, whatever the budget; capped skills are named in
:attr:`BudgetReport.capped` (and :attr:`~BudgetReport.shortened`).

Rules: hidden skills (``hide`` or ``disable-model-invocation``) are never
listed; with no read tool (``read_tool=False``) or no listable skill the
listing is the empty string. Entries are sorted by name (case-insensitive, then
exact, then path), whatever the input order. Control characters, line and
paragraph separators and invisible Unicode (format, private-use, surrogate and
unassigned code points: zero-width characters, bidi overrides, tag characters)
are removed from names, descriptions and locations, runs of whitespace become
one space. In the ``skills`` format a ``<`` that would open or close the
block's own tag (``<skills>``, ``</skills>``, any case, spaces allowed) is
written ``&lt;``, so no entry can end the block early or start a new one (the
``agentskills`` format escapes every value anyway). Skills affected by either
are named in :attr:`BudgetReport.neutralised`. Output depends only on the
input, so it is byte-identical across runs and processes.

Budget (``[listing] budget``, default 8,000 characters; ``0`` or less means no
limit) counts the characters of the whole returned text. When the full listing
is over budget:

1. **Shorten.** Find the largest cap ``L`` (not below :data:`MIN_DESCRIPTION`)
   such that cutting every description longer than ``L`` fits. A description
   is cut at the last sentence end (``.``, ``!`` or ``?`` followed by a space)
   within the cap when that keeps at least half of it, else at the last word
   boundary with ``…`` appended, else hard at the cap with ``…``.
2. **Drop.** If even ``L = MIN_DESCRIPTION`` does not fit, entries are dropped
   in this order until it does: lowest provider priority first, then the
   longest description (after the entry cap), then the name that sorts last.
   A notice line is part of the listing (and of the budget): ``Skills list
   trimmed: N more skills not listed (budget B chars). Skills the user names
   can still be used.`` (an XML comment in the ``agentskills`` format). The
   remaining entries then get the largest cap that fits.

:class:`BudgetReport` names every shortened and every dropped skill.
"""

from __future__ import annotations

import html
import operator
import os
import posixpath
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

import attrs

from skillpath.errors import SkillpathError
from skillpath.model import Skill, sort_key

__all__ = [
    "DEFAULT_BUDGET",
    "ENTRY_CAP",
    "FORMATS",
    "MIN_DESCRIPTION",
    "BudgetReport",
    "Listing",
    "neutralise",
    "render_listing",
    "shorten",
]

DEFAULT_BUDGET = 8000
#: Descriptions are never shortened below this many characters; entries are dropped instead.
MIN_DESCRIPTION = 60
#: Longest description (``description - when_to_use``) of one entry, as in Claude Code.
ENTRY_CAP = 1536
FORMATS = ("skills", "agentskills", "claude")
_ALIASES = {"default": "skills", "agent-skills": "agentskills", "xml": "agentskills"}
_SPACE_CATEGORIES = {"Cc", "Zl", "Zp", "Zs"}
_DROP_CATEGORIES = {"Cf", "Co", "Cs", "Cn"}

_SKILLS_HEAD = (
    "<skills>\n"
    "Skills hold instructions for specific tasks. Before acting on a task that matches a "
    "skill, read its instructions with the read tool at skill://<name> (files it mentions "
    "are at skill://<name>/<path>).\n"
)
_SKILLS_TAIL = "\n</skills>"
_CLAUDE_HEAD = "The following skills are available for use with the Skill tool:\n\n"
_XML_HEAD = "<available_skills>\n"
_XML_TAIL = "\n</available_skills>"
# a "<" that would open or close the skills block's own tag
_BLOCK_TAG = re.compile(r"<(?=\s*/?\s*skills\b)", re.IGNORECASE)
_WHEN_JOIN = " - "
_POSIX = os.path is posixpath


@attrs.frozen
class BudgetReport:
    """What the budget and the entry cap did to a listing.

    ``budget`` is the limit applied (``0`` for none), ``length`` the length of
    the text returned, ``total`` the number of listable (non-hidden) skills,
    ``listed`` how many are in the text, ``shortened`` the names (in listing
    order) whose description was cut (by the entry cap or the budget),
    ``dropped`` the names left out (in the order they were dropped),
    ``hidden`` how many hidden skills were not listed, ``neutralised`` the
    names whose name or description held control or invisible characters or
    text that would open or close the ``<skills>`` block, ``omitted`` why the
    text is empty (``no-read-tool``, ``no-skills`` or ``budget``), else
    ``None``; ``capped`` the names (in listing order, also in ``shortened``)
    whose description was longer than ``entry_cap`` (``0`` for no cap).
    """

    budget: int
    length: int
    total: int
    listed: int
    shortened: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    hidden: int = 0
    neutralised: tuple[str, ...] = ()
    omitted: str | None = None
    capped: tuple[str, ...] = ()
    entry_cap: int = ENTRY_CAP

    @property
    def trimmed(self) -> bool:
        """True when the entry cap or the budget shortened or dropped anything."""
        return bool(self.shortened or self.dropped)

    def summary(self) -> str:
        """One line for humans (``""`` when nothing was trimmed)."""
        capped = set(self.capped)
        by_budget = [n for n in self.shortened if n not in capped]
        parts = []
        if by_budget:
            parts.append(f"shortened {len(by_budget)}: {', '.join(by_budget)}")
        if self.dropped:
            parts.append(f"dropped {len(self.dropped)}: {', '.join(self.dropped)}")
        out = (
            f"listing over its {self.budget}-character budget; " + "; ".join(parts) if parts else ""
        )
        if self.capped:
            cap = (
                f"cut {len(self.capped)} to the {self.entry_cap}-character entry cap: "
                + ", ".join(self.capped)
            )
            out = f"{out}; {cap}" if out else cap
        return out

    def to_json(self) -> dict[str, Any]:
        """JSON form (``skillpath prompt --json``)."""
        return {
            "budget": self.budget,
            "length": self.length,
            "total": self.total,
            "listed": self.listed,
            "shortened": list(self.shortened),
            "dropped": list(self.dropped),
            "hidden": self.hidden,
            "neutralised": list(self.neutralised),
            "omitted": self.omitted,
            "capped": list(self.capped),
            "entry_cap": self.entry_cap,
        }


@attrs.frozen
class Listing:
    """A rendered listing and the report of what the budget did."""

    text: str
    report: BudgetReport

    def __str__(self) -> str:
        return self.text


def neutralise(text: str) -> tuple[str, bool]:
    """Remove control and invisible characters and collapse whitespace.

    Returns the clean text and whether anything other than ordinary
    whitespace (space, tab, line breaks) had to be removed.
    """
    if text.isprintable():
        return (" ".join(text.split()) if "  " in text else text.strip()), False
    out = []
    flagged = False
    for ch in text:
        cat = unicodedata.category(ch)
        if cat in _SPACE_CATEGORIES:
            out.append(" ")
            if (cat == "Cc" and ch not in "\t\n\r\x0b\x0c") or cat in ("Zl", "Zp"):
                flagged = True
        elif cat in _DROP_CATEGORIES:
            flagged = True
        else:
            out.append(ch)
    return " ".join("".join(out).split()), flagged


def shorten(text: str, limit: int) -> str:
    """Cut ``text`` to at most ``limit`` characters at a sentence or word boundary.

    See the module docstring for the exact rule; deterministic.
    """
    if len(text) <= limit:
        return text
    if limit <= 1:
        return "…"[:limit]
    window = text[: limit + 1]
    end = max(window.rfind(". "), window.rfind("! "), window.rfind("? "))
    if end >= 0 and end + 1 <= limit and end + 1 >= limit // 2:
        return text[: end + 1]
    room = limit - 1
    space = text.rfind(" ", 0, room + 1)
    if space > 0:
        cut = text[:space].rstrip(" ,;:-")
        if cut:
            return cut + "…"
    return text[:room] + "…"


# One listable skill, neutralised, with its lengths worked out once: a plain tuple of
# strings and integers (the garbage collector stops tracking those, so ten thousand of
# them do not set off full collections) indexed by these constants.
_Entry = tuple[str, str, str, int, int, int, bool, int]
_NAME = 0
_DESC = 1  # description - when_to_use, neutralised and within the entry cap
_LOCATION = 2  # only filled in for the agentskills format, the one that shows it
_PRIORITY = 3
_FIXED = 4  # length of the entry without its description
_FULL = 5  # length of the entry with the whole description
_CAPPED = 6  # the entry cap cut the description
_INDEX = 7  # position in listing order


def _entry_text(fmt: str, name: str, desc: str, location: str) -> str:
    if fmt == "agentskills":
        return (
            f"<skill>\n<name>\n{html.escape(name)}\n</name>\n"
            f"<description>\n{html.escape(desc)}\n</description>\n"
            f"<location>\n{html.escape(location)}\n</location>\n</skill>"
        )
    return f"- {name}: {desc}" if desc else f"- {name}"


def _frame(fmt: str) -> tuple[str, str]:
    if fmt == "agentskills":
        return _XML_HEAD, _XML_TAIL
    if fmt == "claude":
        return _CLAUDE_HEAD, ""
    return _SKILLS_HEAD, _SKILLS_TAIL


def _notice(fmt: str, dropped: int, budget: int) -> str:
    if dropped <= 0:
        return ""
    what = "skill" if dropped == 1 else "skills"
    text = (
        f"Skills list trimmed: {dropped} more {what} not listed (budget {budget} chars). "
        "Skills the user names can still be used."
    )
    return f"<!-- {text} -->" if fmt == "agentskills" else text


def _measure(fmt: str, entry_lengths: int, count: int, dropped: int, budget: int) -> int:
    head, tail = _frame(fmt)
    notice = _notice(fmt, dropped, budget)
    items = count + (1 if notice else 0)
    if items == 0:
        return 0
    return len(head) + entry_lengths + len(notice) + (items - 1) + len(tail)


def _desc_cost(fmt: str, desc: str) -> int:
    """Characters ``desc`` adds to an entry (escaping and the ``": "`` separator included)."""
    if fmt == "agentskills":
        return len(html.escape(desc))
    return len(desc) + 2 if desc else 0


def _untag(text: str) -> tuple[str, bool]:
    """Write ``&lt;`` for a ``<`` that would open or close the ``<skills>`` block."""
    if "<" not in text:
        return text, False
    out, count = _BLOCK_TAG.subn("&lt;", text)
    return out, count > 0


def _abspath(path: str) -> str:
    """``os.path.abspath``, without the work for a path that is already absolute and normal."""
    if _POSIX and path[:1] == "/" and "//" not in path and "/." not in path and path[-1:] != "/":
        return path
    return os.path.abspath(path)


def _make_entries(
    fmt: str, visible: list[Skill], entry_cap: int
) -> tuple[list[_Entry], list[str], list[int]]:
    """The entries of ``visible`` (sorted), the names neutralising changed and the ties.

    Text that is printable and holds no double space only needs its ends stripped
    (what :func:`neutralise` does for it); anything else goes through
    :func:`neutralise`. ``ties`` are the positions whose sort key equals the one
    before (the same name and path given twice).
    """
    entries: list[_Entry] = []
    flagged: list[str] = []
    ties: list[int] = []
    xml = fmt == "agentskills"
    tags = fmt == "skills"
    escape = html.escape
    xml_fixed = len(_entry_text("agentskills", "", "", ""))
    previous = ""
    for index, skill in enumerate(visible):
        bad = False
        name = raw_name = skill.name
        if name == previous and index and sort_key(skill) == sort_key(visible[index - 1]):
            ties.append(index)
        previous = raw_name
        if name.isprintable() and "  " not in name:
            name = name.strip()
        else:
            name, bad = neutralise(name)
        text = skill.description or ""
        if text.isprintable() and "  " not in text:
            text = text.strip()
        else:
            text, bad_text = neutralise(text)
            bad = bad or bad_text
        when = skill.frontmatter.when_to_use
        if isinstance(when, str):
            when, bad_when = neutralise(when)
            bad = bad or bad_when
            if when:
                text = f"{text}{_WHEN_JOIN}{when}" if text else when
        path = skill.path
        location = _abspath(os.fspath(path)) if path is not None else f"skill://{raw_name}"
        if location.isprintable() and "  " not in location:
            location = location.strip()
        else:
            location, bad_location = neutralise(location)
            bad = bad or bad_location
        if tags:
            if "<" in name:
                name, tagged = _untag(name)
                bad = bad or tagged
            if "<" in text:
                text, tagged = _untag(text)
                bad = bad or tagged
        capped = 0 < entry_cap < len(text)
        if capped:
            text = shorten(text, entry_cap)
        if xml:
            fixed = xml_fixed + len(escape(name)) + len(escape(location))
            full = fixed + len(escape(text))
        else:
            location = ""
            fixed = 2 + len(name)
            full = fixed + len(text) + 2 if text else fixed
        entries.append((name, text, location, skill.priority, fixed, full, capped, index))
        if bad:
            flagged.append(raw_name)
    return entries, flagged, ties


def _length_at(fmt: str, entry: _Entry, cap: int) -> int:
    """Length of ``entry`` with its description cut to ``cap``."""
    desc = entry[_DESC]
    if len(desc) <= cap:
        return entry[_FULL]
    return entry[_FIXED] + _desc_cost(fmt, shorten(desc, cap))


def _lengths_at(fmt: str, entries: list[_Entry], cap: int | None) -> list[int]:
    if cap is None:
        return [e[_FULL] for e in entries]
    return [_length_at(fmt, e, cap) for e in entries]


def _best_cap(fmt: str, entries: list[_Entry], budget: int, dropped: int) -> int | None:
    """The largest description cap that fits, or ``None`` when even the minimum does not."""

    def fits(cap: int | None) -> bool:
        total = sum(_lengths_at(fmt, entries, cap))
        return _measure(fmt, total, len(entries), dropped, budget) <= budget

    longest = max((len(e[_DESC]) for e in entries), default=0)
    if fits(None):
        return longest
    lo, hi = MIN_DESCRIPTION, longest - 1
    if lo > hi or not fits(lo):
        return None
    best = lo
    lo += 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if fits(mid):
            best = mid
            lo = mid + 1
        else:
            hi = mid - 1
    return best


def render_listing(
    skills: Iterable[Skill],
    *,
    format: str = "skills",
    budget: int | None = DEFAULT_BUDGET,
    read_tool: bool = True,
    entry_cap: int | None = ENTRY_CAP,
) -> Listing:
    """Render the model-facing listing of ``skills`` (see the module docstring).

    :param skills: the active skills (hidden ones are filtered out here).
    :param format: ``skills``, ``agentskills`` or ``claude``.
    :param budget: character budget; ``None`` means :data:`DEFAULT_BUDGET`,
        ``0`` or less means no limit.
    :param read_tool: whether the agent can read ``skill://`` URLs (or call the
        Skill tool); without it the listing is empty.
    :param entry_cap: the longest description of one entry; ``None`` means
        :data:`ENTRY_CAP`, ``0`` or less means no cap.
    :raises SkillpathError: for an unknown format.
    """
    fmt = _ALIASES.get(format, format)
    if fmt not in FORMATS:
        raise SkillpathError(
            f"unknown listing format {format!r} (choose from {', '.join(FORMATS)})"
        )
    limit = DEFAULT_BUDGET if budget is None else max(0, int(budget))
    cap_each = ENTRY_CAP if entry_cap is None else max(0, int(entry_cap))
    ordered = sorted(skills, key=sort_key)
    visible = [s for s in ordered if not s.hidden]
    hidden = len(ordered) - len(visible)
    if not read_tool or not visible:
        reason = "no-read-tool" if not read_tool else "no-skills"
        return Listing(
            "",
            BudgetReport(
                limit, 0, len(visible), 0, hidden=hidden, omitted=reason, entry_cap=cap_each
            ),
        )
    entries, flagged, ties = _make_entries(fmt, visible, cap_each)

    kept = entries
    dropped: list[_Entry] = []
    cap: int | None = None
    if limit > 0:
        if _measure(fmt, sum(e[_FIXED] for e in entries), len(entries), 0, limit) > limit:
            cap = None  # even with every description empty the entries do not fit
        else:
            cap = _best_cap(fmt, kept, limit, 0)
        if cap is None:
            kept, dropped = _drop(fmt, entries, ties, limit)
            cap = _best_cap(fmt, kept, limit, len(dropped)) if kept else None
    descriptions = [e[_DESC] if cap is None else shorten(e[_DESC], cap) for e in kept]
    shortened = tuple(
        e[_NAME] for e, d in zip(kept, descriptions, strict=True) if e[_CAPPED] or d != e[_DESC]
    )
    capped = tuple(e[_NAME] for e in kept if e[_CAPPED])
    dropped_names = tuple(e[_NAME] for e in dropped)
    if not kept:
        report = BudgetReport(
            limit,
            0,
            len(visible),
            0,
            (),
            dropped_names,
            hidden,
            tuple(flagged),
            "budget",
            (),
            cap_each,
        )
        return Listing("", report)
    head, tail = _frame(fmt)
    items = [
        _entry_text(fmt, e[_NAME], d, e[_LOCATION]) for e, d in zip(kept, descriptions, strict=True)
    ]
    notice = _notice(fmt, len(dropped), limit)
    if notice:
        items.append(notice)
    text = head + "\n".join(items) + tail
    report = BudgetReport(
        limit,
        len(text),
        len(visible),
        len(kept),
        shortened,
        dropped_names,
        hidden,
        tuple(flagged),
        None,
        capped,
        cap_each,
    )
    return Listing(text, report)


def _drop(
    fmt: str, entries: list[_Entry], ties: list[int], budget: int
) -> tuple[list[_Entry], list[_Entry]]:
    """Drop entries in the documented order until the rest fits at the minimum cap.

    Called when all of ``entries`` (in listing order, ``ties`` as from
    :func:`_make_entries`) do not fit. From the first drop on, every further drop
    makes the listing shorter (an entry and its line break are at least three
    characters, the notice grows by at most one), so the entries kept are the
    longest tail of the drop order that fits: it is found from the end, measuring
    only the entries that stay.
    """
    # the name that sorts last goes first; skills with the same sort key keep their order
    if ties:
        group = list(range(len(entries)))
        for i in ties:
            group[i] = group[i - 1]
        order = sorted(entries, key=lambda e: -group[e[_INDEX]])
    else:
        order = entries[::-1]
    order.sort(key=_drop_rank)
    count = len(order)
    gone = count
    total = 0
    while gone > 1:
        length = _length_at(fmt, order[gone - 1], MIN_DESCRIPTION)
        if _measure(fmt, total + length, count - gone + 1, gone - 1, budget) > budget:
            break
        total += length
        gone -= 1
    return sorted(order[gone:], key=_by_index), order[:gone]


def _drop_rank(entry: _Entry) -> tuple[int, int]:
    return entry[_PRIORITY], -len(entry[_DESC])


_by_index = operator.itemgetter(_INDEX)
