r"""The agent's own side of stdio: a `MessageStream` over file descriptors 0 and 1.

`acp_tui.protocol.transport.StdioTransport` is the *client's* side (it spawns the
agent); this is what the spawned agent reads and writes.

Invariants:

* Reading never blocks the event loop: the descriptor is polled
  (`anyio.wait_readable`) before each `os.read`, which then returns what is
  available. A regular file (which cannot be polled) is read directly: reads from
  a file never wait. Lines are split by the shared `framing.LineReader`.
* Writing never interleaves or tears a line: writes are serialised by a lock and
  shielded from cancellation, so a cancelled turn cannot leave half a message on
  stdout. A pipe or socket is switched to non-blocking mode and written as it
  drains; a terminal or file is written directly.
* End of input (the client closed our stdin) is `anyio.EndOfStream`; a write to a
  closed pipe is `ConnectionClosed`.
* **Never stuck on a departed client.** Once `abandon()` is called (the client went
  away), no write waits for stdout to drain: a write that is waiting ends at once
  and a later one that would have to wait fails, both with `ConnectionClosed`, and
  the stream is closed (a line cut short is never followed by another).
"""

from __future__ import annotations

import os
import stat

import anyio
import anyio.lowlevel
from anyio.abc import ByteReceiveStream

from acp_tui.protocol.framing import (
    DEFAULT_MAX_LINE_BYTES,
    Line,
    LineReader,
    OversizedLine,
)
from acp_tui.protocol.transport import ConnectionClosed

__all__ = ["StdioStream"]


def _is_stream(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class _FdReceiveStream(ByteReceiveStream):
    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._pollable = True

    async def receive(self, max_bytes: int = 65536) -> bytes:
        while True:
            if self._pollable:
                try:
                    await anyio.wait_readable(self._fd)
                except (OSError, ValueError):  # e.g. a regular file: EPERM
                    self._pollable = False
            else:
                await anyio.lowlevel.checkpoint()
            try:
                data = os.read(self._fd, max_bytes)
            except BlockingIOError:
                continue
            except OSError as error:
                raise anyio.EndOfStream from error
            if not data:
                raise anyio.EndOfStream
            return data

    async def aclose(self) -> None:
        return None


class StdioStream:
    """A `MessageStream` on the process's own stdin (0) and stdout (1)."""

    def __init__(
        self,
        fd_in: int = 0,
        fd_out: int = 1,
        *,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    ) -> None:
        self._reader = LineReader(
            _FdReceiveStream(fd_in), max_line_bytes=max_line_bytes
        )
        self._out = fd_out
        self._lock = anyio.Lock()
        self._nonblocking = _is_stream(fd_out)
        if self._nonblocking:
            os.set_blocking(fd_out, False)
        self._closed = False
        self._abandoned = False
        self._stall: anyio.CancelScope | None = None

    async def receive(self) -> Line | OversizedLine:
        """The next line from the client (see `MessageStream.receive`)."""
        return await self._reader.receive()

    async def send(self, line: bytes) -> None:
        """Write one complete line to stdout.

        Raises:
            ConnectionClosed: The client closed its end.
            ValueError: `line` is not one newline-terminated line.
        """
        if not line or line.find(b"\n") != len(line) - 1:
            raise ValueError(
                "a message line must end with one '\\n' and contain no other"
            )
        async with self._lock:
            with anyio.CancelScope(shield=True):
                await self._write(line)

    def abandon(self) -> None:
        """The client is gone: stop waiting for stdout to drain (see above)."""
        self._abandoned = True
        if self._stall is not None:
            self._stall.cancel()

    def _give_up(self) -> ConnectionClosed:
        self._closed = True
        return ConnectionClosed("the client stopped reading stdout")

    async def _write(self, data: bytes) -> None:
        if self._closed:
            raise ConnectionClosed("stdout is closed")
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._out, view)
            except BlockingIOError:
                if self._abandoned:
                    raise self._give_up() from None
                # `send` shields the write; this scope lets `abandon()` end the wait.
                stall = self._stall = anyio.CancelScope()
                try:
                    with stall:
                        await anyio.wait_writable(self._out)
                finally:
                    self._stall = None
                if self._abandoned:
                    raise self._give_up() from None
                continue
            except OSError as error:
                self._closed = True
                raise ConnectionClosed(f"cannot write to stdout: {error}") from None
            view = view[written:]
            if view and not self._nonblocking:
                await anyio.lowlevel.checkpoint()

    async def aclose(self) -> None:
        """Nothing to release: the descriptors belong to the process."""
        self._closed = True
