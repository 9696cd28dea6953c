"""Prompt commands: one command object per skill for ``/skill:``, the Skill tool and MCP.

:class:`SkillCommand` wraps a skill with what a command needs (argument names
and hint, who may invoke it) and renders it through the ``transform_prompt``
chain (:func:`render_skill`). The first step receives the raw ``SKILL.md``
text, read fresh from ``skill.path`` at every invocation; skills that are not
on disk start from ``skill.body``.

``/skill:<name> [args]`` (:func:`parse_slash_command`): recognised at the start
of a message, and in the middle of one (after whitespace, first known name
wins) unless the message is another slash command (starts with ``/``) or a
shell escape (starts with ``!``). The argument string is only the text after
the command token (the rest of the line and of the message), also in the
middle of a message: the text before the token is not an argument (it is
``message[:invocation.start]``, the host's to keep or drop). Punctuation stuck
to the end of the token (``/skill:pdf,``) is not part of the name and is
dropped. A ``/skill:<name>`` whose name is not a command (unknown, or a skill
with ``user-invocable: false``) is still recognised, with ``known=False``, the
nearest command names in ``suggestions`` and a one-line ``error`` for the
user, so a host can say "Unknown skill" instead of sending the text to the
model; in the middle of a message that happens only when no known name
follows. The message a command injects is the rendered text, then ``---``,
then ``Skill: <path>`` and, when arguments were given, ``User: <args>``.

Delivery (seed rule): while the agent is streaming, Enter puts the message on
the *steer* queue and Ctrl+Enter on the *follow-up* queue; when the agent is
idle it is a normal prompt (:func:`delivery_queue`).

The Skill tool (:func:`skill_tool_schema`) takes ``{"skill": <name>, "args":
<string>}``; its ``skill`` property is an enum of the listable (non-hidden)
names. Skills with ``disable-model-invocation`` cannot be invoked through it.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from skillpath.errors import PromptError, SkillpathError
from skillpath.model import Diagnostic, Skill, sort_key
from skillpath.prompt import Invocation
from skillpath.shell import DISABLED_TEXT, LEARNED_LEVEL, ShellPolicy, shell_spans
from skillpath.suggest import conditional_message, near_names, unknown_skill_message
from skillpath.textguard import strip_invisible
from skillpath.urls import read_text_file

if TYPE_CHECKING:
    from skillpath.context import SkillContext
    from skillpath.plugins import PluginHost

__all__ = [
    "SKILL_TOOL_NAME",
    "TRIGGERS",
    "RenderedPrompt",
    "SkillCommand",
    "SlashInvocation",
    "UnknownSkillError",
    "delivery_queue",
    "parse_slash_command",
    "read_source",
    "render_skill",
    "shell_placeholder_note",
    "skill_tool_schema",
    "unknown_skill",
]

#: The name of the tool a model calls to load a skill (Claude Code's own name for it).
SKILL_TOOL_NAME = "Skill"
#: How a skill can be invoked: ``/skill:`` command, the model's Skill tool, an MCP prompt.
TRIGGERS = ("command", "tool", "mcp")
_PREFIX = "/skill:"
_TOKEN_RE = re.compile(r"(?<!\S)/skill:(\S+)")
_TRAILING = ".,;:!?)]}\"'"


class UnknownSkillError(PromptError):
    """No active skill has the requested name."""


def delivery_queue(*, streaming: bool, follow_up: bool = False) -> str:
    """Where a ``/skill:`` message goes: ``prompt`` (agent idle), ``steer``
    (streaming, Enter) or ``follow-up`` (streaming, Ctrl+Enter)."""
    if not streaming:
        return "prompt"
    return "follow-up" if follow_up else "steer"


@attrs.frozen
class SlashInvocation:
    """A recognised ``/skill:<name> [args]`` in a user message.

    ``start``/``end`` delimit the command token in the message; ``mid_message``
    tells whether it was found after other text; ``args`` is the text after
    the token. ``known`` is false when ``name`` is not a command the user can
    run now: then ``suggestions`` holds the nearest command names and
    ``error`` the line to show the user (``Unknown skill 'depoly'. Did you
    mean: deploy? …``); do not invoke it.
    """

    name: str
    args: str
    start: int
    end: int
    mid_message: bool = False
    known: bool = True
    suggestions: tuple[str, ...] = ()
    error: str | None = None

    def queue(self, *, streaming: bool, follow_up: bool = False) -> str:
        """The delivery queue for this message (see :func:`delivery_queue`)."""
        return delivery_queue(streaming=streaming, follow_up=follow_up)

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return attrs.asdict(self)


def _known(token: str, pool: Mapping[str, Any] | set[str]) -> str | None:
    if token in pool:
        return token
    trimmed = token.rstrip(_TRAILING)
    if trimmed and trimmed != token and trimmed in pool:
        return trimmed
    return None


def _found(
    m: re.Match[str], name: str, message: str, mid: bool, pool: Mapping[str, Any] | set[str]
) -> SlashInvocation:
    start, end = m.start(), m.start(1) + len(name)
    args = message[m.end() :].strip()
    if name in pool:
        return SlashInvocation(name, args, start, end, mid)
    return SlashInvocation(
        name,
        args,
        start,
        end,
        mid,
        known=False,
        suggestions=near_names(name, pool),
        error=unknown_skill_message(name, pool),
    )


def parse_slash_command(
    message: str, names: Mapping[str, Any] | Iterable[str]
) -> SlashInvocation | None:
    """Find ``/skill:<name> [args]`` in ``message`` (rules in the module docstring).

    :param names: the names that are commands (a mapping or a collection).
    :returns: the invocation (``known=False`` for a name not in ``names``), or
        ``None`` when the message holds no skill command.
    """
    pool: Mapping[str, Any] | set[str] = names if isinstance(names, Mapping) else set(names)
    lead = len(message) - len(message.lstrip())
    body = message[lead:]
    if body.startswith(_PREFIX):
        m = _TOKEN_RE.match(message, lead)
        if m is None:
            return None
        name = _known(m.group(1), pool) or m.group(1).rstrip(_TRAILING)
        return _found(m, name, message, False, pool) if name else None
    if body.startswith(("/", "!")):
        return None
    first_unknown: tuple[re.Match[str], str] | None = None
    for m in _TOKEN_RE.finditer(message):
        name = _known(m.group(1), pool)
        if name is not None:
            return _found(m, name, message, True, pool)
        token = m.group(1).rstrip(_TRAILING)
        if token and first_unknown is None:
            first_unknown = (m, token)
    if first_unknown is not None:
        return _found(first_unknown[0], first_unknown[1], message, True, pool)
    return None


@attrs.frozen
class RenderedPrompt:
    """The result of invoking a skill.

    ``content`` is what to inject (for a ``/skill:`` command: the rendered text
    plus the ``---``/``Skill:``/``User:`` footer; for the tool and MCP: the
    rendered text; for a repeated Skill tool call of an unchanged skill: a
    short note and ``already_loaded`` is true). ``text`` is the transform
    chain's output.
    """

    name: str
    content: str
    text: str
    args: str
    trigger: str
    path: Path | None
    base_dir: Path | None
    session_id: str | None = None
    already_loaded: bool = False
    diagnostics: tuple[Diagnostic, ...] = ()

    @property
    def line_count(self) -> int:
        """Number of lines of :attr:`content`."""
        if not self.content:
            return 0
        return self.content.count("\n") + (0 if self.content.endswith("\n") else 1)

    def to_json(self) -> dict[str, Any]:
        """JSON form (``skillpath invoke --json``)."""
        return {
            "name": self.name,
            "path": str(self.path) if self.path is not None else None,
            "base_dir": str(self.base_dir) if self.base_dir is not None else None,
            "args": self.args,
            "trigger": self.trigger,
            "content": self.content,
            "line_count": self.line_count,
            "already_loaded": self.already_loaded,
            "session_id": self.session_id,
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }


def read_source(skill: Skill) -> str:
    """The text the transform chain starts from.

    The raw ``SKILL.md`` (read now, so edits show at once) for skills with a
    path — pack and bundled skills are extracted first
    (:func:`skillpath.extract.materialize`); ``skill.body`` for the others.

    :raises PromptError: when the file or the body cannot be read.
    """
    if skill.path is not None and skill.source.loaded_from != "mcp":
        from skillpath.extract import materialize

        try:
            materialize(skill)  # pack and bundled skills: extract their files first
        except SkillpathError as exc:
            raise PromptError(f"cannot extract skill {skill.name!r}: {exc}") from exc
        try:
            return read_text_file(skill.path)
        except OSError as exc:
            raise PromptError(
                f"cannot read skill {skill.name!r} at {skill.path}: {exc.strerror or exc}"
            ) from exc
    try:
        return skill.body
    except PromptError:
        raise
    except Exception as exc:  # a body loader is plugin code
        raise PromptError(f"cannot load the body of skill {skill.name!r}: {exc!r}") from exc


def _footer(skill: Skill, args: str) -> str:
    where = str(skill.path) if skill.path is not None else f"skill://{skill.name}"
    lines = ["", "", "---", "", f"Skill: {where}"]
    if args:
        lines.append(f"User: {args}")
    return "\n".join(lines)


def render_skill(
    skill: Skill,
    args: str = "",
    *,
    ctx: SkillContext,
    host: PluginHost,
    trigger: str = "command",
    session_id: str | None = None,
    source: str | None = None,
) -> RenderedPrompt:
    """Run the ``transform_prompt`` chain for one invocation of ``skill``.

    :param source: the starting text when already read (default: :func:`read_source`).
    :raises PromptError: when the skill cannot be read or a step aborts.
    """
    if trigger not in TRIGGERS:
        raise PromptError(f"unknown trigger {trigger!r} (choose from {', '.join(TRIGGERS)})")
    policy = ShellPolicy.from_settings(ctx.settings)
    session = session_id if session_id is not None else ctx.session_id
    invocation = Invocation(
        skill=skill,
        args=args,
        trigger=trigger,
        session_id=session,
        allow_shell=policy.allows(skill),
    )
    start = read_source(skill) if source is None else source
    diags: list[Diagnostic] = []
    text = host.transform(start, invocation, ctx, diags)
    if not invocation.allow_shell and skill.source.loaded_from != "mcp":
        note = shell_placeholder_note(skill, start, policy)
        if note is not None:
            diags.append(note)
    text, removed = strip_invisible(text)
    if removed:
        diags.append(
            Diagnostic(
                "warning",
                "invisible-characters-removed",
                f"skill {skill.name!r}: {removed} invisible character(s) (Unicode tags, bidi "
                "controls, zero-width) removed before the text reached the model",
                skill.path,
            )
        )
    content = text.rstrip("\n") + _footer(skill, args.strip()) if trigger == "command" else text
    return RenderedPrompt(
        name=skill.name,
        content=content,
        text=text,
        args=args,
        trigger=trigger,
        path=skill.path,
        base_dir=skill.base_dir,
        session_id=session,
        diagnostics=tuple(diags),
    )


def shell_placeholder_note(skill: Skill, source: str, policy: ShellPolicy) -> Diagnostic | None:
    """The note for inline shell the policy replaced with its placeholder, or ``None``.

    One line (``shell-disabled``, level warning): how many commands were
    replaced, why, and the setting that would let them run.
    """
    count = len(shell_spans(source))
    if not count:
        return None
    why = policy.refusal(skill) or "the policy does not allow it"
    level = LEARNED_LEVEL if skill.source.provider == "managed" else skill.source.level
    if not policy.enabled:
        fix = "set [shell] enabled = true in your user config to run it"
    else:
        fix = f"add {level!r} to [shell] levels in your user config to run it"
    return Diagnostic(
        "warning",
        "shell-disabled",
        f"{count} inline shell command(s) replaced with {DISABLED_TEXT!r}: {why}; {fix}",
        skill.path,
        None,
        skill.source.provider,
    )


@attrs.frozen
class SkillCommand:
    """The one command object per skill used by ``/skill:``, the Skill tool and MCP prompts."""

    skill: Skill

    @property
    def name(self) -> str:
        """The skill name (the command is ``/skill:<name>``)."""
        return self.skill.name

    @property
    def description(self) -> str:
        """The skill description (invisible characters removed: it reaches the model)."""
        return strip_invisible(self.skill.description)[0]

    @property
    def argument_hint(self) -> str | None:
        """The frontmatter ``argument-hint``."""
        return self.skill.frontmatter.argument_hint

    @property
    def argument_names(self) -> tuple[str, ...]:
        """Named arguments from the frontmatter ``arguments``."""
        return self.skill.frontmatter.arguments

    @property
    def user_invocable(self) -> bool:
        """Whether the user may run it as ``/skill:<name>``."""
        return self.skill.frontmatter.user_invocable

    @property
    def model_invocable(self) -> bool:
        """Whether the model may invoke it through the Skill tool."""
        return not self.skill.frontmatter.disable_model_invocation

    @property
    def hidden(self) -> bool:
        """Whether it is left out of the listing and the Skill tool enum."""
        return self.skill.hidden

    @property
    def path(self) -> Path | None:
        """The ``SKILL.md`` path (``None`` when not on disk)."""
        return self.skill.path

    def check_trigger(self, trigger: str) -> None:
        """Refuse triggers this skill does not accept.

        :raises PromptError: ``command`` on a ``user-invocable: false`` skill,
            ``tool`` on a ``disable-model-invocation`` skill.
        """
        if trigger == "command" and not self.user_invocable:
            raise PromptError(f"skill {self.name!r} is not user-invocable (user-invocable: false)")
        if trigger == "tool" and not self.model_invocable:
            raise PromptError(
                f"skill {self.name!r} cannot be invoked by the model (disable-model-invocation)"
            )

    def mcp_arguments(self) -> list[dict[str, Any]]:
        """MCP prompt arguments: the named arguments, or one free-form ``args``."""
        if self.argument_names:
            return [
                {"name": n, "description": f"Argument {i} ({n})", "required": False}
                for i, n in enumerate(self.argument_names)
            ]
        return [
            {
                "name": "args",
                "description": self.argument_hint or "Arguments for the skill",
                "required": False,
            }
        ]

    def args_from_mapping(self, values: Mapping[str, Any]) -> str:
        """Build the argument string from MCP-style named values.

        Named arguments are shell-quoted in their declared order (a missing one
        is an empty word when a later one is given); a free-form ``args`` value
        is appended as is.
        """
        words = [str(values.get(n, "") or "") for n in self.argument_names]
        while words and not words[-1]:
            words.pop()
        parts = [shlex.join(words)] if words else []
        extra = values.get("args")
        if extra:
            parts.append(str(extra))
        return " ".join(parts)

    def render(
        self,
        args: str = "",
        *,
        ctx: SkillContext,
        host: PluginHost,
        trigger: str = "command",
        session_id: str | None = None,
    ) -> RenderedPrompt:
        """Check the trigger and render through the chain (:func:`render_skill`)."""
        self.check_trigger(trigger)
        return render_skill(
            self.skill, args, ctx=ctx, host=host, trigger=trigger, session_id=session_id
        )

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "name": self.name,
            "description": self.description,
            "argument_hint": self.argument_hint,
            "arguments": list(self.argument_names),
            "user_invocable": self.user_invocable,
            "model_invocable": self.model_invocable,
            "hidden": self.hidden,
            "path": str(self.path) if self.path is not None else None,
        }


_TOOL_DESCRIPTION = (
    "Load a skill: its instructions are returned for you to follow. Use it when the task "
    "matches one of the available skills, before doing the work. Pass the skill's name in "
    "`skill` and any arguments for it in `args`."
)


def skill_tool_schema(skills: Iterable[Skill], *, format: str = "anthropic") -> dict[str, Any]:
    """The Skill tool definition for function calling.

    :param format: ``anthropic`` → ``{"name", "description", "input_schema"}``;
        ``openai`` → ``{"type": "function", "name", "description",
        "parameters"}`` (Responses API); ``openai-chat`` → ``{"type":
        "function", "function": {"name", "description", "parameters"}}``.
    """
    names = [s.name for s in sorted(skills, key=sort_key) if not s.hidden]
    skill_prop: dict[str, Any] = {"type": "string", "description": "The skill name."}
    if names:
        skill_prop["enum"] = names
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "skill": skill_prop,
            "args": {"type": "string", "description": "Optional arguments for the skill."},
        },
        "required": ["skill"],
        "additionalProperties": False,
    }
    description = _TOOL_DESCRIPTION if names else "No skills are available."
    if format == "anthropic":
        return {"name": SKILL_TOOL_NAME, "description": description, "input_schema": schema}
    if format == "openai":
        return {
            "type": "function",
            "name": SKILL_TOOL_NAME,
            "description": description,
            "parameters": schema,
        }
    if format == "openai-chat":
        return {
            "type": "function",
            "function": {
                "name": SKILL_TOOL_NAME,
                "description": description,
                "parameters": schema,
            },
        }
    raise PromptError(f"unknown tool format {format!r} (anthropic, openai or openai-chat)")


def unknown_skill(
    name: str,
    names: Iterable[str],
    *,
    conditional: Skill | None = None,
    first: Iterable[str] = (),
) -> UnknownSkillError:
    """The error for a name that is not an active skill.

    It offers the nearest names (:func:`skillpath.suggest.unknown_skill_message`),
    or, when ``conditional`` is the pending conditional skill of that name,
    says that it activates when a matching file is touched. ``first`` names
    are offered before any other (skills in a folder called ``name``).
    """
    if conditional is not None:
        return UnknownSkillError(conditional_message(conditional))
    return UnknownSkillError(unknown_skill_message(name, names, first=first))
