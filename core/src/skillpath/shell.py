"""Inline shell in skill prompts: the policy, the syntax and the runner.

Syntax (Claude Code's): `` !`cmd` `` at the start of a line or after whitespace,
and fenced blocks opened with ```` ```! ```` and closed with ```` ``` ```` on a
line of its own. Every command is replaced by its standard output in one pass;
the output is never scanned again.

Policy (settings section ``[shell]``):

* ``enabled = false`` replaces every command with :data:`DISABLED_TEXT`;
* a skill may run commands only when its source level is in ``levels``
  (default ``user`` and ``managed``: project, package and remote skills are off
  unless listed); skills loaded over MCP (``loaded_from == "mcp"``) never run
  anything, whatever the settings say; auto-learned skills (provider
  ``managed``: text a model wrote) count as level ``learned``, off unless
  listed;
* each command runs under ``/bin/sh -c`` in the project's working directory, in
  its own process group, with stdin closed and an environment holding only the
  variables named in ``pass_env``; after ``timeout`` seconds the whole group
  is killed; output beyond ``max_output`` characters is cut with a marker;
* a skill of a trust tier that may not run shell (:mod:`skillpath.trust`,
  ``[trust] shell``; third-party by default) runs nothing, whatever its level;
* a command that exits non-zero, times out or cannot start aborts the
  invocation with :class:`~skillpath.errors.PromptError`.

Values never become command text. A placeholder inside a command (``$ARGUMENTS``,
``$N``, a named argument, ``${SKILL_DIR}`` …) is replaced by a reference to an
environment variable (``SKILLPATH_ARGUMENTS``, ``SKILLPATH_ARG_<N>``,
``SKILLPATH_SKILL_DIR`` …), written for the quoting around it
(:func:`data_reference`); the value travels in the command's environment, and
only the variables a command names are passed (:func:`data_env`). A value with
a NUL character cannot be passed and aborts the invocation. Values substituted
outside commands have their ``!``` and ```` ```! ```` openers defused so that
arguments can never smuggle in a command of their own.
"""

from __future__ import annotations

import bisect
import os
import re
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

import attrs

from skillpath.errors import PromptError

if TYPE_CHECKING:
    import subprocess

    from skillpath.model import Skill
    from skillpath.settings import Settings
    from skillpath.trust import TrustPolicy

__all__ = [
    "DATA_PREFIX",
    "DISABLED_TEXT",
    "DOUBLE",
    "HEREDOC",
    "HEREDOC_QUOTED",
    "LEARNED_LEVEL",
    "PLAIN",
    "SHELL_RE",
    "SINGLE",
    "CommandMap",
    "Heredoc",
    "ShellPolicy",
    "data_env",
    "data_reference",
    "defuse",
    "escape_heredoc",
    "render_inline_shell",
    "rewrite_heredoc",
    "run_shell",
    "scoped_env",
    "shell_spans",
    "stop_commands",
]

#: The level inline shell sees for auto-learned skills (provider ``managed``).
LEARNED_LEVEL = "learned"

#: What a command becomes when the policy does not let it run.
DISABLED_TEXT = "[shell command execution disabled by policy]"

#: A fenced ```` ```! ```` block (group ``block``) or an inline `` !`cmd` `` (group ``cmd``).
SHELL_RE = re.compile(
    r"^```![ \t]*\r?\n(?P<block>.*?)^```[ \t]*\r?$"
    r"|(?<!\S)!`(?P<cmd>[^`\n]+)`",
    re.MULTILINE | re.DOTALL,
)


def _may_hold_shell(text: str) -> bool:
    """False when ``text`` cannot hold a :data:`SHELL_RE` match: every match has
    ``!`` followed by a backtick (inline) or opens with ```` ```! ```` (a block).
    A substring test is much cheaper than the regex scan on a long body."""
    return "!`" in text or "```!" in text


_SHELL = "/bin/sh"
_STDERR_KEEP = 4000
_DRAIN_SECONDS = 2.0


