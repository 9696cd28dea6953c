"""Findings about skill names and descriptions that are legal but suspicious.

:func:`scan.build_skill <skillpath.scan.build_skill>` — the one builder every
skill goes through — calls :func:`text_findings` and adds what it returns as
``warning`` diagnostics. Nothing here drops or changes a skill; the listing
(:mod:`skillpath.listing`) neutralises invisible characters on its own.

:func:`escape_controls` is what the command line runs over everything it
prints to a terminal.

Codes:

``confusable-name``
    the name holds non-ASCII characters that look like ASCII ones (Cyrillic
    ``а``, Greek ``ο``, fullwidth letters, Unicode dashes …) and reads as an
    ASCII name, so it can pass for (or shadow) another skill in a listing;
``invisible-characters``
    the description holds control characters (ANSI escapes included), bidi
    overrides, zero-width or other invisible format characters, private-use
    or unassigned code points;
``suspicious-name``
    the same for a name (names may hold spaces, and are listed as written);
``name_refusal``
    not a finding code: why a file or folder name inside a skill is refused
    (see :func:`name_refusal`);
``suspicious-description``
    the description reads like an instruction to the model rather than a
    description of the skill ("ignore previous instructions", "you are now",
    "reveal your system prompt", a hidden HTML comment, tags that would close
    or open a prompt block …); a description that merely talks about prompts
    ("Rewrites and tunes system prompts") is not flagged.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = [
    "confusable_skeleton",
    "count_invisible",
    "escape_controls",
    "invisible_characters",
    "name_refusal",
    "strip_invisible",
    "suspicious_phrases",
    "suspicious_spans",
    "text_findings",
]

# Characters that render like an ASCII letter, digit or hyphen in common fonts
# (a subset of Unicode's confusables.txt covering Cyrillic, Greek, Armenian,
# Cherokee look-alikes and dashes); NFKC already folds fullwidth and
# mathematical letters.
_CONFUSABLES = {
    # Cyrillic lowercase
    "а": "a",
    "в": "b",
    "е": "e",
    "ё": "e",
    "һ": "h",
    "і": "i",
    "ї": "i",
    "ј": "j",
    "к": "k",
    "ӏ": "l",
    "м": "m",
    "о": "o",
    "р": "p",
    "ԛ": "q",
    "ѕ": "s",
    "т": "t",
    "у": "y",
    "ԝ": "w",
    "х": "x",
    "ԁ": "d",
    "ɡ": "g",
    "ս": "u",
    # Cyrillic uppercase
    "А": "A",
    "В": "B",
    "Е": "E",
    "Н": "H",
    "І": "I",
    "Ј": "J",
    "К": "K",
    "М": "M",
    "О": "O",
    "Р": "P",
    "С": "C",
    "с": "c",
    "Ѕ": "S",
    "Т": "T",
    "Х": "X",
    "У": "Y",
    "Ԛ": "Q",
    "Ԝ": "W",
    # Greek
    "α": "a",
    "ο": "o",
    "ν": "v",
    "ρ": "p",
    "τ": "t",
    "ι": "i",
    "κ": "k",
    "υ": "u",
    "χ": "x",
    "Α": "A",
    "Β": "B",
    "Ε": "E",
    "Ζ": "Z",
    "Η": "H",
    "Ι": "I",
    "Κ": "K",
    "Μ": "M",
    "Ν": "N",
    "Ο": "O",
    "Ρ": "P",
    "Τ": "T",
    "Υ": "Y",
    "Χ": "X",
    # Armenian and Latin extensions
    "օ": "o",
    "ո": "n",
    "ı": "i",
    "ȷ": "j",
    "ℓ": "l",
    # dashes and the minus sign
    "‐": "-",
    "‑": "-",
    "‒": "-",
    "–": "-",
    "—": "-",
    "―": "-",
    "−": "-",
    "﹣": "-",
    "⁃": "-",
}
_CONFUSABLE_TABLE = str.maketrans(_CONFUSABLES)

_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_INVISIBLE_CATEGORIES = {"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"}
_ALLOWED_CONTROLS = {"\t", "\n", "\r"}

_SUSPICIOUS = [
    (
        "ignore previous instructions",
        r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|every\s+)?"
        r"(?:of\s+)?(?:the\s+|your\s+|my\s+)?(?:previous|prior|above|earlier|preceding|"
        r"former|system|original|existing)\s+(?:instructions?|prompts?|messages?|rules|"
        r"directions|guidelines|context)",
    ),
    (
        "disregard all prior",
        r"\bdisregard\s+(?:all|everything|anything)\s+(?:prior|previous|above|before)",
    ),
    (
        # asking for the prompt (or to set it aside), not talking about prompts:
        # "Rewrites and tunes system prompts" is a description, "print your
        # system prompt" an instruction
        "system prompt",
        r"\b(?:reveal|print|show|leak|output|repeat|dump|disclose|expose|exfiltrate|share|"
        r"display|recite|send|copy|write\s+out|tell\s+(?:me|us))\s+(?:me\s+|us\s+)?"
        r"(?:your\s+|the\s+|its\s+|this\s+)?(?:full\s+|entire\s+|whole\s+|original\s+|"
        r"hidden\s+|exact\s+|current\s+|secret\s+)*system[\s_-]*prompt\b",
    ),
    ("you are now", r"\byou\s+are\s+now\b"),
    ("new instructions", r"\bnew\s+(?:system\s+)?instructions\s*:"),
    ("from now on", r"\b(?:from\s+now\s+on|henceforth)\b"),
    (
        "conceal from the user",
        r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|show|reveal\s+to|mention\s+(?:this\s+)?to)"
        r"\s+the\s+user\b",
    ),
    ("hidden HTML comment", r"<!--"),
    (
        "prompt markup",
        r"</?\s*(?:system|assistant|user|human|instructions?|available_skills|skills?|tool_use|"
        r"tool_result|function_calls|antml:[a-z_]+)\s*/?>",
    ),
    ("role marker", r"(?:^|\n)\s*(?:system|assistant|human|user)\s*:\s"),
]
# a pattern runs only when one of its words is in the lower-cased text: most
# descriptions hold none, and substring tests are far cheaper than the regexes
_KEYWORDS = {
    "ignore previous instructions": ("ignore", "disregard", "forget", "override", "bypass"),
    "disregard all prior": ("disregard",),
    "system prompt": ("system",),
    "you are now": ("you",),
    "new instructions": ("instructions",),
    "from now on": ("now", "henceforth"),
    "conceal from the user": ("user",),
    "hidden HTML comment": ("<!--",),
    "prompt markup": ("<",),
    "role marker": ("system", "assistant", "human", "user"),
}
#: For ASCII text (where ``re.IGNORECASE`` is ``str.lower``), what else a pattern
#: cannot match without: one of these in the lower-cased text. "the user" is in
#: a great many descriptions; "don't tell the user" or "user: " rarely is.
_ALSO = {
    "conceal from the user": ("not", "don", "never"),
    "role marker": (":",),
}
_SUSPICIOUS_RE = [(label, _KEYWORDS[label], _ALSO.get(label, ()), rx) for label, rx in _SUSPICIOUS]
# each compiled on first use (compiling them all costs every run about 1.5 ms,
# and most runs meet no text that needs one)
_COMPILED: dict[str, re.Pattern[str]] = {}


def _pattern(label: str, rx: str) -> re.Pattern[str]:
    pattern = _COMPILED.get(label)
    if pattern is None:
        pattern = _COMPILED[label] = re.compile(rx, re.IGNORECASE)
    return pattern


# every keyword that does not contain another one ("<" covers "<!--"): most
# descriptions hold none of them, and then no per-pattern test runs at all.
# A substring test per word is about twice as fast as one regex alternation
# (sre tries every alternative at every position).
_ALL_KEYWORDS = {w for words in _KEYWORDS.values() for w in words}
_MIN_KEYWORDS = tuple(
    sorted(w for w in _ALL_KEYWORDS if not any(o != w and o in w for o in _ALL_KEYWORDS))
)


def _any_keyword(low: str) -> bool:
    """Whether ``low`` holds any of the keywords."""
    for word in _MIN_KEYWORDS:  # noqa: SIM110 - a plain loop, cheaper than any() over a generator
        if word in low:
            return True
    return False


# the keywords of _MIN_KEYWORDS that each pattern's words contain: every keyword
# holds one (a keyword left out of _MIN_KEYWORDS holds a shorter one), so a
# pattern none of whose covering keywords is in the text has no word in it either
# and is passed over without testing its words one by one
_COVER = {
    label: frozenset(m for m in _MIN_KEYWORDS if any(m in w for w in words))
    for label, words in _KEYWORDS.items()
}
assert all(_COVER.values())
_SUSPICIOUS_RUN = [
    (label, _COVER[label], words, also, rx) for label, words, also, rx in _SUSPICIOUS_RE
]
# the patterns a text holding one keyword alone can match, in the order of
# _SUSPICIOUS_RUN: the usual text that holds any keyword holds one ("the user"),
# and then only the patterns it covers are looked at, not every one
_RUN_BY_KEYWORD = {m: [r for r in _SUSPICIOUS_RUN if m in r[1]] for m in _MIN_KEYWORDS}


def confusable_skeleton(text: str) -> str:
    """``text`` with compatibility forms folded (NFKC) and look-alikes mapped to ASCII."""
    return unicodedata.normalize("NFKC", text).translate(_CONFUSABLE_TABLE)


def invisible_characters(text: str) -> list[str]:
    """The distinct control/invisible code points in ``text`` as ``U+XXXX`` (sorted).

    Tab, line feed and carriage return are allowed.
    """
    if text.isascii():
        # the usual case, nothing to collect: printable ASCII has no control
        # character at all (isprintable is one C pass, the regex search several)
        if text.isprintable() or _ASCII_CONTROL.search(text) is None:
            return []
        found = set(_ASCII_CONTROL.findall(text))
    else:
        found = {
            c
            for c in text
            if c not in _ALLOWED_CONTROLS and unicodedata.category(c) in _INVISIBLE_CATEGORIES
        }
    return [f"U+{ord(c):04X}" for c in sorted(found)]


def suspicious_phrases(text: str) -> list[str]:
    """Labels of the prompt-injection patterns ``text`` matches (in a fixed order)."""
    if not text:
        return []
    folded = text if text.isascii() else unicodedata.normalize("NFKC", text)
    low = folded.lower()
    found = []
    for word in _MIN_KEYWORDS:  # a plain loop: cheaper than a comprehension here
        if word in low:
            found.append(word)
    if not found:
        return []
    plain = folded.isascii()
    if len(found) == 1:
        run = _RUN_BY_KEYWORD[found[0]]
    else:
        run = [r for r in _SUSPICIOUS_RUN if not r[1].isdisjoint(found)]
    return [
        label
        for label, _cover, words, also, rx in run
        if any(w in low for w in words)
        and not (plain and also and not any(w in low for w in also))
        and _pattern(label, rx).search(folded)
    ]


def suspicious_spans(text: str) -> list[tuple[str, int, int]]:
    """``(label, start, end)`` of each prompt-injection pattern ``text`` matches, in the
    order of :func:`suspicious_phrases` (positions in ``text`` for ASCII text, in its
    NFKC form otherwise)."""
    labels = suspicious_phrases(text)
    if not labels:
        return []
    folded = text if text.isascii() else unicodedata.normalize("NFKC", text)
    rx = dict(_SUSPICIOUS)
    out = []
    for label in labels:
        m = _pattern(label, rx[label]).search(folded)
        if m is not None:
            out.append((label, m.start(), m.end()))
    return out


def text_findings(name: str, description: str) -> list[tuple[str, str]]:
    """``(code, message)`` warnings for a skill's name and description (may be empty)."""
    out: list[tuple[str, str]] = []
    if not name.isascii():
        skeleton = confusable_skeleton(name)
        if skeleton.isascii() and skeleton != name:
            odd = sorted({c for c in name if not c.isascii()})
            shown = ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, '?')}" for c in odd[:4])
            out.append(
                (
                    "confusable-name",
                    f"name {name!r} uses look-alike characters ({shown}) and reads as "
                    f"{skeleton!r}; it can pass for another skill",
                )
            )
    if not name.isascii() or " " in name or "<" in name:
        phrases = suspicious_phrases(name)
        if phrases:
            out.append(
                (
                    "suspicious-name",
                    f"name reads like instructions to the model ({'; '.join(phrases)}): "
                    "review this skill before trusting it",
                )
            )
    if description:
        hidden = invisible_characters(description)
        if hidden:
            out.append(
                (
                    "invisible-characters",
                    "description holds control or invisible characters "
                    f"({', '.join(hidden[:6])}); they are removed from listings",
                )
            )
        phrases = suspicious_phrases(description)
        if phrases:
            out.append(
                (
                    "suspicious-description",
                    "description reads like instructions to the model, not a description "
                    f"({'; '.join(phrases)}): review this skill before trusting it",
                )
            )
    return out


