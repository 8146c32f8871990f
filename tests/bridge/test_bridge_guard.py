"""The bridge's guard and limits: the token, Origin, loopback, connections and
message sizes; nothing the guard refuses starts an agent."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import httpx
import pytest
import websockets
from websockets.exceptions import ConnectionClosedError, InvalidStatus
from websockets.typing import Subprotocol

from acp_tui.cli import main
from tests.bridge.harness import (
    TOKEN,
    fault_agent,
    http_initialize,
    init_params,
    post_headers,
    request,
    running_bridge,
    sse_stream,
    ws_connect,
)

pytestmark = pytest.mark.subprocess

SMALL_LIMIT = 64 * 1024


async def test_a_wrong_token_gets_401_and_starts_no_agent(tmp_path: Path) -> None:
    with running_bridge(tmp_path) as bridge:
        async with httpx.AsyncClient(timeout=30) as client:
            for headers in (
                {"Authorization": "Bearer wrong-token-0123456789"},
                {"Authorization": f"Basic {TOKEN}"},
                {},
            ):
                answer = await client.post(
                    bridge.base,
                    headers={**headers, "Content-Type": "application/json"},
                    json=request(0, "initialize", init_params(2)),
                )
                assert answer.status_code == 401
                assert answer.headers["WWW-Authenticate"].startswith("Bearer")
        with pytest.raises(InvalidStatus) as refused:
            async with websockets.connect(
                bridge.ws_url,
                additional_headers={"Authorization": "Bearer wrong-token-0123456789"},
                open_timeout=30,
            ):
                pass
        assert refused.value.response.status_code == 401
        assert bridge.agents() == []


async def test_the_token_may_come_as_a_websocket_subprotocol(tmp_path: Path) -> None:
    """Browsers cannot set Authorization on a WebSocket: `bearer.TOKEN` works."""
    with running_bridge(tmp_path) as bridge:
        async with websockets.connect(
            bridge.ws_url,
            subprotocols=[Subprotocol(f"bearer.{TOKEN}")],
            open_timeout=30,
        ) as socket:
            await socket.send(json.dumps(request(0, "initialize", init_params(1))))
            answer = json.loads(await socket.recv())
            assert answer["result"]["protocolVersion"] == 1


async def test_a_browser_origin_not_allowed_gets_403(tmp_path: Path) -> None:
    extra = ("--token", TOKEN, "--allow-origin", "https://ide.example")
    with running_bridge(tmp_path, extra) as bridge:
        with pytest.raises(InvalidStatus) as refused:
            async with ws_connect(bridge, {"Origin": "https://evil.example"}):
                pass
        assert refused.value.response.status_code == 403
        assert bridge.agents() == []
        async with ws_connect(bridge, {"Origin": "https://ide.example"}) as client:
            answer = await client.call(0, "initialize", init_params(1))
            assert answer["result"]["protocolVersion"] == 1


def test_a_non_loopback_address_needs_allow_remote(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(
        ["bridge", "--listen", "0.0.0.0:0", "--token", TOKEN, "--", sys.executable]
    )
    assert code == 2
    assert "--allow-remote" in capsys.readouterr().err


def test_no_agent_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bridge", "--token", TOKEN]) == 2
    assert "no agent command" in capsys.readouterr().err


async def test_connections_over_the_limit_get_503_and_start_nothing(
    tmp_path: Path,
) -> None:
    extra = ("--token", TOKEN, "--max-connections", "1")
    with running_bridge(tmp_path, extra) as bridge:
        async with ws_connect(bridge) as first:
            await first.call(0, "initialize", init_params(1))
            agents = bridge.agents()
            assert len(agents) == 1
            async with httpx.AsyncClient(timeout=30) as client:
                answer = await client.post(
                    bridge.base,
                    headers=post_headers(),
                    json=request(0, "initialize", init_params(1)),
                )
            assert answer.status_code == 503
            with pytest.raises(InvalidStatus) as refused:
                async with ws_connect(bridge):
                    pass
            assert refused.value.response.status_code == 503
            assert bridge.agents() == agents


async def test_a_message_over_the_limit_gets_413_or_1009(tmp_path: Path) -> None:
    extra = ("--token", TOKEN, "--max-message-bytes", str(SMALL_LIMIT))
    big = request(1, "session/new", {"cwd": "x" * SMALL_LIMIT, "mcpServers": []})
    with running_bridge(tmp_path, extra) as bridge:
        async with httpx.AsyncClient(timeout=30) as client:
            answer = await client.post(bridge.base, headers=post_headers(), json=big)
            assert answer.status_code == 413
            assert str(SMALL_LIMIT) in answer.text
        assert bridge.agents() == []
        async with ws_connect(bridge) as client:
            await client.call(0, "initialize", init_params(1))
            await client.send(big)
            with pytest.raises(ConnectionClosedError) as closed:
                await client.socket.recv()
            assert closed.value.rcvd is not None
            assert closed.value.rcvd.code == 1009
            assert str(SMALL_LIMIT) in closed.value.rcvd.reason


async def test_requests_the_rfd_refuses_are_refused(tmp_path: Path) -> None:
    with running_bridge(tmp_path) as bridge:
        async with httpx.AsyncClient(timeout=30) as client:
            base = bridge.base
            plain = {**post_headers(), "Content-Type": "text/plain"}
            new = request(1, "session/new", {"cwd": str(tmp_path), "mcpServers": []})
            assert (await client.post(base, headers=plain, json=new)).status_code == 415
            batch = await client.post(base, headers=post_headers(), json=[new])
            assert batch.status_code == 501
            missing = await client.post(base, headers=post_headers(), json=new)
            assert missing.status_code == 400
            unknown = await client.post(base, headers=post_headers("nope"), json=new)
            assert unknown.status_code == 404
            assert bridge.agents() == []
            connection = await http_initialize(client, bridge)
            prompt = request(2, "session/prompt", {"sessionId": "s", "prompt": []})
            unscoped = await client.post(
                base, headers=post_headers(connection), json=prompt
            )
            assert unscoped.status_code == 400
            mismatched = await client.post(
                base, headers=post_headers(connection, "other"), json=prompt
            )
            assert mismatched.status_code == 400
            again = await client.post(
                base,
                headers=post_headers(connection),
                json=request(0, "initialize", init_params(1)),
            )
            assert again.status_code == 400
            no_accept = await client.get(base, headers=post_headers(connection))
            assert no_accept.status_code == 406
            async with sse_stream(client, base, post_headers(connection)):
                second = await client.get(
                    base,
                    headers={**post_headers(connection), "Accept": "text/event-stream"},
                )
                assert second.status_code == 409
            gone = await client.delete(base, headers=post_headers())
            assert gone.status_code == 400


async def test_an_agent_that_cannot_start_is_a_clear_502(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-agent")
    with running_bridge(tmp_path, agent=(missing,)) as bridge:
        async with httpx.AsyncClient(timeout=30) as client:
            answer = await client.post(
                bridge.base,
                headers=post_headers(),
                json=request(0, "initialize", init_params(1)),
            )
        assert answer.status_code == 502
        assert "no-such-agent" in answer.text
        with pytest.raises(InvalidStatus) as refused:
            async with ws_connect(bridge):
                pass
        assert refused.value.response.status_code == 502


async def test_an_agent_that_exits_at_initialize_is_a_502_saying_how(
    tmp_path: Path,
) -> None:
    with running_bridge(tmp_path, agent=fault_agent("exit-init")) as bridge:
        async with httpx.AsyncClient(timeout=30) as client:
            answer = await client.post(
                bridge.base,
                headers=post_headers(),
                json=request(0, "initialize", init_params(1)),
            )
        assert answer.status_code == 502
        assert "exited with code 5" in answer.text
        assert bridge.agents() == []
