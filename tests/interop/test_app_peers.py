"""The full-screen app against real agents (Pilot, headless).

opencode (v1): the session picker lists the session just opened, and mode and
model changes round-trip through the agent. claude-agent-acp (v2) with a dummy
key: the failed turn is shown clearly, and the app keeps running.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

from acp_tui.protocol.transport import AgentCommand
from acp_tui.store import ConfigOption
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.screens.config import ConfigScreen
from acp_tui.ui.screens.session_picker import SessionPickerScreen
from acp_tui.ui.widgets.conversation import Banner
from acp_tui.ui.widgets.message_view import MessageView
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.interop.conftest import Peer

pytestmark = [pytest.mark.interop, pytest.mark.subprocess]

SIZE = (120, 36)


def app_for(peer: Peer, name: str, cwd: Path) -> AcpTuiApp:
    command = AgentCommand(argv=peer.argv, env=peer.env)
    return make_app(command, name, cwd=cwd, init_timeout=90.0)


async def wait_long(
    pilot: Pilot[None], condition: Callable[[], bool], seconds: float = 90.0
) -> None:
    """Real agents are slow to start (claude-agent-acp: ~20 s per session)."""
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError("condition not met in time")


def option(app: AcpTuiApp, category: str) -> ConfigOption:
    assert app.store is not None
    return next(o for o in app.store.settings if o.category == category)


async def test_opencode_picker_lists_the_session_and_settings_round_trip(
    opencode: Peer, tmp_path: Path
) -> None:
    app = app_for(opencode, "opencode", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_long(pilot, lambda: app.store is not None)
        assert app.store is not None
        session_id = app.store.session_id

        await pilot.press("f2")
        await wait_long(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
        picker = app.screen
        assert isinstance(picker, SessionPickerScreen)
        await wait_long(
            pilot,
            lambda: session_id in {s.session_id for s in picker.visible_sessions},
            30,
        )
        await pilot.press("escape")

        mode_before = option(app, "mode").current
        await pilot.press("shift+tab")
        await wait_long(pilot, lambda: option(app, "mode").current != mode_before, 30)

        model_before = option(app, "model").current
        await pilot.press("f3")
        await wait_long(pilot, lambda: isinstance(app.screen, ConfigScreen), 10)
        screen = app.screen
        assert isinstance(screen, ConfigScreen)
        row_id, choice = next(
            (row, choice)
            for row, choice in screen.choices.items()
            if choice.config_id == option(app, "model").config_id
            and choice.value != model_before
        )
        option_list = screen.query_one(OptionList)
        option_list.highlighted = option_list.get_option_index(row_id)
        await pilot.press("enter")
        await wait_long(pilot, lambda: option(app, "model").current == choice.value, 30)
        assert "model:" in app.query_one(StatusBar).status_text()


async def test_claude_agent_with_a_dummy_key_shows_the_error(
    claude_agent: Peer, tmp_path: Path
) -> None:
    app = app_for(claude_agent, "claude-code", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_long(pilot, lambda: app.store is not None)
        status = app.query_one(StatusBar)
        assert "ACP v2" in status.status_text()
        await pilot.press(*"hello", "enter")
        await wait_long(
            pilot,
            lambda: app.store is not None and app.store.state.turns_ended >= 1,
            120,
        )

        def shown() -> str:
            texts = [v.text for v in app.query(MessageView)]
            return " ".join(texts + [b.text for b in app.query(Banner)])

        # The store has the turn's end; the screen follows within a refresh or two.
        await wait_long(
            pilot, lambda: "API" in shown() or "error" in shown().lower(), 30
        )
        assert "idle (" in status.status_text()
        assert app.is_running
