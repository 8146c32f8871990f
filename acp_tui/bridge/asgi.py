"""The `/acp` endpoint (starlette): both profiles of the remote transport.

`build_app(options)` returns the ASGI app: a guard (bearer token, Origin) in
front of a starlette app whose lifespan owns every agent process. Starlette is
imported here, and this module only when the bridge runs.

Answers, per the RFD:

* POST: `Content-Type: application/json` (else 415), at most the message limit
  (else 413), one JSON object (a batch: 501). `initialize` without
  `Acp-Connection-Id` starts a connection and its agent and answers 200 with the
  agent's response, the `Acp-Connection-Id` header and the affinity cookie;
  anything else needs a known `Acp-Connection-Id` (400, 404), session-scoped
  requests `Acp-Session-Id` (400), and is answered 202.
* GET with `Accept: text/event-stream` (else 406): the connection's SSE stream,
  or with `Acp-Session-Id` that session's (made on demand: the session's traffic
  waits in it until the stream is open). One reader per stream (409).
* GET with `Upgrade: websocket`: a new connection and agent, or with
  `Acp-Connection-Id` the return of a dropped one (see `registry`).
* DELETE with `Acp-Connection-Id`: ends the connection and its agent (202).
"""

from __future__ import annotations

import contextlib
import hmac
import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Final

import anyio

from acp_tui.bridge.link import Link
from acp_tui.bridge.options import BridgeOptions
from acp_tui.bridge.peek import Peek, peek_soon
from acp_tui.bridge.registry import Full, Registry
from acp_tui.protocol.remote.names import CONNECTION_HEADER, SESSION_HEADER
from acp_tui.protocol.transport import AgentStartError, ConnectionClosed

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.types import ASGIApp, Receive, Scope, Send
    from starlette.websockets import WebSocket

__all__ = [
    "AFFINITY_COOKIE",
    "CONNECTION_HEADER",
    "SESSION_HEADER",
    "build_app",
]

log = logging.getLogger(__name__)

AFFINITY_COOKIE: Final = "acp_bridge"
"""Set on `initialize` (200) and on the WebSocket upgrade (101), naming this
bridge instance, for load balancers that route on an application cookie."""

WS_BEARER_PREFIX: Final = "bearer."
"""A WebSocket subprotocol `bearer.TOKEN` carries the token: browsers cannot set
an Authorization header on a WebSocket."""

INITIALIZE_TIMEOUT: Final = 120.0
"""Seconds the agent may take to answer initialize over HTTP (504 after)."""

KEEPALIVE_INTERVAL: Final = 15.0
"""Seconds of silence after which an SSE stream gets a comment line."""

SESSION_SCOPED: Final = frozenset(
    {
        "session/cancel",
        "session/close",
        "session/delete",
        "session/fork",
        "session/load",
        "session/prompt",
        "session/resume",
        "session/set_config_option",
        "session/set_mode",
        "session/set_model",
    }
)
"""Requests that need `Acp-Session-Id` (as the TypeScript SDK 2.4.0 server)."""

CONNECTION_ROUTED: Final = frozenset({"session/new", "session/load"})
"""Requests answered on the connection stream although they name a session."""

ATTACHING: Final = frozenset({"session/load", "session/resume"})
"""Requests that may come without `Acp-Session-Id` (a reconnecting client):
answered on the connection stream then."""


def build_app(options: BridgeOptions, instance: str) -> ASGIApp:
    """The bridge's ASGI app: guard, then the `/acp` routes."""
    from starlette.applications import Starlette
    from starlette.routing import Route, WebSocketRoute

    endpoint = _Endpoint(options, instance)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with anyio.create_task_group() as group:
            endpoint.registry = Registry(options, group)
            group.start_soon(endpoint.registry.reap)
            try:
                yield
            finally:
                endpoint.registry.close_all("the bridge is stopping")
                group.cancel_scope.cancel()

    app = Starlette(
        routes=[
            Route("/acp", endpoint.http, methods=["GET", "POST", "DELETE"]),
            WebSocketRoute("/acp", endpoint.websocket),
        ],
        lifespan=lifespan,
    )
    return _Guard(app, options)


def _text(status: int, text: str, headers: Mapping[str, str] | None = None) -> Response:
    from starlette.responses import PlainTextResponse

    return PlainTextResponse(text + "\n", status_code=status, headers=headers)


