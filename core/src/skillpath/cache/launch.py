"""The ``skillpath`` console script.

An unchanged ``skillpath list`` is answered from its snapshot
(:mod:`skillpath.cache.replay`) before the command line is even imported; every
other run goes to :func:`skillpath.cli.main`, and a ``list`` run that may be
replayed later is recorded on the way.
"""

from __future__ import annotations

import os
import sys

from skillpath.cache import replay as _replay

# ``typing`` is not imported at run time: this module runs before anything else
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

__all__ = ["main"]


def main() -> None:
    """Run ``skillpath`` with ``sys.argv``: replay, or run (and maybe record) the command."""
    argv = sys.argv[1:]
    try:
        code = _replay.replay(argv)
    except BrokenPipeError:  # the reader went away (``| head``): quietly, as click does
        _quiet_stdout()
        sys.exit(1)
    if code is not None:
        sys.exit(code)
    recorder = _replay.recorder_for(argv)
    # start-up (click, the command's module, their imports) allocates thousands
    # of objects that all live on: the cyclic collector would walk them again
    # and again and free nothing. It resumes once the command's module is
    # imported (skillpath.cli.LazyGroup.get_command), before the command runs.
    from skillpath._startup import pause_gc

    pause_gc()
    cli = _command(argv)

    if recorder is None:
        _finish(_exit_code(cli))
    _finish(_run_recorded(cli, recorder))


#: The command lines run without click (see :func:`_command`).
_PLAIN_LIST = (["list"], ["list", "--json"])


def _command(argv: list[str]) -> object:
    """What runs the command line: the click group, or for a plain ``skillpath list``
    or ``skillpath list --json`` (nothing else on the line, no shell completion
    asked for, standard streams click would write to as they are) the body of
    the ``list`` command called directly: the same bytes and exit status,
    without importing click (about a tenth of a small run)."""
    if argv in _PLAIN_LIST and not any(
        k.startswith("_") and k.endswith("_COMPLETE") for k in os.environ
    ):
        from skillpath.cli._common import plain_streams

        if plain_streams():
            return lambda: _plain_list(argv)
    from skillpath.cli import main as cli

    return cli


def _plain_list(argv: list[str]) -> None:
    """Run ``list`` (``--json`` when ``argv`` has it) as the click command would."""
    import errno

    from skillpath.cli._listrun import run_list
    from skillpath.errors import SkillpathError

    try:
        run_list(False, (), (), False, None, "--json" in argv)
    except SkillpathError:
        # nothing is written before the catalog is loaded: the click command
        # runs again and reports it (one line; a JSON error object with --json)
        from skillpath.cli import main as cli

        cli()  # type: ignore[operator]
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        _quiet_stdout()  # the reader went away: exit 1 quietly, as click does
        sys.exit(1)


def _finish(code: int) -> NoReturn:
    """End the process with ``code`` once the command is done.

    A single-threaded process flushes its standard streams, runs its
    ``atexit`` handlers and leaves without tearing down every module and
    object (tens of milliseconds after a large listing, for memory the
    operating system frees at once). With other threads running, the
    ordinary exit joins them.
    """
    import threading

    if threading.active_count() > 1:
        sys.exit(code)
    if _flush_std():
        _quiet_stdout()
        code = code or 1
    import atexit

    atexit._run_exitfuncs()
    os._exit(code)


def _flush_std() -> bool:
    """Flush ``sys.stdout`` and ``sys.stderr``; whether the reader of one went away."""
    broken = False
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:
            broken = True
        except (OSError, ValueError):
            pass
    return broken


def _run_recorded(cli: object, recorder: _replay.Recorder) -> int:
    """Run the command with file descriptors 1 and 2 captured, then pass the output on.

    Capturing at the descriptor level keeps exactly the bytes the command
    would have written, whatever wrote them.
    """
    import tempfile

    saved: list[int] = []
    captures = []
    # with 2>&1 both descriptors write one capture, so the order of the lines is kept
    merged = _replay.same_output()
    try:
        for fd in (1, 2):
            if fd == 1 or not merged:
                capture = tempfile.TemporaryFile()  # noqa: SIM115 - closed below
                captures.append(capture)
            saved.append(os.dup(fd))
    except OSError:
        for fd in saved:
            os.close(fd)
        for capture in captures:
            capture.close()
        return _exit_code(cli)
    broken = False
    try:
        try:
            _flush_std()
            os.dup2(captures[0].fileno(), 1)
            os.dup2(captures[-1].fileno(), 2)
            recorder.start()
            try:
                code = _exit_code(cli)
            finally:
                recorder.stop()
                _flush_std()
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
            for fd, capture in zip((1, 2), captures, strict=False):
                capture.seek(0)
                try:
                    while chunk := capture.read(1 << 20):
                        _replay._write_fd(fd, chunk)
                except BrokenPipeError:
                    broken = True
        recorder.save(captures[0], captures[1] if len(captures) > 1 else b"", code)
    finally:
        for capture in captures:
            capture.close()
    if broken:
        _quiet_stdout()
        return 1
    return code


def _quiet_stdout() -> None:
    """Point stdout at the null device, so the final flush after a broken pipe is silent."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        pass


def _exit_code(cli: object) -> int:
    """Run ``cli()`` (a click command in standalone mode) and return its exit status."""
    try:
        cli()  # type: ignore[operator]
    except SystemExit as exc:
        if exc.code is None:
            return 0
        if isinstance(exc.code, int):
            return exc.code
        print(exc.code, file=sys.stderr)
        return 1
    return 0
