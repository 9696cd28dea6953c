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
is over budget, skills lose detail in one fixed order, the *keep order*: skills
the user or the project wrote first (:func:`origin_rank`: on disk at level
``user``, ``project`` or ``managed``), then packaged ones (skill packs, bundled
skills, plugins, MCP), then generated ones (auto-learned, provider
``managed``); within each, higher provider priority first, then the name order.
Nothing depends on description lengths, so a terse one-liner keeps no better
place than a careful description, and the result is stable across runs.

1. **Shorten.** Find the largest cap ``L`` (not below :data:`MIN_DESCRIPTION`)
   such that cutting every description longer than ``L`` fits. A description
   is cut at the last sentence end (``.``, ``!`` or ``?`` followed by a space)
   within the cap when that keeps at least half of it, else at the last word
   boundary with ``…`` appended, else hard at the cap with ``…``.
2. **Names only.** If even ``L = MIN_DESCRIPTION`` does not fit, skills are
   listed by name only (``- name``), from the end of the keep order, as few as
   needed; the skills that keep a description get the largest cap that fits.
3. **Drop.** If every skill by name only still does not fit, skills are left
   out from the end of the keep order, as few as needed (the rest are listed
   by name, and as many as then fit from the front of the keep order get
   their description back).

A notice line is part of the listing (and of the budget) whenever a skill is
listed by name only or left out: how many, and how to reach them — ``read
skill://<name>`` for what one does, and ``skill://`` for the index of every
skill (in the ``claude`` format: the Skill tool's list of names, which holds
every skill); an XML comment in the ``agentskills`` format.

