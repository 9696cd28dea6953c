"""Bounds for ``skillpath serve``: connections, sessions, requests and the stdio pipe.

Any local process can reach a loopback port, and a stdio client can write
without ever reading. What is bounded here:

* **HTTP connections** (:class:`GuardedH11Protocol`): a request's head and
  body must arrive within ``request_timeout`` seconds of its first byte (or of
  the connection, when nothing is sent), else the connection is closed; at
  most ``max_connections`` are open — a new one closes the least recently
  active connection that is not being answered (one whose request has not
  fully arrived counts as idle), or itself when every one is being answered.
* **HTTP sessions** (:class:`LruSessionManager`): at most ``max_sessions``; a
  new session evicts the least recently used session that has no request in
  flight instead of being refused, and a session idle for
  ``session_idle_timeout`` seconds ends.
* **stdio** (:func:`stdio_transport`): at most ``max_in_flight`` requests are
  read ahead of their responses; while the client does not read what the
  server wrote, the server stops reading (the pipe applies backpressure to the
  client) instead of queueing answers in memory. Lines are bounded by
  ``max_line_bytes``. The pipe is read and written by daemon threads, so a
  signal ends the server even while a read or write is blocked. A client that
  closes the server's output while keeping its input open (a write fails, or
  the output pipe reports an error) ends the server too, instead of leaving it
  idle until killed; a client that closes both ends is an ordinary disconnect.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import queue
import select
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import attrs

__all__ = ["ServeLimits"]

_MIB = 1024 * 1024


def _positive(_inst: Any, attr: attrs.Attribute[Any], value: float) -> None:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise ValueError(f"{attr.name} must be a positive number, not {value!r}")


@attrs.frozen
class ServeLimits:
    """The bounds ``skillpath serve`` keeps (``skillpath serve --limit NAME=VALUE``).

    Sizes are in bytes or characters, times in seconds.
    """

    #: Open HTTP connections (the least recently active idle one is closed first).
    max_connections: int = attrs.field(default=128, validator=_positive)
    #: Seconds a request's head and body may take to arrive.
    request_timeout: float = attrs.field(default=10.0, validator=_positive)
    #: Seconds an idle keep-alive connection stays open.
    keep_alive: float = attrs.field(default=5.0, validator=_positive)
    #: MCP sessions over HTTP (the least recently used idle one is evicted first).
    max_sessions: int = attrs.field(default=256, validator=_positive)
    #: Seconds without a request after which an HTTP session ends.
    session_idle_timeout: float = attrs.field(default=900.0, validator=_positive)
    #: Bytes of one HTTP request body.
    max_request_bytes: int = attrs.field(default=4 * _MIB, validator=_positive)
    #: Characters of a prompt's or ``load_skill``'s arguments, all together.
    max_argument_chars: int = attrs.field(default=2 * _MIB, validator=_positive)
    #: stdio requests read ahead of their responses.
    max_in_flight: int = attrs.field(default=16, validator=_positive)
    #: Bytes of one stdio message (one line).
    max_line_bytes: int = attrs.field(default=8 * _MIB, validator=_positive)

    @classmethod
    def parse(cls, pairs: Iterable[str]) -> ServeLimits:
        """Limits from ``NAME=VALUE`` strings (the defaults for names not given).

        :raises ValueError: for an unknown name or a value that is not a
            positive number (the message names it).
        """
        fields = {f.name: f for f in attrs.fields(cls)}
        values: dict[str, Any] = {}
        for pair in pairs:
            name, sep, raw = pair.partition("=")
            name = name.strip().replace("-", "_")
            if not sep or name not in fields:
                known = ", ".join(sorted(fields))
                raise ValueError(f"unknown limit {pair!r} (NAME=VALUE; names: {known})")
            kind = int if fields[name].type in (int, "int") else float
            try:
                values[name] = kind(raw.strip())
            except ValueError:
                raise ValueError(f"limit {name}: {raw!r} is not a number") from None
        return cls(**values)


# -- HTTP: connections -----------------------------------------------------------


class _CoalescingTransport:
    """A transport whose writes made in one turn of the event loop go out as one.

    uvicorn writes an answer's head and its body separately; on a connection
    with ``TCP_NODELAY`` each write is a ``send`` of its own. Joined at the end
    of the turn, a small answer costs one system call instead of two. ``close``
    sends what is pending first; everything else is the wrapped transport's.
    """

    def __init__(self, transport: Any, loop: Any) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] = []

    def write(self, data: bytes) -> None:
        if not self._pending:
            self._loop.call_soon(self._flush)
        self._pending.append(data)

    def _flush(self) -> None:
        if self._pending:
            data = b"".join(self._pending)
            self._pending.clear()
            if not self._transport.is_closing():
                self._transport.write(data)

    def close(self) -> None:
        self._flush()
        self._transport.close()

    def abort(self) -> None:
        self._pending.clear()
        self._transport.abort()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


#: Connections taken from the listening socket in one turn of the event loop
#: (asyncio accepts up to its ``backlog`` at once): what the open sockets may
#: exceed ``max_connections`` by, for a turn or two, while the oldest idle
#: connections are being closed. The kernel's queue of connections waiting to be
#: accepted is :data:`LISTEN_QUEUE` long.
ACCEPT_BATCH = 8
LISTEN_QUEUE = 2048


def _closing(connection: Any) -> bool:
    transport = getattr(connection, "transport", None)
    return transport is None or transport.is_closing()


def guarded_protocol(limits: ServeLimits) -> type:
    """A uvicorn h11 protocol class enforcing ``limits`` (see the module docstring)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    clock = itertools.count()

    class GuardedH11Protocol(H11Protocol):
        """uvicorn's h11 protocol with a request deadline and a connection bound."""

        _deadline: Any = None
        _active_at = 0

        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.transport = _CoalescingTransport(transport, self.loop)  # type: ignore[assignment]
            self._active_at = next(clock)
            self._arm()  # a connection that never sends a byte is closed too
            # counted without the connections already closing (their sockets are
            # released on the next turn of the loop)
            live = [c for c in self.connections if not _closing(c)]
            if len(live) > limits.max_connections:
                self._make_room(live)

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            self._active_at = next(clock)
            super().data_received(data)
            state = self.conn.their_state
            if state is h11.SEND_BODY or (state is h11.IDLE and self.conn.trailing_data[0]):
                self._arm()  # a request is arriving: it has request_timeout to complete
            elif state is not h11.IDLE:
                self._disarm()

        def on_response_complete(self) -> None:
            self._active_at = next(clock)
            super().on_response_complete()

        # -- helpers ---------------------------------------------------------
        def _arm(self) -> None:
            if self._deadline is None:
                self._deadline = self.loop.call_later(limits.request_timeout, self._expire)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expire(self) -> None:
            self._deadline = None
            if self.transport is not None and not self.transport.is_closing():
                self.transport.close()

        def _busy(self) -> bool:
            """Whether a fully received request is being answered on this connection."""
            return (
                self.cycle is not None
                and not self.cycle.response_complete
                and self.conn.their_state is not h11.IDLE
                and self.conn.their_state is not h11.SEND_BODY
            )

        def _make_room(self, live: list[Any]) -> None:
            idle = [
                c
                for c in live
                if isinstance(c, GuardedH11Protocol) and c is not self and not c._busy()
            ]
            victim = min(idle, key=lambda c: c._active_at) if idle else self
            victim._disarm()
            victim.transport.close()

    return GuardedH11Protocol


