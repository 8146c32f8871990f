"""initialize and session/new against real agents.

opencode speaks v1; claude-agent-acp speaks v2.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.client.connection import ClientFeatures, connect
from acp_tui.protocol.schema import v1, v2
from acp_tui.protocol.transport import AgentCommand, StdioTransport
from tests.interop.conftest import Peer

pytestmark = pytest.mark.interop

TEE = Path(__file__).resolve().parents[1] / "fakes" / "tee_agent.py"
BOUND = 120  # npm agents start slowly on a cold cache


async def handshake(
    peer: Peer, tmp_path: Path
) -> tuple[int, Any, Any, list[dict[str, Any]]]:
    """Negotiate and create a session; return what the agent was sent, too."""
    record = tmp_path / "sent.jsonl"
    command = AgentCommand(
        argv=(sys.executable, str(TEE), str(record), "--", *peer.argv),
        env=peer.env,
        cwd=tmp_path,
    )
    features = ClientFeatures(read_text_file=True, write_text_file=True)
    with anyio.fail_after(BOUND):
        async with connect(
            lambda: StdioTransport(command, name="peer"),
            features=features,
            init_timeout=BOUND / 2,
        ) as connection:
            version = connection.protocol_version
            session: v1.NewSessionResponse | v2.NewSessionResponse
            if version == 1:
                raw = await connection.dispatcher.request(
                    "session/new",
                    v1.NewSessionRequest(cwd=str(tmp_path), mcp_servers=[]),
                )
                session = v1.NewSessionResponse.model_validate(raw)
            else:
                raw = await connection.dispatcher.request(
                    "session/new", v2.NewSessionRequest(cwd=str(tmp_path))
                )
                session = v2.NewSessionResponse.model_validate(raw)
            result = connection.initialize_result
    sent = [json.loads(line) for line in record.read_text().splitlines()]
    return version, result, session, sent


async def test_opencode_negotiates_1_and_receives_v1_capabilities(
    opencode: Peer, tmp_path: Path
) -> None:
    version, result, session, sent = await handshake(opencode, tmp_path)
    assert version == 1
    assert isinstance(result, v1.InitializeResponse)
    assert result.agent_info is not None
    assert result.agent_info.name == "OpenCode"
    assert session.session_id
    # The one initialize it was sent offered 2 and carried the v1 capabilities; it
    # answered 1 to that very message, so it read them from it.
    initialize = sent[0]
    assert initialize["method"] == "initialize"
    assert initialize["params"]["protocolVersion"] == 2
    assert initialize["params"]["clientCapabilities"] == {
        "fs": {"readTextFile": True, "writeTextFile": True},
        "terminal": False,
        "session": {"configOptions": {"boolean": {}}, "notices": {}, "compaction": {}},
        "subagents": {},
        "plan": {},
    }
    assert [m.get("method") for m in sent] == ["initialize", "session/new"]


async def test_claude_agent_negotiates_2(claude_agent: Peer, tmp_path: Path) -> None:
    version, result, session, sent = await handshake(claude_agent, tmp_path)
    assert version == 2
    assert isinstance(result, v2.InitializeResponse)
    assert "claude" in result.info.name
    assert result.capabilities.session is not None
    assert session.session_id
    assert sent[0]["params"]["info"]["name"] == "acp-tui"


@pytest.mark.parametrize(
    ("peer_name", "expected"), [("opencode", 1), ("claude_agent", 2)]
)
def test_cli_connects_to_the_peer(
    peer_name: str, expected: int, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    peer: Peer = request.getfixturevalue(peer_name)
    import os
    import shlex

    env = {**os.environ, **peer.env}
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "acp_tui",
            "--probe",
            "--agent",
            shlex.join(peer.argv),
            "--cwd",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=BOUND,
        env=env,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert f"protocol: ACP v{expected}" in completed.stdout
    assert "session:  " in completed.stdout
