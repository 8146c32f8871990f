"""`acp-tui bridge` wrapping claude-agent-acp: one real turn over WebSocket,
offline (the scripted Anthropic model server), with plain websockets as the
client; closing the WebSocket normally ends the agent and everything it spawned.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import anyio
import pytest

from acp_tui.process_group import group_alive
from tests.bridge.harness import init_params, running_bridge, ws_connect
from tests.bridge.test_bridge_turns import agent_text
from tests.interop.real_agents import AGENTS, Workspace
from tests.modelserver._script import Text

pytestmark = pytest.mark.interop

PROMPT: Final = "greet me through the bridge"
REPLY: Final = "Hello across the bridge."
BOUND: Final = 120.0
"""claude-agent-acp's session/new takes about 20 s here (it starts Claude Code)."""


async def test_claude_agent_acp_does_a_real_turn_through_the_bridge(
    tmp_path: Path,
) -> None:
    agent = AGENTS["claude-v2"]
    workspace = Workspace(tmp_path / "ws").create()
    argv = agent.argv()
    with agent.server(agent.script({PROMPT: [(Text(REPLY),)]})) as server:
        env = agent.environment(workspace, server)
        with running_bridge(tmp_path, agent=argv, env=env) as bridge:
            async with ws_connect(bridge, open_timeout=BOUND) as client:
                client.timeout = BOUND
                init = await client.call(0, "initialize", init_params(2))
                assert init["result"]["protocolVersion"] == 2
                new = await client.call(
                    1,
                    "session/new",
                    {"cwd": str(workspace.project), "mcpServers": []},
                )
                session_id = str(new["result"]["sessionId"])
                client.seen.clear()
                prompt = [{"type": "text", "text": PROMPT}]
                done = await client.call(
                    2, "session/prompt", {"sessionId": session_id, "prompt": prompt}, 2
                )
                assert "result" in done, done
                assert REPLY in agent_text(client.seen, session_id)
                [group] = bridge.agents()
            with anyio.fail_after(15):
                while group_alive(group):  # noqa: ASYNC110 (not our children)
                    await anyio.sleep(0.1)
        assert any(PROMPT in str(request) for request in server.requests)