# -- HTTP: sessions --------------------------------------------------------------


def make_lru(manager: Any, limits: ServeLimits, transport_class: type | None = None) -> None:
    """Turn the SDK's session manager into one that evicts instead of refusing.

    The SDK answers 503 to every new client once ``max_sessions`` sessions are
    open, until they time out; here a new session evicts the least recently
    used idle one instead. ``transport_class``, a subclass of the SDK's
    transport, becomes the class of each new session's transport (see
    :func:`skillpath_mcp._wire.splicing_transport`).
    """
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    class LruSessionManager(StreamableHTTPSessionManager):
        """A session manager whose session limit evicts the least recently used idle session."""

        _session_limit = limits.max_sessions

        def _admit_session(self, requestor: Any) -> Any:
            while len(self._server_instances) >= self._session_limit:
                victim = self._least_recently_used()
                if victim is None:
                    return None  # every session is answering a request: 503
                session_id, transport = victim
                self._server_instances.pop(session_id, None)
                self._session_owners.pop(session_id, None)
                assert self._task_group is not None
                self._task_group.start_soon(self._discard_session, session_id, transport)
            transport = super()._admit_session(requestor)
            if transport_class is not None and type(transport) in transport_class.__bases__:
                transport.__class__ = transport_class
            return transport

        def _least_recently_used(self) -> tuple[str, Any] | None:
            best: tuple[float, str, Any] | None = None
            for session_id, transport in self._server_instances.items():
                scope = transport.idle_scope
                # the idle deadline is the last request's end plus the timeout;
                # infinite while a request (or a GET stream) is in flight
                deadline = scope.deadline if scope is not None else math.inf
                if math.isinf(deadline):
                    continue
                if best is None or deadline < best[0]:
                    best = (deadline, session_id, transport)
            return None if best is None else (best[1], best[2])

    manager.max_sessions = None  # the SDK's own refusal is replaced by eviction
    manager.__class__ = LruSessionManager


