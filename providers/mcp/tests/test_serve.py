"""``skillpath serve`` as a subprocess, driven with the SDK's own client."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

import pytest
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client
from mcp import types as mt
from pydantic import TypeAdapter
from skillpath import load_skills
from skillpath.errors import ResolveError
from skillpath.safety import ContainmentError
from skillpath.session import SkillSession

LIMIT = 60  # seconds: no single scenario may take longer


def _write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _project_a(root: Path) -> Path:
    """A project with a skill that has arguments, files of several kinds, and two
    skills that must not become prompts or tool loads."""
    (root / ".git").mkdir(parents=True, exist_ok=True)
    skills = root / ".skillpath" / "skills"
    _write(
        skills / "hello" / "SKILL.md",
        "---\ndescription: Say hello to someone.\narguments: [who, mood]\n"
        "argument-hint: <who> [mood]\n---\nGreet $who in a $mood way.\nSee refs/guide.md.\n",
    )
    _write(skills / "hello" / "refs" / "guide.md", "# Guide\n")
    _write(skills / "hello" / "data.json", '{"a": 1}\n')
    _write(skills / "hello" / "logo.png", b"\x89PNG\x00\x01binary")
    _write(skills / "hello" / ".secret", "hidden\n")
    _write(
        skills / "quiet" / "SKILL.md",
        "---\ndescription: Background knowledge only.\nuser-invocable: false\n---\nQuiet.\n",
    )
    _write(
        skills / "manual" / "SKILL.md",
        "---\ndescription: Only a person may start this.\ndisable-model-invocation: true\n"
        "---\nManual steps for $ARGUMENTS.\n",
    )
    return root


def _serve_args(project: Path, *extra: str) -> list[str]:
    return ["-m", "skillpath", "serve", "--cwd", str(project), *extra]


def _run(coro_fn: Callable[[], Awaitable[Any]]) -> Any:
    async def bounded() -> Any:
        return await asyncio.wait_for(coro_fn(), LIMIT)

    return asyncio.run(bounded())


async def _skills_request(session: ClientSession, method: str, params: dict[str, Any]) -> Any:
    """Send a SEP-2640 request (not in the SDK's method tables)."""

    class Req(mt.Request[dict[str, Any], Literal["skills/list", "skills/get"]]):
        pass

    return await session.send_request(
        Req(method=method, params=params), TypeAdapter(dict[str, Any])
    )


def test_serve_over_stdio(world: Any) -> None:
    project = _project_a(world.project)
    notes: list[Any] = []

    async def on_message(message: Any) -> None:
        notes.append(message)

    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        params = StdioServerParameters(
            command=sys.executable, args=_serve_args(project, "--poll", "0.3"), env=world.env
        )
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write, message_handler=on_message) as s,
        ):
            init = await s.initialize()
            out["caps"] = init.capabilities
            out["prompts"] = {p.name: p for p in (await s.list_prompts()).prompts}
            got = await s.get_prompt("hello", {"who": "Bob", "mood": "happy"})
            out["rendered"] = got.messages[0].content.text
            out["resources"] = {str(r.uri): r for r in (await s.list_resources()).resources}
            out["guide"] = (await s.read_resource("skill://hello/refs/guide.md")).contents[0]
            out["logo"] = (await s.read_resource("skill://hello/logo.png")).contents[0]
            out["errors"] = {}
            for bad in (
                "skill://hello/../../etc/passwd",
                "skill://hello/%2e%2e/%2e%2e/etc/passwd",
                "skill://hello/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
                "skill://hello/.secret/../../../etc/passwd",
                "skill://nobody/SKILL.md",
                "file:///etc/passwd",
            ):
                try:
                    await s.read_resource(bad)
                    out["errors"][bad] = None
                except MCPError as exc:
                    out["errors"][bad] = str(exc)
            out["skills_list"] = await _skills_request(s, "skills/list", {})
            out["skills_get"] = await _skills_request(
                s, "skills/get", {"uri": "skill://hello/SKILL.md"}
            )
            try:
                await _skills_request(s, "skills/get", {"uri": "skill://nope/SKILL.md"})
                out["skills_get_unknown"] = None
            except MCPError as exc:
                out["skills_get_unknown"] = exc.error.code
            out["tools"] = sorted(t.name for t in (await s.list_tools()).tools)
            loaded = await s.call_tool("load_skill", {"name": "hello", "args": "Ann sad"})
            out["load_skill"] = (loaded.is_error, loaded.content[0].text)
            refused = await s.call_tool("load_skill", {"name": "manual"})
            out["load_manual"] = (refused.is_error, refused.content[0].text)
            listed = await s.call_tool("list_skills", {})
            out["list_skills"] = listed.structured_content
            found = await s.call_tool("search_skills", {"query": "say hello to Bob", "k": 3})
            out["search"] = (found.is_error, found.content[0].text, found.structured_content)
            out["search_bad"] = [
                (await s.call_tool("search_skills", args)).is_error
                for args in ({}, {"query": 3}, {"query": "x", "k": "many"}, {"query": "x", "k": 0})
            ]
            words = "only a person may start manual steps"
            hidden = await s.call_tool("search_skills", {"query": words, "k": 20})
            out["search_hidden"] = hidden.structured_content

            # a new skill on disk: list_changed notifications, then the new prompt
            _write(
                project / ".skillpath" / "skills" / "fresh" / "SKILL.md",
                "---\ndescription: Appeared while serving.\n---\nFresh.\n",
            )
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and not any(
                isinstance(n, mt.PromptListChangedNotification) for n in notes
            ):
                await asyncio.sleep(0.1)
            out["fresh"] = "fresh" in {p.name for p in (await s.list_prompts()).prompts}
        return out

    out = _run(scenario)

    assert out["caps"].prompts.list_changed is True
    assert out["caps"].resources.list_changed is True
    prompts = out["prompts"]
    assert {"hello", "manual"} <= set(prompts) and "quiet" not in prompts
    hello = prompts["hello"]
    assert hello.description == "Say hello to someone."
    assert [(a.name, a.required) for a in hello.arguments] == [("who", False), ("mood", False)]
    assert [a.name for a in prompts["manual"].arguments] == ["args"]
    assert "Greet Bob in a happy way." in out["rendered"]

    resources = out["resources"]
    mine = {u: r for u, r in resources.items() if re.match(r"skill://(hello|quiet|manual)/", u)}
    assert sorted(mine) == [
        "skill://hello/SKILL.md",
        "skill://hello/data.json",
        "skill://hello/logo.png",
        "skill://hello/refs/guide.md",
        "skill://manual/SKILL.md",
        "skill://quiet/SKILL.md",
    ]
    assert mine["skill://hello/SKILL.md"].mime_type == "text/markdown"
    assert mine["skill://hello/SKILL.md"].name == "hello"
    assert mine["skill://hello/SKILL.md"].description == "Say hello to someone."
    assert mine["skill://hello/data.json"].mime_type == "application/json"
    assert mine["skill://hello/logo.png"].mime_type == "image/png"
    assert mine["skill://hello/refs/guide.md"].mime_type == "text/markdown"
    assert out["guide"].text == "# Guide\n" and out["guide"].mime_type == "text/markdown"
    import base64

    assert base64.b64decode(out["logo"].blob) == b"\x89PNG\x00\x01binary"

    errors = out["errors"]
    assert all(msg is not None for msg in errors.values()), errors
    for bad in list(errors)[:4]:
        assert "traversal" in errors[bad] or "outside" in errors[bad], errors[bad]
    assert "Unknown skill 'nobody'" in errors["skill://nobody/SKILL.md"]
    assert "Unknown resource" in errors["file:///etc/passwd"]

    entries = {e["uri"]: e for e in out["skills_list"]["skills"]}
    entry = entries["skill://hello/SKILL.md"]
    assert entry["frontmatter"] == {
        "description": "Say hello to someone.",
        "arguments": ["who", "mood"],
        "argument-hint": "<who> [mood]",
    }
    folder = project / ".skillpath" / "skills" / "hello"
    expected = {
        f"skill://hello/{rel}": "sha256:" + hashlib.sha256((folder / rel).read_bytes()).hexdigest()
        for rel in ("SKILL.md", "data.json", "logo.png", "refs/guide.md")
    }
    assert {r["uri"]: r["digest"] for r in entry["resources"]} == expected
    assert entry["resources"][0]["uri"] == "skill://hello/SKILL.md"
    assert out["skills_get"] == {"skill": entry}
    assert out["skills_get_unknown"] == mt.INVALID_PARAMS
    assert out["list_skills"] == out["skills_list"]

    assert out["tools"] == ["list_skills", "load_skill", "search_skills"]
    assert out["search"][0] is False and "- hello: Say hello to someone." in out["search"][1]
    assert out["search"][2]["results"][0]["name"] == "hello"
    assert out["search_bad"] == [True, True, True, True]
    assert "manual" not in [r["name"] for r in out["search_hidden"]["results"]]
    assert out["load_skill"][0] is False and "Greet Ann in a sad way." in out["load_skill"][1]
    assert out["load_manual"][0] is True and "disable-model-invocation" in out["load_manual"][1]

    assert any(isinstance(n, mt.PromptListChangedNotification) for n in notes), notes
    assert any(isinstance(n, mt.ResourceListChangedNotification) for n in notes), notes
    assert out["fresh"] is True