class _Guard:
    """Token and Origin, checked before anything else (so before any agent)."""

    def __init__(self, app: ASGIApp, options: BridgeOptions) -> None:
        self.app = app
        self.options = options
        self._token = options.token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        from starlette.datastructures import Headers

        headers = Headers(scope=scope)
        refusal = self._refusal(scope, headers)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            from starlette.websockets import WebSocket

            await WebSocket(scope, receive, send).send_denial_response(refusal)
        else:
            await refusal(scope, receive, send)

    def _refusal(self, scope: Scope, headers: Any) -> Response | None:
        origin = headers.get("origin")
        if origin is not None and origin not in self.options.allowed_origins:
            return _text(403, f"origin {origin!r} is not allowed (see --allow-origin)")
        if not self._authorized(scope, headers):
            return _text(
                401,
                "a bearer token is required (Authorization: Bearer TOKEN)",
                {"WWW-Authenticate": 'Bearer realm="acp-tui bridge"'},
            )
        return None

    def _authorized(self, scope: Scope, headers: Any) -> bool:
        candidates: list[str] = []
        scheme, _, value = str(headers.get("authorization", "")).partition(" ")
        if scheme.lower() == "bearer":
            candidates.append(value.strip())
        if scope["type"] == "websocket":
            candidates.extend(
                protocol[len(WS_BEARER_PREFIX) :]
                for protocol in scope.get("subprotocols", [])
                if protocol.startswith(WS_BEARER_PREFIX)
            )
        ok = False
        for candidate in candidates:  # every candidate compared in constant time
            ok |= hmac.compare_digest(candidate.encode(), self._token)
        return ok