@attrs.frozen
class ShellPolicy:
    """The ``[shell]`` settings as one object; see the module docstring."""

    enabled: bool = True
    levels: tuple[str, ...] = ("user", "managed")
    timeout: float = 30.0
    max_output: int = 30000
    pass_env: tuple[str, ...] = (
        "PATH",
        "HOME",
        "LANG",
        "LC_ALL",
        "TERM",
        "USER",
        "TMPDIR",
        "SHELL",
    )
    #: the trust tiers (:mod:`skillpath.trust`); ``None``: every tier as the defaults say
    trust: TrustPolicy | None = attrs.field(default=None, eq=False, repr=False)

    @classmethod
    def from_settings(cls, settings: Settings) -> ShellPolicy:
        """Build the policy from merged settings (schema defaults filled in)."""
        from skillpath.trust import TrustPolicy

        sec = settings.section("shell")
        return cls(
            enabled=bool(sec["enabled"]),
            levels=tuple(sec["levels"]),
            timeout=float(sec["timeout"]),
            max_output=int(sec["max_output"]),
            pass_env=tuple(sec["pass_env"]),
            trust=TrustPolicy.from_settings(settings),
        )

    def refusal(self, skill: Skill) -> str | None:
        """Why inline shell may not run for ``skill``, or ``None`` when it may."""
        if skill.source.loaded_from == "mcp":
            return "skills loaded over MCP never run inline shell"
        if not self.enabled:
            return "inline shell is disabled ([shell] enabled = false)"
        level = LEARNED_LEVEL if skill.source.provider == "managed" else skill.source.level
        if level not in self.levels:
            return f"skills of level {level!r} are not in [shell] levels"
        return self.tier_refusal(skill)

    def tier_refusal(self, skill: Skill) -> str | None:
        """Why ``skill``'s trust tier (:mod:`skillpath.trust`) may not run inline shell
        or scripts, or ``None`` when it may."""
        from skillpath.trust import TrustPolicy

        return (self.trust or TrustPolicy()).shell_refusal(skill)

    def allows(self, skill: Skill) -> bool:
        """True when inline shell may run for ``skill``."""
        return self.refusal(skill) is None


