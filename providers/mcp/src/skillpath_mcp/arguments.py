"""Mapping a skill invocation's argument string onto an MCP prompt's arguments.

The rule (the same for ``/skill:name args``, the Skill tool and ``load_skill``):

1. The string is split like a shell would (``shlex``, so ``"two words"`` is one
   value); an unbalanced quote falls back to splitting on whitespace.
2. A token ``key=value`` whose ``key`` is a declared argument sets that
   argument by name (anywhere in the string).
3. The other tokens fill the remaining declared arguments positionally, in
   declaration order; when there are more tokens than arguments left, the
   last argument receives the rest, joined by single spaces.
4. A missing required argument, or arguments given to a prompt that declares
   none, is an error naming the prompt's arguments.

A prompt with exactly one argument receives the whole string unchanged
(quotes included; a leading ``<argument>=`` is dropped): free-form prompts
(``skillpath serve`` declares a single ``args``) see what the user typed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from skillpath.errors import PromptError
from skillpath.transforms import split_words

__all__ = ["map_arguments"]

_NAMED = re.compile(r"([A-Za-z_][A-Za-z0-9_.-]*)=(.*)\Z", re.DOTALL)


def _split(args: str) -> list[str]:
    try:
        return split_words(args)  # shlex.split's words, in linear time
    except ValueError:
        return args.split()


def _usage(names: Sequence[tuple[str, bool]]) -> str:
    if not names:
        return "no arguments"
    return " ".join(f"<{n}>" if req else f"[{n}]" for n, req in names)


def map_arguments(prompt: str, declared: Sequence[tuple[str, bool]], args: str) -> dict[str, str]:
    """``{argument: value}`` for ``args`` against ``declared`` ``(name, required)`` pairs.

    Raises :class:`~skillpath.errors.PromptError` when the string cannot be
    mapped (see the module docstring for the rule).
    """
    names = [n for n, _ in declared]
    raw = args.strip()
    if len(names) == 1 and raw:
        prefix = f"{names[0]}="
        return {names[0]: raw[len(prefix) :] if raw.startswith(prefix) else raw}
    tokens = _split(raw) if raw else []
    out: dict[str, str] = {}
    positional: list[str] = []
    for token in tokens:
        m = _NAMED.match(token)
        if m and m.group(1) in names and m.group(1) not in out:
            out[m.group(1)] = m.group(2)
        else:
            positional.append(token)
    if positional and not names:
        raise PromptError(f"MCP prompt {prompt!r} takes no arguments, got {args.strip()!r}")
    free = [n for n in names if n not in out]
    if positional and not free:
        raise PromptError(
            f"MCP prompt {prompt!r}: too many arguments {positional!r}; usage: {_usage(declared)}"
        )
    for i, name in enumerate(free):
        if i >= len(positional):
            break
        if i == len(free) - 1:
            out[name] = " ".join(positional[i:])
        else:
            out[name] = positional[i]
    missing = [n for n, required in declared if required and n not in out]
    if missing:
        raise PromptError(
            f"MCP prompt {prompt!r}: missing required argument(s) {', '.join(missing)}; "
            f"usage: {_usage(declared)}"
        )
    return out
