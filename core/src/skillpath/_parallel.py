"""A second core for discovery: one forked worker per load computes part of each batch.

Reading and parsing thousands of ``SKILL.md`` files is the bulk of a cold
load, and each file is independent of the others. :func:`session` (opened by
:func:`skillpath.load_skills` around discovery, and made current like the
discovery index) lets :func:`skillpath.scan.scan_skills_dir` share a large
root's files with a worker process: :meth:`Pool.map`.

The worker is forked once per load, on the first batch large enough to be
worth it (:data:`MIN_ITEMS`), and serves every later batch of the load; it is
sent ``(function, spec, items)`` and answers its values a few at a time as
``marshal`` data through a pipe, which the parent takes in between its own
items. The two processes meet in the middle: the parent takes items
from the front, the worker from the back, each announcing what it took in a
shared page of two counters, until they meet — so the work splits by how fast
each side actually goes (a busy second core simply does less). The parent
checks that the two parts cover every item and computes any gap itself. The
worker is used only where forking is safe and pays: Linux, only while the
process runs a single thread (a fork copies no other thread, so a lock one of
them held would stay locked in the child), and only when the process may run
on at least two CPUs.

Whatever goes wrong with the worker — it cannot be forked, it dies, it answers
short, garbled or wrong-sized data, it does not answer in time — the parent
computes the missing items itself, so the result is always exactly what the
sequential computation gives. A worker that failed once is not used again in
the same load. The child leaves with ``os._exit`` (no ``atexit`` handler, no
flush of inherited buffers) and is always reaped when the session closes.

Switches, read from the environment the load was given:
``SKILLPATH_NO_PARALLEL=1`` turns the worker off; ``SKILLPATH_PARALLEL_MIN``
sets the smallest batch that forks it (default :data:`MIN_ITEMS`).
"""

from __future__ import annotations

import contextlib
import contextvars
import marshal
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from skillpath import _env

if TYPE_CHECKING:
    import mmap

__all__ = ["MIN_ITEMS", "Pool", "PoolStats", "current", "parallel_enabled", "session"]

#: The smallest batch that forks the worker: below it a fork (about 1-2 ms,
#: plus the copy-on-write faults that follow) costs more than it saves. Once
#: the worker runs, a batch of a quarter of that is worth handing it (each
#: costs a message and a meeting, a fraction of a millisecond).
MIN_ITEMS = 256
#: The least time the parent waits for the worker's answer once its own share
#: is done (it waits longer when its own share took long: slow storage).
TIMEOUT = 5.0
_LEN = 8  # bytes of the length that precedes every message
_MAX_MESSAGE = 1 << 31
_CHUNK = 16  # values the worker sends at a time
_DRAIN_EVERY = 8  # items the parent computes between looks at what the worker sent
_MISSING: Any = object()
_FAULT_WAIT = 600.0  # how long a test's misbehaving (but answering) worker is waited for
_SIGKILL = 9  # signal.SIGKILL on Linux, the only system that forks here (no signal import)

_CURRENT: contextvars.ContextVar[Pool | None] = contextvars.ContextVar(
    "skillpath_parallel", default=None
)


class _Broken(Exception):
    """The worker cannot (or can no longer) be used."""


class PoolStats:
    """What one :class:`Pool` did (what the tests look at)."""

    __slots__ = ("batches", "fallbacks", "forks", "items_remote", "items_retried")

    def __init__(self) -> None:
        self.forks = 0
        self.batches = 0
        self.items_remote = 0
        self.items_retried = 0
        self.fallbacks = 0

    def as_dict(self) -> dict[str, int]:
        """The counters as a mapping."""
        return {k: getattr(self, k) for k in self.__slots__}


def parallel_enabled(env: Mapping[str, str] | None = None) -> bool:
    """Whether this platform and ``env`` allow a worker process at all.

    Linux only (``fork`` there is cheap and well-behaved; macOS and Windows
    never fork here); ``SKILLPATH_NO_PARALLEL`` turns it off.
    """
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return False
    env = os.environ if env is None else env
    return not _env.flag(env, "SKILLPATH_NO_PARALLEL")


def _min_items(env: Mapping[str, str]) -> int:
    raw = env.get("SKILLPATH_PARALLEL_MIN", "").strip()
    if raw:
        with contextlib.suppress(ValueError):
            return max(2, int(raw))
    return MIN_ITEMS


def current() -> Pool | None:
    """The pool of the load in progress (in this thread or task), if any."""
    return _CURRENT.get()


