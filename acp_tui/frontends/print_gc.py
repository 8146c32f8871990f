"""`acp-tui print`'s start-up runs without garbage collections (issue 28).

Start-up builds hundreds of thousands of objects that live as long as the
process (modules, classes, the wire models' schemas): the collector ran over
them again and again while they were made (about 20 ms of a start), and once
more, over all of them, in each full collection of the turn (another 15-20 ms of
`bench/print.py`'s turn). So, for `print`:

* `start_without_collections()` holds collections off from the command line
  being read until the turn starts (the imports, the config, the catalogue);
* `turn()` then moves every object made so far to the collector's permanent
  generation (`gc.freeze`), which it never scans, and collects again as before;
  when the turn is over they are handed back (`gc.unfreeze`), so a process that
  runs `print` in-process (the tests) keeps its collector as it was.

A collector the caller had turned off stays off.

* `exit_without_collection()` freezes everything once more when the process
  exits (an `atexit` hook): the interpreter's own collections at shutdown then
  skip the whole heap (the turn's store included), which took about 60 ms of
  every `print` run's exit. Objects are still freed as their modules are
  cleared, and every `atexit` hook and `weakref.finalize` still runs; only
  garbage cycles left at exit are not collected (the process is ending).
"""

from __future__ import annotations

import atexit
import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["exit_without_collection", "start_without_collections", "turn"]

_held = False
"""Whether `start_without_collections` turned the collector off (it was on)."""


@contextmanager
def start_without_collections() -> Iterator[None]:
    """No collection in the block (the collector turned back on after it)."""
    global _held
    held = gc.isenabled()
    gc.disable()
    _held = held
    try:
        yield
    finally:
        _held = False
        if held:
            gc.enable()


@contextmanager
def turn() -> Iterator[None]:
    """Collections again, none of them over what start-up made (module docstring)."""
    global _held
    if not _held:  # not started without collections: nothing to do
        yield
        return
    gc.freeze()
    _held = False
    gc.enable()
    try:
        yield
    finally:
        gc.unfreeze()


_exit_frozen = False
"""Whether `exit_without_collection` registered its hook."""


def exit_without_collection() -> None:
    """At the process's exit, freeze every object first (module docstring)."""
    global _exit_frozen
    if not _exit_frozen:
        _exit_frozen = True
        atexit.register(gc.freeze)
