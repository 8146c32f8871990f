"""The remote transports against a scripted server on loopback (in-process).

Each test drives `open_remote` as the dispatcher would (one reader, lines in
and out) against `tests/fakes/remote_server.py` over both profiles: the RFD's
headers, cookies and DELETE; answers on the stream, in a 200 JSON body or in an
SSE body; oversized and invalid messages; a silent half-open server; a slow
reader; the fallback from WebSocket to Streamable HTTP and its exceptions.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from acp_tui.protocol.framing import OversizedLine
from acp_tui.protocol.remote.http import HttpStream
from acp_tui.protocol.remote.open import RemoteOptions, open_remote
from acp_tui.protocol.remote.target import RemoteConnectError, RemoteTarget
from acp_tui.protocol.remote.websocket import CLOSE_TIMEOUT, WebSocketStream
from acp_tui.protocol.transport import ConnectionClosed, MessageStream
from tests.fakes.remote_server import CONNECTION, SESSION, Script, ScriptedServer, serve

PROFILES = ("websocket", "http")
BOUND = 10.0
"""Seconds any single wait here may take before the test fails."""


def line(message: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n"


INITIALIZE = line({"id": 0, "method": "initialize", "params": {"protocolVersion": 1}})
NEW = line({"id": 1, "method": "session/new", "params": {"cwd": "/", "mcpServers": []}})
PROMPT = line(
    {
        "id": 2,
        "method": "session/prompt",
        "params": {"sessionId": SESSION, "prompt": []},
    }
)


async def receive_json(stream: MessageStream) -> dict[str, Any]:
    with anyio.fail_after(BOUND):
        data = await stream.receive()
    assert not isinstance(data, OversizedLine)
    message: dict[str, Any] = json.loads(data)
    return message


@asynccontextmanager
async def connected(
    server: ScriptedServer, profile: str, options: RemoteOptions | None = None
) -> AsyncIterator[MessageStream]:
    async with serve(server) as port:
        target = RemoteTarget(f"http://127.0.0.1:{port}/acp", transport=profile)  # type: ignore[arg-type]
        async with open_remote(target, options) as stream:
            await stream.send(INITIALIZE)
            assert (await receive_json(stream))["id"] == 0
            await stream.send(NEW)
            assert (await receive_json(stream))["result"] == {"sessionId": SESSION}
            yield stream


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_turn_over_each_profile(profile: str) -> None:
    server = ScriptedServer()
    async with connected(server, profile) as stream:
        assert isinstance(
            stream, WebSocketStream if profile == "websocket" else HttpStream
        )
        await stream.send(PROMPT)
        texts = [
            (await receive_json(stream))["params"]["update"]["content"]["text"]
            for _ in range(2)
        ]
        assert texts == ["one ", "two"]
        assert (await receive_json(stream))["result"] == {"stopReason": "end_turn"}


async def test_http_sends_the_rfd_headers_keeps_cookies_and_deletes() -> None:
    server = ScriptedServer()
    async with connected(server, "http") as stream:
        await stream.send(PROMPT)
        for _ in range(3):
            await receive_json(stream)
    with anyio.fail_after(BOUND):
        await server.deleted.wait()
    posts = [seen for seen in server.requests if seen.method == "POST"]
    gets = [seen for seen in server.requests if seen.method == "GET"]
    assert "acp-connection-id" not in posts[0].headers  # initialize
    assert all(p.headers["acp-connection-id"] == CONNECTION for p in posts[1:])
    assert all(p.headers["content-type"] == "application/json" for p in posts)
    prompt = next(p for p in posts if p.body["method"] == "session/prompt")
    assert prompt.headers["acp-session-id"] == SESSION
    assert "acp-session-id" not in posts[1].headers  # session/new: no session yet
    assert [g.headers.get("acp-session-id") for g in gets] == [None, SESSION]
    assert all(g.headers["accept"] == "text/event-stream" for g in gets)
    later = [*posts[1:], *gets]
    assert all("affinity=backend-7" in r.headers.get("cookie", "") for r in later)
    delete = server.requests[-1]
    assert delete.method == "DELETE"
    assert delete.headers["acp-connection-id"] == CONNECTION


@pytest.mark.parametrize("answer", ["json", "sse"])
async def test_http_takes_a_prompt_answered_in_the_post(answer: str) -> None:
    server = ScriptedServer(Script(answer=answer))
    async with connected(server, "http") as stream:
        await stream.send(PROMPT)
        seen = [await receive_json(stream) for _ in range(3)]
    results = [m for m in seen if "result" in m]
    assert results == [
        {"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"}}
    ]


async def test_http_an_oversized_event_is_reported_and_the_stream_goes_on() -> None:
    big = json.dumps({"jsonrpc": "2.0", "method": "x", "params": "y" * 5000}).encode()
    bad_utf8 = b'{"jsonrpc":"2.0","method":"x","params":"\xff\xfe"}'
    server = ScriptedServer(Script(raw_events=[big, bad_utf8]))
    options = RemoteOptions(max_line_bytes=1000)
    async with connected(server, "http", options) as stream:
        with anyio.fail_after(BOUND):
            oversized = await stream.receive()
            invalid = await stream.receive()
        assert oversized == OversizedLine(size=len(big), limit=1000)
        assert invalid == bad_utf8  # the dispatcher reports it, as stdio's
        await stream.send(PROMPT)
        assert "params" in await receive_json(stream)


async def test_websocket_an_oversized_message_is_reported_then_the_end() -> None:
    server = ScriptedServer(Script(raw_events=[b"z" * 5000]))
    async with connected(
        server, "websocket", RemoteOptions(max_line_bytes=1000)
    ) as stream:
        with anyio.fail_after(BOUND):
            assert await stream.receive() == OversizedLine(size=1001, limit=1000)
            with pytest.raises(ConnectionClosed, match="over the size limit"):
                await stream.receive()


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_silent_half_open_server_is_detected_within_the_bound(
    profile: str,
) -> None:
    server = ScriptedServer(Script(silent=True))
    options = RemoteOptions(ping_interval=0.3, ping_timeout=0.3, idle_timeout=0.6)
    async with serve(server) as port:
        target = RemoteTarget(f"http://127.0.0.1:{port}/acp", transport=profile)  # type: ignore[arg-type]
        async with open_remote(target, options) as stream:
            await stream.send(INITIALIZE)
            await receive_json(stream)
            started = time.monotonic()
            with (
                anyio.fail_after(BOUND),
                pytest.raises(ConnectionClosed, match="half-open"),
            ):
                await stream.receive()
            elapsed = time.monotonic() - started
    # The bound (WebSocket: ping, pong timeout, the unanswered close), and slack.
    assert elapsed < 0.6 + (CLOSE_TIMEOUT if profile == "websocket" else 0.6) + 1.0


@pytest.mark.parametrize("profile", PROFILES)
async def test_a_slow_reader_holds_the_server_back(profile: str) -> None:
    count, size = 200, 256 * 1024
    server = ScriptedServer(Script(flood=count, flood_bytes=size))
    async with connected(server, profile) as stream:
        # Nothing is read for a while: the server must be held back.
        with anyio.move_on_after(1.0):
            await anyio.sleep_forever()
        held_at = server.pushed
        assert held_at < count / 2, f"{held_at} of {count} messages went out unread"
        with anyio.fail_after(BOUND * 3):
            for index in range(count):
                data = await stream.receive()
                assert not isinstance(data, OversizedLine)
                assert f'"text": "{index:06d}'.encode() in data
    assert server.pushed == count


async def test_http_is_used_when_the_server_has_no_websocket() -> None:
    server = ScriptedServer(Script(websocket=False))
    async with serve(server) as port:
        target = RemoteTarget(f"http://127.0.0.1:{port}/acp")
        async with open_remote(target) as stream:
            assert isinstance(stream, HttpStream)
            await stream.send(INITIALIZE)
            assert (await receive_json(stream))["id"] == 0


@pytest.mark.parametrize("profile", ["auto", "websocket"])
async def test_a_refused_token_on_the_upgrade_is_an_error_without_fallback(
    profile: str,
) -> None:
    server = ScriptedServer(Script(token="right"))
    async with serve(server) as port:
        target = RemoteTarget(
            f"http://127.0.0.1:{port}/acp",
            headers={"Authorization": "Bearer wrong"},
            transport=profile,  # type: ignore[arg-type]
        )
        with pytest.raises(RemoteConnectError) as caught:
            async with open_remote(target):
                pass
    assert caught.value.kind == "auth"
    assert caught.value.status == 401
    assert "refused the credentials (HTTP 401)" in str(caught.value)
    assert not [seen for seen in server.requests if seen.method == "POST"]


async def test_a_refused_connection_says_so() -> None:
    with anyio.fail_after(BOUND), pytest.raises(RemoteConnectError) as caught:
        async with open_remote(RemoteTarget("ws://127.0.0.1:1/acp")):
            pass
    assert caught.value.kind == "refused"
    assert "connection refused" in str(caught.value)


async def test_a_token_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCRIPTED_TOKEN", "right")
    server = ScriptedServer(Script(token="right"))
    async with serve(server) as port:
        url = f"http://127.0.0.1:{port}/acp"
        target = RemoteTarget(url, token_env="SCRIPTED_TOKEN", transport="http")
        async with open_remote(target) as stream:
            await stream.send(INITIALIZE)
            assert (await receive_json(stream))["id"] == 0
