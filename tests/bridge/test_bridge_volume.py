"""Big messages and floods through the bridge: a 64 MiB message each way on both
profiles, and a slow SSE reader that makes the bridge stop reading the agent
(backpressure) instead of buffering without bound."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import anyio
import httpx
import pytest

from tests.bridge.harness import (
    fault_agent,
    http_initialize,
    init_params,
    post_headers,
    request,
    running_bridge,
    sse_messages,
    ws_connect,
)
from tests.fakes.fault_agent import HUGE_TAIL

pytestmark = pytest.mark.subprocess

MIB: Final = 1024 * 1024
HUGE: Final = 64 * MIB - 1024
"""Text of a message that, with its JSON, is just under the 64 MiB default limit."""
FLOOD: Final = 20_000
"""Plan updates of the slow-reader flood, of 20 entries each: about 45 MB."""
RSS_GROWTH_LIMIT: Final = 24 * MIB


def huge_prompt(id_: int) -> dict[str, Any]:
    params = {"sessionId": "f1", "prompt": [{"type": "text", "text": "p" * HUGE}]}
    return request(id_, "session/prompt", params)


def chunk_text(message: dict[str, Any]) -> str | None:
    if message.get("method") != "session/update":
        return None
    update = message["params"]["update"]
    if update.get("sessionUpdate") != "agent_message_chunk":
        return None
    return str(update["content"]["text"])


async def test_a_64_mib_message_each_way_over_websocket(tmp_path: Path) -> None:
    agent = fault_agent("huge-message", "v1", f"size={HUGE}")
    with running_bridge(tmp_path, agent=agent) as bridge:
        async with ws_connect(bridge) as client:
            await client.call(0, "initialize", init_params(1))
            await client.call(
                1, "session/new", {"cwd": str(tmp_path), "mcpServers": []}
            )
            sent = json.dumps(huge_prompt(2))
            assert 63 * MIB < len(sent) <= 64 * MIB
            await client.socket.send(sent)
            done = await client.until_response(2)
            assert "result" in done
            texts = [t for t in map(chunk_text, client.seen) if t]
            assert any(len(t) == HUGE and t.endswith(HUGE_TAIL) for t in texts)


async def test_a_64_mib_message_each_way_over_streamable_http(tmp_path: Path) -> None:
    agent = fault_agent("huge-message", "v1", f"size={HUGE}")
    with running_bridge(tmp_path, agent=agent) as bridge:
        async with httpx.AsyncClient(timeout=60) as client:
            connection = await http_initialize(client, bridge)
            headers = {**post_headers(connection, "f1"), "Accept": "text/event-stream"}
            async with client.stream("GET", bridge.base, headers=headers) as stream:
                body = json.dumps(huge_prompt(2)).encode()
                posted = await client.post(
                    bridge.base, headers=post_headers(connection, "f1"), content=body
                )
                assert posted.status_code == 202
                texts = []
                with anyio.fail_after(60):
                    async for message in sse_messages(stream):
                        if message.get("id") == 2:
                            break
                        texts.append(chunk_text(message) or "")
            assert any(len(t) == HUGE and t.endswith(HUGE_TAIL) for t in texts)


def rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


async def test_a_slow_sse_reader_holds_the_agent_back(tmp_path: Path) -> None:
    """While the client reads nothing, the bridge's memory stays put (the agent
    waits on its full pipe); then every chunk arrives, in order."""
    agent = fault_agent("plan-flood", "v1", f"count={FLOOD}", "entries=20")
    with running_bridge(tmp_path, agent=agent) as bridge:
        async with httpx.AsyncClient(timeout=60) as client:
            connection = await http_initialize(client, bridge)
            headers = {**post_headers(connection, "f1"), "Accept": "text/event-stream"}
            async with client.stream("GET", bridge.base, headers=headers) as stream:
                before = rss(bridge.process.pid)
                posted = await client.post(
                    bridge.base,
                    headers=post_headers(connection, "f1"),
                    json=request(
                        2, "session/prompt", {"sessionId": "f1", "prompt": []}
                    ),
                )
                assert posted.status_code == 202
                peak = before
                with anyio.move_on_after(3):  # an observation window, not a wait
                    while True:
                        peak = max(peak, rss(bridge.process.pid))
                        await anyio.sleep(0.05)
                assert peak - before < RSS_GROWTH_LIMIT
                received = 0
                with anyio.fail_after(120):
                    async for message in sse_messages(stream):
                        if message.get("id") == 2:
                            break
                        update = message.get("params", {}).get("update", {})
                        if update.get("sessionUpdate") == "plan":
                            assert f"plan update {received}:" in json.dumps(update)
                            received += 1
                assert received == FLOOD
