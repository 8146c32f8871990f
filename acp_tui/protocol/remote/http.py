"""The Streamable HTTP profile of the RFD, as a `MessageStream`.

Client to agent, every message is a POST to the endpoint. `initialize` is
answered 200 with its result and the `Acp-Connection-Id` header; everything
else 202, the answer coming later on an event stream (a 200 with a JSON body,
or with an SSE body, is taken too). Agent to client, messages come on GET
event streams (SSE): one for the connection, opened after `initialize`, and
one per session with `Acp-Session-Id`, opened as soon as a `session/new`,
`load`, `resume` or `fork` result names the session, and before that result is
handed on (servers hold a session's traffic until its stream is open). All
streams feed one bounded inbox that `receive()` reads.

* **Headers.** `Acp-Connection-Id` on everything after `initialize`;
  `Acp-Session-Id` on a POST whose `sessionId` is a session of this connection
  (and on the reply to a request that came for one). Cookies are kept (the
  `httpx` client's jar) and sent on every request. `aclose()` sends DELETE.
* **HTTP/2** when TLS negotiates it (ALPN), HTTP/1.1 otherwise (plain http,
  servers without h2): never a failure by itself. The event streams may use
  a client (a connection) of their own, `events_client`: see `http_stream`.
* **Keepalive.** An event stream silent for `IDLE_TIMEOUT` seconds (servers
  send a comment every 15 s) is a dead connection: the stream ends with
  `ConnectionClosed` saying so.
* **Backpressure.** The inbox holds `INBOX_SIZE` messages; a stream reader
  waits for room before reading more from its response, so a slow reader
  stops the reads (TCP, or HTTP/2 flow control) instead of growing memory.
* **Sizes and bytes.** An event over `max_line_bytes` is `OversizedLine`
  (discarded as it comes, the stream goes on); data is never decoded here.
* **Errors.** A POST answered 401/403 or 404 for the connection, or an event
  stream that breaks or ends, ends the stream with `ConnectionClosed` and the
  reason. Any other refused POST fails only its request (an error response
  with the HTTP status is handed to the reader).
"""

from __future__ import annotations

import collections
import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, suppress
from typing import Final

import anyio
import anyio.abc
import httpx

from acp_tui.protocol.dispatcher import background_tasks
from acp_tui.protocol.framing import Line, OversizedLine
from acp_tui.protocol.remote.names import (
    CONNECTION_HEADER,
    SESSION_HEADER,
    session_id_of,
)
from acp_tui.protocol.remote.sse import SseDecoder
from acp_tui.protocol.remote.target import (
    RemoteConnectError,
    failure_from,
    status_failure,
)
from acp_tui.protocol.transport import ConnectionClosed

__all__ = [
    "CONNECTION_HEADER",
    "IDLE_TIMEOUT",
    "INBOX_SIZE",
    "SESSION_HEADER",
    "HttpStream",
    "http_stream",
]

log = logging.getLogger(__name__)

IDLE_TIMEOUT: Final = 45.0
"""Seconds an event stream may stay silent (no event, no keepalive comment)
before the connection is declared dead: three of the SDKs' 15 s keepalives."""

CONNECT_TIMEOUT: Final = 15.0
WRITE_TIMEOUT: Final = 30.0

STREAM_OPEN_TIMEOUT: Final = 15.0
"""Seconds to wait for a session's event stream to open before its result is
handed on anyway (with a warning)."""

DELETE_TIMEOUT: Final = 2.0
"""Seconds `aclose()` gives the DELETE that ends the connection."""

INBOX_SIZE: Final = 64
"""Messages buffered for `receive()`; past it, the event streams stop reading."""

_SESSION_ATTACH: Final = frozenset({"session/load", "session/resume"})
_SESSION_SCOPED: Final = frozenset(
    {
        "session/prompt",
        "session/cancel",
        "session/set_mode",
        "session/set_config_option",
        "session/set_model",
        "session/close",
    }
)


def _error_line(request_id: object, message: str) -> bytes:
    error = {"code": -32603, "message": message}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode()


