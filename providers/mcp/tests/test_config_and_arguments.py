"""``[[mcp.servers]]`` validation and the argument mapping rule (no servers started)."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from skillpath import make_context
from skillpath.errors import PromptError
from skillpath_mcp.arguments import map_arguments
from skillpath_mcp.config import parse_servers


def _parse(world: Any, text: str) -> tuple[Any, Any, Any]:
    path = world.config(text)
    ctx, diags = make_context(world.project, home=world.home)
    assert not [d for d in diags if d.level == "error"], diags
    servers, sdiags = parse_servers(ctx)
    return path, servers, sdiags


def test_valid_entries_stdio_and_http(world: Any) -> None:
    _path, servers, diags = _parse(
        world,
        world.toml_servers(
            [
                {"name": "a", "command": sys.executable, "args": ["-V"], "env": {"X": "1"}},
                {"name": "b", "url": "http://127.0.0.1:9/mcp", "headers": {"H": "v"}},
                {"name": "c", "command": "x", "timeout": 3, "prefix": "c-"},
            ],
            timeout=7,
        ),
    )
    assert diags == []
    a, b, c = servers
    assert (a.transport, a.args, a.env, a.timeout) == ("stdio", ("-V",), (("X", "1"),), 7.0)
    assert (b.transport, b.url, b.headers) == ("http", "http://127.0.0.1:9/mcp", (("H", "v"),))
    assert (c.timeout, c.prefix) == (3.0, "c-")
    assert a.key != c.key and a.key == servers[0].key


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ({"command": "x"}, "'name' must be"),
        ({"name": "a b", "command": "x"}, "'name' must be"),
        ({"name": "a"}, "exactly one of 'command'"),
        ({"name": "a", "command": "x", "url": "http://h/"}, "exactly one of 'command'"),
        ({"name": "a", "command": ""}, "'command' must be a non-empty string"),
        ({"name": "a", "command": "x", "args": "-v"}, "'args' must be a list of strings"),
        ({"name": "a", "command": "x", "env": {"A": 1}}, "'env' must be a table of strings"),
        ({"name": "a", "url": "ftp://h/x"}, "'url' must be an http"),
        ({"name": "a", "command": "x", "timeout": 0}, "'timeout' must be a positive"),
        ({"name": "a", "command": "x", "enabled": "no"}, "'enabled' must be true or false"),
    ],
)
def test_bad_entries_are_diagnostics_with_the_config_file(
    world: Any, entry: dict[str, object], reason: str
) -> None:
    path, servers, diags = _parse(
        world, world.toml_servers([entry, {"name": "ok", "command": "x"}])
    )
    assert [s.name for s in servers] == ["ok"]
    errors = [d for d in diags if d.level == "error"]
    assert len(errors) == 1, diags
    assert reason in errors[0].message
    assert "entry 1" in errors[0].message
    assert errors[0].code == "mcp-config"
    assert errors[0].path == path
    assert errors[0].provider == "mcp"


def test_duplicates_unknown_keys_and_disabled(world: Any) -> None:
    _path, servers, diags = _parse(
        world,
        world.toml_servers(
            [
                {"name": "a", "command": "x", "colour": "red"},
                {"name": "a", "command": "y"},
                {"name": "off", "command": "z", "enabled": False},
            ]
        ),
    )
    assert [(s.name, s.command) for s in servers] == [("a", "x")]
    codes = sorted((d.level, d.code) for d in diags)
    assert codes == [
        ("error", "mcp-config"),
        ("info", "mcp-server-disabled"),
        ("warning", "mcp-config"),
    ]
    assert any("duplicate server name 'a'" in d.message for d in diags)
    assert any("colour" in d.message for d in diags)


def test_a_non_table_servers_setting_is_reported_by_the_settings_layer(world: Any) -> None:
    world.config('[mcp]\nservers = ["not a table"]\n')
    _ctx, diags = make_context(world.project, home=world.home)
    assert any(d.code == "settings-bad-value" and "servers" in d.message for d in diags)


DECLARED = [("name", True), ("tone", False), ("extra", False)]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ("Bob", {"name": "Bob"}),
        ("Bob cold", {"name": "Bob", "tone": "cold"}),
        ("Bob cold and dry", {"name": "Bob", "tone": "cold", "extra": "and dry"}),
        ("tone=cold Bob", {"tone": "cold", "name": "Bob"}),
        ('"Bob Smith" extra=1 cold', {"name": "Bob Smith", "extra": "1", "tone": "cold"}),
        ("name=a=b", {"name": "a=b"}),
        ("other=1", {"name": "other=1"}),
        ('unbalanced "quote', {"name": "unbalanced", "tone": '"quote'}),
    ],
)
def test_argument_mapping(args: str, expected: dict[str, str]) -> None:
    assert map_arguments("p", DECLARED, args) == expected


def test_argument_errors() -> None:
    with pytest.raises(PromptError, match=r"missing required argument\(s\) name; usage: <name>"):
        map_arguments("p", DECLARED, "tone=cold")
    with pytest.raises(PromptError, match="takes no arguments"):
        map_arguments("p", [], "x")
    with pytest.raises(PromptError, match="too many arguments"):
        map_arguments("p", [("a", False), ("b", False)], "a=1 b=2 c")
    assert map_arguments("p", [], "  ") == {}


def test_a_single_argument_gets_the_raw_string() -> None:
    assert map_arguments("p", [("args", False)], ' "a b"  c ') == {"args": '"a b"  c'}
    assert map_arguments("p", [("args", False)], "args=x y") == {"args": "x y"}
    assert map_arguments("p", [("args", False)], "") == {}
