"""Version negotiation end to end, against the scripted fake agent as a real process."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.client.connection import ClientFeatures, Connection, connect
from acp_tui.client.errors import AgentExited, InitializeRejected, InitializeTimeout
from acp_tui.protocol.dispatcher import Diagnostic
from acp_tui.protocol.schema import v1, v2
from acp_tui.protocol.transport import AgentCommand, StdioTransport
from acp_tui.protocol.version import ProtocolChoice, UnsupportedProtocolVersion

pytestmark = pytest.mark.subprocess

FAKE_AGENT = Path(__file__).resolve().parents[1] / "fakes" / "agent.py"
BOUND = 20


class Harness:
    """Starts the fake agent per attempt and keeps what each attempt received."""

    def __init__(self, scenario: str, tmp_path: Path) -> None:
        self.scenario = scenario
        self.tmp_path = tmp_path
        self.transports: list[StdioTransport] = []
        self.diagnostics: list[Diagnostic] = []
        self.notifications: list[tuple[str, Any]] = []

    async def on_notification(self, method: str, params: Any) -> None:
        self.notifications.append((method, params))

    def record_file(self, attempt: int) -> Path:
        return self.tmp_path / f"received-{attempt}.jsonl"

    def open_stream(self) -> StdioTransport:
        attempt = len(self.transports)
        command = AgentCommand(
            argv=(sys.executable, str(FAKE_AGENT), self.scenario),
            env={"FAKE_AGENT_RECORD": str(self.record_file(attempt))},
        )
        transport = StdioTransport(command, name=f"fake-{self.scenario}")
        self.transports.append(transport)
        return transport

    def received(self, attempt: int) -> list[dict[str, Any]]:
        lines = self.record_file(attempt).read_text().splitlines()
        return [json.loads(line) for line in lines]

    async def negotiate(
        self, choice: ProtocolChoice = "auto", init_timeout: float = 10
    ) -> tuple[int, Connection | None]:
        with anyio.fail_after(BOUND):
            async with connect(
                self.open_stream,
                choice=choice,
                init_timeout=init_timeout,
                features=ClientFeatures(read_text_file=True, write_text_file=True),
                on_diagnostic=self.diagnostics.append,
                on_notification=self.on_notification,
            ) as connection:
                result = await connection.dispatcher.request(
                    "session/new", {"cwd": "/tmp", "mcpServers": []}
                )
                assert result["sessionId"] == "s1"
                return connection.protocol_version, connection
        raise AssertionError("unreachable")


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


async def test_v2_agent_negotiates_2(tmp_path: Path) -> None:
    harness = Harness("v2", tmp_path)
    version, connection = await harness.negotiate()
    assert version == 2
    assert connection is not None
    assert isinstance(connection.initialize_result, v2.InitializeResponse)
    assert connection.agent.display_name == "Fake Agent"
    assert connection.fallbacks == []
    [initialize, _] = harness.received(0)
    assert initialize["params"]["protocolVersion"] == 2
    assert initialize["params"]["info"]["name"] == "acp-tui"


async def test_v1_agent_negotiates_1_and_received_v1_capabilities(
    tmp_path: Path,
) -> None:
    harness = Harness("v1", tmp_path)
    version, connection = await harness.negotiate()
    assert version == 1
    assert connection is not None
    assert isinstance(connection.initialize_result, v1.InitializeResponse)
    assert len(harness.transports) == 1  # no second handshake was needed
    [initialize, _] = harness.received(0)
    params = initialize["params"]
    assert params["protocolVersion"] == 2
    assert params["clientCapabilities"] == {
        "fs": {"readTextFile": True, "writeTextFile": True},
        "terminal": False,
        "session": {"configOptions": {"boolean": {}}, "notices": {}, "compaction": {}},
        "subagents": {},  # the subagents RFD's v1 opt-in
        "plan": {},
    }
    assert params["clientInfo"]["name"] == "acp-tui"


async def test_lying_echo_agent_makes_us_reconnect_offering_1(tmp_path: Path) -> None:
    harness = Harness("lying-v2", tmp_path)
    version, connection = await harness.negotiate()
    assert version == 1
    assert connection is not None
    assert len(harness.transports) == 2
    assert "not v2" in connection.fallbacks[0]
    assert harness.received(1)[0]["params"]["protocolVersion"] == 1
    assert "info" not in harness.received(1)[0]["params"]
    assert harness.transports[0].returncode is not None  # the first agent was stopped


async def test_error_to_v2_initialize_makes_us_reconnect_offering_1(
    tmp_path: Path,
) -> None:
    harness = Harness("error-on-v2", tmp_path)
    version, connection = await harness.negotiate()
    assert version == 1
    assert connection is not None
    assert "-32602" in connection.fallbacks[0]


async def test_pinned_2_rejects_a_v1_agent(tmp_path: Path) -> None:
    harness = Harness("v1", tmp_path)
    with pytest.raises(UnsupportedProtocolVersion, match="answered protocolVersion 1"):
        await harness.negotiate(choice="2")


async def test_pinned_2_does_not_fall_back(tmp_path: Path) -> None:
    harness = Harness("error-on-v2", tmp_path)
    with pytest.raises(InitializeRejected, match="-32602"):
        await harness.negotiate(choice="2")
    assert len(harness.transports) == 1


async def test_pinned_1_sends_plain_v1(tmp_path: Path) -> None:
    harness = Harness("v2", tmp_path)
    version, _ = await harness.negotiate(choice="1")
    assert version == 1
    params = harness.received(0)[0]["params"]
    assert params["protocolVersion"] == 1
    assert "info" not in params


async def test_unsupported_version_closes_the_connection(tmp_path: Path) -> None:
    harness = Harness("unsupported", tmp_path)
    with pytest.raises(UnsupportedProtocolVersion, match="protocolVersion 7"):
        await harness.negotiate()
    assert harness.transports[0].returncode is not None


async def test_agent_exiting_during_initialize_is_reported(tmp_path: Path) -> None:
    harness = Harness("exit-on-init", tmp_path)
    with pytest.raises(AgentExited, match="stopped during initialize"):
        await harness.negotiate()
    transport = harness.transports[0]
    assert transport.returncode == 3
    assert transport.stderr_tail() == ["fake-agent: cannot start: missing credentials"]


async def test_agent_that_never_answers_times_out(tmp_path: Path) -> None:
    harness = Harness("hang", tmp_path)
    with pytest.raises(
        InitializeTimeout, match=r"did not answer initialize within 0\.5 s"
    ):
        await harness.negotiate(init_timeout=0.5)
    assert harness.transports[0].returncode is not None  # shut down, not orphaned
    # The timeout also sent $/cancel_request for the initialize id.
    received = harness.received(0)
    assert received[-1] == {
        "jsonrpc": "2.0",
        "method": "$/cancel_request",
        "params": {"requestId": received[0]["id"]},
    }


async def test_garbage_and_a_64_mib_line_do_not_break_negotiation(
    tmp_path: Path,
) -> None:
    harness = Harness("garbage", tmp_path)
    version, _ = await harness.negotiate()
    assert version == 2
    kinds = [d.kind for d in harness.diagnostics]
    assert kinds == [
        "parse_error",
        "parse_error",
        "invalid_message",
        "unknown_response",
    ]
    replies = [m for m in harness.received(0) if "method" not in m]
    assert [r["error"]["code"] for r in replies] == [-32700, -32700, -32600]
    assert all(r["id"] is None for r in replies)
    [(method, params)] = harness.notifications
    assert method == "_fake/big"
    assert len(params["data"]) == 64 * 1024 * 1024
    assert params["data"] == "QUFB" * (16 * 1024 * 1024)
