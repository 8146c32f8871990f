"""One `MessageStream` wrapper that shows every line, both ways, to an observer.

The recording (`protocol.recording.Recorder`, `--record`), the inspector's log
(`client.traffic.TrafficLog`) and `acp-tui check`'s view of the raw traffic
(`client.schema_check.Exchange`) all watch the lines of a connection the same
way: `observe(factory, observer)` wraps the stream factory given to `connect`, and
each stream it opens tells the observer of every line before passing it on.

Invariants:

* **The stream is unchanged.** Lines pass through as they are, in order; the
  observer only sees them. An observer must not raise (each of ours catches its
  own errors), since an exception here would break the connection.
* `received` sees a line as the agent wrote it (or the `OversizedLine` standing
  for one over the reader's limit), `sent` the client's line before it is sent.
* `on_open` / `on_close` run around each connection the factory opens
  (negotiation may reconnect, the app restarts).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Protocol

from acp_tui.protocol.framing import Line, OversizedLine
from acp_tui.protocol.transport import MessageStream

__all__ = ["LineObserver", "ObservedStream", "StreamOpener", "observe"]

StreamOpener = Callable[[], AbstractAsyncContextManager[MessageStream]]
"""The shape of `acp_tui.client.connection.StreamFactory`."""


class LineObserver(Protocol):
    """Told of every line of a connection, both ways."""

    def received(self, line: Line | OversizedLine) -> None:
        """A line the agent wrote (never raises)."""
        ...

    def sent(self, line: Line) -> None:
        """A line the client is sending (never raises)."""
        ...


class ObservedStream:
    """A `MessageStream` that shows every line through it to an observer."""

    def __init__(self, inner: MessageStream, observer: LineObserver) -> None:
        self.inner = inner
        self.observer = observer

    async def receive(self) -> Line | OversizedLine:
        """The inner stream's next line, shown to the observer."""
        line = await self.inner.receive()
        self.observer.received(line)
        return line

    async def send(self, line: bytes) -> None:
        """Show `line` to the observer, then send it on the inner stream."""
        self.observer.sent(line)
        await self.inner.send(line)

    async def aclose(self) -> None:
        """Close the inner stream."""
        await self.inner.aclose()


def observe(
    factory: StreamOpener,
    observer: LineObserver,
    *,
    on_open: Callable[[], None] | None = None,
    on_close: Callable[[], None] | None = None,
) -> StreamOpener:
    """A stream factory whose streams show every line to `observer`."""

    @asynccontextmanager
    async def open_observed() -> AsyncIterator[MessageStream]:
        async with factory() as stream:
            if on_open is not None:
                on_open()
            try:
                yield ObservedStream(stream, observer)
            finally:
                if on_close is not None:
                    on_close()

    return open_observed
