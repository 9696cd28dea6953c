"""The built-in ``transform_prompt`` steps, each a plugin of its own.

========  ===================================  ==========================================
order     plugin name                          what it does
========  ===================================  ==========================================
100       ``skillpath.transform.frontmatter``  strips the frontmatter (LF or CRLF) of
                                               skills read from disk
200       ``skillpath.transform.arguments``    ``$ARGUMENTS``, ``$ARGUMENTS[N]``, ``$N``,
                                               named ``$name``, ``\\$`` escapes, the
                                               ``ARGUMENTS:`` append
300       ``skillpath.transform.variables``    ``${SKILL_DIR}``, ``${SESSION_ID}``,
                                               ``${PROJECT_DIR}`` (and ``CLAUDE_`` forms)
400       ``skillpath.transform.shell``        inline shell under the shell policy
900       ``skillpath.transform.base_dir``     ``Base directory for this skill: <dir>``
========  ===================================  ==========================================

Block one with ``PluginHost.create(blocked=["skillpath.transform.arguments"])``
(or ``SKILLPATH_DISABLE_PLUGINS``) and register a replacement with
``@hookimpl`` + ``@skillpath.step(200)``. Each step declares what its output
depends on with a ``DEPENDS_ON`` class attribute (read as
:func:`skillpath.depends_on` would mark it), and its position with
:func:`skillpath.hookspecs.step`: the steps import nothing from the plugin host
that registers them.

Skills loaded over MCP (``source.loaded_from == "mcp"``) are rendered by the
MCP provider's own step; the argument, shell and base-directory steps leave
their text alone.

Argument rules (Claude Code's): the argument string is split shell-style
(unbalanced quotes fall back to whitespace splitting); ``$ARGUMENTS`` is the
whole string; ``$ARGUMENTS[N]`` and ``$N`` are 0-based words, an index with no
word is left verbatim; ``$name`` takes the word at the position of ``name`` in
the frontmatter ``arguments`` (empty when missing); a backslash before a
placeholder (``\\$ARGUMENTS``) makes it literal. One pass: substituted values
are never substituted again. When nothing was substituted and arguments were
given, ``ARGUMENTS: <args>`` is appended — except for ``/skill:`` commands
(trigger ``command``), whose message carries the arguments in its ``User:``
line. Inside inline shell commands a placeholder becomes a reference to an
environment variable that carries the value (``"${SKILLPATH_ARGUMENTS}"``,
``SKILLPATH_ARG_<N>`` for ``$N``, ``$ARGUMENTS[N]`` and named arguments,
``SKILLPATH_SKILL_DIR``, ``SKILLPATH_SESSION_ID``, ``SKILLPATH_PROJECT_DIR``):
values are data, never command text (see :mod:`skillpath.shell`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from skillpath._lazyre import lazy_pattern
from skillpath._split import split_words
from skillpath.errors import PromptError
from skillpath.frontmatter import strip_frontmatter
from skillpath.hookspecs import hookimpl, step

if TYPE_CHECKING:
    from types import ModuleType

    from skillpath.context import SkillContext
    from skillpath.model import Skill
    from skillpath.prompt import Invocation
    from skillpath.shell import Heredoc

__all__ = [
    "STEPS",
    "ArgumentsStep",
    "BaseDirStep",
    "FrontmatterStep",
    "ShellData",
    "ShellStep",
    "VariablesStep",
    "parse_arguments",
    "split_words",
    "substitute_arguments",
    "substitute_variables",
]

_NAMED_OK = lazy_pattern(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_VARIABLES = {
    "SKILL_DIR": "skill_dir",
    "CLAUDE_SKILL_DIR": "skill_dir",
    "SESSION_ID": "session_id",
    "CLAUDE_SESSION_ID": "session_id",
    "PROJECT_DIR": "project_dir",
    "CLAUDE_PROJECT_DIR": "project_dir",
    # a Claude Code plugin's skills and commands: the plugin's root folder
    "CLAUDE_PLUGIN_ROOT": "plugin_root",
}
_VAR_RE = lazy_pattern(
    r"(?P<esc>\\)?\$\{(?P<var>" + "|".join(sorted(_VARIABLES, key=lambda v: -len(v))) + r")\}"
)


def parse_arguments(args: str) -> list[str]:
    """Split an argument string shell-style (``"a b" c`` → ``["a b", "c"]``).

    Unbalanced quotes fall back to splitting on whitespace.
    """
    if not args.strip():
        return []
    try:
        return split_words(args)  # shlex.split's words, in linear time
    except ValueError:
        return args.split()


def _sh() -> ModuleType:
    """:mod:`skillpath.shell`, imported on first use: registering these steps (every
    command does) needs none of it, rendering a prompt does."""
    import skillpath.shell

    return skillpath.shell


@functools.lru_cache(maxsize=256)
def _arg_pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    alts = [r"ARGUMENTS\[(?P<idx>\d+)\]"]
    if names:
        ordered = sorted(names, key=lambda n: (-len(n), n))
        alts.append(r"(?P<named>" + "|".join(re.escape(n) for n in ordered) + r")(?![\[\w])")
    alts.append(r"(?P<all>ARGUMENTS)")
    alts.append(r"(?P<num>\d+)(?!\w)")
    # the lookahead only restates what the rest requires (a ``\`` or a ``$`` comes
    # first) but lets the scan skip every other character quickly: about 3.5x faster
    # on a long body
    return re.compile(r"(?=[\\$])(?P<esc>\\)?\$(?:" + "|".join(alts) + ")")


class _Emitter:
    """Put a reference to the data inside inline commands and the defused value
    outside them; remember where the last value went."""

    def __init__(self, text: str) -> None:
        self.map = _sh().CommandMap(text)
        self.outside = False
        self.reference = False

    def __call__(self, value: str, pos: int, var: str) -> str:
        context = self.map.context(pos)
        if context is None:
            self.outside = True
            defused: str = _sh().defuse(value)
            return defused
        self.reference = True
        reference: str = _sh().data_reference(_sh().DATA_PREFIX + var, context)
        return reference


def _sub_guarded(
    pattern: re.Pattern[str], text: str, repl: Callable[[re.Match[str]], str], emit: _Emitter
) -> str:
    """``pattern.sub(repl, text)``, keeping values out of command text.

    Inside a command ``repl`` gives a reference to the value (see
    :mod:`skillpath.shell`); a quoted here-document that receives one is
    rewritten as an unquoted one with its body escaped, so that it reads as
    before and the reference expands. A value substituted outside every
    inline command must stay outside: joined with the text around it
    (``!$ARGUMENTS`` with `` `cmd` ``, a ```` ```$1 ```` fence with ``!``, an
    unclosed `` !`ls $ARGUMENTS `` with ``x; cmd` ``) it could otherwise open,
    close or fill a command that the shell step would run.
    """
    # (start, end, replacement, is a reference, went outside)
    edits: list[tuple[int, int, str, bool, bool]] = []
    docs: dict[int, Heredoc] = {}
    for m in pattern.finditer(text):
        emit.outside = emit.reference = False
        piece = repl(m)
        edits.append((m.start(), m.end(), piece, emit.reference, emit.outside and bool(piece)))
        if emit.reference:
            doc = emit.map.quoted_heredoc(m.start())
            if doc is not None:
                docs[doc.word_start] = doc
    bodies = sorted((d.body_start, d.body_end) for d in docs.values())
    for doc in docs.values():
        if any(s < doc.word_end and doc.word_start < e for s, e, *_ in edits):
            raise PromptError("a placeholder sits in a here-document delimiter")
        word = _sh().rewrite_heredoc(doc, text)
        edits.append((doc.word_start, doc.word_end, word, True, False))
    edits.sort(key=lambda e: e[0])

    def literal(a: int, b: int) -> str:
        out: list[str] = []
        for start, end in bodies:
            if end <= a or start >= b:
                continue
            out.append(text[a : max(a, start)])
            out.append(_sh().escape_heredoc(text[max(a, start) : min(b, end)]))
            a = min(b, end)
        out.append(text[a:b])
        return "".join(out)

    parts: list[str] = []
    regions: list[tuple[int, int]] = []
    last = 0
    length = 0
    for start, end, piece, is_reference, outside in edits:
        lit = literal(last, start)
        parts.append(lit)
        length += len(lit)
        if not is_reference and any(s <= start < e for s, e in bodies):
            piece = _sh().escape_heredoc(piece)
        if outside:
            regions.append((length, length + len(piece)))
        parts.append(piece)
        length += len(piece)
        last = end
    parts.append(literal(last, len(text)))
    out = "".join(parts)
    if regions:
        for start, end in _sh().shell_spans(out):
            if any(a < end and start < b for a, b in regions):
                raise PromptError(
                    "a substituted value would become part of an inline shell command; "
                    "refusing to render (quote the placeholder inside the command instead)"
                )
    return out


def substitute_arguments(
    text: str, args: str, names: Sequence[str] = (), *, append: bool = True
) -> str:
    """Apply the argument rules (module docstring) to ``text``.

    :param args: the raw argument string (``""`` when none).
    :param names: the skill's named arguments, in order.
    :param append: append ``ARGUMENTS: <args>`` when no placeholder took a value.
    """
    words = parse_arguments(args)
    valid = tuple(n for n in dict.fromkeys(names) if _NAMED_OK.match(n) and n != "ARGUMENTS")
    positions: dict[str, int] = {}
    for i, n in enumerate(names):
        positions.setdefault(n, i)
    pattern = _arg_pattern(valid)
    emit = _Emitter(text)
    used = False

    def repl(m: re.Match[str]) -> str:
        nonlocal used
        if m.group("esc"):
            return m.group(0)[1:]
        pos = m.start()
        idx = m.group("idx") or m.group("num")
        if idx is not None:
            i = int(idx)
            if i >= len(words):
                return m.group(0)
            used = True
            return emit(words[i], pos, f"ARG_{i}")
        name = m.groupdict().get("named")
        if name is not None:
            i = positions[name]
            used = True
            return emit(words[i] if i < len(words) else "", pos, f"ARG_{i}")
        used = True
        return emit(args, pos, "ARGUMENTS")

    out = _sub_guarded(pattern, text, repl, emit) if "$" in text else text
    if append and not used and args.strip():
        out = out.rstrip("\n") + f"\n\nARGUMENTS: {_sh().defuse(args)}\n"
    return out


def substitute_variables(text: str, values: dict[str, str | None]) -> str:
    """Replace ``${SKILL_DIR}``, ``${SESSION_ID}``, ``${PROJECT_DIR}`` (and their
    ``CLAUDE_`` spellings) and ``${CLAUDE_PLUGIN_ROOT}`` in ``text``.

    ``values`` maps ``skill_dir``, ``session_id``, ``project_dir`` and
    ``plugin_root`` to their values; a missing or ``None`` value leaves the placeholder verbatim. A
    backslash before ``$`` makes a placeholder literal.
    """
    if "${" not in text:
        return text
    emit = _Emitter(text)

    def repl(m: re.Match[str]) -> str:
        if m.group("esc"):
            return m.group(0)[1:]
        key = _VARIABLES[m.group("var")]
        value = values.get(key)
        if value is None:
            return m.group(0)
        return emit(value, m.start(), key.upper())

    return _sub_guarded(_VAR_RE, text, repl, emit)


def _is_mcp(invocation: Invocation) -> bool:
    return invocation.skill.source.loaded_from == "mcp"


class FrontmatterStep:
    """Step 100: strip the frontmatter of text read from a ``SKILL.md`` on disk.

    Skills without a path start from their body, which has no frontmatter.
    """

    DEPENDS_ON = ("files",)

    @hookimpl
    @step(100)
    def transform_prompt(self, text: str, invocation: Invocation) -> str | None:
        """Remove the leading ``---`` block (LF or CRLF, BOM tolerated)."""
        if invocation.skill.path is None:
            return None
        return strip_frontmatter(text)


class ArgumentsStep:
    """Step 200: argument substitution (module docstring)."""

    DEPENDS_ON = ("files",)

    @hookimpl
    @step(200)
    def transform_prompt(self, text: str, invocation: Invocation) -> str | None:
        """Substitute the invocation's arguments; MCP skills are left alone."""
        if _is_mcp(invocation):
            return None
        return substitute_arguments(
            text,
            invocation.args,
            invocation.skill.frontmatter.arguments,
            append=invocation.trigger != "command",
        )


def _variable_values(invocation: Invocation, ctx: SkillContext) -> dict[str, str | None]:
    skill = invocation.skill
    return {
        "skill_dir": str(skill.base_dir) if skill.base_dir is not None else None,
        "session_id": invocation.session_id or ctx.session_id,
        "project_dir": str(ctx.project_root),
        "plugin_root": _plugin_root(skill),
    }


def _plugin_root(skill: Skill) -> str | None:
    """The ``plugin_root`` a provider recorded in the skill's source (Claude Code
    plugins: ``${CLAUDE_PLUGIN_ROOT}``), or ``None``: the placeholder stays."""
    value = skill.source.detail.get("plugin_root")
    return value if isinstance(value, str) and value else None


class ShellData(Mapping[str, str]):
    """The values inline commands of one invocation may reference, by the name
    of the environment variable that carries them (``SKILLPATH_ARGUMENTS``,
    ``SKILLPATH_ARG_<N>``, ``SKILLPATH_SKILL_DIR``, ``SKILLPATH_SESSION_ID``,
    ``SKILLPATH_PROJECT_DIR``). The argument string is split only when a
    command asks for a word."""

    def __init__(self, invocation: Invocation, ctx: SkillContext) -> None:
        self._args = invocation.args
        self._names = len(invocation.skill.frontmatter.arguments)
        self._fixed: dict[str, str] = {"ARGUMENTS": invocation.args}
        for key, value in _variable_values(invocation, ctx).items():
            if value is not None:
                self._fixed[key.upper()] = value

    @functools.cached_property
    def _words(self) -> list[str]:
        return parse_arguments(self._args)

    def _count(self) -> int:
        return max(len(self._words), self._names)

    def __getitem__(self, var: str) -> str:
        name = var.removeprefix(_sh().DATA_PREFIX)
        if name == var:
            raise KeyError(var)
        if name in self._fixed:
            return self._fixed[name]
        index = name.removeprefix("ARG_")
        if index != name and index.isdigit() and (index == "0" or index[0] != "0"):
            i = int(index)
            if i < self._count():
                return self._words[i] if i < len(self._words) else ""
        raise KeyError(var)

    def __iter__(self) -> Iterator[str]:
        yield from (_sh().DATA_PREFIX + k for k in self._fixed)
        yield from (f"{_sh().DATA_PREFIX}ARG_{i}" for i in range(self._count()))

    def __len__(self) -> int:
        return len(self._fixed) + self._count()


class VariablesStep:
    """Step 300: ``${SKILL_DIR}``, ``${SESSION_ID}``, ``${PROJECT_DIR}``."""

    DEPENDS_ON = ("files",)

    @hookimpl
    @step(300)
    def transform_prompt(self, text: str, invocation: Invocation, ctx: SkillContext) -> str | None:
        """Substitute the session and directory variables."""
        return substitute_variables(text, _variable_values(invocation, ctx))


class ShellStep:
    """Step 400: inline shell, run only when the invocation and the policy allow it."""

    DEPENDS_ON = ("process",)

    @hookimpl
    @step(400)
    def transform_prompt(self, text: str, invocation: Invocation, ctx: SkillContext) -> str | None:
        """Run (or replace with the policy placeholder) every inline command,
        passing the invocation's values as data (:class:`ShellData`)."""
        if _is_mcp(invocation):
            return None
        policy = _sh().ShellPolicy.from_settings(ctx.settings)
        allowed = invocation.allow_shell and policy.allows(invocation.skill)
        rendered: str | None = _sh().render_inline_shell(
            text,
            allowed=allowed,
            cwd=ctx.cwd,
            env=ctx.env,
            policy=policy,
            data=ShellData(invocation, ctx),
        )
        return rendered


class BaseDirStep:
    """Step 900: prefix ``Base directory for this skill: <dir>`` for skills on disk."""

    DEPENDS_ON = ("files",)

    @hookimpl
    @step(900)
    def transform_prompt(self, text: str, invocation: Invocation) -> str | None:
        """Add the prefix and a blank line; skills not on disk are left alone."""
        skill = invocation.skill
        if _is_mcp(invocation) or skill.path is None or skill.base_dir is None:
            return None
        body = text.lstrip("\r\n")
        return f"Base directory for this skill: {skill.base_dir}\n\n{body}"


#: ``(plugin name, plugin)`` for every built-in step, in chain order.
STEPS: tuple[tuple[str, object], ...] = (
    ("skillpath.transform.frontmatter", FrontmatterStep()),
    ("skillpath.transform.arguments", ArgumentsStep()),
    ("skillpath.transform.variables", VariablesStep()),
    ("skillpath.transform.shell", ShellStep()),
    ("skillpath.transform.base_dir", BaseDirStep()),
)
