"""`acp-tui bridge` wrapping the demo agent, driven over the wire by plain httpx
and websockets clients: a whole turn over each profile, v1 and v2."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.bridge.harness import (
    Bridge,
    WsClient,
    http_initialize,
    init_params,
    post_headers,
    request,
    running_bridge,
    sse_stream,
    ws_connect,
)

pytestmark = pytest.mark.subprocess


def agent_text(messages: list[dict[str, Any]], session_id: str) -> str:
    """The agent message text of the session's updates (either version's shape)."""
    text = []
    for message in messages:
        if message.get("method") != "session/update":
            continue
        params = message["params"]
        assert params["sessionId"] == session_id
        update = params["update"]
        kind = update.get("sessionUpdate") or update.get("type")
        if kind in ("agent_message_chunk", "agent_message"):
            content = update.get("content", {})
            for block in content if isinstance(content, list) else [content]:
                if isinstance(block, dict) and block.get("type") == "text":
                    text.append(block["text"])
    return "".join(text)


async def ws_turn(client: WsClient, version: int, cwd: Path) -> str:
    init = await client.call(0, "initialize", init_params(version))
    assert init["result"]["protocolVersion"] == version
    new = await client.call(1, "session/new", {"cwd": str(cwd), "mcpServers": []})
    session_id = str(new["result"]["sessionId"])
    client.seen.clear()
    done = await client.call(
        2,
        "session/prompt",
        {"sessionId": session_id, "prompt": [{"type": "text", "text": "hello"}]},
        version,
    )
    assert "result" in done, done
    return session_id


@pytest.mark.parametrize("version", [1, 2])
async def test_a_turn_over_websocket(tmp_path: Path, version: int) -> None:
    with running_bridge(tmp_path) as bridge:
        async with ws_connect(bridge) as client:
            assert client.socket.response.headers["Acp-Connection-Id"]
            assert "acp_bridge=" in client.socket.response.headers["Set-Cookie"]
            session_id = await ws_turn(client, version, tmp_path)
            assert agent_text(client.seen, session_id)
        assert len(bridge.agents()) <= 1


async def http_turn(bridge: Bridge, version: int, cwd: Path) -> tuple[str, str]:
    """initialize, session/new and a prompt over Streamable HTTP; ids and text."""
    async with httpx.AsyncClient(timeout=30) as client:
        connection = await http_initialize(client, bridge, version)
        assert client.cookies.get("acp_bridge")
        seen: list[dict[str, Any]] = []
        async with sse_stream(client, bridge.base, post_headers(connection)) as stream:
            posted = await client.post(
                bridge.base,
                headers=post_headers(connection),
                json=request(1, "session/new", {"cwd": str(cwd), "mcpServers": []}),
            )
            assert posted.status_code == 202
            new = await stream.until_response(1, seen)
            session_id = new["result"]["sessionId"]
            async with sse_stream(
                client, bridge.base, post_headers(connection, session_id)
            ) as session_stream:
                prompt = request(
                    2,
                    "session/prompt",
                    {
                        "sessionId": session_id,
                        "prompt": [{"type": "text", "text": "hello"}],
                    },
                )
                posted = await client.post(
                    bridge.base,
                    headers=post_headers(connection, session_id),
                    json=prompt,
                )
                assert posted.status_code == 202
                seen.clear()
                done = await session_stream.until_response(2, seen, version)
                assert "result" in done
        deleted = await client.delete(bridge.base, headers=post_headers(connection))
        assert deleted.status_code == 202
        return session_id, agent_text(seen, session_id)


@pytest.mark.parametrize("version", [1, 2])
async def test_a_turn_over_streamable_http(tmp_path: Path, version: int) -> None:
    with running_bridge(tmp_path) as bridge:
        _, text = await http_turn(bridge, version, tmp_path)
        assert text
