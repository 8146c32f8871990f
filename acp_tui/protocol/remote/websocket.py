"""The WebSocket profile: one text frame per JSON-RPC message, both ways.

Implements `acp_tui.protocol.transport.MessageStream` over `websockets` (the
`acp-tui[remote]` extra; this module imports it, so import this module only
when connecting).

* **Framing.** A text frame is one message: `receive()` returns its bytes (the
  dispatcher decodes them as it does a stdio line). A text frame of invalid
  UTF-8 is returned as its bytes, so the dispatcher reports it as stdio's
  invalid UTF-8 line. Binary frames are ignored (the RFD), counted in
  `ignored_binary`.
* **Size.** A message over `max_line_bytes` is refused by `websockets` from its
  header, before its payload is read, and the connection closes (1009): the
  reader gets one `OversizedLine`, then the end of the stream with the reason.
* **Keepalive.** A ping every `PING_INTERVAL` seconds; no pong within
  `PING_TIMEOUT` closes the connection (1011): a silent half-open connection is
  detected within `HALF_OPEN_BOUND` seconds.
* **Backpressure.** `websockets` stops reading the socket while `MAX_QUEUE`
  frames wait for the reader, and `send()` waits while its write buffer is
  above `websockets`' high-water mark: a slow reader never grows memory.
* **Ends.** A clean close (1000/1001) by the server, or our own `aclose()`,
  is `anyio.EndOfStream`; any other ending is `ConnectionClosed` with a reason
  (keepalive timeout, abnormal closure, the server's close code and reason).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Final

import anyio
from websockets.exceptions import ConnectionClosed as WsClosed
from websockets.exceptions import ConnectionClosedOK

from acp_tui.protocol.framing import Line, OversizedLine
from acp_tui.protocol.transport import ConnectionClosed

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection

__all__ = [
    "HALF_OPEN_BOUND",
    "MAX_QUEUE",
    "PING_INTERVAL",
    "PING_TIMEOUT",
    "WebSocketStream",
    "close_reason",
]

log = logging.getLogger(__name__)

PING_INTERVAL: Final = 10.0
"""Seconds between keepalive pings (also keeps proxies from timing out)."""

PING_TIMEOUT: Final = 10.0
"""Seconds to wait for the pong before the connection is declared dead."""

CLOSE_TIMEOUT: Final = 2.0
"""Seconds the closing handshake may take (ours, or after a failed ping)."""

HALF_OPEN_BOUND: Final = PING_INTERVAL + PING_TIMEOUT + CLOSE_TIMEOUT
"""A silent half-open connection ends the stream within this many seconds (22):
a ping, no pong in time, then the closing handshake nobody answers."""

MAX_QUEUE: Final = 16
"""Frames `websockets` buffers for the reader before it stops reading the socket."""

_TOO_BIG: Final = 1009


def close_reason(error: WsClosed, url: str) -> str:
    """Why a WebSocket ended, for people."""
    sent, received = error.sent, error.rcvd
    if sent is not None and sent.code == 1011 and "keepalive" in sent.reason:
        return (
            f"no answer from {url} to a keepalive ping within "
            f"{PING_TIMEOUT:g} s: the connection is gone (half-open)"
        )
    if received is not None:
        why = f": {received.reason}" if received.reason else ""
        return f"the server at {url} closed the WebSocket (code {received.code}{why})"
    if sent is not None and sent.code == _TOO_BIG:
        return f"a message from {url} was over the size limit (WebSocket closed, 1009)"
    return f"the WebSocket to {url} was cut without a closing handshake"


class WebSocketStream:
    """A `MessageStream` over an open WebSocket client connection."""

    def __init__(
        self, connection: ClientConnection, *, url: str, max_line_bytes: int
    ) -> None:
        self._connection = connection
        self._url = url
        self._max_line_bytes = max_line_bytes
        self._send_lock = anyio.Lock()
        self._closing = False
        self._ended: str | None = None
        """Set once the connection is over: why (None for a clean end)."""
        self._over = False
        self.ignored_binary = 0
        """Binary frames received and ignored."""

    @property
    def connection_id(self) -> str | None:
        """The server's `Acp-Connection-Id` from the upgrade, if it sent one."""
        response = self._connection.response
        return None if response is None else response.headers.get("Acp-Connection-Id")

    async def receive(self) -> Line | OversizedLine:
        """The next message's bytes (see the module doc)."""
        while True:
            if self._over:
                self._raise_end()
            try:
                data = await self._connection.recv(decode=None)
            except UnicodeDecodeError as error:
                return bytes(error.object)  # the dispatcher reports it, as stdio's
            except WsClosed as error:
                self._over = True
                if error.sent is not None and error.sent.code == _TOO_BIG:
                    self._ended = close_reason(error, self._url)
                    limit = self._max_line_bytes
                    return OversizedLine(size=limit + 1, limit=limit)
                if not (self._closing or isinstance(error, ConnectionClosedOK)):
                    self._ended = close_reason(error, self._url)
                self._raise_end()
            if isinstance(data, str):
                return data.encode()
            self.ignored_binary += 1
            if self.ignored_binary == 1:
                log.warning("ignoring a binary WebSocket frame from %s", self._url)

    def _raise_end(self) -> None:
        if self._ended is not None:
            raise ConnectionClosed(self._ended)
        raise anyio.EndOfStream

    async def send(self, line: bytes) -> None:
        r"""Send one `\n`-terminated line as one text frame."""
        if not line or line.find(b"\n") != len(line) - 1:
            raise ValueError(
                "a message line must end with one '\\n' and contain no other"
            )
        async with self._send_lock:
            if self._closing:
                raise ConnectionClosed(f"the connection to {self._url} was closed")
            try:
                # Text frame from bytes: sent as is (no decode and re-encode).
                await self._connection.send(line[:-1], text=True)
            except WsClosed as error:
                raise ConnectionClosed(close_reason(error, self._url)) from None

    async def aclose(self) -> None:
        """Close the WebSocket (closing handshake, bounded). Idempotent."""
        self._closing = True
        with anyio.CancelScope(shield=True), anyio.move_on_after(CLOSE_TIMEOUT * 2):
            await self._connection.close()
