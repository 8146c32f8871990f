"""A minimal HTTP/2 server over TLS for the Streamable HTTP profile (the `h2` library).

uvicorn speaks HTTP/1.1 only, so the HTTP/2 path of the client is checked
against this: a TLS server offering ALPN `h2` then `http/1.1` (it speaks only
HTTP/2: a client that picks `http/1.1` is refused) that plays the RFD's
Streamable HTTP just enough for one turn:

* POST `initialize`: 200, `Acp-Connection-Id`, the JSON result;
* GET without `Acp-Session-Id`: the connection's event stream (SSE);
* POST `session/new`: 202, the result on the connection's stream;
* GET with `Acp-Session-Id`: the session's event stream;
* POST `session/prompt`: 202, `H2Server.updates` as chunks on the session's
  stream, then the result there;
* POST of another request: 404; of anything else (notifications, responses):
  202; DELETE: 202.

`python -m tests.fakes.h2_server CERT KEY` serves one on a free port and
prints `PORT n`.

What it saw is recorded: `prefaces` (HTTP/2 connection prefaces read),
`alpn` (the protocol each TLS connection selected) and `requests`
(method, headers, JSON body). Events for a stream not yet open wait for it.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import h2.config
import h2.connection
import h2.events
import h2.exceptions

from tests.fakes.remote_server import (
    CONNECTION,
    INITIALIZE_RESULT,
    SESSION,
    Seen,
    chunk,
    sse,
)

__all__ = ["H2Server", "serve_h2"]

PREFACE: Final = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
ALPN: Final = ["h2", "http/1.1"]


@dataclass
class _Request:
    headers: dict[str, str]
    body: bytearray = field(default_factory=bytearray)


class _Stream:
    """An open event stream: its connection and HTTP/2 stream id."""

    def __init__(self, protocol: _Protocol, stream_id: int) -> None:
        self.protocol = protocol
        self.stream_id = stream_id


class H2Server:
    """The server's script and record; see the module doc."""

    def __init__(self, updates: list[str] | None = None) -> None:
        self.updates = ["one ", "two"] if updates is None else updates
        self.prefaces = 0
        self.alpn: list[str | None] = []
        self.requests: list[Seen] = []
        self.deleted = asyncio.Event()
        self._streams: dict[str, _Stream] = {}
        self._backlog: dict[str, list[bytes]] = {"connection": [], "session": []}

    def push(self, scope: str, message: dict[str, Any]) -> None:
        """Send `message` on the `connection` or `session` event stream."""
        data = sse(message)
        stream = self._streams.get(scope)
        if stream is None:
            self._backlog[scope].append(data)
        else:
            stream.protocol.send_data(stream.stream_id, data)

    def open_stream(self, scope: str, stream: _Stream) -> None:
        self._streams[scope] = stream
        for data in self._backlog[scope]:
            stream.protocol.send_data(stream.stream_id, data)
        self._backlog[scope].clear()

    def answer(self, protocol: _Protocol, stream_id: int, request: _Request) -> None:
        headers = request.headers
        method = headers[":method"]
        if method == "GET":
            self.requests.append(Seen("GET", headers))
            protocol.respond(
                stream_id, 200, {"content-type": "text/event-stream"}, end=False
            )
            scope = "session" if "acp-session-id" in headers else "connection"
            self.open_stream(scope, _Stream(protocol, stream_id))
            return
        if method == "DELETE":
            self.requests.append(Seen("DELETE", headers))
            protocol.respond(stream_id, 202)
            self.deleted.set()
            return
        body = json.loads(bytes(request.body)) if request.body else None
        self.requests.append(Seen(method, headers, body))
        if method != "POST" or not isinstance(body, dict):
            protocol.respond(stream_id, 400)
            return
        rpc, request_id = body.get("method"), body.get("id")
        if rpc == "initialize":
            result = {"jsonrpc": "2.0", "id": request_id, "result": INITIALIZE_RESULT}
            protocol.respond(
                stream_id,
                200,
                {"content-type": "application/json", "acp-connection-id": CONNECTION},
                json.dumps(result).encode(),
            )
            return
        if (
            rpc not in (None, "session/new", "session/prompt")
            and request_id is not None
        ):
            error = {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601}}
            headers = {"content-type": "application/json"}
            protocol.respond(stream_id, 404, headers, json.dumps(error).encode())
            return
        protocol.respond(stream_id, 202)
        if rpc == "session/new":
            result = {
                "jsonrpc": "2.0",
                "id": request_id,
                "result": {"sessionId": SESSION},
            }
            self.push("connection", result)
        elif rpc == "session/prompt":
            for text in self.updates:
                self.push("session", chunk(text))
            end = {"stopReason": "end_turn"}
            self.push("session", {"jsonrpc": "2.0", "id": request_id, "result": end})

    def lost(self, protocol: _Protocol) -> None:
        for scope, stream in list(self._streams.items()):
            if stream.protocol is protocol:
                del self._streams[scope]