# -- names of the files in a skill's folder ------------------------------------


def name_refusal(name: str) -> str | None:
    """Why the file or folder name (or ``/``-separated relative path) ``name`` inside a
    skill's folder is refused (``"invisible characters (U+200B ZERO WIDTH SPACE)"``),
    or ``None`` when it is not.

    A name is refused when it holds a control, format, private-use, unassigned
    or separator code point (what :func:`invisible_characters` reports: Unicode
    tag characters, bidi overrides and isolates, zero-width spaces and joiners,
    soft hyphens …). Such a name cannot be cleaned the way text is (the file is
    found only by its exact name), so every path that lists, reads or copies a
    skill's files leaves the entry out: ``skill://`` listings and reads, the MCP
    server's resources, the adapters' file tools, ``show`` and ``export``.
    Line breaks and tabs are refused too (a name is one line of a listing).
    Letters with combining marks (``résumé.md``, in NFC or NFD), other scripts
    and single emoji are names like any other; an emoji sequence joined by
    U+200D is refused with the rest.

    The reason names the code points, so it can be shown as is; show the name
    itself with ``escape_controls(name, invisible=True)``.
    """
    if name.isprintable():  # one C pass: no control, format, unassigned or separator
        return None
    # tab and line breaks too: a name is one line of a listing
    hidden = sorted({c for c in name if unicodedata.category(c) in _INVISIBLE_CATEGORIES})
    if not hidden:
        return None  # spaces other than U+0020 (not printable, but visible)
    shown = ", ".join(f"U+{ord(c):04X} {unicodedata.name(c, 'a control')}" for c in hidden[:4])
    more = f" and {len(hidden) - 4} more" if len(hidden) > 4 else ""
    return f"invisible characters ({shown}{more})"