class _Endpoint:
    def __init__(self, options: BridgeOptions, instance: str) -> None:
        self.options = options
        self.instance = instance
        self.registry: Registry | None = None

    def _registry(self) -> Registry:
        assert self.registry is not None, "the app's lifespan has not started"
        return self.registry

    def _cookie(self) -> str:
        return f"{AFFINITY_COOKIE}={self.instance}; Path=/; HttpOnly; SameSite=Strict"

    def _too_large(self, size: int) -> Response:
        return _text(
            413,
            f"a message of {size} bytes or more is over the bridge's limit of "
            f"{self.options.max_message_bytes} bytes (--max-message-bytes)",
        )

    # -- HTTP ----------------------------------------------------------------------

    async def http(self, request: Request) -> Response:
        if request.method == "POST":
            return await self._post(request)
        if request.method == "DELETE":
            return self._delete(request)
        return self._get(request)

    async def _body(self, request: Request) -> bytes | Response:
        limit = self.options.max_message_bytes
        length = request.headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            return self._too_large(int(length))
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                return self._too_large(len(body))
        return bytes(body)

    async def _post(self, request: Request) -> Response:
        content_type = request.headers.get("content-type", "")
        if content_type.split(";", 1)[0].strip().lower() != "application/json":
            return _text(415, "POST needs Content-Type: application/json")
        body = await self._body(request)
        if not isinstance(body, bytes):
            return body
        facts = await peek_soon(body)
        if facts.kind == "batch":
            return _text(501, "JSON-RPC batches are not supported")
        if facts.kind == "invalid":
            return _text(400, "the body is not one JSON-RPC message")
        connection_id = request.headers.get(CONNECTION_HEADER)
        if facts.kind == "request" and facts.method == "initialize":
            if connection_id:
                return _text(400, "initialize is not allowed on an existing connection")
            return await self._initialize(body, facts)
        link = self._known_link(request)
        if not isinstance(link, Link):
            return link
        header_session = request.headers.get(SESSION_HEADER)
        route: str | None = None
        if facts.kind in ("request", "notification"):
            scoped = facts.method in SESSION_SCOPED or facts.session_id is not None
            # A session being attached to is not one of this connection yet:
            # its id is in the params (the Python SDK refuses the header then).
            attaching = facts.method in ATTACHING and not header_session
            if scoped and not header_session and not attaching:
                return _text(400, "Acp-Session-Id is missing")
            if (
                header_session
                and facts.session_id
                and header_session != facts.session_id
            ):
                return _text(400, "Acp-Session-Id does not match params.sessionId")
            if facts.method not in CONNECTION_ROUTED and not attaching:
                route = header_session or facts.session_id
        self._registry().maybe_adopt(link, facts)
        try:
            await link.from_client(body, facts, route)
        except ConnectionClosed as error:
            return _text(502, f"the agent is gone: {error.reason}")
        return _empty(202)

    async def _initialize(self, body: bytes, facts: Peek) -> Response:
        registry = self._registry()
        try:
            link = await registry.open("http")
        except Full as error:
            return _text(503, str(error), {"Retry-After": "5"})
        except AgentStartError as error:
            return _text(502, str(error))
        key = facts.key
        assert key is not None
        event, answer = link.expect(key)
        try:
            await link.from_client(body, facts, None)
            with anyio.move_on_after(INITIALIZE_TIMEOUT):
                await event.wait()
        except ConnectionClosed:
            pass
        if not answer:
            if link.ended:  # the agent exited before it answered
                return _text(502, f"initialize failed: {link.end_reason}")
            registry.end(link, "no answer to initialize in time")
            return _text(504, "the agent did not answer initialize in time")
        from starlette.responses import Response

        return Response(
            answer[0],
            status_code=200,
            media_type="application/json",
            headers={
                CONNECTION_HEADER: link.connection_id,
                "Set-Cookie": self._cookie(),
            },
        )

    def _get(self, request: Request) -> Response:
        if "text/event-stream" not in request.headers.get("accept", "").lower():
            return _text(406, "GET needs Accept: text/event-stream (or a WebSocket)")
        link = self._known_link(request)
        if not isinstance(link, Link):
            return link
        box = link.box_for(request.headers.get(SESSION_HEADER))
        if box.has_reader:
            return _text(409, "this stream already has a reader")
        box.has_reader = True
        from starlette.responses import StreamingResponse

        return StreamingResponse(
            _events(link, box),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    def _known_link(self, request: Request) -> Link | Response:
        """The connection `Acp-Connection-Id` names, or the answer (400, 404)."""
        connection_id = request.headers.get(CONNECTION_HEADER)
        if not connection_id:
            return _text(400, "Acp-Connection-Id is missing")
        link = self._registry().get(connection_id)
        if link is None:
            return _text(404, "unknown Acp-Connection-Id")
        return link

    def _delete(self, request: Request) -> Response:
        link = self._known_link(request)
        if not isinstance(link, Link):
            return link
        self._registry().end(link, "DELETE by the client")
        return _empty(202)

    # -- WebSocket -------------------------------------------------------------------

    async def websocket(self, websocket: WebSocket) -> None:
        registry = self._registry()
        connection_id = websocket.headers.get(CONNECTION_HEADER)
        if connection_id:
            found = registry.get(connection_id)
            if found is None:
                await websocket.send_denial_response(
                    _text(404, "unknown Acp-Connection-Id")
                )
                return
            if found.attached:
                await websocket.send_denial_response(
                    _text(409, "this connection already has a client")
                )
                return
            link = found
        else:
            try:
                link = await registry.open("websocket")
            except Full as error:
                await websocket.send_denial_response(
                    _text(503, str(error), {"Retry-After": "5"})
                )
                return
            except AgentStartError as error:
                await websocket.send_denial_response(_text(502, str(error)))
                return
        link.attach("websocket")
        offered = list(websocket.scope.get("subprotocols", []))
        chosen = (
            "acp"
            if "acp" in offered
            else next((p for p in offered if p.startswith(WS_BEARER_PREFIX)), None)
        )
        try:
            await websocket.accept(
                subprotocol=chosen,
                headers=[
                    (b"acp-connection-id", link.connection_id.encode()),
                    (b"set-cookie", self._cookie().encode()),
                ],
            )
        except Exception:  # the client left during the handshake
            link.drop()
            raise
        code = await _relay_websocket(websocket, link, registry)
        if link.ended:
            return
        if code == 1000:
            registry.end(link, "the client closed the WebSocket (1000)")
        else:
            link.drop()


async def _events(link: Link, box: Any) -> AsyncIterator[bytes]:
    """An SSE stream of one mailbox: one `data:` event per message."""
    link.stream_opened()
    try:
        yield b": acp-tui bridge\n\n"
        while True:
            line: bytes | None = None
            with anyio.move_on_after(KEEPALIVE_INTERVAL):
                line = await box.get()
            if line is None:
                yield b":\n\n"
                continue
            yield b"data: "
            yield line
            yield b"\n\n"
    except anyio.EndOfStream:
        return
    finally:
        box.has_reader = False
        link.stream_closed()


async def _relay_websocket(websocket: WebSocket, link: Link, registry: Registry) -> int:
    """Relay until either side ends; the client's close code (1006 if none)."""
    from starlette.websockets import WebSocketDisconnect

    code = 1006
    async with anyio.create_task_group() as group:

        async def to_client() -> None:
            try:
                while True:
                    line = await link.connection_box.get()
                    await websocket.send_text(line.decode("utf-8", "replace"))
            except anyio.EndOfStream:
                reason = link.end_reason.encode()[:120].decode("utf-8", "ignore")
                with contextlib.suppress(Exception):  # already gone
                    await websocket.close(1011, reason)
            except (WebSocketDisconnect, OSError, RuntimeError):
                pass
            group.cancel_scope.cancel()

        group.start_soon(to_client)
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    code = int(message.get("code", 1006))
                    break
                text = message.get("text")
                if text is None:
                    continue  # binary frames are ignored (RFD)
                data = text.encode()
                facts = await peek_soon(data)
                registry.maybe_adopt(link, facts)
                try:
                    await link.from_client(data, facts, None)
                except ConnectionClosed:
                    break
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass
        group.cancel_scope.cancel()
    return code


def _empty(status: int) -> Response:
    from starlette.responses import Response

    return Response(status_code=status)
