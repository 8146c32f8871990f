"""Forking at a message with claude-agent-acp, over the scripted model server.

claude-agent-acp advertises `session/fork` (v1 `sessionCapabilities.fork`, v2
`session.fork`) and reads a fork point from the request's
`_meta.jetbrains.air.fork` (an agent message's `messageId`). As in the app, one
agent process holds a session with two turns; a second process (the new tab's)
forks it at the first turn's answer. The fork's next model request shows what
the fork holds: the first question and answer, not the second turn. Then the
source session takes a prompt too (both live on).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Final

import anyio
import pytest

from acp_tui.client.connection import connect
from acp_tui.client.ports import PermissionPolicy
from acp_tui.client.session import AcpClient
from acp_tui.client.session_admin import (
    ForkSource,
    fork_at_message,
    fork_point,
    fork_session,
)
from acp_tui.protocol.transport import AgentCommand, StdioTransport
from acp_tui.store.store import SessionStore
from tests.interop.real_agents import AGENTS, RealAgent, Workspace
from tests.modelserver._script import Text, is_side

pytestmark = pytest.mark.interop

BOUND: Final = 300
"""Seconds for the whole test: two agent processes, each `session/new` ~20 s."""

FIRST, SECOND, AFTER = "first question", "second question", "after the fork"
ANSWERS: Final = {FIRST: "Answer one", SECOND: "Answer two", AFTER: "Fork answer"}


def agent_message_key(store: SessionStore, text: str) -> str:
    return next(
        key
        for kind, key in store.timeline()
        if kind == "message"
        and (message := store.message(key)) is not None
        and message.role == "agent"
        and text in message.text
    )


@asynccontextmanager
async def connected(command: AgentCommand, protocol: int) -> AsyncIterator[AcpClient]:
    """A client on a new agent process (no permission is granted)."""
    client = AcpClient(prompter=PermissionPolicy("reject"))
    async with connect(
        lambda: StdioTransport(command, name="peer"),
        choice="2" if protocol == 2 else "1",
        init_timeout=BOUND / 3,
        on_request=client.handle_request,
        on_notification=client.handle_notification,
    ) as connection:
        client.attach(connection)
        yield client


async def _prompt(client: AcpClient, session_id: str, text: str) -> None:
    await client.prompt(session_id, [{"type": "text", "text": text}])


@pytest.mark.parametrize("key", ["claude-v2", "claude-v1"])
async def test_claude_forks_at_a_message(key: str, tmp_path: Path) -> None:
    agent: RealAgent = AGENTS[key]
    workspace = Workspace(tmp_path).create()
    script = agent.script({p: [(Text(a),)] for p, a in ANSWERS.items()})
    with agent.server(script) as server, anyio.fail_after(BOUND):
        command = AgentCommand(
            argv=agent.argv(),
            env=agent.environment(workspace, server),
            cwd=workspace.project,
        )
        async with connected(command, agent.protocol) as source_client:
            features = source_client.session_features()
            assert features.fork
            assert fork_at_message(features, source_client.agent_name)
            source = await source_client.new_session(workspace.project)
            await _prompt(source_client, source.session_id, FIRST)
            await _prompt(source_client, source.session_id, SECOND)
            point = fork_point(source, agent_message_key(source, ANSWERS[FIRST]))
            assert point is not None
            message_id, history = point
            fork = ForkSource(source.session_id, message_id, history)

            async with connected(command, agent.protocol) as fork_client:
                store = await fork_session(fork_client, fork, workspace.project)
                assert store.session_id != source.session_id
                shown = [m.text for m in store.messages()]
                assert any(ANSWERS[FIRST] in text for text in shown)
                assert not any(ANSWERS[SECOND] in text for text in shown)
                await _prompt(fork_client, store.session_id, AFTER)
                assert ANSWERS[AFTER] in "".join(m.text for m in store.messages())

            # The source lives on.
            await _prompt(source_client, source.session_id, AFTER)

    main = [r for r in server.requests if not is_side(r)]
    forked = [r for r in main if r.user_texts and AFTER in r.user_texts[-1]]
    assert len(forked) == 2, [r.history for r in main]
    fork_request, source_request = forked
    fork_seen = " ".join(text for _, text in fork_request.history)
    assert FIRST in fork_seen
    assert ANSWERS[FIRST] in fork_seen
    assert SECOND not in fork_seen
    assert ANSWERS[SECOND] not in fork_seen
    source_seen = " ".join(text for _, text in source_request.history)
    assert ANSWERS[SECOND] in source_seen
