"""Agent processes of the bridge: reaped on DELETE, a normal WebSocket close, the
end of the grace period and the bridge's exit; kept through the grace period for
a client that comes back (the same connection id, or a new connection resuming
the session)."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from tests.bridge.harness import (
    TOKEN,
    Bridge,
    fault_agent,
    fd_count,
    http_initialize,
    init_params,
    post_headers,
    request,
    running_bridge,
    sse_stream,
    ws_connect,
)
from tests.bridge.test_bridge_turns import http_turn, ws_turn
from tests.processes import running

pytestmark = pytest.mark.subprocess

GONE_TIMEOUT = 15.0
"""The transport's bounded shutdown is under ten seconds."""


async def wait_gone(pid: int) -> None:
    with anyio.fail_after(GONE_TIMEOUT):
        while running(pid):  # noqa: ASYNC110 (not our child: nothing to wait on)
            await anyio.sleep(0.05)


async def wait_agents(bridge: Bridge, expected: list[int]) -> None:
    with anyio.fail_after(GONE_TIMEOUT):
        while sorted(bridge.agents()) != sorted(expected):  # noqa: ASYNC110
            await anyio.sleep(0.05)


def prompt(session_id: str, text: str = "hello") -> dict[str, Any]:
    return {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}


async def test_delete_reaps_the_agent(tmp_path: Path) -> None:
    with running_bridge(tmp_path) as bridge:
        async with httpx.AsyncClient(timeout=30) as client:
            connection = await http_initialize(client, bridge, 2)
            [agent] = bridge.agents()
            deleted = await client.delete(bridge.base, headers=post_headers(connection))
            assert deleted.status_code == 202
            await wait_gone(agent)
            again = await client.post(
                bridge.base,
                headers=post_headers(connection),
                json=request(
                    1, "session/new", {"cwd": str(tmp_path), "mcpServers": []}
                ),
            )
            assert again.status_code == 404


async def test_a_normal_websocket_close_reaps_the_agent_at_once(tmp_path: Path) -> None:
    with running_bridge(tmp_path) as bridge:
        async with ws_connect(bridge) as client:
            await client.call(0, "initialize", init_params(1))
            [agent] = bridge.agents()
        await wait_gone(agent)


async def test_a_dropped_connection_is_reaped_after_the_grace_period(
    tmp_path: Path,
) -> None:
    with running_bridge(tmp_path, ("--token", TOKEN, "--grace", "1")) as bridge:
        async with ws_connect(bridge) as client:
            await client.call(0, "initialize", init_params(1))
            [agent] = bridge.agents()
            await client.socket.close(code=1001)
        await wait_gone(agent)


async def test_sigterm_stops_the_bridge_and_every_agent(tmp_path: Path) -> None:
    with running_bridge(tmp_path) as bridge:
        async with ws_connect(bridge) as first, ws_connect(bridge) as second:
            await first.call(0, "initialize", init_params(1))
            await second.call(0, "initialize", init_params(2))
            agents = bridge.agents()
            assert len(agents) == 2
            bridge.process.send_signal(signal.SIGTERM)
            await anyio.to_thread.run_sync(bridge.process.wait, GONE_TIMEOUT)
            for agent in agents:
                assert not running(agent)


async def test_the_same_connection_id_comes_back_within_the_grace_period(
    tmp_path: Path,
) -> None:
    with running_bridge(tmp_path) as bridge:
        async with ws_connect(bridge) as client:
            session_id = await ws_turn(client, 1, tmp_path)
            connection = client.socket.response.headers["Acp-Connection-Id"]
            [agent] = bridge.agents()
            await client.socket.close(code=1001)
        async with ws_connect(bridge, {"Acp-Connection-Id": connection}) as back:
            assert back.socket.response.headers["Acp-Connection-Id"] == connection
            done = await back.call(3, "session/prompt", prompt(session_id))
            assert done["result"]["stopReason"] == "end_turn"
            assert bridge.agents() == [agent]


@pytest.mark.parametrize(
    ("version", "method"), [(1, "session/load"), (2, "session/resume")]
)
async def test_a_new_connection_resuming_the_session_takes_over_its_agent(
    tmp_path: Path, version: int, method: str
) -> None:
    with running_bridge(tmp_path) as bridge:
        async with ws_connect(bridge) as client:
            session_id = await ws_turn(client, version, tmp_path)
            [agent] = bridge.agents()
            await client.socket.close(code=1001)
        async with ws_connect(bridge) as fresh:
            await fresh.call(0, "initialize", init_params(version))
            [fresh_agent] = [pid for pid in bridge.agents() if pid != agent]
            params: dict[str, Any] = {
                "sessionId": session_id,
                "cwd": str(tmp_path),
                "mcpServers": [],
            }
            if version == 2:
                params["replayFrom"] = {"type": "start"}
            fresh.seen.clear()
            resumed = await fresh.call(1, method, params)
            assert "result" in resumed, resumed
            replayed = [m for m in fresh.seen if m.get("method") == "session/update"]
            assert replayed, "the session's history is replayed"
            await wait_gone(fresh_agent)
            assert bridge.agents() == [agent]
            done = await fresh.call(2, "session/prompt", prompt(session_id), version)
            assert "result" in done


async def test_50_connections_leak_no_process_and_no_descriptor(tmp_path: Path) -> None:
    # The raw-JSON fault agent (a well-behaved turn of three chunks) starts in a
    # tenth of the demo agent's time, and leaves a child in its process group.
    agent = fault_agent("tiny-flood", "v2", "count=3")
    with running_bridge(tmp_path, agent=agent) as bridge:
        baseline = None
        for cycle in range(50):
            if cycle % 2:
                async with ws_connect(bridge) as client:
                    await ws_turn(client, 2, tmp_path)
            else:
                await http_turn(bridge, 2, tmp_path)
            await wait_agents(bridge, [])
            if cycle == 1:
                baseline = fd_count(bridge.process.pid)
        assert baseline is not None
        # The last connection's sockets close after its agent is gone (seen
        # under a loaded CI run): a leak never gets back to the baseline.
        with anyio.move_on_after(GONE_TIMEOUT):
            while fd_count(bridge.process.pid) > baseline:  # noqa: ASYNC110
                await anyio.sleep(0.05)
        assert fd_count(bridge.process.pid) <= baseline


async def test_lost_sse_streams_reopen_on_the_same_connection(tmp_path: Path) -> None:
    with running_bridge(tmp_path) as bridge:
        async with httpx.AsyncClient(timeout=30) as client:
            connection = await http_initialize(client, bridge)
            [agent] = bridge.agents()
            seen: list[dict[str, Any]] = []
            async with sse_stream(
                client, bridge.base, post_headers(connection)
            ) as stream:
                await client.post(
                    bridge.base,
                    headers=post_headers(connection),
                    json=request(
                        1, "session/new", {"cwd": str(tmp_path), "mcpServers": []}
                    ),
                )
                new = await stream.until_response(1, seen)
                session_id = new["result"]["sessionId"]
            # Every stream is gone: the connection waits out its grace period.
            headers = post_headers(connection, session_id)
            async with sse_stream(client, bridge.base, headers) as session_stream:
                posted = await client.post(
                    bridge.base,
                    headers=headers,
                    json=request(2, "session/prompt", prompt(session_id)),
                )
                assert posted.status_code == 202
                done = await session_stream.until_response(2, seen)
                assert done["result"]["stopReason"] == "end_turn"
            assert bridge.agents() == [agent]