# -- stdio -----------------------------------------------------------------------


def _claim_stdio() -> tuple[int, int]:
    """Private duplicates of fds 0 and 1; fd 0 becomes ``/dev/null``, fd 1 stderr.

    Inline commands and stray prints then cannot read the client's messages or
    write into the protocol stream.
    """
    import fcntl

    wire_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    wire_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    os.dup2(2, 1)
    return wire_in, wire_out


def _request_id(message: Any) -> Any:
    from mcp_types import JSONRPCRequest

    return message.id if isinstance(message, JSONRPCRequest) else None


def _cancelled_id(message: Any) -> Any:
    from mcp_types import JSONRPCNotification

    if isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
        params = message.params or {}
        key = params.get("requestId") if isinstance(params, dict) else None
        return key if isinstance(key, (int, str)) else None
    return None


def _response_id(message: Any) -> Any:
    from mcp_types import JSONRPCError, JSONRPCResponse

    return message.id if isinstance(message, (JSONRPCResponse, JSONRPCError)) else None


class _LineTooLong(ValueError):
    pass


def _lines(fd: int, limit: int) -> Iterable[bytes | Exception]:
    """Lines read from ``fd`` (``\\n`` stripped); a line over ``limit`` bytes is an error item."""
    buf = bytearray()
    skipping = False
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            if buf and not skipping:
                yield bytes(buf)
            return
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                break
            if skipping:
                skipping = False
            else:
                buf += chunk[start:end]
                if len(buf) > limit:
                    yield _LineTooLong(f"message over {limit} bytes ignored")
                else:
                    yield bytes(buf)
            buf.clear()
            start = end + 1
        if not skipping:
            buf += chunk[start:]
            if len(buf) > limit:
                buf.clear()
                skipping = True
                yield _LineTooLong(f"message over {limit} bytes ignored")


