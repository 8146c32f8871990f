"""Appending lines to a file in order, the long ones off the event loop.

Journaling a huge message chunk means encoding megabytes of text as JSON and
writing them: for the 8 Mi characters a store keeps of a message's head (and as
many of its tail), about 30 ms to encode and 50 ms to write each on the
development machine. Done on the event loop, that is a step the UI cannot paint
in, twice per huge chunk (bench/exhaustion.py, issue 20's frame-gap goal).

A `LineSpool` appends batches of lines to a file descriptor, in the order given:

* **Inline while nothing waits.** A batch of short lines (every streaming chunk,
  tool call or plan) is written at once with `os.writev`: what it returned is in
  the kernel, so an app crash loses none of it.
* **On a thread of its own** from the first batch that holds a `LongLine`, and
  for every batch given after it while any is still queued, until the queue is
  empty again: so the file's lines keep their order. The thread encodes a long
  line's text in pieces of `PIECE_CHARS` (a millisecond or so each, the GIL held
  only that long at a time) and writes as it goes (writing releases the GIL).
  A JSON string's encoding is the concatenation of its pieces' encodings: each
  code point is escaped on its own, a lone surrogate too.
* **Closing** a descriptor (`close`) waits for the lines queued before it: it is
  closed by the thread after them, never under a write.
* The thread is not a daemon: at exit, the interpreter waits for a queued huge
  line rather than leave it cut. A write error on the thread goes to `on_error`
  (the batch's remaining lines are dropped; later batches are tried).

This module imports the standard library only.
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final, TypeAlias

__all__ = ["PIECE_CHARS", "Line", "LineSpool", "LongLine", "json_string_pieces"]

PIECE_CHARS: Final = 128 * 1024
"""Characters of a long line's text encoded at a time on the spool's thread."""

_WRITE_BYTES: Final = 1024 * 1024
"""Encoded bytes gathered before one write on the spool's thread."""

_IOV_MAX: Final = 1024
"""Buffers given to one `os.writev` (POSIX guarantees at least 16; Linux 1024)."""


@dataclass(frozen=True, slots=True)
class LongLine:
    """A JSON line with one long string in it, encoded only when written.

    The line is `head`, then `text` as a JSON string (ASCII, quotes included),
    then `tail`.
    """

    head: bytes
    text: str
    tail: bytes


Line: TypeAlias = bytes | LongLine
"""One line, without its newline (the spool adds it)."""


def json_string_pieces(text: str, piece_chars: int = PIECE_CHARS) -> Iterator[bytes]:
    """`text` as a JSON string (what `json.dumps(text)` gives), in pieces.

    The first piece is the opening quote and the last the closing one; their
    concatenation is `json.dumps(text).encode("ascii")`. Each piece is encoded
    when it is asked for.
    """
    yield b'"'
    for start in range(0, len(text), piece_chars):
        encoded = json.dumps(text[start : start + piece_chars])
        yield encoded[1:-1].encode("ascii")
    yield b'"'


_Job: TypeAlias = tuple[int, Sequence[Line]] | tuple[int, None]
"""A batch for a descriptor, or (`fd`, None): close it."""