def shell_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every inline command and ```` ```! ```` block in ``text``."""
    if not _may_hold_shell(text):
        return []
    return [m.span() for m in SHELL_RE.finditer(text)]


# -- where a placeholder sits inside a command ---------------------------------

# The quoting contexts :class:`CommandMap` reports for an offset inside a command.
#: Outside any quotes.
PLAIN = "plain"
#: Inside double quotes.
DOUBLE = "double"
#: Inside single quotes.
SINGLE = "single"
#: Inside a heredoc whose delimiter is not quoted (expansions happen).
HEREDOC = "heredoc"
#: Inside a heredoc with a quoted delimiter (taken literally).
HEREDOC_QUOTED = "heredoc-quoted"

#: The prefix of the environment variables that carry values into commands.
DATA_PREFIX = "SKILLPATH_"
_DATA_REF = re.compile(r"SKILLPATH_[A-Z0-9_]*[A-Z0-9]")
_WORD_END = " \t\n;&|<>()"


@attrs.frozen
class Heredoc:
    """A here-document inside a command, in offsets of the whole text.

    ``delimiter`` is the delimiter word after quote removal and ``quoted``
    whether it was quoted (the body is then not expanded); the body runs from
    ``body_start`` to the start of the terminator line, ``body_end``.
    """

    word_start: int
    word_end: int
    delimiter: str
    quoted: bool
    body_start: int
    body_end: int


def data_reference(var: str, context: str) -> str:
    """The text that stands for environment variable ``var`` at a place of a
    command in quoting ``context`` (one of :data:`PLAIN`, :data:`DOUBLE`,
    :data:`SINGLE`, :data:`HEREDOC`, :data:`HEREDOC_QUOTED`).

    Bare: ``"${VAR}"`` (one word); inside ``"…"`` and here-documents:
    ``${VAR}``; inside ``'…'``: ``'"${VAR}"'`` (close, reference, reopen). A
    quoted here-document does not expand at all: :func:`rewrite_heredoc`
    turns it into a plain one first. Every form is balanced: whatever the
    context really is, the quoting after the reference is as before it, and the
    value itself is never command text.
    """
    if context == PLAIN:
        return f'"${{{var}}}"'
    if context == SINGLE:
        return f"'\"${{{var}}}\"'"
    return f"${{{var}}}"


_PLAIN_DELIMITER = re.compile(r"[A-Za-z0-9_.,:+=%@^~/-]+\Z")


def rewrite_heredoc(doc: Heredoc, text: str) -> str:
    """The unquoted delimiter word that replaces a quoted here-document's.

    The body is then escaped (see :func:`escape_heredoc`) so that it reads as
    before, and references to data expand.

    :raises PromptError: when the delimiter cannot be written unquoted.
    """
    if not _PLAIN_DELIMITER.match(doc.delimiter):
        raise PromptError(
            f"a placeholder sits in a here-document whose delimiter "
            f"{text[doc.word_start : doc.word_end]!r} cannot be unquoted; "
            "use a delimiter of letters and digits"
        )
    return doc.delimiter


def escape_heredoc(text: str) -> str:
    """Escape ``\\``, ``$`` and backticks: the body of a quoted here-document,
    written for an unquoted one."""
    return text.replace("\\", "\\\\").replace("$", "\\$").replace("`", "\\`")


class _Frame:
    __slots__ = ("doc", "kind")

    def __init__(self, kind: str, doc: tuple[int, int, str, bool, bool, int] | None = None) -> None:
        self.kind = kind
        self.doc = doc


_CONTEXTS = {"dq": DOUBLE, "sq": SINGLE, "doc": HEREDOC, "docq": HEREDOC_QUOTED}


def _context(stack: list[_Frame]) -> str:
    for frame in reversed(stack):
        if frame.kind != "brace":  # ${…} takes the quoting around it
            return _CONTEXTS.get(frame.kind, PLAIN)
    return PLAIN


def _heredoc_word(cmd: str, j: int) -> tuple[int, int, str, bool]:
    """Read a here-document delimiter word at ``j``: start, end, word, quoted."""
    n = len(cmd)
    while j < n and cmd[j] in " \t":
        j += 1
    start = j
    word: list[str] = []
    quoted = False
    while j < n and cmd[j] not in _WORD_END:
        c = cmd[j]
        if c in "'\"":
            close = cmd.find(c, j + 1)
            if close < 0:
                return start, n, "", True
            quoted = True
            word.append(cmd[j + 1 : close])
            j = close + 1
        elif c == "\\" and j + 1 < n:
            quoted = True
            word.append(cmd[j + 1])
            j += 2
        else:
            word.append(c)
            j += 1
    return start, j, "".join(word), quoted


def _lex(cmd: str, base: int) -> tuple[list[tuple[int, str]], list[Heredoc]]:
    """Quoting contexts of ``cmd`` (as ``(offset, context)`` changes) and its
    here-documents, offsets shifted by ``base``.

    A small reader of POSIX ``sh``: quotes, backslashes, ``(…)``, ``$(…)``,
    ``$((…))``, ``${…}``, backticks, comments and here-documents (``$'…'`` reads as
    ``$`` and a single-quoted string, as ``dash`` does). It serves fidelity
    only: values never enter command text, so a misreading can garble a value
    but never run one.
    """
    return _Lexer(cmd, base).run()


_Doc = tuple[int, int, str, bool, bool, int]


class _Lexer:
    """The state of :func:`_lex` reading one command: a stack of quoting frames, the
    here-documents announced on the current line, and what was found so far. Each
    ``_in_*`` method reads at ``i`` in one kind of frame and returns where to go on."""

    def __init__(self, cmd: str, base: int) -> None:
        self.cmd = cmd
        self.base = base
        self.n = len(cmd)
        self.marks: list[tuple[int, str]] = [(base, PLAIN)]
        self.docs: list[Heredoc] = []
        self.stack = [_Frame("top")]
        #: ``<<word`` read on this line: (word start, word end, delimiter, quoted, strip)
        self.pending: list[tuple[int, int, str, bool, bool]] = []
        self.line_start = True

    def run(self) -> tuple[list[tuple[int, str]], list[Heredoc]]:
        i = 0
        while i < self.n:
            i = self._step(i)
        for frame in self.stack:
            if frame.doc is not None:  # unterminated: the body runs to the end
                self._close_doc(frame.doc, self.n)
        return self.marks, self.docs

    def _mark(self, pos: int) -> None:
        self.marks.append((self.base + pos, _context(self.stack)))

    def _push(self, kind: str, at: int | None = None) -> None:
        self.stack.append(_Frame(kind))
        if at is not None:
            self._mark(at)

    def _pop(self, at: int) -> None:
        self.stack.pop()
        self._mark(at)

    def _close_doc(self, doc: _Doc, end: int) -> None:
        word_start, word_end, delim, quoted, _strip, body = doc
        b = self.base
        self.docs.append(Heredoc(b + word_start, b + word_end, delim, quoted, b + body, b + end))

    def _step(self, i: int) -> int:
        top = self.stack[-1]
        if top.doc is not None and self.line_start:
            after = self._doc_line(top.doc, top.kind, i)
            if after is not None:
                return after
        c = self.cmd[i]
        if c == "\n":
            return self._newline(i, top.kind)
        self.line_start = False
        kind = top.kind
        if kind == "sq":
            return self._in_quote(i, c, "'")
        if c == "\\":
            return i + 2
        after = self._substitution(i, c)
        if after is not None:
            return after
        if kind == "dq":
            return self._in_quote(i, c, '"')
        if kind == "doc":
            return i + 1
        return self._in_plain(i, c, kind)

    def _doc_line(self, doc: _Doc, kind: str, i: int) -> int | None:
        """At the start of a line of a here-document's body: past its delimiter line
        (the document ends), past the line of a quoted one, else ``None`` (read on)."""
        end = self.cmd.find("\n", i)
        end = self.n if end < 0 else end
        line = self.cmd[i:end]
        if (line.lstrip("\t") if doc[4] else line) == doc[2]:
            self._close_doc(doc, i)
            self._pop(end + 1)
            return end + 1
        self.line_start = False
        return end if kind == "docq" else None

    def _newline(self, i: int, kind: str) -> int:
        """A new line: the here-documents announced on the line just read begin (the
        first one innermost, so it is read first), unless inside quotes or a body."""
        i += 1
        self.line_start = True
        if self.pending and kind not in ("sq", "dq", "doc", "docq"):
            for w_start, w_end, delim, quoted, strip in reversed(self.pending):
                doc = (w_start, w_end, delim, quoted, strip, i)
                self.stack.append(_Frame("docq" if quoted else "doc", doc))
            self.pending.clear()
            self._mark(i)
        return i

    def _in_quote(self, i: int, c: str, quote: str) -> int:
        if c == quote:
            self._pop(i + 1)
        return i + 1

    def _substitution(self, i: int, c: str) -> int | None:
        """``$((``, ``$(``, ``${`` or a backtick at ``i`` (``None``: none of them)."""
        if c == "$" and self.cmd.startswith("((", i + 1):
            self._push("arith", i + 3)  # $((…)): no here-document, no comment
            return i + 3
        nxt = self.cmd[i + 1] if i + 1 < self.n else ""
        if c == "$" and nxt in ("(", "{"):
            self._push("paren" if nxt == "(" else "brace", i + 2)
            return i + 2
        if c == "`":
            ticks = [k for k, f in enumerate(self.stack) if f.kind == "tick"]
            if ticks:
                del self.stack[ticks[-1] :]
            else:
                self.stack.append(_Frame("tick"))
            self._mark(i + 1)
            return i + 1
        return None

    def _in_plain(self, i: int, c: str, kind: str) -> int:
        """Read at ``i`` at the top level or in ``(…)``, ``$(…)``, ``${…}``, ``$((…))``
        or backticks."""
        cmd = self.cmd
        if c in "'\"":
            self._push("sq" if c == "'" else "dq", i + 1)
            return i + 1
        if c == "(":
            self._push("paren")
            return i + 1
        if (c == ")" and kind == "paren") or (c == "}" and kind == "brace"):
            self._pop(i + 1)
            return i + 1
        if kind == "arith":
            if c == ")" and cmd.startswith(")", i + 1):
                self._pop(i + 2)
                return i + 2
            return i + 1
        if c == "#" and (i == 0 or cmd[i - 1] in _WORD_END):
            end = cmd.find("\n", i)
            return self.n if end < 0 else end
        if c == "<" and cmd.startswith("<<", i) and not cmd.startswith("<<<", i):
            strip = cmd.startswith("<<-", i)
            start, end, delim, quoted = _heredoc_word(cmd, i + (3 if strip else 2))
            if delim:
                self.pending.append((start, end, delim, quoted, strip))
            return max(end, i + 2)
        return i + 1