def _readable(fd: int) -> bool:
    """Whether reading ``fd`` would not block (data or end of file waiting)."""
    try:
        ready, _, _ = select.select([fd], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(ready)


def _watch_output(
    wire_in: int,
    wire_out: int,
    write_failed: threading.Event,
    input_done: threading.Event,
    lost: Callable[[], None],
) -> None:
    """Call ``lost()`` once the output is gone (a write failed, or the pipe or socket
    reports an error or hang-up) while the input is still open and quiet.

    The output's error state is level-triggered: once set, it stays. A client
    that closed both ends leaves the input at end of file: the reader then
    finishes (``input_done``) and this returns without calling ``lost``.
    """
    poller: Any = select.poll()
    try:
        poller.register(wire_out, 0)  # errors and hang-ups are always reported
    except (OSError, ValueError):
        poller = None
    while not write_failed.is_set() and not input_done.is_set():
        try:
            events = poller.poll(250) if poller is not None else []
        except OSError:
            events = []
        if poller is None:
            write_failed.wait(0.25)
        if events:
            break
    while not input_done.is_set():
        if not _readable(wire_in):
            lost()  # nothing (not even end of file) is waiting on the input
            return
        time.sleep(0.05)  # the reader is taking what is there; look again


@contextlib.asynccontextmanager
async def stdio_transport(
    limits: ServeLimits,
    fds: tuple[int, int] | None = None,
    *,
    output_lost: Callable[[], None] | None = None,
) -> AsyncIterator[tuple[Any, Any]]:
    """``(read_stream, write_stream)`` for :meth:`Server.run` over the process's stdio.

    ``fds`` are the wire's ``(input, output)`` descriptors (default: the
    process's stdin and stdout, which are then diverted; see
    :func:`_claim_stdio`). See the module docstring for the bounds.
    ``output_lost`` is called (in the event loop, once) when the client closed
    the output but not the input; the caller then ends the server.
    """
    import mcp_types as types
    from mcp.shared._context_streams import create_context_streams
    from mcp.shared.message import SessionMessage

    wire_in, wire_out = fds if fds is not None else _claim_stdio()
    token = anyio.lowlevel.current_token()
    read_send, read_recv = create_context_streams[SessionMessage | Exception](0)
    write_send, write_recv = create_context_streams[SessionMessage](0)
    slots = anyio.Semaphore(limits.max_in_flight)
    pending: dict[Any, int] = {}  # request id -> requests with that id awaiting an answer
    writing = anyio.Event()  # set while a write to the client has not completed
    stalled = [False]

    def done_with(key: Any) -> None:
        count = pending.get(key, 0)
        if count:
            if count == 1:
                del pending[key]
            else:
                pending[key] = count - 1
            slots.release()

    async def deliver(item: bytes | Exception) -> None:
        if isinstance(item, Exception):
            await read_send.send(item)
            return
        try:
            message = types.jsonrpc_message_adapter.validate_json(item, by_name=False)
        except Exception as exc:  # noqa: BLE001 - the server reports bad input
            await read_send.send(exc)
            return
        key = _request_id(message)
        if key is not None:
            if slots.value == 0 and writing.is_set() and not stalled[0]:
                stalled[0] = True
                print(
                    "skillpath serve: the client is not reading the answers; "
                    "no more requests are read until it does",
                    file=sys.stderr,
                    flush=True,
                )
            await slots.acquire()  # wait until fewer requests await their answer
            pending[key] = pending.get(key, 0) + 1
        else:
            # a request the client cancelled may never be answered: stop waiting for it
            cancelled = _cancelled_id(message)
            if cancelled is not None:
                done_with(cancelled)
        await read_send.send(SessionMessage(message))

    async def finish() -> None:
        read_send.close()

    write_failed = threading.Event()
    input_done = threading.Event()

    def reader() -> None:
        try:
            for item in _lines(wire_in, limits.max_line_bytes):
                if isinstance(item, bytes) and not item.strip():
                    continue
                anyio.from_thread.run(deliver, item, token=token)
            input_done.set()
            anyio.from_thread.run(finish, token=token)
        except Exception:  # noqa: BLE001, S110 - the loop is gone: the server is stopping
            pass
        finally:
            input_done.set()

    def lost() -> None:
        if output_lost is None:
            return
        with contextlib.suppress(Exception):  # the loop is gone: the server is stopping
            anyio.from_thread.run_sync(output_lost, token=token)

    outbox: queue.Queue[tuple[bytes, Any]] = queue.Queue()

    def writer() -> None:
        while True:
            data, done = outbox.get()
            try:
                view = memoryview(data)
                while view:
                    n = os.write(wire_out, view)
                    view = view[n:]
                ok = True
            except OSError:
                ok = False
                write_failed.set()
            try:
                anyio.from_thread.run_sync(done, ok, token=token)
            except Exception:  # noqa: BLE001 - the loop is gone: the server is stopping
                return

    async def pump() -> None:
        nonlocal writing
        async with write_recv:
            while True:
                try:
                    message = await write_recv.receive()
                except (anyio.EndOfStream, anyio.ClosedResourceError):
                    return
                wire = message.message
                data = (wire.model_dump_json(by_alias=True, exclude_unset=True) + "\n").encode()
                written = anyio.Event()
                result: list[bool] = []

                def done(
                    ok: bool, _written: anyio.Event = written, _r: list[bool] = result
                ) -> None:
                    _r.append(ok)
                    _written.set()

                outbox.put((data, done))
                writing.set()
                await written.wait()
                writing = anyio.Event()
                stalled[0] = False
                key = _response_id(wire)
                if key is not None:
                    done_with(key)
                if not result[0]:
                    return  # the client closed its end

    threading.Thread(target=reader, name="skillpath-stdin", daemon=True).start()
    threading.Thread(target=writer, name="skillpath-stdout", daemon=True).start()
    threading.Thread(
        target=_watch_output,
        args=(wire_in, wire_out, write_failed, input_done, lost),
        name="skillpath-stdout-watch",
        daemon=True,
    ).start()
    async with anyio.create_task_group() as tg:
        tg.start_soon(pump)
        try:
            yield read_recv, write_send
        finally:
            tg.cancel_scope.cancel()
