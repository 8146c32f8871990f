"""Leaving a session closes it, against real agents (`session/close`).

Both peers support it: claude-agent-acp as part of the v2 session baseline,
opencode through v1 `sessionCapabilities.close`. The agent's own record of what it
was sent (through `tests/fakes/tee_agent.py`) shows the close went out, and its
answer shows it was accepted.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

from acp_tui.client.connection import connect
from acp_tui.client.ports import PermissionRequest
from acp_tui.client.session import AcpClient
from acp_tui.protocol.transport import AgentCommand, StdioTransport
from tests.interop.conftest import Peer

pytestmark = pytest.mark.interop

TEE = Path(__file__).resolve().parents[1] / "fakes" / "tee_agent.py"
BOUND = 120  # npm agents start slowly on a cold cache; claude's session/new ~20 s


class Refuse:
    """No permission is granted in these tests."""

    async def ask(self, request: PermissionRequest) -> str | None:
        return None


@pytest.mark.parametrize(
    ("peer_name", "version"), [("opencode", 1), ("claude_agent", 2)]
)
async def test_leaving_a_session_closes_it_at_the_agent(
    peer_name: str, version: int, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    peer: Peer = request.getfixturevalue(peer_name)
    record = tmp_path / "sent.jsonl"
    command = AgentCommand(
        argv=(sys.executable, str(TEE), str(record), "--", *peer.argv),
        env=peer.env,
        cwd=tmp_path,
    )
    client = AcpClient(prompter=Refuse())
    with anyio.fail_after(BOUND):
        async with connect(
            lambda: StdioTransport(command, name="peer"),
            init_timeout=BOUND / 2,
            on_request=client.handle_request,
            on_notification=client.handle_notification,
        ) as connection:
            client.attach(connection)
            assert connection.protocol_version == version
            assert client.session_features().close
            store = await client.new_session(tmp_path)
            assert await client.leave_session(store) is True
            with pytest.raises(KeyError):
                client.store(store.session_id)
    sent = [json.loads(line) for line in record.read_text().splitlines()]
    closes = [m for m in sent if m.get("method") == "session/close"]
    assert [m["params"] for m in closes] == [{"sessionId": store.session_id}]
