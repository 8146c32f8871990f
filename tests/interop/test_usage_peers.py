"""claude-agent-acp reports usage over the scripted model server; the meter shows it.

claude-agent-acp sends `usage_update` (`used`: the last model call's total
tokens, `size`: the model's context window, `cost`: Claude Code's cumulative
`total_cost_usd` in USD) after each turn, and the turn's token usage on the
`session/prompt` response (v1) or the idle `state_update` (v2). The scripted
Anthropic server (`tests/modelserver/anthropic.py`) answers every call with
`usage` (100 input tokens, 20 output), so the app's context meter and turn
tokens show real figures.
"""

from __future__ import annotations

import pytest

from acp_tui.protocol.transport import AgentCommand
from acp_tui.ui.agent_runner import SessionRequest
from acp_tui.ui.app import make_app
from acp_tui.ui.widgets.context_meter import meter_part
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.interop.real_agents import AGENTS, Workspace, environment
from tests.interop.test_app_peers import SIZE, wait_long
from tests.modelserver._script import Text

pytestmark = [pytest.mark.interop, pytest.mark.subprocess]

PROMPT = "Say hello."


@pytest.mark.parametrize("key", ["claude-v2", "claude-v1"])
async def test_the_meter_shows_claude_agents_usage(
    key: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    agent = AGENTS[key]
    workspace = Workspace(tmp_path_factory.mktemp(key)).create()
    script = agent.script({PROMPT: [(Text("Hello!"),)]})
    with agent.server(script) as server:
        env = agent.environment(workspace, server)
        command = AgentCommand(argv=agent.argv(), env=env, cwd=workspace.project)
        app = make_app(
            command,
            key,
            cwd=workspace.project,
            choice="1" if agent.protocol == 1 else "2",
            init_timeout=120.0,
            request=SessionRequest(action="new"),
        )
        with environment({"ACP_TUI_HOME": env["ACP_TUI_HOME"]}):
            async with app.run_test(size=SIZE) as pilot:
                await wait_long(pilot, lambda: app.store is not None, 120)
                await pilot.press(*PROMPT, "enter")
                store = app.store
                assert store is not None
                await wait_long(pilot, lambda: store.state.turns_ended >= 1, 120)
                await wait_long(pilot, lambda: store.usage is not None, 30)
                usage = store.usage
                assert usage is not None
                assert usage.size is not None
                assert usage.size > 0
                assert usage.used is not None
                assert usage.used > 0
                assert usage.cost is not None
                assert usage.cost["currency"] == "USD"
                turn = store.turn_usage
                assert turn is not None
                assert turn.total > 0
                assert turn.input + turn.output <= turn.total
                meter = meter_part(usage)
                assert meter is not None
                status = app.query_one(StatusBar)
                await wait_long(pilot, lambda: meter[0] in status.status_text(), 10)
                assert "ctx ▰" in status.status_text()
                assert "turn " in status.status_text()