def test_two_skillpath_processes(world: Any, tmp_path: Path) -> None:
    """Serve project A; project B consumes it through [[mcp.servers]] and sees A's skills."""
    a = _project_a(tmp_path / "a")
    world.skill("quiet", "B's own quiet skill wins over A's.")
    world.config(
        world.toml_servers(
            [{"name": "a", "command": sys.executable, "args": _serve_args(a, "--poll", "0")}],
            timeout=30,
        )
    )
    session = SkillSession.open(world.project, home=world.home)
    hello = session.get("hello")
    assert hello is not None
    src = hello.source
    assert (src.provider, src.level, src.loaded_from) == ("mcp", "remote", "mcp")
    assert src.detail["server"] == "a"
    assert src.detail["kind"] == "skill" and src.detail["via"] == "skills/list"
    assert src.detail["uri"] == "skill://hello/SKILL.md"
    assert src.detail["server_info"]["name"] == "skillpath"
    assert hello.description == "Say hello to someone."
    assert hello.frontmatter.arguments == ("who", "mood")
    assert hello.frontmatter.argument_hint == "<who> [mood]"
    manual = session.get("manual")
    assert manual is not None and manual.frontmatter.disable_model_invocation is True
    # B's local skill keeps its name; A's is shadowed with a diagnostic
    assert session.get("quiet").source.provider == "native"
    assert any(
        d.code == "name-conflict" and "'quiet'" in d.message and "mcp/remote" in d.message
        for d in session.result.diagnostics
    )

    # invoking in B renders in A (A substitutes the arguments)
    rendered = session.invoke("hello", "Bob happy", trigger="mcp")
    assert "Greet Bob in a happy way." in rendered.content
    # skill:// reads in B go to A, checked against A's digests
    assert session.resolve("skill://hello/refs/guide.md").content == "# Guide\n"
    assert session.resolve("skill://hello/.").content == "SKILL.md\ndata.json\nlogo.png\nrefs/\n"
    assert session.resolve("skill://hello").content.startswith("---\ndescription: Say hello")
    with pytest.raises(ResolveError, match="binary file"):
        session.resolve("skill://hello/logo.png")
    with pytest.raises(ResolveError, match="File not found"):
        session.resolve("skill://hello/.secret")
    with pytest.raises(ContainmentError):
        session.resolve("skill://hello/%2e%2e/%2e%2e/etc/passwd")

    # the CLI in B lists A's skill with its origin
    listed = subprocess.run(
        [sys.executable, "-m", "skillpath", "list", "--json", "--cwd", str(world.project)],
        capture_output=True,
        text=True,
        timeout=LIMIT,
        env=world.env,
        check=True,
    )
    data = json.loads(listed.stdout)
    row = next(s for s in data["skills"] if s["name"] == "hello")
    assert (row["provider"], row["level"], row["path"]) == ("mcp", "remote", None)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start_http(project: Path, env: dict[str, str], *extra: str) -> tuple[Any, str, str]:
    """Start ``serve --http 0``; return the process, its URL and its shell note line."""
    proc = subprocess.Popen(
        [sys.executable, *_serve_args(project, "--http", "0", "--poll", "0", *extra)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    url = None
    deadline = time.monotonic() + 30
    assert proc.stderr is not None
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        m = re.search(r"listening on (http://127\.0\.0\.1:\d+/mcp)", line)
        if m:
            url = m.group(1)
            break
    if url is None:
        _stop(proc)
        raise AssertionError("the server did not report its URL")
    return proc, url, proc.stderr.readline()


def _stop(proc: Any) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


def _shell_skill(world: Any, marker: Path) -> None:
    """A user-level skill (allowed inline shell by default) that writes ``marker``."""
    folder = world.home / ".skillpath" / "skills" / "shelly"
    _write(
        folder / "SKILL.md",
        "---\ndescription: Runs a command when rendered.\n---\n"
        f"Now: !`echo ran > '{marker}'; echo done`\n",
    )


@pytest.mark.parametrize("allow", [False, True])
def test_http_runs_no_inline_shell_unless_allowed(world: Any, tmp_path: Path, allow: bool) -> None:
    """Any local process can reach a loopback port: over HTTP, commands need --allow-shell."""
    from mcp.client.streamable_http import streamable_http_client

    marker = tmp_path / "ran"
    _shell_skill(world, marker)
    a = _project_a(tmp_path / "a")
    proc, url, note = _start_http(a, world.env, *(["--allow-shell"] if allow else []))
    try:

        async def scenario() -> str:
            async with (
                streamable_http_client(url) as (read, write, *_),
                ClientSession(read, write) as s,
            ):
                await s.initialize()
                got = await s.get_prompt("shelly", {})
                return str(got.messages[0].content.text)

        text = _run(scenario)
    finally:
        _stop(proc)
    assert marker.exists() is allow
    if allow:
        assert "Now: done" in text and "follows the [shell] policy" in note
    else:
        assert "[shell command execution disabled by policy]" in text and "is off" in note


def test_stdio_follows_the_shell_policy_and_flags_conflict(world: Any, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    _shell_skill(world, marker)
    project = _project_a(world.project)

    async def scenario() -> str:
        params = StdioServerParameters(
            command=sys.executable, args=_serve_args(project, "--poll", "0"), env=world.env
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            got = await s.get_prompt("shelly", {})
            return str(got.messages[0].content.text)

    assert "Now: done" in _run(scenario)
    assert marker.read_text().strip() == "ran"
    done = subprocess.run(
        [sys.executable, *_serve_args(project, "--http", "0", "--no-shell", "--allow-shell")],
        capture_output=True,
        text=True,
        timeout=LIMIT,
        env=world.env,
    )
    assert done.returncode == 1
    assert "--no-shell and --allow-shell" in done.stderr


def test_serve_over_http(world: Any, tmp_path: Path) -> None:
    a = _project_a(tmp_path / "a")
    proc, url, _note = _start_http(a, world.env)
    try:
        world.config(world.toml_servers([{"name": "web", "url": url}], timeout=20))
        result = load_skills(world.project, home=world.home)
        hello = result.get("hello")
        assert hello is not None
        assert hello.source.detail["server"] == "web"
        assert hello.source.detail["transport"] == "http"
        assert not [d for d in result.diagnostics if d.provider == "mcp" and d.level == "error"]
    finally:
        from skillpath_mcp.provider import clear_cache

        clear_cache()
        _stop(proc)


def test_serve_without_the_mcp_support_says_how_to_install(world: Any) -> None:
    code = (
        "import sys\n"
        "sys.modules['skillpath_mcp.server'] = None\n"
        "from skillpath.cli import main\n"
        f"main(['serve', '--cwd', {str(world.project)!r}])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=LIMIT,
        env={**world.env, "PYTHONWARNINGS": "ignore"},
    )
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "skillpath: error: skillpath serve needs the MCP support, which is not installed: "
        "pip install 'skillpath[mcp]'"
    ]
    assert os.environ.get("HOME") == str(world.home)


async def _directory_read(session: ClientSession, uri: str, cursor: str | None = None) -> Any:
    """Send SEP-2640 ``resources/directory/read`` (not in the SDK's method tables)."""

    class Req(mt.Request[dict[str, Any], Literal["resources/directory/read"]]):
        pass

    params: dict[str, Any] = {"uri": uri, **({"cursor": cursor} if cursor else {})}
    return await session.send_request(
        Req(method="resources/directory/read", params=params), TypeAdapter(dict[str, Any])
    )


def test_directory_read_lists_children_contained_and_paged(world: Any, tmp_path: Path) -> None:
    """``resources/directory/read`` lists a folder's direct children (files, then
    subfolders as ``inode/directory``), pages them, and refuses what ``resources/read``
    refuses: traversal, dot folders, links out of the skill, files, unknown skills."""
    project = _project_a(world.project)
    hello = project / ".skillpath" / "skills" / "hello"
    _write(hello / "refs" / "deep" / "more.md", "# More\n")
    outside = tmp_path / "outside"
    _write(outside / "stolen.md", "secret\n")
    (hello / "escape").symlink_to(outside, target_is_directory=True)
    _write(hello / ".hidden" / "x.md", "x\n")
    many = project / ".skillpath" / "skills" / "many"
    _write(many / "SKILL.md", "---\ndescription: Many files.\n---\nMany.\n")
    for i in range(150):
        _write(many / "files" / f"f{i:03}.txt", "x\n")

    async def scenario() -> dict[str, Any]:
        out: dict[str, Any] = {}
        params = StdioServerParameters(
            command=sys.executable, args=_serve_args(project), env=world.env
        )
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write) as s,
        ):
            init = await s.initialize()
            out["caps"] = init.model_dump(by_alias=True)["capabilities"]
            out["root"] = await _directory_read(s, "skill://hello")
            out["slash"] = await _directory_read(s, "skill://hello/")
            out["refs"] = await _directory_read(s, "skill://hello/refs")
            first = await _directory_read(s, "skill://many/files")
            second = await _directory_read(s, "skill://many/files", first.get("nextCursor"))
            out["pages"] = (first, second)
            out["errors"] = {}
            for bad in (
                "skill://hello/SKILL.md",
                "skill://hello/refs/..",
                "skill://hello/refs/../..",
                "skill://hello/%2e%2e",
                "skill://hello/escape",
                "skill://hello/.hidden",
                "skill://nobody",
                "file:///etc",
            ):
                try:
                    await _directory_read(s, bad)
                    out["errors"][bad] = None
                except MCPError as exc:
                    out["errors"][bad] = exc.error.code
            try:
                await _directory_read(s, "skill://many/files", "x9")
                out["bad_cursor"] = None
            except MCPError as exc:
                out["bad_cursor"] = exc.error.code
        return out

    out = _run(scenario)
    assert out["caps"]["extensions"]["io.modelcontextprotocol/skills"] == {"directoryRead": True}
    assert out["root"] == out["slash"]
    assert out["root"]["resources"] == [
        {
            "uri": "skill://hello/SKILL.md",
            "name": "SKILL.md",
            "mimeType": "text/markdown",
            "size": (hello / "SKILL.md").stat().st_size,
        },
        {
            "uri": "skill://hello/data.json",
            "name": "data.json",
            "mimeType": "application/json",
            "size": 9,
        },
        {"uri": "skill://hello/logo.png", "name": "logo.png", "mimeType": "image/png", "size": 12},
        {"uri": "skill://hello/refs", "name": "refs", "mimeType": "inode/directory"},
    ]
    assert "nextCursor" not in out["root"]
    assert [r["uri"] for r in out["refs"]["resources"]] == [
        "skill://hello/refs/guide.md",
        "skill://hello/refs/deep",
    ]
    first, second = out["pages"]
    assert len(first["resources"]) == 100 and first["nextCursor"]
    assert len(second["resources"]) == 50 and "nextCursor" not in second
    names = [r["name"] for r in first["resources"] + second["resources"]]
    assert names == [f"f{i:03}.txt" for i in range(150)]
    assert out["errors"] == dict.fromkeys(out["errors"], -32602)
    assert out["bad_cursor"] == -32602