class LineSpool:
    """Appends lines to file descriptors in order (see the module docstring).

    `write` and `close` are called from one thread (the event loop's); the
    spool's own thread only writes what they queued.

    Args:
        on_error: Called with a write error met on the spool's thread (from that
            thread). Errors of an inline write are raised to the caller instead.
    """

    def __init__(self, on_error: Callable[[OSError], None]) -> None:
        self._on_error = on_error
        self._lock = threading.Lock()
        self._jobs: collections.deque[_Job] = collections.deque()
        self._idle = threading.Event()
        self._idle.set()
        """Set while nothing is queued nor being written by the thread."""
        self._encode: Callable[[str], Iterator[bytes]] = json_string_pieces

    @property
    def busy(self) -> bool:
        """Whether lines are queued or being written on the spool's thread."""
        return not self._idle.is_set()

    def write(self, fd: int, lines: Sequence[Line]) -> None:
        """Append `lines` (each without its newline) to `fd`, in order.

        Raises:
            OSError: The lines were written inline and the write failed.
        """
        if not lines:
            return
        # Lines are given by one thread (the event loop's), and the spool's thread
        # only ever empties the queue, and only once a job is written: an empty
        # queue read here without the lock means nothing is left to write first.
        # That skips the lock for every streaming chunk (the common case).
        if not self._jobs:
            if len(lines) == 1:  # one streamed chunk: the common case, kept cheap
                line = lines[0]
                if isinstance(line, bytes):
                    _write_all(fd, (line + b"\n",))
                    return
            else:
                inline = [
                    x
                    for line in lines
                    if isinstance(line, bytes)
                    for x in (line, b"\n")
                ]
                if len(inline) == 2 * len(lines):  # no long line among them
                    _write_all(fd, inline)
                    return
        with self._lock:
            self._queue((fd, tuple(lines)))

    def close(self, fd: int) -> None:
        """Close `fd` once the lines queued for it are written (now, if none)."""
        with self._lock:
            if self._jobs:
                self._queue((fd, None))
                return
        _close_quietly(fd)

    def wait(self, timeout: float) -> bool:
        """Wait until every queued line is written; False if `timeout` passed."""
        return self._idle.wait(timeout)

    def _queue(self, job: _Job) -> None:
        """Queue `job` (the lock held), starting the thread if it is not running."""
        self._jobs.append(job)
        if len(self._jobs) == 1 and self._idle.is_set():
            self._idle.clear()
            threading.Thread(
                target=self._run, name="acp-tui transcript writer", daemon=False
            ).start()

    def _run(self) -> None:
        """Write the queued jobs in order, then end (the queue empty)."""
        while True:
            with self._lock:
                if not self._jobs:
                    self._idle.set()
                    return
                fd, lines = self._jobs[0]
            try:
                if lines is None:
                    _close_quietly(fd)
                else:
                    self._write_lines(fd, lines)
            except OSError as error:
                self._on_error(error)
            finally:
                with self._lock:
                    self._jobs.popleft()

    def _write_lines(self, fd: int, lines: Sequence[Line]) -> None:
        """Write `lines` to `fd`, encoding long lines piece by piece."""
        out = _Gathered(fd)
        for line in lines:
            if isinstance(line, bytes):
                out.add(line)
            else:
                out.add(line.head)
                for piece in self._encode(line.text):
                    out.add(piece)  # written as they come: never all held at once
                out.add(line.tail)
            out.add(b"\n")
        out.flush()


class _Gathered:
    """Buffers gathered for `fd` and written about `_WRITE_BYTES` at a time."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffers: list[bytes] = []
        self._size = 0

    def add(self, buffer: bytes) -> None:
        self._buffers.append(buffer)
        self._size += len(buffer)
        if self._size >= _WRITE_BYTES:
            self.flush()

    def flush(self) -> None:
        _write_all(self._fd, self._buffers)
        self._buffers = []
        self._size = 0


def _write_all(fd: int, buffers: Sequence[bytes]) -> None:
    """Write every buffer, in order, with as few `os.writev` calls as it takes."""
    if len(buffers) == 1:  # one buffer: no vector to walk
        buffer = buffers[0]
        written = os.write(fd, buffer)
        if written < len(buffer):
            _finish(fd, memoryview(buffer)[written:])
        return
    index = 0
    while index < len(buffers):
        batch = buffers[index : index + _IOV_MAX]
        written = os.writev(fd, batch)
        for buffer in batch:
            index += 1
            if written >= len(buffer):
                written -= len(buffer)
                continue
            _finish(fd, memoryview(buffer)[written:])  # cut short: finish this one
            break


def _finish(fd: int, rest: memoryview) -> None:
    """Write the rest of a buffer a write cut short."""
    while rest:
        rest = rest[os.write(fd, rest) :]


def _close_quietly(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)