@contextlib.contextmanager
def session(
    env: Mapping[str, str] | None = None,
    *,
    min_items: int | None = None,
    timeout: float = TIMEOUT,
    fault: str | None = None,
) -> Iterator[Pool | None]:
    """Make a :class:`Pool` current for the block; its worker is reaped on exit.

    Yields ``None`` (and batches are computed in the calling process) when
    :func:`parallel_enabled` says no. Inside a block that already has a pool,
    that pool is reused. ``min_items`` (the batch that forks the worker; a
    quarter of it once the worker runs) overrides ``SKILLPATH_PARALLEL_MIN``;
    ``timeout`` and ``fault`` are for tests (``fault`` makes the worker
    misbehave: ``exit`` before answering, ``short`` answer, ``garbage``,
    ``wrong`` (more values than items), ``gap`` (leaves out the last value of
    every few it sends), ``bad-items`` (values of the wrong shape) or
    ``hang``).
    """
    outer = _CURRENT.get()
    if outer is not None and outer.usable_here:
        yield outer
        return
    env = os.environ if env is None else env
    if not parallel_enabled(env):
        token = _CURRENT.set(None)
        try:
            yield None
        finally:
            _CURRENT.reset(token)
        return
    pool = Pool(
        min_items=_min_items(env) if min_items is None else min_items,
        timeout=timeout,
        fault=fault,
    )
    token = _CURRENT.set(pool)
    try:
        yield pool
    finally:
        _CURRENT.reset(token)
        pool.close()