# -- text bound for a model ---------------------------------------------------

# Unicode tag characters (invisible, read by models as text), bidi embeddings,
# overrides and isolates, and zero-width characters
_MODEL_INVISIBLE = re.compile(
    "[\U000e0000-\U000e007f\u202a-\u202e\u2066-\u2069\u200b-\u200d\u2060\ufeff]"
)


def count_invisible(text: str) -> int:
    """How many characters :func:`strip_invisible` would remove."""
    if text.isascii():
        return 0
    return len(_MODEL_INVISIBLE.findall(text))


def strip_invisible(text: str) -> tuple[str, int]:
    """``text`` without Unicode tag characters (U+E0000–U+E007F), bidi controls
    (U+202A–U+202E, U+2066–U+2069) and zero-width characters (U+200B–U+200D,
    U+2060, U+FEFF), and how many were removed: what every model-facing path
    applies. ASCII text is returned as is, at the cost of one test."""
    if text.isascii():
        return text, 0
    return _MODEL_INVISIBLE.subn("", text)


# -- text bound for a terminal ------------------------------------------------

# C0 and C1 controls, DEL, line/paragraph separators, bidi embeddings,
# overrides, isolates and marks, and lone surrogates: what can drive a
# terminal (ESC starts CSI/OSC sequences: cursor moves, title changes, OSC 52
# clipboard writes; U+009B is an 8-bit CSI) or reorder what it shows.
_TERMINAL_CONTROLS = (
    "\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
)
_CONTROL_RE: dict[str, re.Pattern[str]] = {}