class HttpStream:
    """A `MessageStream` over Streamable HTTP. Made by `http_stream()`."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        tasks: anyio.abc.TaskGroup,
        *,
        url: str,
        max_line_bytes: int,
        idle_timeout: float,
        on_refused: Callable[[RemoteConnectError], None] | None = None,
        events_client: httpx.AsyncClient | None = None,
    ) -> None:
        self._on_refused = on_refused
        self._client = client
        self._events_client = client if events_client is None else events_client
        self._tasks = tasks
        self._url = url
        self._max = max_line_bytes
        self._idle = idle_timeout
        self._inbox = Inbox(INBOX_SIZE)
        self._connection_id: str | None = None
        self._sessions: set[str] = set()
        """Sessions whose event stream is open (or opening)."""
        self._requests: dict[str, tuple[str, str | None]] = {}
        """Our requests still unanswered: id key -> (method, session)."""
        self._asked: dict[str, str] = {}
        """Requests from the agent for a session: id key -> session."""
        self._closing = False
        self._ended: str | None = None
        self.http_version: str | None = None
        """The HTTP version the server answered `initialize` with."""

    @property
    def connection_id(self) -> str | None:
        """The server's `Acp-Connection-Id` (None before `initialize`)."""
        return self._connection_id

    # -- MessageStream ------------------------------------------------------------

    async def receive(self) -> Line | OversizedLine:
        """The next message from any of the event streams (or a POST's answer)."""
        item = await self._inbox.get()
        if item is None:
            if self._ended is not None and not self._closing:
                raise ConnectionClosed(self._ended)
            raise anyio.EndOfStream
        return item

    async def send(self, line: bytes) -> None:
        r"""POST one `\n`-terminated message."""
        if not line or line.find(b"\n") != len(line) - 1:
            raise ValueError(
                "a message line must end with one '\\n' and contain no other"
            )
        if self._ended is not None or self._closing:
            raise ConnectionClosed(
                self._ended or f"the connection to {self._url} was closed"
            )
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if not isinstance(message, dict):
            raise ConnectionClosed("only JSON-RPC objects can be sent over HTTP")
        method = message.get("method")
        key = _key(message.get("id"))
        session = session_id_of(message.get("params"))
        if method is not None and key is not None:
            self._requests[key] = (str(method), session)
        if method == "initialize" and self._connection_id is None:
            try:
                await self._initialize(line, key)
            except RemoteConnectError as error:
                # Raised as the stream's own error, so the client's task groups
                # pass it on; the launcher is told the real cause.
                if self._on_refused is not None:
                    self._on_refused(error)
                self._end(str(error))
                raise ConnectionClosed(str(error)) from None
            return
        headers = self._headers()
        if method is None and key is not None:
            session = self._asked.pop(key, None)  # our reply to the agent's request
        if session is not None and (
            session in self._sessions or method in _SESSION_SCOPED
        ):
            headers[SESSION_HEADER] = session
        response = await self._post(line, headers)
        handed_off = False
        try:
            handed_off = await self._take_answer(response, method, key)
        finally:
            if not handed_off:
                await response.aclose()

    async def aclose(self) -> None:
        """DELETE the connection (bounded) and end the event streams. Idempotent."""
        if self._closing:
            return
        self._closing = True
        connection_id = self._connection_id
        with anyio.CancelScope(shield=True):
            if connection_id is not None and self._ended is None:
                with anyio.move_on_after(DELETE_TIMEOUT), suppress(httpx.HTTPError):
                    headers = {CONNECTION_HEADER: connection_id}
                    await self._client.delete(self._url, headers=headers)
            self._tasks.cancel_scope.cancel()
            self._inbox.close()

    # -- POST ---------------------------------------------------------------------

    def _headers(self) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        if self._connection_id is not None:
            headers[CONNECTION_HEADER] = self._connection_id
        return headers

    async def _post(self, body: bytes, headers: dict[str, str]) -> httpx.Response:
        request = self._client.build_request(
            "POST", self._url, content=body[:-1], headers=headers
        )
        try:
            return await self._client.send(request, stream=True)
        except httpx.HTTPError as error:
            reason = f"cannot send to {self._url}: {_describe(error)}"
            self._end(reason)
            raise ConnectionClosed(reason) from None

    async def _initialize(self, line: bytes, key: str | None) -> None:
        """POST `initialize`; its failures are `RemoteConnectError`s (no agent yet)."""
        request = self._client.build_request(
            "POST", self._url, content=line[:-1], headers=self._headers()
        )
        try:
            response = await self._client.send(request, stream=True)
        except httpx.HTTPError as error:
            raise failure_from(self._url, error) from None
        handed_off = False
        try:
            if response.status_code != 200:
                body = (await response.aread())[:200].decode("utf-8", "replace")
                raise status_failure(self._url, response.status_code, body.strip())
            connection_id = response.headers.get(CONNECTION_HEADER)
            if not connection_id:
                raise RemoteConnectError(
                    self._url,
                    "protocol",
                    f"the server sent no {CONNECTION_HEADER} with initialize's "
                    "result: is this an ACP endpoint?",
                )
            self._connection_id = connection_id
            self.http_version = response.http_version
            handed_off = await self._take_body(response)
        finally:
            if not handed_off:
                await response.aclose()
        self._tasks.start_soon(
            self._read_stream, None, None, name="acp connection events"
        )

    async def _take_answer(
        self, response: httpx.Response, method: object, key: str | None
    ) -> bool:
        """Take a POST's answer; True if its body is read on the side (SSE)."""
        status = response.status_code
        if status in (200, 202, 204):
            return await self._take_body(response)
        body = (await response.aread())[:200].decode("utf-8", "replace").strip()
        what = f"HTTP {status} for {method or 'a reply'}" + (
            f": {body}" if body else ""
        )
        if status in (401, 403) or (status == 404 and "connection" in body.lower()):
            reason = f"the server at {self._url} refused the connection ({what})"
            self._end(reason)
            raise ConnectionClosed(reason)
        log.warning("%s refused a message: %s", self._url, what)
        if method is not None and key is not None:
            # Only this request fails; its answer will never come otherwise.
            request_id = json.loads(key)
            self._requests.pop(key, None)
            await self._deliver(
                _error_line(request_id, f"the server refused it ({what})")
            )
        return False

    async def _take_body(self, response: httpx.Response) -> bool:
        """Hand on a 200's body; True if it is an event stream read on the side."""
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind == "text/event-stream":
            # Answers coming on the POST's own stream: read them on the side.
            self._tasks.start_soon(
                self._read_post_events, response, name="acp post events"
            )
            return True
        body = await response.aread()
        if body.strip():
            if len(body) > self._max:
                await self._deliver(OversizedLine(size=len(body), limit=self._max))
            else:
                await self._take_event(body)
        return False

    async def _read_post_events(self, response: httpx.Response) -> None:
        try:
            await self._read_events(response, None)
        finally:
            with anyio.CancelScope(shield=True):
                await response.aclose()

    # -- event streams ----------------------------------------------------------

    async def _open_session(self, session: str) -> anyio.Event | None:
        """Open `session`'s event stream; wait (bounded) until it is open.

        Returns the event that lets its events through (set it once the result
        that named the session is handed on, so that it comes first).
        """
        if session in self._sessions or self._closing:
            return None
        self._sessions.add(session)
        opened, release = anyio.Event(), anyio.Event()
        self._tasks.start_soon(
            self._read_stream,
            session,
            opened,
            release,
            name=f"acp session {session} events",
        )
        with anyio.move_on_after(STREAM_OPEN_TIMEOUT) as scope:
            await opened.wait()
        if scope.cancelled_caught:
            log.warning("the event stream of session %s did not open in time", session)
        return release

    async def _read_stream(
        self,
        session: str | None,
        opened: anyio.Event | None,
        release: anyio.Event | None = None,
    ) -> None:
        headers = {"Accept": "text/event-stream"}
        assert self._connection_id is not None
        headers[CONNECTION_HEADER] = self._connection_id
        if session is not None:
            headers[SESSION_HEADER] = session
        which = "the connection's" if session is None else f"session {session}'s"
        try:
            events = self._events_client
            request = events.build_request("GET", self._url, headers=headers)
            try:
                response = await events.send(request, stream=True)
            except httpx.HTTPError as error:
                why = _describe(error)
                self._end(f"cannot open {which} event stream at {self._url}: {why}")
                return
            try:
                if response.status_code != 200:
                    status = response.status_code
                    self._end(
                        f"{self._url} refused {which} event stream (HTTP {status})"
                    )
                    return
                if opened is not None:
                    opened.set()
                if release is not None:
                    await release.wait()
                await self._read_events(response, session)
            finally:
                with anyio.CancelScope(shield=True):
                    await response.aclose()
        finally:
            if opened is not None:
                opened.set()
            if session is not None:
                self._sessions.discard(session)

    async def _read_events(self, response: httpx.Response, session: str | None) -> None:
        decoder = SseDecoder(self._max)
        which = "the connection's" if session is None else f"session {session}'s"
        try:
            async for chunk in response.aiter_raw():
                for event in decoder.feed(chunk):
                    await self._take_event(event)
        except httpx.ReadTimeout:
            self._end(
                f"nothing from {self._url} on {which} event stream for "
                f"{self._idle:g} s "
                "(not even a keepalive): the connection is gone (half-open)"
            )
            return
        except httpx.HTTPError as error:
            self._end(
                f"{which} event stream from {self._url} broke: {_describe(error)}"
            )
            return
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            return
        if session is None and response.request.method == "GET":
            self._end(f"the server at {self._url} ended the connection's event stream")

    async def _take_event(self, event: Line | OversizedLine) -> None:
        release = None
        if isinstance(event, bytes | bytearray):
            release = await self._route(event)
        await self._deliver(event)
        if release is not None:
            release.set()

    async def _route(self, data: bytes | bytearray) -> anyio.Event | None:
        """Learn sessions from a message before it is handed on.

        Returns the release of a session stream this message opened.
        """
        if b'"id"' not in data:
            return None  # a notification: nothing to learn (and no parse)
        try:
            message = json.loads(data)
        except ValueError:
            return None
        if not isinstance(message, dict):
            return None
        key = _key(message.get("id"))
        if key is None:
            return None
        if "method" in message:
            session = session_id_of(message.get("params"))
            if session is not None:
                self._asked[key] = session
            return None
        asked = self._requests.pop(key, None)
        if asked is None or "result" not in message:
            return None
        method, session = asked
        opened = session_id_of(message.get("result"))
        if opened is None and method in _SESSION_ATTACH:
            opened = session
        if opened is None:
            return None
        return await self._open_session(opened)

    async def _deliver(self, item: Line | OversizedLine) -> None:
        await self._inbox.put(item)

    def _end(self, reason: str) -> None:
        """The connection is over: `receive()` ends with `reason` once drained."""
        if self._ended is None and not self._closing:
            self._ended = reason
            log.info("%s", reason)
        self._inbox.close()