:class:`BudgetReport` names every shortened, name-only and dropped skill; its
:meth:`~BudgetReport.summary` is one bounded line of counts.
"""

from __future__ import annotations

import html
import operator
import os
import pathlib
import posixpath
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from itertools import accumulate, compress, repeat
from typing import Any, Final

import attrs

from skillpath.errors import SkillpathError
from skillpath.model import Skill, SkillSource, sort_key

__all__ = [
    "DEFAULT_BUDGET",
    "ENTRY_CAP",
    "FORMATS",
    "MIN_DESCRIPTION",
    "BudgetReport",
    "Listing",
    "neutralise",
    "origin_rank",
    "render_listing",
    "shorten",
]

#: The listing's default budget, in characters (``[listing] budget``).
DEFAULT_BUDGET = 8000
#: Descriptions are never shortened below this many characters; entries are dropped instead.
MIN_DESCRIPTION = 60
#: Longest description (``description - when_to_use``) of one entry, as in Claude Code.
ENTRY_CAP = 1536
#: The listing formats :func:`render_listing` writes.
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
#: Path types whose ``str`` is their ``os.fspath``.
_PATH_TYPES = {
    pathlib.PurePosixPath,
    pathlib.PureWindowsPath,
    pathlib.PosixPath,
    pathlib.WindowsPath,
}


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
    whose description was longer than ``entry_cap`` (``0`` for no cap);
    ``names_only`` the names (in listing order) listed without their description.
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
    names_only: tuple[str, ...] = ()

    @property
    def trimmed(self) -> bool:
        """True when the entry cap or the budget shortened or dropped anything."""
        return bool(self.shortened or self.dropped or self.names_only)

    def summary(self) -> str:
        """One bounded line for humans (``""`` when nothing was trimmed): counts, a
        few names when there are few, and where the full report is."""
        capped = set(self.capped)
        by_budget = [n for n in self.shortened if n not in capped]
        parts = []
        more = False
        for label, names in (
            ("shortened", by_budget),
            ("listed by name only", self.names_only),
            ("left out", self.dropped),
        ):
            if names:
                text, cut = _few(names)
                parts.append(f"{len(names)} {label}{text}")
                more = more or cut
        out = ""
        if parts:
            out = (
                f"listing over its {self.budget}-character budget: {self.listed} of "
                f"{self.total} skills listed; " + "; ".join(parts)
            )
        if self.capped:
            text, cut = _few(self.capped)
            more = more or cut
            cap = f"cut {len(self.capped)} to the {self.entry_cap}-character entry cap{text}"
            out = f"{out}; {cap}" if out else cap
        if more:
            out += " (`skillpath prompt --json` names every one)"
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
            "names_only": list(self.names_only),
        }


#: At most this many names are spelled out per part of :meth:`BudgetReport.summary`.
_SUMMARY_NAMES = 5


def _few(names: tuple[str, ...] | list[str]) -> tuple[str, bool]:
    """``": a, b"`` for a few names (``""`` for more), and whether any were left unsaid."""
    if len(names) <= _SUMMARY_NAMES:
        return ": " + ", ".join(names), False
    return "", True


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
_Entry = tuple[str, str, str, int, int, int, bool, int, int]
_NAME: Final = 0
_DESC: Final = 1  # description - when_to_use, neutralised and within the entry cap
_LOCATION: Final = 2  # only filled in for the agentskills format, the one that shows it
_PRIORITY: Final = 3
_FIXED: Final = 4  # length of the entry without its description
_FULL: Final = 5  # length of the entry with the whole description
_CAPPED: Final = 6  # the entry cap cut the description
_INDEX: Final = 7  # position in listing order
_RANK: Final = 8  # origin_rank: who wrote the skill


def origin_rank(skill: Skill) -> int:
    """Who wrote ``skill``, for the budget's keep order: ``0`` the user or the
    project (on disk at level ``user``, ``project`` or ``managed``), ``1`` a
    package (skill packs, bundled skills, Claude Code plugins, MCP servers),
    ``2`` generated (auto-learned skills, provider ``managed``)."""
    return _source_rank(skill.source)


def _source_rank(src: SkillSource) -> int:
    """:func:`origin_rank` of a skill from ``src``."""
    if src.provider == "managed":
        return 2
    if (
        src.loaded_from in ("disk", "commands")
        and src.level in ("user", "project", "managed")
        and src.provider != "claude-plugins"
    ):
        return 0
    return 1


def _entry_text(fmt: str, name: str, desc: str, location: str, bare: bool = False) -> str:
    """One entry; ``bare`` lists the name only (no description element in XML)."""
    if fmt == "agentskills":
        described = "" if bare else f"<description>\n{html.escape(desc)}\n</description>\n"
        return (
            f"<skill>\n<name>\n{html.escape(name)}\n</name>\n{described}"
            f"<location>\n{html.escape(location)}\n</location>\n</skill>"
        )
    return f"- {name}: {desc}" if desc and not bare else f"- {name}"


#: What listing an XML entry by name only saves: its empty description element.
_XML_EMPTY_DESC = len("<description>\n\n</description>\n")


def _frame(fmt: str) -> tuple[str, str]:
    if fmt == "agentskills":
        return _XML_HEAD, _XML_TAIL
    if fmt == "claude":
        return _CLAUDE_HEAD, ""
    return _SKILLS_HEAD, _SKILLS_TAIL


def _notice(fmt: str, bare: int, dropped: int, budget: int, search: str | None = None) -> str:
    """The line telling the model what it does not see and how to reach it."""
    if bare <= 0 and dropped <= 0:
        return ""
    if dropped > 0:
        what = "skill" if dropped == 1 else "skills"
        head = f"Skills list trimmed: {dropped} more {what} not listed"
        if bare > 0:
            head = f"Skills list trimmed: {bare} listed by name only and {dropped} more not listed"
    else:
        what = "skill" if bare == 1 else "skills"
        head = f"Skills list shortened: {bare} {what} listed by name only"
    if fmt == "claude":
        reach = "The Skill tool's list of names holds every skill."
    else:
        reach = "Read skill://<name> for what a skill does; skill:// lists every skill."
    if search:
        reach = f"Call {search} with a few words of the task to find the others. {reach}"
    text = f"{head} (budget {budget} chars). {reach} Skills the user names can still be used."
    return f"<!-- {text} -->" if fmt == "agentskills" else text


def _measure(
    fmt: str,
    entry_lengths: int,
    count: int,
    bare: int,
    dropped: int,
    budget: int,
    search: str | None = None,
) -> int:
    head, tail = _frame(fmt)
    notice = _notice(fmt, bare, dropped, budget, search)
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


_name_attr = operator.attrgetter("name")
_description_attr = operator.attrgetter("description")
_when_attr = operator.attrgetter("frontmatter.when_to_use")
_path_attr = operator.attrgetter("path")
_source_attr = operator.attrgetter("source")
_priority_attr = operator.attrgetter("priority")
_hidden_attr = operator.attrgetter("hidden")

#: The characters ``str.isprintable`` rejects in ASCII text.
_ASCII_CONTROLS = tuple(map(chr, (*range(32), 127)))


def _printable(text: str) -> bool:
    """``text.isprintable()``, sooner for ASCII text (a search per control character)."""
    if text.isascii():
        return not any(map(text.__contains__, _ASCII_CONTROLS))
    return text.isprintable()


def _plain_texts(texts: list[str]) -> list[str] | None:
    """``texts`` neutralised when every one is printable with no double space (then
    stripping its ends is all :func:`neutralise` does), else ``None``. Checked on
    one join; a ``|`` cannot make or hide a double space."""
    joined = "|".join(texts)
    if not _printable(joined) or "  " in joined:
        return None
    return list(map(str.strip, texts))


def _plain_paths(paths: list[str]) -> bool:
    """True when :func:`_abspath` and neutralising leave every one of ``paths`` as it
    is: printable, absolute, normal, no double space, no space at either end."""
    if not _POSIX or not paths or not _printable("".join(paths)):
        return False
    joined = "\x00".join(paths)  # printable, so no path holds the separator
    return (
        joined[:1] == "/"
        and joined.count("\x00/") == len(paths) - 1
        and "//" not in joined
        and "/." not in joined
        and "/\x00" not in joined
        and joined[-1:] not in ("/", " ")
        and "  " not in joined
        and " \x00" not in joined
    )


def _plain_entries(fmt: str, visible: list[Skill], entry_cap: int) -> list[_Entry] | None:
    """The entries of ``visible`` when neutralising and escaping change nothing in any
    of them but the ends of names and descriptions (``None`` otherwise): no name
    given twice, names, descriptions and paths neutral (:func:`_plain_texts`,
    :func:`_plain_paths`), no ``when_to_use``, no ``<`` in the ``skills`` format,
    nothing ``html.escape`` changes in the ``agentskills`` format. Each column is
    then built whole, and the entries are what the loop of :func:`_make_entries`
    makes of them, with nothing flagged and no ties.
    """
    n = len(visible)
    raw_names = list(map(_name_attr, visible))
    if len(set(raw_names)) != n:
        return None
    names = _plain_texts(raw_names)
    if names is None or list(map(_when_attr, visible)).count(None) != n:
        return None
    descriptions = list(map(_description_attr, visible))
    if None in descriptions:
        descriptions = [d or "" for d in descriptions]
    texts = _plain_texts(descriptions)
    del descriptions
    if texts is None:
        return None
    paths = list(map(_path_attr, visible))
    kinds = set(map(type, paths))
    kinds.discard(type(None))
    if not kinds <= _PATH_TYPES:
        return None
    on_disk = list(map(str, filter(None, paths)))  # a path is never false
    if on_disk and not _plain_paths(on_disk):
        return None
    if fmt == "agentskills":
        every = "".join(names) + "".join(texts) + "".join(on_disk)
        if any(map(every.__contains__, "&<>\"'")):
            return None
        locations: Iterable[str] = on_disk
        if len(on_disk) != n:
            locations = [
                str(p) if p is not None else f"skill://{raw}".strip()
                for p, raw in zip(paths, raw_names, strict=True)
            ]
        head = len(_entry_text("agentskills", "", "", ""))
        both = map(operator.add, map(len, names), map(len, locations))
        fixed = list(map(head.__add__, both))
        separator = 0
    else:
        if fmt == "skills" and ("<" in "".join(names) or "<" in "".join(texts)):
            return None
        locations = repeat("", n)
        fixed = list(map((2).__add__, map(len, names)))
        separator = 2
    lengths = list(map(len, texts))
    capped: Iterable[bool] = repeat(False, n)
    if 0 < entry_cap < max(lengths, default=0):
        capped = [False] * n
        for i, length in enumerate(lengths):
            if length > entry_cap:
                capped[i] = True
                texts[i] = shorten(texts[i], entry_cap)
                lengths[i] = len(texts[i])
    if 0 in lengths:
        full = [f + t + separator if t else f for f, t in zip(fixed, lengths, strict=True)]
    else:
        full = list(map(operator.add, fixed, map(separator.__add__, lengths)))
    del lengths
    sources = list(map(_source_attr, visible))
    rank_of = {
        key: _source_rank(src)
        for key, src in dict(zip(map(id, sources), sources, strict=True)).items()
    }
    ranks = map(rank_of.__getitem__, map(id, sources))
    priority = map(_priority_attr, visible)
    return list(
        zip(names, texts, locations, priority, fixed, full, capped, range(n), ranks, strict=True)
    )


def _make_entries(
    fmt: str, visible: list[Skill], entry_cap: int
) -> tuple[list[_Entry], list[str], list[int]]:
    """The entries of ``visible`` (sorted), the names neutralising changed and the ties.

    Text that is printable and holds no double space only needs its ends stripped
    (what :func:`neutralise` does for it); anything else goes through
    :func:`neutralise`. A list whose every value is already neutral is done column by
    column (:func:`_plain_entries`). ``ties`` are the positions whose sort key equals the one
    before (the same name and path given twice).
    """
    fast = _plain_entries(fmt, visible, entry_cap)
    if fast is not None:
        return fast, [], []
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
        rank = _source_rank(skill.source)
        entries.append((name, text, location, skill.priority, fixed, full, capped, index, rank))
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


def _bare_length(fmt: str, entry: _Entry) -> int:
    """Length of ``entry`` listed by name only."""
    return entry[_FIXED] - (_XML_EMPTY_DESC if fmt == "agentskills" else 0)


def _best_cap(
    fmt: str,
    described: list[_Entry],
    rest: tuple[int, int, int, int],
    budget: int,
    search: str | None = None,
) -> int | None:
    """The largest description cap at which ``described`` fits, or ``None`` when even
    the minimum does not; ``rest`` is ``(length, count, bare, dropped)`` of the
    entries listed by name only and left out."""
    length, count, bare, dropped = rest

    def fits(cap: int | None) -> bool:
        total = length + sum(_lengths_at(fmt, described, cap))
        return _measure(fmt, total, count + len(described), bare, dropped, budget, search) <= budget

    longest = max((len(e[_DESC]) for e in described), default=0)
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


def _keep_key(entry: _Entry) -> tuple[int, int, int]:
    """The keep order: who wrote it, then higher priority, then the name order."""
    return entry[_RANK], -entry[_PRIORITY], entry[_INDEX]


_name_of = operator.itemgetter(_NAME)
_desc_of = operator.itemgetter(_DESC)
_fixed_of = operator.itemgetter(_FIXED)
_full_of = operator.itemgetter(_FULL)


def _keep_order(entries: list[_Entry]) -> list[_Entry]:
    """``entries`` (in listing order) sorted by :func:`_keep_key`: two stable sorts on
    one field each (higher priority first, then who wrote it), none when every
    entry has the same rank and priority."""
    ranks = set(map(operator.itemgetter(_RANK), entries))
    priorities = set(map(operator.itemgetter(_PRIORITY), entries))
    if len(ranks) <= 1 and len(priorities) <= 1:
        return list(entries)
    order = sorted(entries, key=operator.itemgetter(_PRIORITY), reverse=True)
    if len(ranks) > 1:
        order.sort(key=operator.itemgetter(_RANK))
    return order


#: Entries tried above the bisection's answer: the notice line's length moves by
#: less than their shortest possible length (4 characters each), so the largest
#: count that fits is among them even where fitting is not monotonic.
_WINDOW = 64


def _degrade(
    fmt: str, entries: list[_Entry], budget: int, search: str | None = None
) -> tuple[list[_Entry], list[_Entry], list[_Entry]]:
    """Split over-budget ``entries`` into described, name-only and dropped ones.

    Along the keep order: first the most entries that fit with every one listed
    by name only (the rest are left out; usually none is), then the most of
    those, from the front, that fit with their description cut to
    :data:`MIN_DESCRIPTION`. Prefix sums make every try one measurement; the
    count kept is found by bisection, then checked over :data:`_WINDOW` more
    entries, so it is the largest count that fits whatever the notice's
    length does.
    """
    order = _keep_order(entries)
    n = len(order)
    bare = list(accumulate(map(_fixed_of, order), initial=0))
    if fmt == "agentskills":
        bare = [length - i * _XML_EMPTY_DESC for i, length in enumerate(bare)]
    has_desc = list(accumulate(map(bool, map(_desc_of, order)), initial=0))

    def fits_bare(kept: int) -> bool:
        return _measure(fmt, bare[kept], kept, has_desc[kept], n - kept, budget, search) <= budget

    kept = n
    if not fits_bare(n):
        lo, hi = 0, n - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if fits_bare(mid):
                lo = mid
            else:
                hi = mid - 1
        kept = lo
        for k in range(min(n - 1, lo + _WINDOW), lo, -1):
            if fits_bare(k):
                kept = k
                break
    at_min = [0]
    for e in order[:kept]:
        at_min.append(at_min[-1] + _length_at(fmt, e, MIN_DESCRIPTION))

    def fits(described: int) -> bool:
        total = at_min[described] + bare[kept] - bare[described]
        names_only = has_desc[kept] - has_desc[described]
        return _measure(fmt, total, kept, names_only, n - kept, budget, search) <= budget

    described = kept
    while described > 0 and not fits(described):
        described -= 1
    return order[:described], order[described:kept], order[kept:][::-1]


def render_listing(
    skills: Iterable[Skill],
    *,
    format: str = "skills",
    budget: int | None = DEFAULT_BUDGET,
    read_tool: bool = True,
    entry_cap: int | None = ENTRY_CAP,
    search_tool: str | None = None,
    pinned: Sequence[str] = (),
    quotas: Mapping[str, int] | None = None,
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
    :param search_tool: the name of the search tool the agent has (such as
        ``search_skills``): the over-budget notice tells the model to call it, and
        the listing follows the *policy* order (see :func:`_policy_listing`).
    :param pinned: names always listed first and in full (``[listing] pinned``).
    :param quotas: at most this many entries per provider id or level
        (``[listing] quotas``); pinned skills do not count.
    :raises SkillpathError: for an unknown format.
    """
    fmt = _ALIASES.get(format, format)
    if fmt not in FORMATS:
        raise SkillpathError(
            f"unknown listing format {format!r} (choose from {', '.join(FORMATS)})"
        )
    limit = DEFAULT_BUDGET if budget is None else max(0, int(budget))
    cap_each = ENTRY_CAP if entry_cap is None else max(0, int(entry_cap))
    ordered = _in_order(skills)
    hidden_flags = list(map(_hidden_attr, ordered))
    visible = ordered
    if any(hidden_flags):
        visible = list(compress(ordered, map(operator.not_, hidden_flags)))
    hidden = len(ordered) - len(visible)
    if not read_tool or not visible:
        reason = "no-read-tool" if not read_tool else "no-skills"
        return Listing(
            "",
            BudgetReport(
                limit, 0, len(visible), 0, hidden=hidden, omitted=reason, entry_cap=cap_each
            ),
        )
    entries, flagged, _ties = _make_entries(fmt, visible, cap_each)
    if search_tool or pinned or quotas:
        return _policy_listing(
            fmt,
            entries,
            visible,
            limit,
            cap_each,
            hidden,
            flagged,
            search_tool=search_tool,
            pinned=tuple(pinned),
            quotas=dict(quotas or {}),
        )

    described = entries
    bare: list[_Entry] = []
    dropped: list[_Entry] = []
    cap: int | None = None
    if limit > 0:
        full = sum(map(_full_of, entries))
        if _measure(fmt, full, len(entries), 0, 0, limit, search_tool) > limit:
            described, bare, dropped = _degrade(fmt, entries, limit, search_tool)
            named = sum(map(bool, map(_desc_of, bare)))
            rest = (sum(_bare_length(fmt, e) for e in bare), len(bare), named, len(dropped))
            cap = _best_cap(fmt, described, rest, limit, search_tool) if described else None
    kept = sorted(described + bare, key=_by_index) if described is not entries else entries
    plain = {e[_INDEX] for e in bare}
    texts: list[str] = []
    shortened: list[str] = []
    capped: list[str] = []
    names_only: list[str] = []
    for e in kept:
        if e[_INDEX] in plain:
            texts.append(_entry_text(fmt, e[_NAME], "", e[_LOCATION], bare=True))
            if e[_DESC]:
                names_only.append(e[_NAME])
            continue
        desc = e[_DESC] if cap is None else shorten(e[_DESC], cap)
        texts.append(_entry_text(fmt, e[_NAME], desc, e[_LOCATION]))
        if e[_CAPPED] or desc != e[_DESC]:
            shortened.append(e[_NAME])
        if e[_CAPPED]:
            capped.append(e[_NAME])
    dropped_names = tuple(map(_name_of, dropped))
    if not kept:
        return _left_out(limit, len(visible), dropped_names, hidden, flagged, cap_each)
    head, tail = _frame(fmt)
    notice = _notice(fmt, len(names_only), len(dropped), limit, search_tool)
    if notice:
        texts.append(notice)
    text = head + "\n".join(texts) + tail
    report = BudgetReport(
        limit,
        len(text),
        len(visible),
        len(kept),
        tuple(shortened),
        dropped_names,
        hidden,
        tuple(flagged),
        None,
        tuple(capped),
        cap_each,
        tuple(names_only),
    )
    return Listing(text, report)