class CommandMap:
    """Where each offset of a text lies with respect to its inline commands:
    outside every command (``None``) or in one of the quoting contexts."""

    def __init__(self, text: str) -> None:
        self._points: list[int] = []
        self._contexts: list[str | None] = []
        self._docs: list[Heredoc] = []
        for m in SHELL_RE.finditer(text) if _may_hold_shell(text) else ():
            group = "block" if m.group("block") is not None else "cmd"
            self._add(m.start(), PLAIN)
            marks, docs = _lex(m.group(group), m.start(group))
            for pos, context in marks:
                self._add(pos, context)
            self._docs.extend(d for d in docs if d.quoted)
            self._add(m.end(), None)

    def _add(self, pos: int, context: str | None) -> None:
        if self._points and self._points[-1] == pos:
            self._contexts[-1] = context
        else:
            self._points.append(pos)
            self._contexts.append(context)

    def __bool__(self) -> bool:
        return bool(self._points)

    def context(self, pos: int) -> str | None:
        """The quoting context at ``pos``, or ``None`` outside every command."""
        i = bisect.bisect_right(self._points, pos) - 1
        return self._contexts[i] if i >= 0 else None

    def quoted_heredoc(self, pos: int) -> Heredoc | None:
        """The quoted here-document whose body holds ``pos``, if any."""
        for doc in self._docs:
            if doc.body_start <= pos < doc.body_end:
                return doc
        return None


