"""Open a `MessageStream` to a remote agent: the profile, TLS, the errors.

`open_remote(target)` is the remote counterpart of entering a
`StdioTransport`: an async context manager yielding a `MessageStream`.

* **Profile.** `ws://` and `wss://` URLs, and `transport = "websocket"`, use
  the WebSocket profile; `transport = "http"` uses Streamable HTTP. Otherwise
  (`auto`, an http(s) URL) a WebSocket upgrade is tried first, and any answer
  but 101 falls back to Streamable HTTP, except 401 and 403: a refused token
  is an error, not a reason to try the other profile. No answer at all (refused,
  TLS, DNS) is an error too.
* **TLS** is verified (the system's CAs, or `cacert`); HTTP/2 is offered by ALPN.
* **Imports.** `websockets` and `httpx` (`acp-tui[remote]`) are imported here,
  when a connection opens; without them, `RemoteConnectError` says to install
  the extra.

Failures to connect are `RemoteConnectError`s (`kind`: refused, tls, auth, ...);
once connected, the streams end with `ConnectionClosed` and a reason.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from acp_tui import __version__
from acp_tui.protocol.framing import DEFAULT_MAX_LINE_BYTES
from acp_tui.protocol.remote.target import (
    RemoteConnectError,
    RemoteTarget,
    failure_from,
    missing_extra,
    status_failure,
)

if TYPE_CHECKING:
    import ssl

    from websockets.asyncio.client import ClientConnection

    from acp_tui.protocol.transport import MessageStream

__all__ = ["RemoteOptions", "open_remote"]

log = logging.getLogger(__name__)

OPEN_TIMEOUT: Final = 15.0
"""Seconds for the TCP, TLS and WebSocket handshakes together."""

USER_AGENT: Final = f"acp-tui/{__version__}"


@dataclass(frozen=True, slots=True)
class RemoteOptions:
    """Tunables (tests shorten the keepalive bounds)."""

    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    ping_interval: float | None = None
    """WebSocket ping interval; None: `websocket.PING_INTERVAL`."""
    ping_timeout: float | None = None
    """WebSocket pong timeout; None: `websocket.PING_TIMEOUT`."""
    idle_timeout: float | None = None
    """Streamable HTTP event stream idle bound; None: `http.IDLE_TIMEOUT`."""


def ssl_context(target: RemoteTarget) -> ssl.SSLContext:
    """A verifying TLS context (the system's CAs, or `target.cacert`)."""
    import ssl

    try:
        context = ssl.create_default_context(
            cafile=str(target.cacert) if target.cacert is not None else None
        )
    except (OSError, ssl.SSLError) as error:
        raise RemoteConnectError(
            target.url, "config", f"cannot read the CA file {target.cacert}: {error}"
        ) from None
    return context


@asynccontextmanager
async def open_remote(
    target: RemoteTarget,
    options: RemoteOptions | None = None,
    *,
    on_refused: Callable[[RemoteConnectError], None] | None = None,
) -> AsyncIterator[MessageStream]:
    """Connect to `target` (see the module doc).

    Streamable HTTP connects with its first message (`initialize`): a refusal
    then is raised by `send` as `ConnectionClosed`, and `on_refused` hears the
    `RemoteConnectError`.

    Raises:
        RemoteConnectError: No connection (refused, TLS, auth, 404, no extra...).
    """
    options = options or RemoteOptions()
    problem = target.problem()
    if problem is not None:
        raise RemoteConnectError(target.url, "config", problem)
    headers = target.request_headers()
    context = ssl_context(target) if target.encrypted else None
    pinned_ws = target.scheme in ("ws", "wss") or target.transport == "websocket"
    if target.transport != "http":
        try:
            connection = await _websocket(target, headers, context, options)
        except RemoteConnectError as error:
            answered = error.status is not None and error.kind != "auth"
            if pinned_ws or not answered:
                raise
            log.info(
                "%s: no WebSocket (HTTP %s); trying Streamable HTTP",
                target.url,
                error.status,
            )
        else:
            from acp_tui.protocol.remote.websocket import WebSocketStream

            stream = WebSocketStream(
                connection,
                url=target.websocket_url(),
                max_line_bytes=options.max_line_bytes,
            )
            try:
                yield stream
            finally:
                await stream.aclose()
            return
    async with _http(target, headers, context, options, on_refused) as http:
        yield http


async def _websocket(
    target: RemoteTarget,
    headers: dict[str, str],
    context: ssl.SSLContext | None,
    options: RemoteOptions,
) -> ClientConnection:
    url = target.websocket_url()
    try:
        from websockets.asyncio.client import connect
        from websockets.exceptions import InvalidStatus
    except ImportError as error:
        raise missing_extra(target.url, error) from None
    from acp_tui.protocol.remote import websocket

    interval = options.ping_interval
    timeout = options.ping_timeout
    try:
        return await connect(
            url,
            additional_headers=headers,
            user_agent_header=USER_AGENT,
            ssl=context,
            max_size=options.max_line_bytes,
            max_queue=websocket.MAX_QUEUE,
            ping_interval=websocket.PING_INTERVAL if interval is None else interval,
            ping_timeout=websocket.PING_TIMEOUT if timeout is None else timeout,
            open_timeout=OPEN_TIMEOUT,
            close_timeout=websocket.CLOSE_TIMEOUT,
            compression=None,
            proxy=None,
        )
    except InvalidStatus as error:
        response = error.response
        detail = (
            response.body.decode("utf-8", "replace")[:200].strip()
            if response.body
            else ""
        )
        raise status_failure(target.url, response.status_code, detail) from None
    except Exception as error:  # refused, TLS, DNS, a bad handshake, a timeout
        raise failure_from(target.url, error) from None


@asynccontextmanager
async def _http(
    target: RemoteTarget,
    headers: dict[str, str],
    context: ssl.SSLContext | None,
    options: RemoteOptions,
    on_refused: Callable[[RemoteConnectError], None] | None,
) -> AsyncIterator[MessageStream]:
    try:
        import httpx

        from acp_tui.protocol.remote import http
    except ImportError as error:
        raise missing_extra(target.url, error) from None
    from http.cookiejar import CookieJar

    idle = http.IDLE_TIMEOUT if options.idle_timeout is None else options.idle_timeout
    jar = CookieJar()  # shared: the POSTs' and the event streams' clients

    def new_client() -> httpx.AsyncClient:
        return httpx.AsyncClient(
            http2=True,
            verify=context if context is not None else True,
            headers={**headers, "User-Agent": USER_AGENT},
            cookies=jar,
            timeout=http.client_timeouts(idle),
            trust_env=False,
            follow_redirects=False,
        )

    try:
        client, events_client = new_client(), new_client()
    except ImportError as error:  # h2, for http2=True
        raise missing_extra(target.url, error) from None
    async with (
        client,
        events_client,
        http.http_stream(
            client,
            url=target.http_url(),
            max_line_bytes=options.max_line_bytes,
            idle_timeout=idle,
            on_refused=on_refused,
            events_client=events_client,
        ) as stream,
    ):
        yield stream