def _escape_char(ch: str, style: str) -> str:
    code = ord(ch)
    if style == "json":
        return f"\\u{code:04x}"
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def escape_controls(
    text: str, *, keep: str = "\n\t", invisible: bool = False, style: str = "python"
) -> str:
    """``text`` with every character that can drive or mislead a terminal written
    visibly: ``ESC`` becomes ``\\x1b``, U+202E ``\\u202e``.

    Escaped: C0 and C1 controls and DEL (except those in ``keep``), line and
    paragraph separators, bidi controls and lone surrogates; with
    ``invisible`` also every other format, private-use and unassigned code point
    (for one-line fields such as names, where a zero-width character only
    hides something). ``style="json"`` writes ``\\uXXXX`` escapes, which keep a
    JSON document valid and its data the same.
    """
    if invisible:
        if text.isprintable():
            return text
        out = []
        for ch in text:
            if ch not in keep and unicodedata.category(ch) in _INVISIBLE_CATEGORIES:
                out.append(_escape_char(ch, style))
            else:
                out.append(ch)
        return "".join(out)
    pattern = _CONTROL_RE.get(keep)
    if pattern is None:
        chars = "".join(f"\\x{ord(c):02x}" for c in keep if ord(c) < 0x100)
        rx = f"[{_TERMINAL_CONTROLS}]" if not chars else f"(?![{chars}])[{_TERMINAL_CONTROLS}]"
        pattern = _CONTROL_RE[keep] = re.compile(rx)
    if text.isascii() and text.isprintable():
        return text
    return pattern.sub(lambda m: _escape_char(m.group(), style), text)
