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
* a command that exits non-zero, times out or cannot start aborts the
  invocation with :class:`~skillpath.errors.PromptError`.

Values substituted into a command by the argument and variable steps are
quoted with :func:`shlex.quote` (one word each), and values that could end the
command early (a backtick or a newline) are refused; values substituted
outside commands have their ``!``` and ```` ```! ```` openers defused so that
arguments can never smuggle in a command of their own.
"""

from __future__ import annotations

import bisect
import os
import re
import shlex
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

import attrs

from skillpath.errors import PromptError

if TYPE_CHECKING:
    import subprocess

    from skillpath.model import Skill
    from skillpath.settings import Settings

__all__ = [
    "DISABLED_TEXT",
    "LEARNED_LEVEL",
    "SHELL_RE",
    "ShellPolicy",
    "defuse",
    "quote_for_shell",
    "render_inline_shell",
    "run_shell",
    "scoped_env",
    "shell_spans",
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

    @classmethod
    def from_settings(cls, settings: Settings) -> ShellPolicy:
        """Build the policy from merged settings (schema defaults filled in)."""
        sec = settings.section("shell")
        return cls(
            enabled=bool(sec["enabled"]),
            levels=tuple(sec["levels"]),
            timeout=float(sec["timeout"]),
            max_output=int(sec["max_output"]),
            pass_env=tuple(sec["pass_env"]),
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
        return None

    def allows(self, skill: Skill) -> bool:
        """True when inline shell may run for ``skill``."""
        return self.refusal(skill) is None


def shell_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every inline command and ```` ```! ```` block in ``text``."""
    return [m.span() for m in SHELL_RE.finditer(text)]


def span_lookup(text: str) -> Callable[[int], bool]:
    """A function telling whether an offset of ``text`` lies inside a shell command."""
    spans = shell_spans(text)
    if not spans:
        return lambda pos: False
    starts = [s for s, _ in spans]

    def inside(pos: int) -> bool:
        i = bisect.bisect_right(starts, pos) - 1
        return i >= 0 and pos < spans[i][1]

    return inside


def quote_for_shell(value: str, what: str) -> str:
    """Quote ``value`` as one shell word for use inside an inline command.

    :raises PromptError: when ``value`` holds a backtick or a line break, which
        would end the command early.
    """
    if "`" in value or "\n" in value or "\r" in value:
        raise PromptError(
            f"{what} contains a backtick or a line break and cannot be used "
            "inside an inline shell command"
        )
    return shlex.quote(value)


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
) -> str:
    """Replace every inline command and ```` ```! ```` block in ``text``.

    With ``allowed`` false each becomes :data:`DISABLED_TEXT`; otherwise each
    is run with :func:`run_shell` (in document order, one pass) and replaced
    by its output.
    """
    scoped = scoped_env(env, policy.pass_env)

    def repl(m: re.Match[str]) -> str:
        if not allowed:
            return DISABLED_TEXT
        block = m.group("block")
        command = block.rstrip("\r\n") if block is not None else m.group("cmd")
        return run_shell(
            command, cwd=cwd, env=scoped, timeout=policy.timeout, max_output=policy.max_output
        )

    return SHELL_RE.sub(repl, text)