_by_index = operator.itemgetter(_INDEX)


def _in_order(skills: Iterable[Skill]) -> list[Skill]:
    """``skills`` sorted by :func:`~skillpath.model.sort_key`: by the folded name
    alone when no two names fold alike (then the rest of the key never decides)."""
    items = list(skills)
    folded = list(map(str.casefold, map(_name_attr, items)))
    if len(set(folded)) != len(items):
        return sorted(items, key=sort_key)
    return list(map(items.__getitem__, sorted(range(len(items)), key=folded.__getitem__)))


def _left_out(
    limit: int,
    total: int,
    dropped: tuple[str, ...],
    hidden: int,
    flagged: list[str],
    cap_each: int,
) -> Listing:
    """The empty listing of a budget too small for any entry (``omitted="budget"``)."""
    report = BudgetReport(
        limit, 0, total, 0, (), dropped, hidden, tuple(flagged), "budget", (), cap_each
    )
    return Listing("", report)


def _policy_listing(
    fmt: str,
    entries: list[_Entry],
    visible: list[Skill],
    limit: int,
    cap_each: int,
    hidden: int,
    flagged: list[str],
    *,
    search_tool: str | None,
    pinned: tuple[str, ...],
    quotas: dict[str, int],
) -> Listing:
    """The listing under a policy (pinned names, quotas, or a search tool offered).

    Entries go in *keep order* — the pinned names in the order given, then the
    user's and the project's own skills, then packages, then generated ones
    (higher priority first, then by name) — and the text keeps that order, so a
    skill added later in the order never changes the bytes before it (a prompt
    cache keeps its prefix). A quota drops the entries of a provider id or level
    past its count. Each entry is listed whole (within the entry cap) while it
    fits the budget; pinned entries always are. What does not fit is left to the
    search tool when one is offered, else listed by name only while that fits,
    and the rest is left out; the notice says how many and how to reach them.
    """
    rank_of = {name: i for i, name in enumerate(pinned)}
    order = sorted(
        entries,
        key=lambda e: (0, rank_of[e[_NAME]], 0, 0) if e[_NAME] in rank_of else (1, *_keep_key(e)),
    )
    counts: dict[str, int] = {}
    kept: list[_Entry] = []
    dropped: list[_Entry] = []
    for e in order:
        if e[_NAME] not in rank_of and quotas:
            src = visible[e[_INDEX]].source
            keys = [k for k in (src.provider, src.level) if k in quotas]
            if any(counts.get(k, 0) >= quotas[k] for k in keys):
                dropped.append(e)
                continue
            for k in keys:
                counts[k] = counts.get(k, 0) + 1
        kept.append(e)
    head, tail = _frame(fmt)
    full: list[_Entry] = []
    bare: list[_Entry] = []
    used = len(head) + len(tail)
    pending = list(kept)

    def room(extra: int, n_bare: int, n_dropped: int) -> bool:
        if limit <= 0:
            return True
        notice = _notice(fmt, n_bare, n_dropped, limit, search_tool)
        items = len(full) + len(bare) + 1 + (1 if notice else 0)
        return used + extra + len(notice) + (items - 1) <= limit

    while pending:
        e = pending[0]
        if e[_NAME] in rank_of or room(e[_FULL], len(bare), len(pending) - 1 + len(dropped)):
            full.append(pending.pop(0))
            used += e[_FULL]
            continue
        break
    if not search_tool:
        while pending:
            e = pending[0]
            named = len(bare) + (1 if e[_DESC] else 0)
            if not room(_bare_length(fmt, e), named, len(pending) - 1 + len(dropped)):
                break
            bare.append(pending.pop(0))
            used += _bare_length(fmt, e)
    dropped.extend(pending)
    texts = [_entry_text(fmt, e[_NAME], e[_DESC], e[_LOCATION]) for e in full]
    texts += [_entry_text(fmt, e[_NAME], "", e[_LOCATION], bare=True) for e in bare]
    names_only = tuple(e[_NAME] for e in bare if e[_DESC])
    listed = len(full) + len(bare)
    capped = tuple(e[_NAME] for e in full if e[_CAPPED])
    dropped_names = tuple(e[_NAME] for e in dropped)
    if not texts:
        return _left_out(limit, len(visible), dropped_names, hidden, flagged, cap_each)
    notice = _notice(fmt, len(names_only), len(dropped), limit, search_tool)
    if notice:
        texts.append(notice)
    text = head + "\n".join(texts) + tail
    report = BudgetReport(
        limit,
        len(text),
        len(visible),
        listed,
        capped,
        dropped_names,
        hidden,
        tuple(flagged),
        None,
        capped,
        cap_each,
        names_only,
    )
    return Listing(text, report)
