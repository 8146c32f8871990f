"""A scripted remote ACP server for the transport tests (Starlette, in-process).

`serve(app)` runs an ASGI app under uvicorn on 127.0.0.1 (a free port) in the
test's own event loop. `ScriptedServer` speaks just enough ACP over both
profiles of the RFD for the transports to be checked: `initialize`,
`session/new` and `session/prompt` (answered with `Script.updates` on the
session's stream, then the result), with knobs for the faults:

* `answer`: how a prompt's result comes: "stream" (the session stream, as the
  RFD says), "json" (a 200 with a JSON body) or "sse" (a 200 with an SSE body);
* `silent`: after the handshake, the server sends nothing at all, not even
  a keepalive (WebSocket: it also stops reading, so pings go unanswered);
* `flood`: that many messages of `flood_bytes` pushed at once after
  `session/new`, counted in `pushed` as each is handed to the socket;
* `raw_events`: raw SSE data (bytes) sent on the session stream after
  `session/new` (invalid UTF-8, oversize events);
* `websocket`: False answers an upgrade with 400 (a server without WebSocket);
* `token`: a bearer token required on every request (401 otherwise).

What the client sent is recorded: `requests` (method, headers, body).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.websockets import WebSocket, WebSocketDisconnect

CONNECTION = "c-1"
SESSION = "s-1"
INITIALIZE_RESULT = {
    "protocolVersion": 1,
    "agentCapabilities": {},
    "agentInfo": {"name": "scripted"},
}


@dataclass
class Script:
    updates: list[str] = field(default_factory=lambda: ["one ", "two"])
    answer: str = "stream"
    silent: bool = False
    flood: int = 0
    flood_bytes: int = 1024 * 1024
    raw_events: list[bytes] = field(default_factory=list)
    websocket: bool = True
    token: str | None = None


@dataclass
class Seen:
    method: str
    headers: dict[str, str]
    body: Any = None


def chunk(text: str) -> dict[str, Any]:
    update = {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": text},
    }
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": SESSION, "update": update},
    }


def sse(message: dict[str, Any] | bytes) -> bytes:
    data = message if isinstance(message, bytes) else json.dumps(message).encode()
    return b"data: " + data + b"\n\n"


class ScriptedServer:
    """An ASGI app (call it) following `script`; see the module doc."""

    def __init__(self, script: Script | None = None) -> None:
        self.script = script or Script()
        self.requests: list[Seen] = []
        self.pushed = 0
        self.connection_queue: asyncio.Queue[bytes] = asyncio.Queue()
        self.session_queue: asyncio.Queue[bytes] = asyncio.Queue(maxsize=1)
        self.deleted = asyncio.Event()
        self.websockets_closed = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            return
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        token = self.script.token
        if token is not None and headers.get("authorization") != f"Bearer {token}":
            status = {"status": 401, "headers": [(b"content-type", b"text/plain")]}
            if scope["type"] == "websocket":
                await send({"type": "websocket.http.response.start", **status})
                await send(
                    {"type": "websocket.http.response.body", "body": b"bad token"}
                )
            else:
                await send({"type": "http.response.start", **status})
                await send({"type": "http.response.body", "body": b"bad token"})
            return
        if scope["type"] == "websocket":
            if not self.script.websocket:
                await send(
                    {
                        "type": "websocket.http.response.start",
                        "status": 400,
                        "headers": [],
                    }
                )
                await send(
                    {"type": "websocket.http.response.body", "body": b"no websocket"}
                )
                return
            await self._websocket(WebSocket(scope, receive, send))
            return
        request = Request(scope, receive)
        if request.method == "POST":
            response = await self._post(request)
        elif request.method == "GET":
            response = await self._get(request)
        else:
            self.requests.append(Seen("DELETE", dict(request.headers)))
            self.deleted.set()
            response = Response(status_code=202)
        await response(scope, receive, send)

    # -- HTTP -----------------------------------------------------------------

    async def _post(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(Seen("POST", dict(request.headers), body))
        method, request_id = body.get("method"), body.get("id")
        if method == "initialize":
            result = INITIALIZE_RESULT
            response = JSONResponse(
                {"jsonrpc": "2.0", "id": request_id, "result": result},
                headers={"Acp-Connection-Id": CONNECTION},
            )
            response.set_cookie("affinity", "backend-7")
            return response
        if method == "session/new":
            answer = {
                "jsonrpc": "2.0",
                "id": request_id,
                "result": {"sessionId": SESSION},
            }
            await self.connection_queue.put(json.dumps(answer).encode())
            asyncio.get_running_loop().create_task(self._after_new())
            return Response(status_code=202)
        if method == "session/prompt":
            result = {
                "jsonrpc": "2.0",
                "id": request_id,
                "result": {"stopReason": "end_turn"},
            }
            for text in self.script.updates:
                await self.session_queue.put(json.dumps(chunk(text)).encode())
            if self.script.answer == "json":
                return JSONResponse(result)
            if self.script.answer == "sse":
                return Response(sse(result), media_type="text/event-stream")
            await self.session_queue.put(json.dumps(result).encode())
            return Response(status_code=202)
        if method is not None and request_id is not None:
            return JSONResponse({"error": "unknown method"}, status_code=404)
        return Response(status_code=202)

    async def _after_new(self) -> None:
        for raw in self.script.raw_events:
            await self.session_queue.put(raw)
        for index in range(self.script.flood):
            text = f"{index:06d}" + "x" * self.script.flood_bytes
            await self.session_queue.put(json.dumps(chunk(text)).encode())

    async def _get(self, request: Request) -> Response:
        self.requests.append(Seen("GET", dict(request.headers)))
        scoped = "acp-session-id" in request.headers
        queue = self.session_queue if scoped else self.connection_queue

        async def events() -> AsyncIterator[bytes]:
            if self.script.silent:
                await asyncio.Event().wait()
            while True:
                data = await queue.get()
                yield sse(data)
                self.pushed += scoped

        return StreamingResponse(events(), media_type="text/event-stream")

    # -- WebSocket ---------------------------------------------------------------

    async def _websocket(self, websocket: WebSocket) -> None:
        await websocket.accept(headers=[(b"acp-connection-id", CONNECTION.encode())])
        try:
            while True:
                text = await websocket.receive_text()
                message = json.loads(text)
                self.requests.append(Seen("WS", {}, message))
                await self._ws_answer(websocket, message)
        except WebSocketDisconnect:
            self.websockets_closed += 1

    async def _ws_answer(self, websocket: WebSocket, message: dict[str, Any]) -> None:
        method, request_id = message.get("method"), message.get("id")
        if method == "initialize":
            result = INITIALIZE_RESULT
            await websocket.send_text(
                json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result})
            )
            if self.script.silent:
                await _go_silent(websocket)
        elif method == "session/new":
            answer = {
                "jsonrpc": "2.0",
                "id": request_id,
                "result": {"sessionId": SESSION},
            }
            await websocket.send_text(json.dumps(answer))
            for raw in self.script.raw_events:
                await websocket.send_text(raw.decode("utf-8", "replace"))
            for index in range(self.script.flood):
                text = f"{index:06d}" + "x" * self.script.flood_bytes
                await websocket.send_text(json.dumps(chunk(text)))
                self.pushed += 1
        elif method == "session/prompt":
            for text in self.script.updates:
                await websocket.send_text(json.dumps(chunk(text)))
            result = {
                "jsonrpc": "2.0",
                "id": request_id,
                "result": {"stopReason": "end_turn"},
            }
            await websocket.send_text(json.dumps(result))


async def _go_silent(websocket: WebSocket) -> None:
    """Stop reading the socket: pings go unanswered, as on a half-open link."""
    transport = _transport_of(websocket)
    if transport is not None:
        transport.pause_reading()
    await asyncio.Event().wait()


def _transport_of(websocket: WebSocket) -> asyncio.Transport | None:
    receive = websocket._receive
    owner = getattr(receive, "__self__", None)
    return getattr(owner, "transport", None)


@asynccontextmanager
async def serve(app: Any, **uvicorn_options: Any) -> AsyncIterator[int]:
    """Run `app` on 127.0.0.1 in this event loop; yields the port.

    `uvicorn_options` go to `uvicorn.Config` (e.g. `ssl_certfile`, `ssl_keyfile`).
    """
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app,
        log_level="critical",
        ws="websockets-sansio",
        lifespan="off",
        ws_max_size=1 << 30,
        **uvicorn_options,
    )
    server = uvicorn.Server(config)
    server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]
    task = asyncio.get_running_loop().create_task(server.serve(sockets=[sock]))
    try:
        async with asyncio.timeout(10):
            while not server.started:  # noqa: ASYNC110 (uvicorn has no event for it)
                await asyncio.sleep(0.01)
        yield port
    finally:
        server.should_exit = True
        server.force_exit = True
        with suppress(asyncio.CancelledError):
            await asyncio.wait_for(task, 10)
        sock.close()


def main() -> None:
    """Serve a default `ScriptedServer` on a free loopback port; print `PORT n`.

    With two arguments, `CERTFILE KEYFILE`, it serves TLS (https and wss).
    """
    tls = sys.argv[1:3]
    options = {"ssl_certfile": tls[0], "ssl_keyfile": tls[1]} if tls else {}

    async def run() -> None:
        async with serve(ScriptedServer(), **options) as port:
            print(f"PORT {port}", flush=True)
            await asyncio.Event().wait()

    asyncio.run(run())


if __name__ == "__main__":
    main()
