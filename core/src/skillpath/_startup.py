"""The cyclic garbage collector, paused while the ``skillpath`` command starts.

Start-up (click, the command's module, their imports) allocates thousands of
objects that all live on: the cyclic collector would walk them again and
again and free nothing. The console script (:func:`skillpath.cache.launch.main`)
pauses it before it imports the command line, and the command group resumes
it once the command's module is imported, before the command runs
(:meth:`skillpath.cli.LazyGroup.get_command`). Only the command does this; a
library call never touches the collector.
"""

from __future__ import annotations

import gc

__all__ = ["pause_gc", "resume_gc"]

#: Whether :func:`pause_gc` paused the collector (and :func:`resume_gc` has not resumed it).
paused = False


def pause_gc() -> None:
    """Disable the garbage collector for start-up, if it is enabled."""
    global paused
    if gc.isenabled():
        gc.disable()
        paused = True


def resume_gc() -> None:
    """Re-enable the garbage collector if :func:`pause_gc` paused it."""
    global paused
    if paused:
        paused = False
        gc.enable()
