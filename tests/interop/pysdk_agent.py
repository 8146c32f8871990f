"""A small ACP agent written with the Python SDK, served over HTTP and WebSocket.

Run with the SDK's own interpreter (`.peers/pysdk/bin/python`, installed by
`.ci/install-peers`), not acp-tui's:

    .peers/pysdk/bin/python tests/interop/pysdk_agent.py [--versions 1,2] [--token T]

It serves `agent-client-protocol`'s Starlette app (`acp.http.asgi`: Streamable
HTTP and WebSocket on `/acp`) with uvicorn on 127.0.0.1, on a free port, and
prints `PORT <n>` once listening. Each prompt is answered with the words
`pysdk heard: <prompt text>` in three chunks. `--versions 1,2` serves v1 and
v2 through the SDK's `AgentProtocolRouter`. `--token T` refuses requests
without `Authorization: Bearer T` (401; the WebSocket upgrade too).
`--big N` adds one chunk of N bytes to each answer.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import uuid
from typing import Any

import uvicorn

# The SDK lives in its own venv (.peers/pysdk), not acp-tui's: no stubs here.
from acp import (  # type: ignore[import-not-found,unused-ignore]
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
)
from acp.experimental import v2  # type: ignore[import-not-found,unused-ignore]
from acp.experimental.negotiation import (  # type: ignore[import-not-found,unused-ignore]
    AgentProtocolRouter,
)
from acp.http.asgi import create_asgi_app  # type: ignore[import-not-found,unused-ignore]
from acp.schema import (  # type: ignore[import-not-found,unused-ignore]
    ListSessionsResponse,
    LoadSessionResponse,
)

BIG = 0
SESSIONS: dict[str, str] = {}
"""The sessions made (id -> cwd), for `session/list` (all connections)."""


def _text(prompt: list[Any]) -> str:
    parts = []
    for block in prompt:
        text = getattr(block, "text", None)
        if isinstance(text, str):
            parts.append(text)
    return " ".join(parts)


def _pieces(text: str) -> list[str]:
    words = f"pysdk heard: {text}"
    third = max(1, len(words) // 3)
    pieces = [words[:third], words[third : 2 * third], words[2 * third :]]
    if BIG:
        pieces.append(" " + "x" * BIG)
    return pieces


class V1Agent:
    """The v1 agent: `session/update` chunks, then the prompt's result."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    async def initialize(
        self, protocol_version: int, **kwargs: Any
    ) -> InitializeResponse:
        return InitializeResponse.model_validate(
            {
                "protocolVersion": 1,
                "agentInfo": {"name": "pysdk-agent", "version": "1.0.0rc3"},
                "agentCapabilities": {
                    "loadSession": True,
                    "sessionCapabilities": {"list": {}},
                },
            }
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        session_id = f"s-{uuid.uuid4().hex[:8]}"
        SESSIONS[session_id] = cwd
        return NewSessionResponse(session_id=session_id)

    async def list_sessions(self, **kwargs: Any) -> Any:
        sessions = [{"sessionId": s, "cwd": cwd} for s, cwd in SESSIONS.items()]
        return ListSessionsResponse.model_validate({"sessions": sessions})

    async def load_session(self, cwd: str, session_id: str, **kwargs: Any) -> Any:
        """Replays one exchange (on the connection's stream: the SDK's routing)."""
        await self._say(session_id, "user_message_chunk", "earlier question")
        await self._say(session_id, "agent_message_chunk", "earlier answer")
        return LoadSessionResponse()

    async def _say(self, session_id: str, kind: str, text: str) -> None:
        update = {"sessionUpdate": kind, "content": {"type": "text", "text": text}}
        await self._conn._conn.send_notification(
            "session/update", {"sessionId": session_id, "update": update}
        )

    async def prompt(
        self, session_id: str, prompt: list[Any], **kwargs: Any
    ) -> PromptResponse:
        for piece in _pieces(_text(prompt)):
            await self._say(session_id, "agent_message_chunk", piece)
        return PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        return None


class V2Agent:
    """The v2 agent: the user message, running, chunks, idle."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> Any:
        return v2.schema.InitializeResponse.model_validate(
            {
                "protocolVersion": 2,
                "info": {"name": "pysdk-agent", "version": "1.0.0rc3"},
                "capabilities": {"session": {}},
            }
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> Any:
        return v2.schema.NewSessionResponse(session_id=f"s-{uuid.uuid4().hex[:8]}")

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> Any:
        message_id = f"u-{uuid.uuid4().hex[:8]}"
        text = _text(prompt)
        asyncio.get_running_loop().create_task(self._turn(session_id, message_id, text))
        return v2.schema.PromptResponse(message_id=message_id)

    async def _turn(self, session_id: str, message_id: str, text: str) -> None:
        async def up(update: dict[str, Any]) -> None:
            await self._conn._conn.send_notification(
                "session/update", {"sessionId": session_id, "update": update}
            )

        await up(
            {
                "sessionUpdate": "user_message",
                "messageId": message_id,
                "content": [{"type": "text", "text": text}],
            }
        )
        await up({"sessionUpdate": "state_update", "state": "running"})
        for piece in _pieces(text):
            await up(
                {
                    "sessionUpdate": "agent_message_chunk",
                    "messageId": "a-" + message_id,
                    "content": {"type": "text", "text": piece},
                }
            )
        await up(
            {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}
        )

    async def cancel_session(self, session_id: str, **kwargs: Any) -> None:
        return None


class TokenGate:
    """ASGI middleware: 401 without the bearer token (HTTP and WebSocket)."""

    def __init__(self, app: Any, token: str) -> None:
        self._app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = dict(scope.get("headers") or [])
            if headers.get(b"authorization") != self._expected:
                # A WebSocket upgrade is refused with the same plain 401.
                kind = "websocket.http" if scope["type"] == "websocket" else "http"
                plain = [(b"content-type", b"text/plain")]
                start = {"type": f"{kind}.response.start", "status": 401}
                await send({**start, "headers": plain})
                await send({"type": f"{kind}.response.body", "body": b"no"})
                return
        await self._app(scope, receive, send)


def main() -> None:
    global BIG
    parser = argparse.ArgumentParser()
    parser.add_argument("--versions", default="1")
    parser.add_argument("--token", default=None)
    parser.add_argument("--big", type=int, default=0)
    args = parser.parse_args()
    BIG = args.big
    versions = {int(v) for v in args.versions.split(",")}
    if versions == {1}:
        app: Any = create_asgi_app(V1Agent)
    else:
        router = AgentProtocolRouter(
            v1=V1Agent if 1 in versions else None,
            v2=V2Agent if 2 in versions else None,
        )
        app = create_asgi_app(router)
    if args.token:
        app = TokenGate(app, args.token)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, log_level="warning", ws="websockets-sansio", ws_max_size=1 << 30
    )
    server = uvicorn.Server(config)
    print(f"PORT {port}", flush=True)
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