class Inbox:
    """A bounded queue of messages for one reader, fed by the event streams.

    `get` takes a waiting message without a trip through the event loop (as
    `LineReader` does a buffered line; the dispatcher yields on its own), which
    halves the cost per message of a memory object stream. `put` waits while
    `size` messages wait: the readers stop reading their responses.
    """

    def __init__(self, size: int) -> None:
        self._items: collections.deque[Line | OversizedLine] = collections.deque()
        self._size = size
        self._closed = False
        self._data = anyio.Event()
        self._room = anyio.Event()

    async def put(self, item: Line | OversizedLine) -> None:
        """Add `item`, waiting for room; dropped once closed."""
        while len(self._items) >= self._size and not self._closed:
            if self._room.is_set():
                self._room = anyio.Event()
            await self._room.wait()
        if self._closed:
            return
        self._items.append(item)
        self._data.set()

    async def get(self) -> Line | OversizedLine | None:
        """The next message; None once closed and drained."""
        while not self._items:
            if self._closed:
                return None
            if self._data.is_set():
                self._data = anyio.Event()
            await self._data.wait()
        item = self._items.popleft()
        self._room.set()
        return item

    def close(self) -> None:
        """No more messages: `get` drains what is left, then gives None."""
        self._closed = True
        self._data.set()
        self._room.set()


