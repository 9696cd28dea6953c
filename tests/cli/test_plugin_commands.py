"""Plugins add commands (``register_commands``) and cache folders (``cache_folders``);
the core CLI imports no provider, and ``serve`` without ``skillpath-mcp`` says how to
install it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from skillpath import hookimpl, plugins
from skillpath.cache import CACHE_PARTS, cache_part_names, cache_parts, clean_cache
from skillpath.cli import COMMANDS, PROVIDED, main
from skillpath.plugins import PluginHost

from ..conftest import Env

CORE = Path(__file__).resolve().parents[2] / "core" / "src" / "skillpath"


@click.command("hello")
@click.option("--who", default="world")
def hello_cmd(who: str) -> None:
    """Say hello."""
    from skillpath.cli import echo

    echo(f"hello {who}")


class Hello:
    @hookimpl
    def register_commands(self, cli: click.Group) -> None:
        cli.add_command(hello_cmd)


class Clash:
    @hookimpl
    def register_commands(self, cli: click.Group) -> None:
        @click.command("list")
        def fake_list() -> None:
            raise AssertionError("a plugin cannot replace a core command")

        cli.add_command(fake_list)
        cli.add_command(hello_cmd)  # taken by "a-hello" (earlier in name order)


class Broken:
    @hookimpl
    def register_commands(self, cli: click.Group) -> None:
        raise RuntimeError("boom")


class Folders:
    @hookimpl
    def cache_folders(self) -> dict[str, str]:
        return {"acme": "the registry's answers", "../up": "bad", "index": "taken"}


def _host(monkeypatch: pytest.MonkeyPatch, *named: tuple[str, object]) -> PluginHost:
    host = PluginHost.create(env={}, autoload=False)
    for name, plugin in named:
        assert host.add(plugin, name)
    monkeypatch.setattr(plugins, "get_plugin_host", lambda env=None, **_: host)
    return host


def test_a_plugin_command_runs_and_is_listed(
    isolated_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    _host(monkeypatch, ("a-hello", Hello()))
    done = CliRunner().invoke(main, ["hello", "--who", "you"], catch_exceptions=False)
    assert (done.exit_code, done.stdout) == (0, "hello you\n")
    shown = CliRunner().invoke(main, ["--help"], catch_exceptions=False)
    assert "hello" in shown.stdout and "Say hello." in shown.stdout


def test_clashes_and_failures_are_reported_and_the_core_command_kept(
    isolated_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = _host(monkeypatch, ("a-hello", Hello()), ("b-clash", Clash()), ("c-broken", Broken()))
    commands, problems = host.commands(taken=COMMANDS)
    assert commands == {"hello": hello_cmd}
    assert sorted(d.code for d in problems) == [
        "plugin-command-conflict",
        "plugin-command-conflict",
        "plugin-hook-failed",
    ]
    assert any("'b-clash'" in d.message and "'list'" in d.message for d in problems)
    done = CliRunner().invoke(main, ["hello"], catch_exceptions=False)
    assert done.stdout == "hello world\n"


def test_core_commands_never_ask_the_plugins(
    isolated_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []

    class Spy:
        @hookimpl
        def register_commands(self, cli: click.Group) -> None:
            asked.append("register_commands")

    _host(monkeypatch, ("spy", Spy()))
    done = CliRunner().invoke(main, ["list", "--cwd", str(isolated_env.project)])
    assert done.exit_code == 0, done.output
    assert asked == []
    CliRunner().invoke(main, ["serve", "--help"])
    assert asked == ["register_commands"]


def test_serve_without_the_mcp_distribution_is_one_error_line(isolated_env: Env) -> None:
    """With ``skillpath_mcp`` not importable (not installed), ``serve`` is the core's
    stand-in: one line naming the install command, exit status 1, whatever options."""
    code = (
        "import sys\n"
        "sys.modules['skillpath_mcp'] = None\n"
        "from skillpath.cli import main\n"
        "main(sys.argv[1:])\n"
    )
    for args in (["serve"], ["serve", "--http", "0", "--poll", "0"]):
        done = subprocess.run(
            [sys.executable, "-c", code, *args],
            capture_output=True,
            text=True,
            env={**isolated_env.env, "PYTHONWARNINGS": "ignore"},
            timeout=120,
        )
        assert done.returncode == 1, done.stderr
        assert done.stderr.splitlines() == [
            "skillpath: error: skillpath serve needs the MCP support, which is not "
            "installed: pip install 'skillpath[mcp]'"
        ]
        assert done.stdout == ""


def test_serve_comes_from_the_mcp_distribution() -> None:
    pytest.importorskip("skillpath_mcp")
    from skillpath_mcp.cli import serve_cmd

    assert "serve" in PROVIDED and "serve" not in COMMANDS
    assert main.get_command(click.Context(main), "serve") is serve_cmd


def test_the_core_imports_no_provider_and_names_no_provider_cache_folder() -> None:
    importing = [
        str(path.relative_to(CORE))
        for path in sorted(CORE.rglob("*.py"))
        if "skillpath_mcp" in path.read_text(encoding="utf-8")
    ]
    assert importing == []
    for path in (CORE / "cache" / "folders.py", CORE / "cli" / "cache.py"):
        text = path.read_text(encoding="utf-8").replace("'", '"')
        assert '"mcp"' not in text and "/mcp" not in text, path


def test_plugins_declare_their_cache_folders(
    isolated_env: Env, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    host = _host(monkeypatch, ("acme", Folders()))
    declared, problems = host.cache_folders(taken=CACHE_PARTS)
    assert declared == {"acme": "the registry's answers"}
    assert [d.code for d in problems] == ["plugin-cache-conflict", "plugin-cache-conflict"]
    env = {"SKILLPATH_CACHE_DIR": str(tmp_path / "cache")}
    assert cache_part_names(env) == (*CACHE_PARTS, "acme")
    (tmp_path / "cache" / "acme").mkdir(parents=True)
    (tmp_path / "cache" / "acme" / "answer.json").write_text("{}")
    (tmp_path / "cache" / "other").mkdir()
    assert {p.name for p in cache_parts(env) if p.exists} == {"acme"}
    assert [p.name for p in clean_cache(env)] == ["acme"]
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == ["other"]
    with pytest.raises(ValueError, match="other"):
        clean_cache(env, ["other"])


def test_cache_clean_refuses_an_undeclared_part(
    isolated_env: Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    _host(monkeypatch)
    done = CliRunner().invoke(main, ["cache", "clean", "--part", "nope"])
    assert done.exit_code == 2
    assert "unknown part(s) 'nope'" in done.stderr


def test_the_mcp_provider_declares_its_cache_folder() -> None:
    mcp: Any = pytest.importorskip("skillpath_mcp")
    host = PluginHost.create(env={}, autoload=False)
    assert host.add(mcp, "mcp")
    assert host.cache_folders(taken=CACHE_PARTS)[0] == {"mcp": "listings of MCP servers"}
    assert host.commands(taken=COMMANDS)[0]["serve"].name == "serve"
