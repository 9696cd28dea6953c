"""Shell completion: skill names for ``show``/``explain``/``invoke``, ``skill://`` URLs
for ``read``, and ``skillpath completion SHELL`` to print the script to source."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click
from click.shell_completion import (
    BashComplete,
    CompletionItem,
    add_completion_class,
    get_completion_class,
    split_arg_string,
)

__all__ = [
    "SHELLS",
    "BashLineComplete",
    "complete_skill_names",
    "complete_skill_urls",
    "completion_cmd",
]

#: Shells click can complete for.
SHELLS = ("bash", "zsh", "fish")

# Bash splits the words it hands a completion function at every character of
# COMP_WORDBREAKS, ':' included, so ``skill://pdf`` arrives as ``skill``, ``:``,
# ``//pdf``: click's script would complete ``//pdf`` alone. This script sends the
# line up to the cursor instead (parsed here with the shell's quoting rules), and
# trims the replies to the part after the last ':' of the word, as bash-completion's
# ``__ltrim_colon_completions`` does, since bash replaces only that part.
_SOURCE_BASH = """\
%(complete_func)s() {
    local IFS=$'\\n'
    local response completion type value i
    local line=${COMP_LINE:0:COMP_POINT}
    local cur=${line##*[[:space:]]}

    response=$(env COMP_WORDS="${COMP_WORDS[*]}" COMP_CWORD=$COMP_CWORD \\
_SKILLPATH_COMP_LINE="$line" %(complete_var)s=bash_complete $1)

    for completion in $response; do
        IFS=',' read -r type value <<< "$completion"

        if [[ $type == 'dir' ]]; then
            COMPREPLY=()
            compopt -o dirnames
        elif [[ $type == 'file' ]]; then
            COMPREPLY=()
            compopt -o default
        elif [[ $type == 'plain' ]]; then
            COMPREPLY+=("$value")
        fi
    done

    if [[ $cur == *:* && $COMP_WORDBREAKS == *:* ]]; then
        local colon_word=${cur%%"${cur##*:}"}
        for i in "${!COMPREPLY[@]}"; do
            COMPREPLY[i]=${COMPREPLY[i]#"$colon_word"}
        done
    fi

    return 0
}

%(complete_func)s_setup() {
    complete -o nosort -F %(complete_func)s %(prog_name)s
}

%(complete_func)s_setup;
"""


class BashLineComplete(BashComplete):
    """Bash completion that survives ``:`` in a word (``skill://name``).

    The script passes ``_SKILLPATH_COMP_LINE``, the command line up to the cursor;
    the last word, unless the line ends in a space, is the one being completed.
    A script sourced from an older release sends only click's ``COMP_WORDS``,
    which still works for everything without a colon.
    """

    source_template = _SOURCE_BASH

    def get_completion_args(self) -> tuple[list[str], str]:
        line = os.environ.get("_SKILLPATH_COMP_LINE")
        if not line:
            return super().get_completion_args()
        words = split_arg_string(line)
        incomplete = words.pop() if words and not line[-1:].isspace() else ""
        return words[1:], incomplete


add_completion_class(BashLineComplete, "bash")


def _catalog(ctx: click.Context) -> list[tuple[str, str]]:
    """``(name, description)`` of every skill visible from the command's ``--cwd``
    (hidden ones included: they can still be invoked); nothing on any trouble —
    a completion must never print an error into the user's shell."""
    try:
        from skillpath.loader import load_skills

        cwd = ctx.params.get("cwd")
        result = load_skills(Path(cwd) if cwd else None)
        skills = [*result.skills, *result.conditional]
        # a name the shell could not take as one word (control characters,
        # spaces) is left out rather than mangled
        return sorted(
            (s.name, s.description or "")
            for s in skills
            if s.name.isprintable() and not any(c.isspace() for c in s.name)
        )
    except Exception:  # noqa: BLE001 - completion is best effort by design
        return []


def _help(description: str) -> str:
    from skillpath.cli._common import terminal_safe

    text = terminal_safe(" ".join(description.split()))
    return text if len(text) <= 60 else text[:59] + "…"


def complete_skill_names(
    ctx: click.Context, _param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """Skill names starting with ``incomplete`` (case-insensitively), with their
    descriptions as help where the shell shows it (zsh, fish)."""
    low = incomplete.casefold()
    return [
        CompletionItem(name, help=_help(desc))
        for name, desc in _catalog(ctx)
        if name.casefold().startswith(low)
    ]


def complete_skill_urls(
    ctx: click.Context, _param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """``skill://<name>`` for skill names matching what follows ``skill://``."""
    prefix = "skill://"
    if not (prefix.startswith(incomplete) or incomplete.startswith(prefix)):
        return []
    rest = incomplete[len(prefix) :] if incomplete.startswith(prefix) else ""
    if "/" in rest:
        return []
    low = rest.casefold()
    return [
        CompletionItem(prefix + name, help=_help(desc))
        for name, desc in _catalog(ctx)
        if name.casefold().startswith(low)
    ]


@click.command("completion")
@click.argument("shell", type=click.Choice(SHELLS), required=False)
def completion_cmd(shell: str | None) -> None:
    """Print the shell completion script for SHELL (bash, zsh or fish; default: the
    one in $SHELL). Completes commands, options, skill names (show, explain,
    invoke) and skill:// URLs (read).

    \b
    bash:  eval "$(skillpath completion bash)"          (in ~/.bashrc)
    zsh:   eval "$(skillpath completion zsh)"           (in ~/.zshrc)
    fish:  skillpath completion fish > ~/.config/fish/completions/skillpath.fish
    """
    from skillpath.cli._common import fail

    main = click.get_current_context().find_root().command  # the skillpath group

    if shell is None:
        shell = os.path.basename(os.environ.get("SHELL", ""))
        if shell not in SHELLS:
            fail(
                f"cannot tell the shell from $SHELL ({shell or 'unset'}); "
                f"name one of {', '.join(SHELLS)}",
                error="bad-option",
            )
    cls: Any = get_completion_class(shell)
    click.echo(cls(main, {}, "skillpath", "_SKILLPATH_COMPLETE").source())
