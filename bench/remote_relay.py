"""A minimal relay for bench/remote.py: a stdio agent served over both profiles.

Run as `python bench/remote_relay.py -- AGENT_ARGV...`; prints `PORT n`.
Every WebSocket, and every Streamable HTTP connection (from its `initialize`
POST), gets its own agent process; lines are relayed as they are (WebSocket:
one text frame each; HTTP: session messages on the session's event stream,
the rest on the connection's). Only what the bench needs: no auth, no limits.
It is a bench fixture, not `acp-tui bridge`.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import suppress
from typing import Any

import uvicorn
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.websockets import WebSocket, WebSocketDisconnect

AGENT: list[str] = []
QUEUE: int = 256
"""Lines buffered per event stream (the relay reads the agent no faster)."""


async def spawn() -> asyncio.subprocess.Process:
    # A bench fixture in its own process, not acp-tui's transport layer.
    return await asyncio.create_subprocess_exec(  # noqa: TID251
        *AGENT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=1 << 30,
    )


class HttpConnection:
    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.connection: asyncio.Queue[bytes] = asyncio.Queue(QUEUE)
        self.sessions: dict[str, asyncio.Queue[bytes]] = {}
        self.routes: dict[str, str | None] = {}
        self.initialized: asyncio.Future[bytes] = (
            asyncio.get_running_loop().create_future()
        )
        self.reader = asyncio.get_running_loop().create_task(self.read())

    def session(self, session: str) -> asyncio.Queue[bytes]:
        return self.sessions.setdefault(session, asyncio.Queue(QUEUE))

    async def read(self) -> None:
        assert self.process.stdout is not None
        while line := await self.process.stdout.readline():
            message: dict[str, Any] = json.loads(line)
            if not self.initialized.done():
                self.initialized.set_result(line)
                continue
            session: str | None = None
            if "method" in message:
                params = message.get("params") or {}
                session = params.get("sessionId")
            else:
                session = self.routes.pop(json.dumps(message.get("id")), None)
            queue = self.session(session) if session else self.connection
            await queue.put(line)

    async def write(self, body: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(body.rstrip(b"\n") + b"\n")
        await self.process.stdin.drain()


CONNECTIONS: dict[str, HttpConnection] = {}


async def app(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        return
    if scope["type"] == "websocket":
        await websocket(WebSocket(scope, receive, send))
        return
    request = Request(scope, receive)
    if request.method == "POST":
        response = await post(request)
    elif request.method == "GET":
        response = get(request)
    else:
        connection = CONNECTIONS.pop(request.headers.get("acp-connection-id", ""), None)
        if connection is not None:
            await stop(connection.process)
        response = Response(status_code=202)
    await response(scope, receive, send)


async def post(request: Request) -> Response:
    body = await request.body()
    message = json.loads(body)
    if message.get("method") == "initialize":
        connection = HttpConnection(await spawn())
        await connection.write(body)
        answer = await connection.initialized
        connection_id = uuid.uuid4().hex
        CONNECTIONS[connection_id] = connection
        headers = {"Acp-Connection-Id": connection_id}
        return Response(answer, media_type="application/json", headers=headers)
    connection = CONNECTIONS[request.headers["acp-connection-id"]]
    if "method" in message and "id" in message:
        params = message.get("params") or {}
        if message["method"] != "session/new":
            connection.routes[json.dumps(message["id"])] = params.get("sessionId")
    await connection.write(body)
    return Response(status_code=202)


def get(request: Request) -> Response:
    connection = CONNECTIONS[request.headers["acp-connection-id"]]
    session = request.headers.get("acp-session-id")
    queue = connection.session(session) if session else connection.connection

    async def events() -> AsyncIterator[bytes]:
        while True:
            try:
                line = await asyncio.wait_for(queue.get(), 15)
            except TimeoutError:
                yield b": keepalive\n\n"
                continue
            # What is queued goes out in one write, as a busy server's would.
            lines = [line]
            while not queue.empty() and len(lines) < 64:
                lines.append(queue.get_nowait())
            yield b"".join(b"data: " + item.rstrip(b"\n") + b"\n\n" for item in lines)

    return StreamingResponse(events(), media_type="text/event-stream")


async def websocket(ws: WebSocket) -> None:
    await ws.accept()
    process = await spawn()
    assert process.stdin is not None
    assert process.stdout is not None
    stdout = process.stdout

    async def down() -> None:
        while line := await stdout.readline():
            await ws.send_text(line.rstrip(b"\n").decode())

    pump = asyncio.get_running_loop().create_task(down())
    try:
        while True:
            text = await ws.receive_text()
            process.stdin.write(text.encode() + b"\n")
            await process.stdin.drain()
    except WebSocketDisconnect:
        pass
    finally:
        pump.cancel()
        await stop(process)


async def stop(process: asyncio.subprocess.Process) -> None:
    if process.stdin is not None:
        process.stdin.close()
    with suppress(ProcessLookupError):
        try:
            await asyncio.wait_for(process.wait(), 2)
        except TimeoutError:
            process.kill()
            await process.wait()


def main() -> None:
    AGENT.extend(sys.argv[sys.argv.index("--") + 1 :])
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(
        app, log_level="critical", ws="websockets-sansio", lifespan="off"
    )
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
