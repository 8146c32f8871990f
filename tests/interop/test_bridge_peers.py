"""`acp-tui bridge` wrapping claude-agent-acp: one real turn over WebSocket,
offline (the scripted Anthropic model server), with plain websockets as the
client; closing the WebSocket normally ends the agent and everything it spawned.
And the app (acp-tui's own client) doing a real turn through the bridge over the
Streamable HTTP profile.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import anyio
import pytest

from acp_tui.process_group import group_alive
from acp_tui.protocol.remote.target import RemoteTarget
from acp_tui.protocol.transport import AgentCommand
from acp_tui.ui.app import make_app
from acp_tui.ui.widgets.message_view import MessageView
from tests.bridge.harness import TOKEN, init_params, running_bridge, ws_connect
from tests.bridge.test_bridge_turns import agent_text
from tests.interop.real_agents import AGENTS, Workspace
from tests.interop.test_app_peers import SIZE, wait_long
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


async def test_the_app_does_a_real_turn_over_http_through_the_bridge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = AGENTS["claude-v2"]
    workspace = Workspace(tmp_path / "ws").create()
    monkeypatch.setenv("ACP_TUI_HOME", str(workspace.acp_home))
    monkeypatch.setenv("BRIDGE_TOKEN", TOKEN)
    with agent.server(agent.script({PROMPT: [(Text(REPLY),)]})) as server:
        env = agent.environment(workspace, server)
        with running_bridge(tmp_path, agent=agent.argv(), env=env) as bridge:
            target = RemoteTarget(
                bridge.base, transport="http", token_env="BRIDGE_TOKEN"
            )
            command = AgentCommand((bridge.base,), remote=target)
            app = make_app(command, "bridge", cwd=workspace.project, init_timeout=BOUND)
            async with app.run_test(size=SIZE) as pilot:
                await wait_long(pilot, lambda: app.store is not None, BOUND)
                await pilot.press(*PROMPT, "enter")
                await wait_long(
                    pilot,
                    lambda: any(REPLY in v.text for v in app.query(MessageView)),
                    BOUND,
                )
                assert app.store is not None
                await wait_long(
                    pilot,
                    lambda: app.store is not None and app.store.state.is_idle,
                    BOUND,
                )
    assert any(PROMPT in str(request) for request in server.requests)
