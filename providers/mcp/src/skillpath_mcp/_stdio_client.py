"""The SDK's stdio client transport, with a bound on the size of one message.

The SDK's ``stdio_client`` joins a server's output into lines with no bound
(and re-copies the line read so far for every chunk: a 50 MB line costs tens
of seconds and hundreds of megabytes before anything can check it). This
transport is the same — it starts and stops the server with the SDK's own
helpers — except for its reader: lines are assembled in linear time, and a
line over ``max_bytes`` is skipped without being held. When the skipped
message names its request ``id`` near its start (as every SDK server writes
it), that request gets a JSON-RPC error saying so; otherwise the connection
fails with that reason.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import AsyncGenerator
from typing import Any, TextIO

import anyio
import anyio.lowlevel

__all__ = ["MessageTooLarge", "bounded_stdio_client"]

_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')


class MessageTooLarge(ValueError):
    """A message from the server over the size bound (not read)."""


def _too_large(head: bytes, max_bytes: int) -> Any:
    """An error response for the request named in ``head``, or a :class:`MessageTooLarge`."""
    import json

    import mcp_types as types
    from mcp.shared.message import SessionMessage

    reason = f"a message over {max_bytes} bytes ([mcp] max_content); not read"
    m = _ID.search(head[:4096])
    if m is None:
        return MessageTooLarge(reason)
    try:
        request_id = json.loads(m.group(1))
    except ValueError:
        return MessageTooLarge(reason)
    error = types.JSONRPCError(
        jsonrpc="2.0",
        id=request_id,
        error=types.ErrorData(code=types.INTERNAL_ERROR, message=f"the answer was {reason}"),
    )
    return SessionMessage(error)


@contextlib.asynccontextmanager
async def bounded_stdio_client(
    server: Any, errlog: TextIO = sys.stderr, *, max_bytes: int
) -> AsyncGenerator[tuple[Any, Any], None]:
    """Like ``mcp.client.stdio.stdio_client(server, errlog)``; lines over ``max_bytes`` skipped."""
    from mcp.client import stdio as sdk
    from mcp.shared.message import SessionMessage

    command = await sdk._get_executable_command(server.command)
    process = await sdk._create_platform_compatible_process(
        command=command,
        args=server.args,
        env=sdk.get_default_environment() | (server.env or {}),
        errlog=errlog,
        cwd=server.cwd,
    )
    read_stream_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](
        0
    )
    write_stream, write_stream_reader = anyio.create_memory_object_stream[SessionMessage](0)
    writer_done = anyio.Event()
    encoding, errors = server.encoding, server.encoding_error_handler

    def parse(line: bytes) -> Any:
        return sdk._parse_line(line.decode(encoding, errors))

    async def stdout_reader() -> None:
        assert process.stdout is not None
        try:
            async with read_stream_writer:
                try:
                    buf = bytearray()
                    skipped: bytes | None = None  # the head of a line being skipped
                    async for chunk in process.stdout:
                        start = 0
                        while (end := chunk.find(b"\n", start)) >= 0:
                            if skipped is not None:
                                item, skipped = _too_large(skipped, max_bytes), None
                            else:
                                buf += chunk[start:end]
                                item = (
                                    _too_large(bytes(buf[:4096]), max_bytes)
                                    if len(buf) > max_bytes
                                    else parse(bytes(buf))
                                )
                            buf.clear()
                            start = end + 1
                            try:
                                await read_stream_writer.send(item)
                            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                                return
                        if skipped is None:
                            buf += chunk[start:]
                            if len(buf) > max_bytes:
                                skipped = bytes(buf[:4096])
                                buf.clear()
                finally:
                    await sdk._drain_stdout(process)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, ConnectionError):
            pass

    async def stdin_writer() -> None:
        assert process.stdin is not None
        try:
            async with write_stream_reader:
                async for message in write_stream_reader:
                    json = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((json + "\n").encode(encoding, errors))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            await read_stream_writer.aclose()
        finally:
            writer_done.set()

    async def shutdown() -> None:
        read_stream.close()
        write_stream.close()
        with anyio.move_on_after(sdk._WRITER_FLUSH_TIMEOUT):
            await writer_done.wait()
        await sdk._stop_server_process(process)
        await sdk._aclose_all(read_stream, write_stream, read_stream_writer, write_stream_reader)
        await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tg:
        tg.start_soon(stdout_reader)
        tg.start_soon(stdin_writer)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await shutdown()
            tg.cancel_scope.cancel()