class _Protocol(asyncio.Protocol):
    """One TLS connection speaking HTTP/2."""

    def __init__(self, server: H2Server) -> None:
        self.server = server
        config = h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
        self.connection = h2.connection.H2Connection(config=config)
        self.transport: asyncio.Transport | None = None
        self.requests: dict[int, _Request] = {}
        self.start = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        ssl_object = transport.get_extra_info("ssl_object")
        selected = ssl_object.selected_alpn_protocol() if ssl_object else None
        self.server.alpn.append(selected)
        if selected != "h2":
            transport.close()
            return
        self.connection.initiate_connection()
        self.flush()

    def data_received(self, data: bytes) -> None:
        if len(self.start) < len(PREFACE):
            self.start += data[: len(PREFACE) - len(self.start)]
            if self.start == PREFACE:
                self.server.prefaces += 1
        try:
            events = self.connection.receive_data(data)
        except h2.exceptions.ProtocolError:
            self.flush()
            if self.transport is not None:
                self.transport.close()
            return
        for event in events:
            self.handle(event)
        self.flush()

    def handle(self, event: h2.events.Event) -> None:
        if isinstance(event, h2.events.RequestReceived):
            headers = {str(k).lower(): str(v) for k, v in event.headers or []}
            self.requests[event.stream_id] = _Request(headers)
        elif isinstance(event, h2.events.DataReceived):
            request = self.requests.get(event.stream_id)
            if request is not None and event.data:
                request.body += event.data
            self.connection.acknowledge_received_data(
                event.flow_controlled_length, event.stream_id
            )
        elif isinstance(event, h2.events.StreamEnded):
            request = self.requests.pop(event.stream_id, None)
            if request is not None:
                self.server.answer(self, event.stream_id, request)
        elif isinstance(event, h2.events.StreamReset):
            self.requests.pop(event.stream_id, None)
        elif (
            isinstance(event, h2.events.ConnectionTerminated)
            and self.transport is not None
        ):
            self.transport.close()

    def respond(
        self,
        stream_id: int,
        status: int,
        headers: dict[str, str] | None = None,
        body: bytes = b"",
        *,
        end: bool = True,
    ) -> None:
        fields = [(":status", str(status)), *(headers or {}).items()]
        if end:
            fields.append(("content-length", str(len(body))))
        self.connection.send_headers(stream_id, fields, end_stream=end and not body)
        if body:
            self.connection.send_data(stream_id, body, end_stream=end)
        self.flush()

    def send_data(self, stream_id: int, data: bytes) -> None:
        """Event-stream data (small: within the client's flow-control window)."""
        try:
            self.connection.send_data(stream_id, data)
        except h2.exceptions.StreamClosedError:
            return
        self.flush()

    def flush(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(self.connection.data_to_send())

    def connection_lost(self, exc: Exception | None) -> None:
        self.server.lost(self)


def tls_context(cert: Path, key: Path) -> ssl.SSLContext:
    """A server TLS context offering ALPN h2, then http/1.1."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    context.set_alpn_protocols(ALPN)
    return context


@asynccontextmanager
async def serve_h2(server: H2Server, cert: Path, key: Path) -> AsyncIterator[int]:
    """Serve `server` over TLS on 127.0.0.1 in this event loop; yields the port."""
    loop = asyncio.get_running_loop()
    listener = await loop.create_server(
        lambda: _Protocol(server), "127.0.0.1", 0, ssl=tls_context(cert, key)
    )
    try:
        yield listener.sockets[0].getsockname()[1]
    finally:
        listener.close()
        await asyncio.wait_for(listener.wait_closed(), 10)


def main() -> None:
    """Serve an `H2Server` with `CERTFILE KEYFILE` (argv); print `PORT n`."""
    cert, key = (Path(arg) for arg in sys.argv[1:3])

    async def run() -> None:
        async with serve_h2(H2Server(), cert, key) as port:
            print(f"PORT {port}", flush=True)
            await asyncio.Event().wait()

    asyncio.run(run())


if __name__ == "__main__":
    main()
