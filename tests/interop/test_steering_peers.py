"""Steering a running turn of claude-agent-acp (issue 25, item 2), offline.

claude-agent-acp advertises `_meta.steering.supported` and serves
`_session/steering` on v1 only: its v2 surface drops the key from the
`initialize` result ("an extension the v2 surface does not serve yet",
dist/v2/initialize.js), so on v2 acp-tui must not offer it. On v1, the scripted
Anthropic model server holds the turn's stream at a gate; while it is held,
acp-tui steers the turn with a second prompt. The agent must answer `injected`,
the steered text must reach the model in a later request of the same session,
the model's reply to it must stream into the conversation after the steered
prompt, and the turn must end on its own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from acp_tui.client.connection import connect
from acp_tui.client.ports import PermissionRequest
from acp_tui.client.session import AcpClient
from acp_tui.client.steering import steer
from acp_tui.protocol.transport import AgentCommand, StdioTransport
from tests.interop.real_agents import AGENTS, RealAgent, Workspace
from tests.modelserver._script import Gate, Request, ScriptServer, Text

pytestmark = pytest.mark.interop

BOUND = 150  # claude-agent-acp's session/new takes about 20 s here
PROMPT = "count slowly"
STEERED = "also say four"


class Refuse:
    """No permission is granted here (none is asked)."""

    async def ask(self, request: PermissionRequest) -> str | None:
        return None


def text(value: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": value}]


def carries(request: Request, words: str) -> bool:
    return any(words in entry for entry in request.user_texts)


@asynccontextmanager
async def connected(
    agent: RealAgent, workspace: Workspace, server: ScriptServer
) -> AsyncIterator[AcpClient]:
    """An `AcpClient` on `agent`, its model API at `server` (version pinned)."""
    command = AgentCommand(
        argv=agent.argv(),
        env=agent.environment(workspace, server),
        cwd=workspace.project,
    )
    client = AcpClient(prompter=Refuse())
    async with connect(
        lambda: StdioTransport(command, name="claude"),
        choice="1" if agent.protocol == 1 else "2",
        init_timeout=BOUND / 2,
        on_request=client.handle_request,
        on_notification=client.handle_notification,
    ) as connection:
        client.attach(connection)
        assert connection.protocol_version == agent.protocol
        yield client


async def test_claude_v2_does_not_offer_steering(tmp_path: Path) -> None:
    agent = AGENTS["claude-v2"]
    workspace = Workspace(tmp_path).create()
    with agent.server(agent.script()) as server, anyio.fail_after(BOUND):
        async with connected(agent, workspace, server) as client:
            assert not client.dialect.steering


async def test_claude_v1_takes_a_steered_prompt_into_its_turn(tmp_path: Path) -> None:
    agent = AGENTS["claude-v1"]
    workspace = Workspace(tmp_path).create()
    gate = Gate(bound=BOUND)
    script = agent.script(
        {
            PROMPT: [(Text("one, two,"), gate, Text(" three."))],
            STEERED: [(Text("four."),)],
        }
    )
    with agent.server(script) as server:
        try:
            with anyio.fail_after(BOUND):
                async with connected(agent, workspace, server) as client:
                    assert client.dialect.steering
                    store = await client.new_session(workspace.project)
                    stops: list[str | None] = []
                    async with anyio.create_task_group() as tasks:

                        async def turn() -> None:
                            stops.append(
                                await client.prompt(store.session_id, text(PROMPT))
                            )

                        tasks.start_soon(turn)
                        assert await anyio.to_thread.run_sync(gate.reached.wait, BOUND)
                        answer = await steer(client, store.session_id, text(STEERED))
                        gate.event.set()
        finally:
            gate.event.set()
        requests = server.main_requests
    assert answer.outcome == "injected", answer
    assert stops, "the turn did not end"
    assert any(carries(r, STEERED) for r in requests), [r.history for r in requests]
    said = [(m.role, m.text) for m in store.messages() if m.text]
    steered = said.index(("user", STEERED))
    assert any(
        role == "agent" and "four." in words for role, words in said[steered + 1 :]
    ), said
