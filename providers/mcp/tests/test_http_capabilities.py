"""``serve --http`` advertises what stdio advertises: list_changed and the skills extension."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client

from .test_serve import _project_a, _run, _serve_args, _start_http, _stop


def _caps(init: Any) -> dict[str, Any]:
    caps = init.capabilities
    return {
        "prompts_list_changed": caps.prompts.list_changed if caps.prompts else None,
        "resources_list_changed": caps.resources.list_changed if caps.resources else None,
        "experimental": sorted((caps.experimental or {}).keys()),
        "extensions": sorted((getattr(caps, "extensions", None) or {}).keys()),
        "tools": caps.tools is not None,
    }


def test_http_and_stdio_advertise_the_same_capabilities(world: Any, tmp_path: Path) -> None:
    from mcp.client.streamable_http import streamable_http_client

    project = _project_a(tmp_path / "a")

    async def over_stdio() -> dict[str, Any]:
        params = StdioServerParameters(
            command=sys.executable, args=_serve_args(project, "--poll", "0"), env=world.env
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            return _caps(await s.initialize())

    stdio = _run(over_stdio)
    proc, url, _note = _start_http(project, world.env)
    try:

        async def over_http() -> dict[str, Any]:
            async with (
                streamable_http_client(url) as (read, write, *_),
                ClientSession(read, write) as s,
            ):
                return _caps(await s.initialize())

        http = _run(over_http)
    finally:
        _stop(proc)
    assert stdio["prompts_list_changed"] is True
    assert stdio["resources_list_changed"] is True
    assert "io.modelcontextprotocol/skills" in stdio["experimental"] + stdio["extensions"]
    assert http == stdio