def _key(value: object) -> str | None:
    if value is None or isinstance(value, bool) or not isinstance(value, int | str):
        return None
    return json.dumps(value)


def _describe(error: BaseException) -> str:
    text = str(error) or type(error).__name__
    return text


@asynccontextmanager
async def http_stream(
    client: httpx.AsyncClient,
    *,
    url: str,
    max_line_bytes: int,
    idle_timeout: float = IDLE_TIMEOUT,
    on_refused: Callable[[RemoteConnectError], None] | None = None,
    events_client: httpx.AsyncClient | None = None,
) -> AsyncIterator[HttpStream]:
    """An `HttpStream` on `client`; leaving the block DELETEs and stops its readers.

    `on_refused` hears why `initialize` could not connect (a refused token, a
    404, ...), which `send` raises as `ConnectionClosed`. `events_client`, when
    given, carries the event streams (GET) apart from the POSTs: over HTTP/2,
    httpcore lets one waiter at a time read a connection, and a POST's answer
    queued behind two waiting event streams stays unread until more data comes.
    """
    async with background_tasks() as tasks:
        stream = HttpStream(
            client,
            tasks,
            url=url,
            max_line_bytes=max_line_bytes,
            idle_timeout=idle_timeout,
            on_refused=on_refused,
            events_client=events_client,
        )
        try:
            yield stream
        finally:
            await stream.aclose()


def client_timeouts(idle_timeout: float = IDLE_TIMEOUT) -> httpx.Timeout:
    """The `httpx` timeouts: the read timeout is the event streams' idle bound."""
    return httpx.Timeout(
        connect=CONNECT_TIMEOUT, read=idle_timeout, write=WRITE_TIMEOUT, pool=None
    )