def _describe(var: str) -> str:
    name = var[len(DATA_PREFIX) :]
    if name == "ARGUMENTS":
        return "the arguments"
    if name.startswith("ARG_"):
        return f"argument {name[4:]}"
    return "${" + name + "}"


#: Values longer than this many characters reach the shell in pieces: the kernel
#: refuses any one environment string over 128 KiB (at most 4 bytes a character).
_ENV_PIECE = 30000


def data_env(command: str, data: Mapping[str, str]) -> tuple[dict[str, str], str]:
    """The environment entries for the data variables ``command`` names, and the
    line of shell that joins values passed in pieces (empty when none is).

    Only variables the command mentions are passed. A value too long for one
    environment variable travels in pieces that the command's shell joins
    before the command runs (a shell variable, not exported: the kernel would
    refuse to start a child with it).

    :raises PromptError: for a value holding a NUL character (no environment
        variable can hold one) or a lone surrogate.
    """
    env: dict[str, str] = {}
    joins: list[str] = []
    for var in sorted(set(_DATA_REF.findall(command))):
        if var not in data:
            continue
        value = data[var]
        if "\0" in value:
            raise PromptError(
                f"{_describe(var)} contains a NUL character, which cannot be passed "
                "to an inline shell command"
            )
        try:
            value.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            raise PromptError(
                f"{_describe(var)} is not valid text (a lone surrogate) and cannot be "
                "passed to an inline shell command"
            ) from None
        if len(value) <= _ENV_PIECE:
            env[var] = value
            continue
        pieces = [f"{var}__{k}" for k in range(-(-len(value) // _ENV_PIECE))]
        for k, piece in enumerate(pieces):
            env[piece] = value[k * _ENV_PIECE : (k + 1) * _ENV_PIECE]
        joined = "".join(f"${{{p}}}" for p in pieces)
        # not exported: no process could start with it in its environment
        joins.append(f'{var}="{joined}"; unset {" ".join(pieces)}')
    return env, "".join(j + "\n" for j in joins)


def defuse(value: str) -> str:
    """Make sure substituted text can never open a shell command of its own."""
    if "!`" in value:
        value = value.replace("!`", "! `")
    if "```!" in value:
        value = value.replace("```!", "``` !")
    return value


def scoped_env(env: Mapping[str, str], pass_env: Sequence[str]) -> dict[str, str]:
    """The environment a command sees: only the variables named in ``pass_env``."""
    return {k: env[k] for k in pass_env if k in env}


class _Reader(threading.Thread):
    """Drain a pipe, keeping at most ``limit`` bytes and counting the rest."""

    def __init__(self, stream: IO[bytes], limit: int) -> None:
        super().__init__(daemon=True)
        self.stream = stream
        self.limit = limit
        self.kept = bytearray()
        self.total = 0

    def run(self) -> None:
        try:
            while True:
                chunk = self.stream.read1(65536)  # type: ignore[attr-defined]
                if not chunk:
                    break
                self.total += len(chunk)
                room = self.limit - len(self.kept)
                if room > 0:
                    self.kept += chunk[:room]
        except (OSError, ValueError):
            pass


# Commands running now (killed as groups by stop_commands) and whether new ones may start.
_RUNNING: set[subprocess.Popen[bytes]] = set()
_RUNNING_LOCK = threading.Lock()
_STOPPED = False


def stop_commands() -> int:
    """Kill the process group of every inline command running now; start no new one.

    For a process that is stopping (a server that received SIGTERM): a
    command running or about to start raises :class:`PromptError` instead.

    :returns: how many commands were killed.
    """
    global _STOPPED
    with _RUNNING_LOCK:
        _STOPPED = True
        running = list(_RUNNING)
    for proc in running:
        _kill_group(proc)
    return len(running)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_shell(
    command: str,
    *,
    cwd: Path | str,
    env: Mapping[str, str],
    timeout: float,
    max_output: int,
) -> str:
    """Run ``command`` with ``/bin/sh -c`` and return its standard output.

    Trailing newlines are removed. Output beyond ``max_output`` characters is
    cut and a ``[output truncated …]`` marker appended. Background processes
    the command leaves behind are killed with its process group.

    :raises PromptError: on a non-zero exit (with the end of stderr), on a
        timeout, or when the shell cannot be started.
    """
    import subprocess  # here: listing skills never runs a command

    try:
        with _RUNNING_LOCK:  # registered before stop_commands can look
            if _STOPPED:
                raise PromptError(f"inline shell command not run (stopping): {command!r}")
            proc = subprocess.Popen(
                [_SHELL, "-c", command],
                cwd=os.fspath(cwd),
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # its own session and process group
            )
            _RUNNING.add(proc)
    except OSError as exc:
        raise PromptError(f"inline shell command could not start ({exc}): {command!r}") from exc
    try:
        return _collect(proc, command, timeout=timeout, max_output=max_output)
    finally:
        with _RUNNING_LOCK:
            _RUNNING.discard(proc)


def _collect(
    proc: subprocess.Popen[bytes], command: str, *, timeout: float, max_output: int
) -> str:
    """Wait for ``proc`` (killing its group at the timeout) and return its output."""
    import subprocess

    assert proc.stdout is not None and proc.stderr is not None
    out = _Reader(proc.stdout, max(0, max_output) * 4 + 4)
    err = _Reader(proc.stderr, _STDERR_KEEP * 4)
    out.start()
    err.start()
    timed_out = False
    try:
        rc = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc)
        rc = proc.wait()
    _kill_group(proc)  # anything the command left running in the background
    # A process that left the group (setsid) may keep the pipes open: stop waiting
    # for it after a grace period; its reader is a daemon thread and the pipe stays
    # open only as long as that process lives.
    deadline = time.monotonic() + _DRAIN_SECONDS
    for reader, stream in ((out, proc.stdout), (err, proc.stderr)):
        reader.join(max(0.0, deadline - time.monotonic()))
        if not reader.is_alive():
            stream.close()
    if timed_out:
        raise PromptError(f"inline shell command timed out after {timeout:g}s: {command!r}")
    if rc != 0:
        tail = err.kept.decode("utf-8", "replace").strip()[-_STDERR_KEEP:]
        detail = f"\n{tail}" if tail else ""
        raise PromptError(f"inline shell command failed (exit status {rc}): {command!r}{detail}")
    text = out.kept.decode("utf-8", "replace")
    truncated = out.total > len(out.kept) or len(text) > max_output
    text = text[: max(0, max_output)]
    if truncated:
        return text + f"\n[output truncated after {max_output} characters]"
    return text.rstrip("\n")


def render_inline_shell(
    text: str,
    *,
    allowed: bool,
    cwd: Path | str,
    env: Mapping[str, str],
    policy: ShellPolicy,
    data: Mapping[str, str] | None = None,
) -> str:
    """Replace every inline command and ```` ```! ```` block in ``text``.

    With ``allowed`` false each becomes :data:`DISABLED_TEXT`; otherwise each
    is run with :func:`run_shell` (in document order, one pass) and replaced
    by its output. ``data`` holds the values commands may reference
    (``SKILLPATH_ARGUMENTS`` …); each command gets those it names in its
    environment, over any variable of the same name from ``pass_env``.
    """
    if not _may_hold_shell(text):
        return text  # nothing to replace: spare the regex scan of the whole text
    scoped = scoped_env(env, policy.pass_env)
    values: Mapping[str, str] = data if data is not None else {}

    def repl(m: re.Match[str]) -> str:
        if not allowed:
            return DISABLED_TEXT
        block = m.group("block")
        command = block.rstrip("\r\n") if block is not None else m.group("cmd")
        extra, joins = data_env(command, values)
        return run_shell(
            joins + command,
            cwd=cwd,
            env={**scoped, **extra},
            timeout=policy.timeout,
            max_output=policy.max_output,
        )

    return SHELL_RE.sub(repl, text)
