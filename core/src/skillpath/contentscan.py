"""Content checks: what a skill would make the model do, found before it reaches the model.

A skill is instructions the agent follows with the user's permissions. These
checks read a skill's name, description, body and text files (scripts and
references) and report what deserves a look before anyone trusts it. Each
:class:`ContentFinding` has a stable ``id``, a ``severity`` (``high``,
``medium``, ``low``), the file and line, a short reason and the matched text
(escaped, at most 80 characters).

========================= ======== ===================================================
id                        severity what it means
========================= ======== ===================================================
``invisible-tag-chars``   high     Unicode tag characters (U+E0000–U+E007F): invisible,
                                   read by models as text — a hidden instruction
``bidi-override``         high     bidirectional overrides/isolates (U+202A–U+202E,
                                   U+2066–U+2069): text that reads otherwise than it runs
``zero-width``            medium   zero-width characters (U+200B–U+200D, U+2060, a
                                   U+FEFF that is not a file's first character)
``agent-override``        high     "ignore previous instructions", "you are now …",
                                   "override your system prompt"
``hide-from-user``        high     "do not tell the user", "without the user knowing",
                                   "hide this from the user"
``disable-confirmation``  medium   "--dangerously-skip-permissions", "do not ask for
                                   confirmation", auto-approve switches
``pipe-to-shell``         high     ``curl … | sh``, ``wget -O- … | bash``, ``bash <(curl …)``,
                                   ``iex (iwr …)``
``download-and-execute``  high     a download made executable and run (``chmod +x``,
                                   ``python x.py`` after ``curl -o``)
``encoded-payload``       high     decoded text run (``base64 -d | sh``, ``eval(atob(``,
                                   ``exec(base64.b64decode(``), or ``medium``: a base64
                                   blob of 400+ characters
``credential-read``       high     reads of credential stores (``~/.aws/credentials``,
                                   ``~/.ssh/id_*``, ``.netrc``, ``.git-credentials``,
                                   ``~/.kube/config``, ``/etc/shadow`` …)
``outbound-sink``         medium   requests to paste/webhook collectors (webhook.site,
                                   Discord/Slack webhooks, requestbin, ngrok, pipedream…);
                                   ``high`` in a file that also reads secrets
                                   (``os.environ``/``$…_KEY``/``$…_TOKEN``, a credential
                                   store)
``invisible-file-name``   high     a file or folder of the skill whose name holds invisible
                                   characters (:func:`skillpath.textguard.name_refusal`):
                                   it is refused — not listed, read or copied — by every
                                   path; ``medium`` when they are only zero-width or
                                   other format characters (no tag, bidi or control)
========================= ======== ===================================================

:func:`scan_skill` runs them all over one skill (its text files bounded by
:data:`MAX_FILES` and :data:`MAX_FILE_BYTES`, links never followed) and keeps the
findings per content digest in this process, so a second look costs a hash.
:func:`strip_invisible` removes the invisible characters of the first three
rows from text: every model-facing path applies it (see
:meth:`skillpath.SkillSession.invoke` and :meth:`~skillpath.SkillSession.resolve`).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import stat
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from skillpath.textguard import (
    count_invisible,
    escape_controls,
    name_refusal,
    strip_invisible,
    suspicious_spans,
)

if TYPE_CHECKING:
    from skillpath.model import Skill

__all__ = [
    "MAX_FILES",
    "MAX_FILE_BYTES",
    "RULES",
    "SEVERITIES",
    "ContentFinding",
    "count_invisible",
    "is_script",
    "name_findings",
    "read_text",
    "resource_findings",
    "scan_skill",
    "scan_text",
    "skill_text_files",
    "sort_findings",
    "strip_invisible",
    "to_sarif",
]

#: Text files of one skill folder that are read (besides ``SKILL.md``).
MAX_FILES = 64
#: Bytes of one file that are read.
MAX_FILE_BYTES = 256 * 1024
#: Severities, worst first.
SEVERITIES = ("high", "medium", "low")
#: Findings kept per content digest in this process.
_MEMO_SIZE = 4096

_SUFFIX_TEXT = (
    ".md .txt .py .sh .bash .zsh .fish .ps1 .js .mjs .cjs .ts .rb .pl .php .json .yaml .yml "
    ".toml .ini .cfg .html .xml .csv .sql .go .rs .lua .bat .cmd"
)
_TEXT_SUFFIXES = frozenset(_SUFFIX_TEXT.split())


@attrs.frozen
class ContentFinding:
    """One content finding (see the module docstring for the ids)."""

    id: str
    severity: str
    reason: str
    path: Path | None
    line: int | None
    excerpt: str

    def location(self) -> str:
        """``path:line`` (or what is known of it)."""
        where = str(self.path) if self.path is not None else "<text>"
        return f"{where}:{self.line}" if self.line else where

    def to_json(self) -> dict[str, Any]:
        """``{id, severity, reason, path, line, excerpt}``."""
        return {
            "id": self.id,
            "severity": self.severity,
            "reason": self.reason,
            "path": str(self.path) if self.path is not None else None,
            "line": self.line,
            "excerpt": self.excerpt,
        }


# -- invisible characters --------------------------------------------------------------


# -- the rules -------------------------------------------------------------------------


class _Lazy:
    """A regular expression compiled on its first use, so importing the checks costs
    no compiles (the same pattern and flags as ``re.compile`` would be given)."""

    __slots__ = ("_flags", "_pattern", "_rx")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._pattern = pattern
        self._flags = flags
        self._rx: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        """The compiled expression (compiled now if it was not yet)."""
        rx = self._rx
        if rx is None:
            rx = self._rx = re.compile(self._pattern, self._flags)
        return rx

    def search(self, string: str) -> re.Match[str] | None:
        """``re.Pattern.search``."""
        return self.compiled().search(string)

    def match(self, string: str) -> re.Match[str] | None:
        """``re.Pattern.match``."""
        return self.compiled().match(string)

    def finditer(self, string: str) -> Iterator[re.Match[str]]:
        """``re.Pattern.finditer``."""
        return self.compiled().finditer(string)


def _rx(pattern: str) -> _Lazy:
    return _Lazy(pattern, re.IGNORECASE)


_TAGS = _Lazy("[\U000e0000-\U000e007f]")
_BIDI = _Lazy("[\u202a-\u202e\u2066-\u2069]")
_ZERO_WIDTH = _Lazy("[\u200b-\u200d\u2060\ufeff]")


_SHELLS = (
    r"(?:sudo\s+(?:-\S+\s+)*)?(?:ba|z|k|c|tc|da|fi|a)?sh\b"
    r"|\bpython[0-9.]*\b|\bperl\b|\bruby\b|\bnode\b"
)
#: ``(id, severity, reason, pattern source)`` of :data:`RULES` (compiled on first use).
_RULE_SOURCES: tuple[tuple[str, str, str, str], ...] = (
    (
        "pipe-to-shell",
        "high",
        "downloads a script and pipes it straight into an interpreter",
        (
            # something after the command word (a URL, a variable, an option): ``curl |
            # sh`` and ``curl|bash`` alone name the practice, they download nothing
            r"\b(?:curl|wget|fetch|iwr|invoke-webrequest|invoke-restmethod|irm)\b\s*[^|\s]"
            r"[^|\n]*\|\s*(?:" + _SHELLS + r"|iex\b|invoke-expression\b)"
        ),
    ),
    (
        "pipe-to-shell",
        "high",
        "runs a downloaded script through process substitution or command substitution",
        (
            r"(?:\b(?:ba|z)?sh\s+<\(\s*(?:curl|wget)\b|\b(?:ba|z)?sh\s+-c\s+[\"']?\$\(\s*(?:curl|wget)\b"
            r"|\biex\s*\(\s*(?:iwr|irm|invoke-webrequest|new-object\s+net\.webclient)\b)"
        ),
    ),
    (
        "download-and-execute",
        "high",
        "downloads a file, then makes it executable or runs it",
        (
            r"\b(?:curl|wget)\b[^\n;&|]*\s(?:-o|-O|--output)\s*(\S+)[^\n]*(?:&&|;)\s*"
            r"(?:chmod\s+\+?[0-7]*x|\./|(?:ba|z)?sh\s|python[0-9.]*\s|bash\s)"
        ),
    ),
    (
        "encoded-payload",
        "high",
        "decodes hidden text and runs it",
        (
            r"(?:base64\s+(?:-d|--decode|-D)\b[^\n]*\|\s*(?:" + _SHELLS + r")"
            r"|\beval\s*\(\s*(?:atob|Buffer\.from)\s*\("
            r"|\bexec\s*\(\s*(?:base64\.b64decode|codecs\.decode|bytes\.fromhex|zlib\.decompress)"
            r"|\bpowershell(?:\.exe)?\b[^\n]*\s-(?:e|enc|encodedcommand)\s+[A-Za-z0-9+/=]{20,})"
        ),
    ),
    (
        "credential-read",
        "high",
        "reads a credential store",
        (
            r"(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|/home/[^/\s]+|/root)?/?"
            r"(?:\.aws/credentials|\.ssh/id_[a-z0-9_]+(?![a-z0-9_]|\.pub)|\.netrc\b|"
            r"\.git-credentials|\.kube/config|\.docker/config\.json|\.config/gcloud/"
            r"(?:credentials|application_default_credentials|access_tokens)|\.pypirc|"
            r"\.npmrc|\.gnupg/|Library/Keychains|\.password-store)"
            r"|/etc/shadow\b|\bsecurity\s+find-(?:generic|internet)-password\b"
        ),
    ),
    (
        "outbound-sink",
        "medium",
        "sends data to a collector service (web hooks, request bins, tunnels)",
        (
            r"\b(?:webhook\.site|hooks\.slack\.com/services|discord(?:app)?\.com/api/webhooks|"
            r"requestbin\.|pipedream\.net|ngrok(?:-free)?\.(?:io|app|dev)|interact\.sh|"
            r"burpcollaborator\.net|oast\.(?:fun|pro|live|site|online|me)|canarytokens\.com|"
            r"pastebin\.com/api|transfer\.sh|api\.telegram\.org/bot)"
        ),
    ),
    (
        "disable-confirmation",
        "medium",
        "turns off the agent's confirmations or permission checks",
        (
            r"--dangerously-skip-permissions|--dangerously-bypass-approvals|--yolo\b|"
            r"\bbypassPermissions\b|\b(?:without|never|do\s+not|don'?t)\s+(?:ask(?:ing)?|"
            r"prompt(?:ing)?|wait(?:ing)?)\s+(?:the\s+user\s+)?for\s+(?:confirmation|permission|"
            r"approval)|\bauto[- ]?approve\s+(?:all|every)"
        ),
    ),
    (
        "hide-from-user",
        "high",
        "tells the agent to keep something from the user",
        (
            r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|show|notify|alert|mention\s+(?:this|it)"
            r"\s+to|reveal\s+(?:this|it)?\s*to)\s+the\s+user\b|\bwithout\s+(?:the\s+user(?:'s)?\s+"
            r"(?:knowing|knowledge|noticing)|telling\s+the\s+user|informing\s+the\s+user)\b|"
            r"\bhide\s+(?:this|it|these|the\s+\w+)\s+from\s+the\s+user\b|\bsilently\s+"
            r"(?:exfiltrate|upload|send|post)\b"
        ),
    ),
)


@functools.cache
def _rules() -> tuple[tuple[str, str, str, re.Pattern[str]], ...]:
    """:data:`RULES`, compiled on first use: a process that never checks a text (a
    ``list`` whose findings are all kept) never pays for the compiles."""
    return tuple(
        (fid, sev, why, re.compile(src, re.IGNORECASE)) for fid, sev, why, src in _RULE_SOURCES
    )


#: ``(id, severity, reason, pattern)``, tried over every line of text (compiled on
#: first use, through the module's ``__getattr__``).
RULES: tuple[tuple[str, str, str, re.Pattern[str]], ...]


def __getattr__(name: str) -> Any:
    """``RULES``: ``(id, severity, reason, pattern)``, tried over every line of text
    (compiled on first use)."""
    if name == "RULES":
        return _rules()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: What comes before an instruction given as an order: the start of the line or a
#: sentence, a list mark, or a word that leads into an imperative ("please", "then").
_IMPERATIVE = _Lazy(
    r"(?:^|[.!?:;,(*>\-]|\b(?:please|now|then|and|first|also|just|immediately|always|"
    r"must|should|to))\s*$",
    re.IGNORECASE,
)
#: "payloads designed to leak the system prompt": the purpose of something described,
#: not an order (the "to" of :data:`_IMPERATIVE` led by a participle)
_PURPOSE = _Lazy(r"\b(?:designed|intended|meant|crafted|built|used)\s+to\s*$", re.IGNORECASE)
_CODE_FENCE = _Lazy(r"^\s*(?:```|~~~)")
_SECRETS = _rx(
    r"\bos\.environ\b|\bos\.getenv\b|process\.env\b|\$\{?[A-Z0-9_]*(?:KEY|TOKEN|SECRET|"
    r"PASSWORD)[A-Z0-9_]*\}?|\bgetpass\b"
)
_BLOB = _Lazy(r"[A-Za-z0-9+/]{400,}={0,2}")
_PLAIN_HTTP = _Lazy(r"\bhttp://|\b(?:\d{1,3}\.){3}\d{1,3}\b|://attacker\b", re.IGNORECASE)
_READ_VERB = _rx(
    r"\b(?:cat|less|more|head|tail|cp|scp|rsync|tar|zip|base64|curl|wget|nc|xxd|strings|grep|"
    r"type|Get-Content)\s|\b(?:open|read_text|read_bytes|readFile|readFileSync|load)\s*\("
)
_SCRIPT_SUFFIX_TEXT = (
    ".sh .bash .zsh .fish .ps1 .py .js .mjs .cjs .ts .rb .pl .php .bat .cmd .go .rs .lua"
)
_SCRIPT_SUFFIXES = frozenset(_SCRIPT_SUFFIX_TEXT.split())
#: a regular expression being written: a detector's own rule, not an action
_PATTERN_CODE = _Lazy(r"""(?:\br['"]|re\.compile\(|RegExp\(|\bgrep\s+-[A-Za-z]*E)""")
_COMMENTS = ("#", "//", "--", "*", "/*", "REM ", "rem ", "::")
_PHRASE_WORDS = _rx(
    r"ignore|disregard|forget|override|bypass|system|you\s+are\s+now|instructions|user"
)
_PHRASE_IDS = {
    "ignore previous instructions": "agent-override",
    "disregard all prior": "agent-override",
    "system prompt": "agent-override",
    "new instructions": "agent-override",
    "conceal from the user": "hide-from-user",
}


def _excerpt(text: str, start: int, end: int) -> str:
    piece = text[max(0, start) : min(len(text), end)]
    piece = " ".join(piece.split())
    if len(piece) > 80:
        piece = piece[:79] + "…"
    return escape_controls(piece)


def _invisible(text: str, path: Path | None, first_line: int) -> list[ContentFinding]:
    if text.isascii():
        return []
    out: list[ContentFinding] = []
    for fid, severity, rx, what in (
        ("invisible-tag-chars", "high", _TAGS, "Unicode tag characters (invisible to people)"),
        ("bidi-override", "high", _BIDI, "bidirectional control characters"),
        ("zero-width", "medium", _ZERO_WIDTH, "zero-width characters"),
    ):
        hits = [m for m in rx.finditer(text) if not (fid == "zero-width" and m.start() == 0)]
        if not hits:
            continue
        line = first_line + text.count("\n", 0, hits[0].start())
        shown = ", ".join(sorted({f"U+{ord(m.group()):04X}" for m in hits})[:4])
        out.append(
            ContentFinding(
                fid,
                severity,
                f"{len(hits)} {what} ({shown}); they are removed before text reaches a model",
                path,
                line,
                _excerpt(
                    text,
                    max(text.rfind("\n", 0, hits[0].start()) + 1, hits[0].start() - 30),
                    hits[0].end() + 30,
                ),
            )
        )
    return out


def _quoted(line: str, start: int, end: int) -> bool:
    """The match sits in an inline code span or quotes, or the line is a table row or a
    block quote: text that shows an example rather than one that instructs."""
    head = line[:start]
    if line.lstrip().startswith(("|", ">")):
        return True
    for mark in ("`", '"', "\u201c", "'"):
        closing = "\u201d" if mark == "\u201c" else mark
        if head.count(mark) % 2 == 1 and closing in line[end:]:
            return True
    return False


_PRINT = _Lazy(r"""^\s*(?:echo|printf)\s+(?:-[a-zA-Z]+\s+)*(["'])""")


def _printed(line: str, start: int) -> bool:
    """The match at ``start`` sits in the one quoted argument of an ``echo``/``printf``
    that prints to the terminal (``echo "  retrieve with: security find-generic-password
    …"``): a hint shown to the user, unless a command substitution before it (``$(``, a
    backtick) would run it or the line pipes or writes what it prints somewhere."""
    m = _PRINT.match(line)
    if m is None or start < m.end():
        return False
    quote = m.group(1)
    closing = [i for i in range(m.end(), len(line)) if line[i] == quote and line[i - 1] != "\\"]
    if not closing or closing[0] < start:
        return False  # the quoted argument closed before the match, or never
    tail = line[closing[0] + 1 :].strip()
    if tail not in ("", ">&2", "1>&2") and not tail.startswith("#"):
        return False  # "echo 'cat ~/.netrc' | sh", "> run.sh"
    head = line[m.end() : start]
    return quote == "'" or not re.search(r"(?<!\\)(?:\$\(|`)", head)


def _severity(
    fid: str, base: str, line: str, m: re.Match[str], script: bool, secrets: bool
) -> tuple[str, str]:
    """The severity of one match in its context, and what to add to the reason."""
    if base == "high" and script and line.lstrip().startswith(_COMMENTS):
        return "medium", " (in a comment)"
    if base == "high" and script and _PATTERN_CODE.search(line[: m.start()]):
        return "medium", " (inside a pattern the code matches against: a detector's rule)"
    quotable = fid in ("agent-override", "hide-from-user")
    if base == "high" and not script and quotable and _quoted(line, m.start(), m.end()):
        return "medium", " (quoted: an example, or an instruction in disguise)"
    if fid in ("pipe-to-shell", "download-and-execute"):
        if script:
            return "high", ", in a file that runs"
        if _PLAIN_HTTP.search(line):
            return "high", ", from a plain-http or bare-address URL"
        return "medium", " (in documentation, from an https URL: check the source)"
    if (
        fid == "encoded-payload"
        and not script
        and not m.group().lower().startswith(("base64", "powershell"))
    ):
        # eval(atob(…)) / exec(b64decode(…)) written in documentation: code shown (an
        # XSS payload, a threat model's sample), not a command the agent is told to run
        return "medium", " (code shown in documentation, not in a file that runs)"
    if fid == "credential-read":
        if not script and line.lstrip().startswith(("|", ">")):
            return "medium", " (in a table or a quote: an example)"
        if script and _printed(line, m.start()):
            return "medium", " (in text the script prints, not a command it runs)"
        if script or _READ_VERB.search(line):
            return "high", ""
        return "medium", " (named, not read here)"
    if fid == "outbound-sink":
        # a commented-out request (``// await fetch('https://hooks.slack.com/…')``) sends
        # nothing, whatever else the file reads
        if secrets and script and not line.lstrip().startswith(_COMMENTS):
            return "high", ", in a file that also reads secrets"
        return base, ""
    return base, ""


def _encoded_like(run: str) -> bool:
    """A run of base64 letters that looks encoded (mixed case and digits, many distinct
    characters), not a long word or a row of one character."""
    classes = sum(
        (
            any(c.isupper() for c in run),
            any(c.islower() for c in run),
            any(c.isdigit() for c in run),
        )
    )
    return classes >= 2 and len(set(run)) >= 20


#: Words one of which is in every line a rule can match (lower case): a rule runs
#: only over the lines of ASCII text that hold one of its words, which skips most
#: of every ordinary file (substring tests cost far less than the regexes).
_RULE_WORDS: tuple[tuple[str, ...], ...] = (
    ("curl", "wget", "fetch", "iwr", "invoke-", "irm"),
    ("curl", "wget", "iwr", "irm", "invoke-", "new-object"),
    ("curl", "wget"),
    (
        "base64",
        "atob",
        "buffer.from",
        "b64decode",
        "codecs.decode",
        "fromhex",
        "decompress",
        "powershell",
    ),
    (
        "credentials",
        ".ssh/",
        ".netrc",
        ".kube/",
        ".docker/",
        "gcloud/",
        ".pypirc",
        ".npmrc",
        ".gnupg/",
        "keychains",
        ".password-store",
        "/etc/shadow",
        "find-generic",
        "find-internet",
    ),
    (
        "webhook",
        "hooks.slack",
        "requestbin",
        "pipedream",
        "ngrok",
        "interact.sh",
        "burpcollaborator",
        "oast.",
        "canarytokens",
        "pastebin",
        "transfer.sh",
        "telegram",
    ),
    ("dangerously", "yolo", "bypasspermissions", "confirmation", "permission", "approv"),
    ("user", "silently"),
)
_PHRASE_KEYS = (
    "ignore",
    "disregard",
    "forget",
    "override",
    "bypass",
    "system",
    "you",
    "instructions",
    "user",
)
#: The bit of a line's mask that says it holds one of ``_PHRASE_KEYS``.
_PHRASES = 1 << len(_RULE_WORDS)


def _trigger_masks() -> dict[str, int]:
    """Each trigger word and the bits of what it may set off (bit ``i``: ``RULES[i]``;
    :data:`_PHRASES`). One regex finds the words without overlaps, so a word also
    carries the bits of every word inside it (``irm`` in ``confirmation``) or
    starting inside it (``hooks.slack`` in ``webhooks.slack``): a line is tried with
    every rule one of whose words it holds, and perhaps a few more."""
    own: dict[str, int] = {}
    for bit, words in enumerate(_RULE_WORDS):
        for w in words:
            own[w] = own.get(w, 0) | 1 << bit
    for w in _PHRASE_KEYS:
        own[w] = own.get(w, 0) | _PHRASES
    masks = dict(own)
    for w in own:
        tails = tuple(w[k:] for k in range(1, len(w)))
        for v, bits in own.items():
            if v != w and (v in w or v.startswith(tails)):
                masks[w] |= bits
    return masks


def _trie(words: Iterable[str]) -> str:
    """A regex of ``words`` as a tree of their shared beginnings (``c(?:url|redentials)``):
    one branch tried per letter instead of one alternative per word."""
    groups: dict[str, list[str]] = {}
    end = False
    for w in words:
        if w:
            groups.setdefault(w[0], []).append(w[1:])
        else:
            end = True
    alts = [re.escape(k) + _trie(rest) for k, rest in sorted(groups.items())]
    if not alts:
        return ""
    tree = alts[0] if len(alts) == 1 and not end else "(?:" + "|".join(alts) + ")"
    return f"(?:{tree})?" if end else tree


@functools.cache
def _triggers() -> tuple[dict[str, int], re.Pattern[str]]:
    """The masks of :func:`_trigger_masks` and every trigger word in one regex (a
    match is one of the words), built on first use."""
    masks = _trigger_masks()
    return masks, re.compile(_trie(masks))


#: The characters other than ASCII letters that ``re.IGNORECASE`` matches with an
#: ASCII letter (U+212A KELVIN SIGN lower-cases to ``k``; U+0130 lower-cases to two
#: characters, so text holding it is tried with every rule on every line).
_FOLD = {0x131: "i", 0x17F: "s"}


#: The bit of a token's mask that says it is long enough to hold a base64 blob.
_LONG = _PHRASES << 1
#: Whitespace-separated tokens (lower-cased) already looked at, and the bits of the
#: trigger words in each (``0``: none); :data:`_HOT_TOKENS`, those with any bit.
#: Text is mostly words seen before (the vocabulary of skills is small), so a text
#: costs one split and two set operations, and the trigger regex runs only over
#: its new words. Past :data:`_TOKENS_MAX` tokens (about 9 MB) both start again.
_TOKEN_MASKS: dict[str, int] = {}
_HOT_TOKENS: set[str] = set()
_TOKENS_MAX = 100_000


def _token_masks(tokens: set[str]) -> tuple[dict[str, int], set[str]]:
    """The token tables, with every one of ``tokens`` in them."""
    global _TOKEN_MASKS, _HOT_TOKENS
    known, hot = _TOKEN_MASKS, _HOT_TOKENS
    new = tokens.difference(known)
    if not new:
        return known, hot
    if len(known) + len(new) > _TOKENS_MAX:
        # new tables (a thread using the old ones keeps them)
        known, hot = _TOKEN_MASKS, _HOT_TOKENS = {}, set()
        new = tokens
    # no trigger word and no long token among the new ones (the usual case): one search
    trigger_masks, triggers = _triggers()
    joined = "\n".join(new)
    if triggers.search(joined) is None and max(map(len, new)) < 400:
        known.update(dict.fromkeys(new, 0))
        return known, hot
    get = trigger_masks.__getitem__
    finditer = triggers.finditer
    for tok in new:
        mask = _LONG if len(tok) >= 400 else 0
        for m in finditer(tok):
            mask |= get(m.group())
        if mask:
            hot.add(tok)
        known[tok] = mask
    return known, hot


def _line_masks(text: str) -> tuple[dict[int, int], bool] | None:
    """``({line index: mask}, long)`` of the lines of ``text`` that hold a trigger word
    (case folded as the rules' ``IGNORECASE`` folds), and whether a whitespace-free
    run of 400 characters may hold a base64 blob; ``None`` when the text cannot be
    folded letter for letter (every rule then runs on every line).

    A trigger word holds no whitespace, so it lies within one token of the text
    split at whitespace: the tokens that hold one (:func:`_token_masks`) are found
    again in the text to learn their lines."""
    if text.isascii():
        low = text.lower()
    else:
        if "\u0130" in text:
            return None
        low = text.lower()
        if "\u0131" in low or "\u017f" in low:
            low = low.translate(_FOLD)
    tokens = set(low.split())
    if not tokens:
        return {}, False
    known, hot = _token_masks(tokens)
    found = tokens & hot
    if not found:
        return {}, False
    long = False
    places: list[tuple[int, int]] = []
    find = low.find
    for tok in found:
        mask = known.get(tok)
        if mask is None:  # the tables started again meanwhile
            mask = _LONG if len(tok) >= 400 else 0
            trigger_masks, triggers = _triggers()
            for m in triggers.finditer(tok):
                mask |= trigger_masks[m.group()]
        if mask & _LONG:
            long = True
            mask &= ~_LONG
            if not mask:
                continue
        pos = find(tok)
        while pos >= 0:
            places.append((pos, mask))
            pos = find(tok, pos + 1)
    masks: dict[int, int] = {}
    line = 0
    last = 0
    count = low.count
    for pos, mask in sorted(places):
        line += count("\n", last, pos)
        last = pos
        masks[line] = masks.get(line, 0) | mask
    return masks, long


#: base64 letters become ``a``, everything else a space: a blob is a run of 400 ``a``
_B64_TABLE = bytes(
    ord("a") if chr(i).isascii() and (chr(i).isalnum() or chr(i) in "+/") else ord(" ")
    for i in range(256)
)
_B64_RUN = b"a" * 400


def _reads_secrets(text: str) -> bool:
    return bool(_SECRETS.search(text)) or any(
        fid == "credential-read" and rx.search(text) for fid, _s, _r, rx in _rules()
    )


def _blob_possible(text: str) -> bool:
    """Whether ``text`` may hold a run of 400 base64 letters (one table lookup per
    byte and one substring search, instead of a regex tried at every position)."""
    if len(text) < 400:
        return False
    return _B64_RUN in text.encode("utf-8", "surrogatepass").translate(_B64_TABLE)


def scan_text(
    text: str, *, path: Path | None = None, first_line: int = 1, script: bool = False
) -> list[ContentFinding]:
    """Every finding in ``text`` (one per rule and line; invisible characters once per
    kind). ``first_line`` is the file line of ``text``'s first line; ``script`` says the
    text is a file that runs (a script), where downloads, credential reads and
    outbound requests weigh more than in documentation."""
    out = _invisible(text, path, first_line)
    found = _line_masks(text)
    hits = None if found is None else found[0]
    blobs = (found is None or found[1]) and _blob_possible(text)
    if hits is not None and not hits and not blobs:
        return out
    rules = _rules()
    everything = (1 << len(rules)) - 1 | _PHRASES
    secrets: bool | None = None  # whether the text reads secrets: asked of sinks only
    lines = text.split("\n")
    seen: set[tuple[str, int]] = set()
    # without a possible blob, only the lines that hold a trigger word are looked at
    order = range(len(lines)) if hits is None or blobs else sorted(hits)
    for i in order:
        line = lines[i]
        mask = everything if hits is None else hits.get(i, 0)
        if not mask and not (blobs and len(line) >= 400):
            continue
        if not line.strip():
            continue
        number = first_line + i
        for bit, (fid, severity, reason, rx) in enumerate(rules):
            if not mask >> bit & 1:
                continue
            m = rx.search(line)
            if m is None or (fid, number) in seen:
                continue
            seen.add((fid, number))
            if secrets is None and fid == "outbound-sink":
                secrets = _reads_secrets(text)
            sev, extra = _severity(fid, severity, line, m, script, bool(secrets))
            why = reason + extra
            out.append(
                ContentFinding(
                    fid, sev, why, path, number, _excerpt(line, m.start() - 20, m.end() + 20)
                )
            )
        blob = _BLOB.search(line) if blobs and len(line) >= 400 else None
        if blob is not None and not _encoded_like(blob.group()):
            blob = None
        if blob is not None and ("encoded-payload", number) not in seen:
            seen.add(("encoded-payload", number))
            out.append(
                ContentFinding(
                    "encoded-payload",
                    "medium",
                    f"a base64 blob of {len(blob.group())} characters (what it decodes to is "
                    "not shown to a reviewer)",
                    path,
                    number,
                    _excerpt(line, blob.start(), blob.start() + 40),
                )
            )
        if not mask & _PHRASES:
            continue
        if _PHRASE_WORDS.search(line):
            for label, start, end in suspicious_spans(line):
                pid = _PHRASE_IDS.get(label)
                if pid is None or (pid, number) in seen:
                    continue
                seen.add((pid, number))
                quoted = _quoted(line, start, end)
                # "responses that repeat system prompt content", "requests share system
                # prompt": prose about prompts, not an order to reveal one
                prose = label == "system prompt" and (
                    not _IMPERATIVE.search(line[:start]) or bool(_PURPOSE.search(line[:start]))
                )
                reason = (
                    f"instructions aimed at the agent's own controls ({label})"
                    if pid == "agent-override"
                    else "tells the agent to keep something from the user"
                )
                sev = "medium" if quoted or prose else "high"
                if quoted:
                    reason += " (quoted: an example, or an instruction in disguise)"
                elif prose:
                    reason += " (said of something else, not asked of the agent)"
                out.append(ContentFinding(pid, sev, reason, path, number, _excerpt(line, 0, 80)))
    return out


# -- one skill -------------------------------------------------------------------------

_memo: OrderedDict[str, tuple[ContentFinding, ...]] = OrderedDict()
_memo_lock = threading.Lock()


def read_text(path: Path) -> str | None:
    """A regular file's text (bounded; never through a link), or ``None``."""
    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        data = os.read(fd, MAX_FILE_BYTES)
    except OSError:
        return None
    finally:
        os.close(fd)
    if b"\0" in data[:4096]:
        return None
    return data.decode("utf-8", "replace")


def skill_text_files(base: Path) -> tuple[list[Path], list[Path], list[Path]]:
    """``(folders, files, others)`` of skill folder ``base`` as :func:`scan_skill` reads
    it, on the shared walk (:func:`skillpath.resources.walk_skill_files`: bounded,
    contained, in its fixed order) as ``export`` copies the folder: dot entries kept
    (:data:`skillpath.resources.SKIP_FOLDERS` left out), links never followed.

    ``folders`` are the folders walked (``base`` first); ``files`` the text files
    besides ``SKILL.md`` (by suffix, or executable; at most :data:`MAX_FILES`, in
    walk order); ``others`` the entries not read: other files, links, and the files
    and folders whose names are refused (see :func:`name_findings`), which are
    neither read nor walked."""
    from skillpath.resources import walk_skill_files

    walk = walk_skill_files(base, hidden=True, follow_links=False)
    files: list[Path] = []
    others: list[Path] = []
    for entry in walk.entries:
        if entry.rel == "SKILL.md":
            continue
        path = entry.path
        if path.suffix.lower() in _TEXT_SUFFIXES or os.access(path, os.X_OK):
            if len(files) < MAX_FILES:  # past the bound: neither read nor signed
                files.append(path)
        else:
            others.append(path)
    others.extend(link.path for link in walk.links)
    others.extend(refusal.path for refusal in walk.refused)
    return list(walk.folders), files, others


_LOUD = _Lazy("[\U000e0000-\U000e007f\u202a-\u202e\u2066-\u2069\x00-\x1f\x7f-\x9f]")


def name_findings(base: Path, entries: Iterable[Path]) -> list[ContentFinding]:
    """An ``invisible-file-name`` finding for each of ``entries`` (paths below skill
    folder ``base``, such as the ``others`` of :func:`skill_text_files`) whose name is
    refused (:func:`skillpath.textguard.name_refusal`), in the order given.

    The finding's path and excerpt show the entry with its invisible characters
    escaped (``<base>/scripts/run\\u200b.sh``, excerpt ``scripts/run\\u200b.sh``):
    safe to print anywhere, never the name itself. ``high`` for tag characters,
    bidi controls and control characters, else ``medium``.
    """
    out: list[ContentFinding] = []
    for path in entries:
        reason = name_refusal(path.name)
        if reason is None:
            continue
        rel = os.path.relpath(path, base).replace(os.sep, "/")
        shown = escape_controls(rel, keep="", invisible=True)
        what = "folder" if path.is_dir() and not path.is_symlink() else "file"
        out.append(
            ContentFinding(
                "invisible-file-name",
                "high" if _LOUD.search(path.name) else "medium",
                f"{what} name holds {reason}: "
                f"the {what} is not listed, read or copied for any agent",
                base / shown,
                None,
                shown,
            )
        )
    return out


def is_script(path: Path) -> bool:
    """Whether a skill's file is one that runs (by suffix, or executable)."""
    return path.suffix.lower() in _SCRIPT_SUFFIXES or os.access(path, os.X_OK)


def _cached(key: str, compute: Any) -> tuple[ContentFinding, ...]:
    with _memo_lock:
        hit = _memo.get(key)
        if hit is not None:
            _memo.move_to_end(key)
            return hit
    value = tuple(compute())
    with _memo_lock:
        _memo[key] = value
        while len(_memo) > _MEMO_SIZE:
            _memo.popitem(last=False)
    return value


def _file_findings(path: Path, *, script: bool = False) -> tuple[ContentFinding, ...]:
    text = read_text(path)
    if text is None:
        return ()
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    found = _cached(f"{digest}:{int(script)}", lambda: scan_text(text, script=script))
    return tuple(attrs.evolve(f, path=path) for f in found)


def scan_skill(skill: Skill, *, resources: bool = True) -> list[ContentFinding]:
    """Every finding of one skill: its name and description, its ``SKILL.md`` (the whole
    file, so lines are file lines) or, off disk, its body, and — with ``resources`` —
    the text files of its folder (at most :data:`MAX_FILES`, links skipped). Worst
    severity first, then by file and line."""
    out: list[ContentFinding] = []
    if skill.path is not None:
        # the whole file: frontmatter (name, description) included, with file lines
        out.extend(_file_findings(skill.path))
    else:
        head = f"{skill.name}\n{skill.description or ''}"
        out.extend(attrs.evolve(f, line=None) for f in scan_text(head))
        try:
            body = skill.body
        except Exception:  # noqa: BLE001 - a plugin's body loader may raise anything
            body = ""
        out.extend(scan_text(body))
    if resources:
        out.extend(resource_findings(skill))
    return sort_findings(out)


def resource_findings(skill: Skill) -> list[ContentFinding]:
    """The findings of the text files of ``skill``'s folder besides its ``SKILL.md``
    (what :func:`scan_skill` adds with ``resources``), in file order."""
    out: list[ContentFinding] = []
    if skill.base_dir is not None and skill.path is not None:
        _folders, files, others = skill_text_files(skill.base_dir)
        for path in files:
            out.extend(_file_findings(path, script=is_script(path)))
        out.extend(name_findings(skill.base_dir, others))
    return out


def sort_findings(found: Iterable[ContentFinding]) -> list[ContentFinding]:
    """``found`` without repeats (one per id, file and line), worst severity first,
    then by file, line and id."""
    seen: set[tuple[str, str, int | None]] = set()
    out: list[ContentFinding] = []
    for f in found:
        key = (f.id, str(f.path), f.line)
        if key in seen:
            continue
        seen.add(key)
        out.append(f)
    rank = {s: i for i, s in enumerate(SEVERITIES)}
    return sorted(out, key=lambda f: (rank.get(f.severity, 9), str(f.path), f.line or 0, f.id))


def to_sarif(findings: Sequence[tuple[str, str, str, Path | None, int | None]]) -> dict[str, Any]:
    """A SARIF 2.1.0 log of ``(rule id, level, message, path, line)`` tuples, for CI code
    scanning (``level``: ``error``, ``warning`` or ``note``)."""
    rules = sorted({f[0] for f in findings})
    results = []
    for rule, level, message, path, line in findings:
        location: dict[str, Any] = {"artifactLocation": {"uri": path.as_posix() if path else ""}}
        if line:
            location["region"] = {"startLine": line}
        results.append(
            {
                "ruleId": rule,
                "level": level,
                "message": {"text": message},
                "locations": [{"physicalLocation": location}],
            }
        )
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "skillpath",
                        "informationUri": "https://github.com/skillpath/skillpath",
                        "rules": [{"id": r, "shortDescription": {"text": r}} for r in rules],
                    }
                },
                "results": results,
            }
        ],
    }