class Pool:
    """One worker process, forked on first use, and the batches it was given."""

    def __init__(
        self, *, min_items: int = MIN_ITEMS, timeout: float = TIMEOUT, fault: str | None = None
    ) -> None:
        self.min_items = min_items
        self.timeout = timeout
        self.fault = fault
        self.stats = PoolStats()
        self._owner = os.getpid()
        self._pid: int | None = None
        self._req: int | None = None  # the parent's end of the request pipe
        self._res: int | None = None  # the parent's end of the answer pipe
        self._seq = 0
        self._broken = False
        self._shared: mmap.mmap | None = None
        self._counters: memoryview | None = None
        self._inbox = bytearray()  # what the worker sent and was not taken yet
        self._busy = False  # a batch is in flight (a nested one is computed here)

    def worth(self, n: int) -> bool:
        """Whether a batch of ``n`` items would be split with the worker."""
        if self._broken or self._busy:
            return False
        return n >= (self.min_items if self._pid is None else max(2, self.min_items // 4))

    @property
    def usable_here(self) -> bool:
        """Whether this process is the one that opened the pool (not a fork of it)."""
        return os.getpid() == self._owner

    def map(
        self,
        remote: Callable[[Any], Callable[[Any], Any]],
        spec: Any,
        items: Sequence[Any],
        *,
        local: Callable[[Any], Any],
        accept: Callable[[Any, Any], Any],
    ) -> list[Any]:
        """``[local(item) for item in items]``, part of it computed by the worker.

        ``remote(spec)`` runs in the worker and returns the function it applies
        to each item it takes; that function must return plain data (what
        ``marshal`` carries), and ``remote`` must be a module-level function (the
        worker finds it by module and name). ``accept(value, item)`` turns one
        such value into what ``local(item)`` gives, raising ``ValueError`` or
        ``TypeError`` when the value does not fit (the item is then computed
        here). The worker sends its values a few at a time and they are
        accepted as they arrive, between this process's own items, so what
        ``accept`` does is shared out too. The result equals
        ``[local(item) for item in items]`` whatever the worker does.
        """
        n = len(items)
        if not self.worth(n) or not self.usable_here:
            return [local(item) for item in items]
        try:
            self._submit(remote, spec, items)
        except _Broken:
            self._give_up()
            return [local(item) for item in items]
        self._busy = True
        try:
            return self._share(items, local, accept)
        finally:
            self._busy = False

    def _share(
        self,
        items: Sequence[Any],
        local: Callable[[Any], Any],
        accept: Callable[[Any, Any], Any],
    ) -> list[Any]:
        """Compute ``items`` from the front while the worker takes them from the back."""
        n = len(items)
        counters = self._counters
        assert counters is not None
        out: list[Any] = [_MISSING] * n
        started = time.monotonic()
        i = 0
        final = None  # the worker's last message is in
        try:
            if self.fault is not None:
                # a test of a misbehaving worker: it answers (or fails) before this
                # process takes any item, so what it does wrong is seen whatever
                # the scheduler does; only a hanging worker needs the timeout
                wait = self.timeout if self.fault == "hang" else _FAULT_WAIT
                deadline = time.monotonic() + wait
                while final is None:
                    final = self._take(out, items, local, accept, deadline)
            # the worker has taken items[counters[1]:] (and sent some of them)
            while i < counters[1] and out[i] is _MISSING:
                counters[0] = i + 1  # take items[i]
                out[i] = local(items[i])
                i += 1
                if not i % _DRAIN_EVERY and final is None:
                    final = self._take(out, items, local, accept, None)
            wait = max(self.timeout, 4 * (time.monotonic() - started))
            deadline = time.monotonic() + wait
            while final is None:
                final = self._take(out, items, local, accept, deadline)
            self.stats.batches += 1
        except _Broken:
            self._give_up()
        for k in range(i, n):  # what the worker did not deliver (or a gap)
            if out[k] is _MISSING:
                out[k] = local(items[k])
        return out

    # -- the parent's side ----------------------------------------------------
    def _submit(self, remote: Callable[..., Any], spec: Any, items: Sequence[Any]) -> None:
        module, name = remote.__module__, remote.__qualname__
        if "." in name or getattr(sys.modules.get(module), name, None) is not remote:
            raise _Broken  # the worker could not find it
        if self._pid is None:
            self._start()
        self._seq += 1
        try:
            data = marshal.dumps((self._seq, module, name, spec, list(items)))
        except ValueError as exc:
            raise _Broken from exc
        assert self._req is not None and self._counters is not None
        # the worker is idle between batches: nobody else writes the counters now
        self._counters[0] = 0
        self._counters[1] = len(items)
        try:
            _write_all(self._req, len(data).to_bytes(_LEN, "little") + data)
        except OSError as exc:  # the worker is gone (EPIPE)
            raise _Broken from exc

    def _take(
        self,
        out: list[Any],
        items: Sequence[Any],
        local: Callable[[Any], Any],
        accept: Callable[[Any, Any], Any],
        deadline: float | None,
    ) -> int | None:
        """Accept the values the worker has sent so far into ``out``.

        With ``deadline``, first wait (until then) for more to arrive. Returns
        the first index the worker took once its last message is in, else
        ``None``; :class:`_Broken` when the worker is gone, late or garbled.
        """
        self._pump(deadline)
        n = len(out)
        final = None
        for message in self._messages():
            try:
                seq, start, values = message
            except (TypeError, ValueError) as exc:
                raise _Broken from exc
            if seq != self._seq or type(start) is not int or final is not None:
                raise _Broken
            if values is None:  # the last message of the batch
                if not 0 <= start <= n:
                    raise _Broken
                final = start
                continue
            if type(values) is not list or start < 0 or start + len(values) > n:
                raise _Broken
            for k, value in enumerate(values, start):
                if out[k] is not _MISSING:
                    continue  # both sides took this one
                try:
                    out[k] = accept(value, items[k])
                    self.stats.items_remote += 1
                except (TypeError, ValueError, KeyError, IndexError, AttributeError):
                    self.stats.items_retried += 1
                    out[k] = local(items[k])
        return final

    def _pump(self, deadline: float | None) -> None:
        """Move what the worker wrote into the buffer (waiting until ``deadline``
        for something to arrive, when given)."""
        assert self._res is not None
        if deadline is not None:
            import select

            left = deadline - time.monotonic()
            poller = select.poll()
            poller.register(self._res, select.POLLIN)
            if left <= 0 or not poller.poll(left * 1000):
                raise _Broken  # no answer in time
        while True:
            try:
                data = os.read(self._res, 1 << 20)
            except BlockingIOError:
                return
            except OSError as exc:
                raise _Broken from exc
            if not data:
                raise _Broken  # the worker is gone
            self._inbox += data

    def _messages(self) -> list[Any]:
        """The complete messages in the buffer (removed from it)."""
        buf = self._inbox
        found: list[Any] = []
        pos = 0
        while len(buf) - pos >= _LEN:
            size = int.from_bytes(buf[pos : pos + _LEN], "little")
            if size > _MAX_MESSAGE:
                raise _Broken
            end = pos + _LEN + size
            if end > len(buf):
                break
            try:
                # plain data from our own fork, length-framed; its shape is checked
                found.append(marshal.loads(bytes(buf[pos + _LEN : end])))  # noqa: S302
            except (ValueError, TypeError, EOFError) as exc:
                raise _Broken from exc
            pos = end
        del buf[:pos]
        return found

    def _start(self) -> None:
        if threading.active_count() != 1:
            raise _Broken  # forking a threaded process can leave a lock held forever
        if len(os.sched_getaffinity(0)) < 2:
            raise _Broken  # one CPU to run on: a second process would only take turns
        # two counters both processes see: how many items the parent has taken
        # from the front, and the first item the worker has taken from the back
        import mmap  # here: most runs never fork

        shared = mmap.mmap(-1, mmap.PAGESIZE)
        counters = memoryview(shared).cast("i")
        req_r, req_w = os.pipe()
        res_r, res_w = os.pipe()
        with contextlib.suppress(OSError, AttributeError):
            # room for a whole root's answers: the worker need not wait for a reader
            import fcntl

            fcntl.fcntl(res_w, fcntl.F_SETPIPE_SZ, 1 << 20)
        try:
            pid = os.fork()
        except OSError as exc:
            for fd in (req_r, req_w, res_r, res_w):
                os.close(fd)
            counters.release()
            shared.close()
            raise _Broken from exc
        if pid == 0:  # the worker
            code = 1
            try:
                os.close(req_w)
                os.close(res_r)
                _serve(req_r, res_w, counters, self.fault)
                code = 0
            finally:
                os._exit(code)
        os.close(req_r)
        os.close(res_w)
        os.set_blocking(res_r, False)  # looked at between items: never wait there
        self._pid, self._req, self._res = pid, req_w, res_r
        self._shared, self._counters = shared, counters
        self.stats.forks += 1

    def _give_up(self) -> None:
        """The worker failed: stop it now and compute everything locally from here on."""
        self.stats.fallbacks += 1
        self._broken = True
        if self._pid is not None:
            with contextlib.suppress(OSError):
                os.kill(self._pid, _SIGKILL)
        self.close()

    def close(self) -> None:
        """Close the pipes and reap the worker (it leaves on end of input)."""
        if not self.usable_here:
            return
        for fd in (self._req, self._res):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._req = self._res = None
        self._inbox.clear()
        if self._counters is not None and self._shared is not None:
            self._counters.release()
            self._shared.close()
        self._counters = self._shared = None
        pid, self._pid = self._pid, None
        if pid is None:
            return
        deadline = time.monotonic() + 1.0
        while True:
            try:
                done, _status = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                return
            if done:
                return
            if time.monotonic() > deadline:
                with contextlib.suppress(OSError):
                    os.kill(pid, _SIGKILL)
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)
                return
            time.sleep(0.0005)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _read_exact(fd: int, size: int) -> bytes:
    """``size`` bytes from ``fd``, waiting for them; :class:`_Broken` at end of input."""
    chunks: list[bytes] = []
    need = size
    while need:
        try:
            chunk = os.read(fd, min(need, 1 << 20))
        except OSError as exc:
            raise _Broken from exc
        if not chunk:
            raise _Broken  # end of input before the whole message
        chunks.append(chunk)
        need -= len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


# -- the worker's side ------------------------------------------------------------
def _serve(req: int, res: int, counters: memoryview, fault: str | None) -> None:
    """Answer requests until the parent closes its end (runs in the child).

    For each batch, items are taken from the back while the parent has not
    reached them (``counters[0]`` is how many the parent took, ``counters[1]``
    the first one taken here). Values go out :data:`_CHUNK` at a time as
    ``(seq, start, values)`` for ``items[start:start + len(values)]``; the last
    message is ``(seq, first, None)``, ``first`` the first index taken here.
    """
    while True:
        try:
            header = _read_exact(req, _LEN)
        except _Broken:
            return  # the parent is done (or gone)
        body = _read_exact(req, int.from_bytes(header, "little"))
        seq, module, name, spec, items = marshal.loads(body)  # noqa: S302 - from the parent
        if fault is not None:
            _misbehave(fault, res)
        fn = getattr(sys.modules[module], name)(spec)
        pending: list[Any] = []  # values of items[j:], last first
        j = len(items)
        while j > counters[0]:
            j -= 1
            counters[1] = j  # take items[j]
            pending.append(fn(items[j]))
            if len(pending) == _CHUNK:
                _send(res, (seq, j, _chunk(pending, fault)))
                pending = []
        if pending:
            _send(res, (seq, j, _chunk(pending, fault)))
        _send(res, (seq, j, None))


def _send(fd: int, message: Any) -> None:
    data = marshal.dumps(message)
    _write_all(fd, len(data).to_bytes(_LEN, "little") + data)


def _chunk(pending: list[Any], fault: str | None) -> list[Any]:
    """The values of ``pending`` in item order (they were computed last first)."""
    pending.reverse()
    if fault == "bad-items":
        return [("not", "a", "record") for _ in pending]
    if fault == "wrong":
        return [*pending, *pending]  # more values than items from there
    if fault == "gap" and pending:
        return pending[:-1]  # the last value of each chunk never sent
    return pending


def _misbehave(fault: str, res: int) -> None:
    """Test hook: fail the way ``fault`` names before answering (see :func:`session`)."""
    if fault == "exit":
        os._exit(3)
    if fault == "short":
        _write_all(res, (1 << 20).to_bytes(_LEN, "little") + b"\x00" * 100)
        os._exit(0)
    if fault == "garbage":
        _write_all(res, (16).to_bytes(_LEN, "little") + b"\xff" * 16)
        os._exit(0)
    if fault == "hang":
        time.sleep(3600)
