"""Every command but ``invoke`` takes its options before or after its arguments
(``explain NAME --json`` is ``explain --json NAME``); ``invoke NAME args…`` passes every
word after the name to the skill (tests/runtime/test_cli.py)."""

from __future__ import annotations

import json

import click
import pytest
from skillpath.cli import COMMANDS, main

from .conftest import Cli


def _commands() -> dict[str, click.Command]:
    """Every command and subcommand, by its full name."""
    out: dict[str, click.Command] = {}
    ctx = click.Context(main)
    for name in sorted(COMMANDS):
        command = main.get_command(ctx, name)
        assert command is not None, name
        out[name] = command
        if isinstance(command, click.Group):
            sub = click.Context(command, parent=ctx)
            for child in command.list_commands(sub):
                found = command.get_command(sub, child)
                assert found is not None
                out[f"{name} {child}"] = found
    return out


def test_every_command_but_invoke_takes_options_after_its_arguments() -> None:
    strict = sorted(
        name
        for name, command in _commands().items()
        if not command.context_settings.get(
            "allow_interspersed_args", command.allow_interspersed_args
        )
        and any(isinstance(p, click.Argument) for p in command.params)
    )
    assert strict == ["invoke"]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (["explain", "--json", "deploy"], ["explain", "deploy", "--json"]),
        (["show", "--json", "--body", "deploy"], ["show", "deploy", "--body", "--json"]),
        (["search", "--json", "deploy"], ["search", "deploy", "--json"]),
        (["read", "--json", "skill://deploy"], ["read", "skill://deploy", "--json"]),
        (
            ["validate", "--json", ".agents/skills/deploy"],
            ["validate", ".agents/skills/deploy", "--json"],
        ),
    ],
)
def test_an_option_after_the_argument_means_the_same(
    cli: Cli, before: list[str], after: list[str]
) -> None:
    folder = cli.env.project / ".agents" / "skills" / "deploy"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: deploy\ndescription: Deploy the service.\n---\nShip it.\n", encoding="utf-8"
    )
    first, second = cli.run(*before), cli.run(*after)
    assert first.exit_code == second.exit_code == 0, first.output + second.output
    assert json.loads(first.stdout) == json.loads(second.stdout)


def test_new_takes_its_options_after_the_name(cli: Cli) -> None:
    made = cli.run("new", "deploy", "--agent", "claude", "--description", "Deploy it.", "--json")
    assert made.exit_code == 0, made.output
    assert (cli.env.project / ".claude" / "skills" / "deploy" / "SKILL.md").is_file()
    assert json.loads(made.stdout)["path"].endswith(".claude/skills/deploy")
