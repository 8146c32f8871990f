"""A real agent's session from another folder (opencode, v1; Pilot, headless).

`acp-tui print` in another folder leaves a session of opencode's in another folder,
and its saved transcript; the app started in the project lists it (saved on this
computer: opencode itself lists only the project's), marks it, and asks before
resuming it there. Declined, nothing is resumed; confirmed, opencode accepts the
session's own folder, and a restart keeps it.
"""

from __future__ import annotations

import io
from pathlib import Path

import anyio
import pytest
from textual.widgets import OptionList

from acp_tui.frontends.print_turn import PrintOptions, run_print
from acp_tui.protocol.transport import AgentCommand
from acp_tui.ui.agent_runner import SessionRequest
from acp_tui.ui.app import make_app
from acp_tui.ui.screens.session_picker import ConfirmFolderScreen, SessionPickerScreen
from tests.interop.conftest import Peer
from tests.interop.test_app_peers import SIZE, wait_long

pytestmark = [pytest.mark.interop, pytest.mark.subprocess]


async def test_opencode_session_from_another_folder_asks_before_resuming_there(
    opencode: Peer, tmp_path: Path
) -> None:
    elsewhere, project = tmp_path / "elsewhere", tmp_path / "project"
    elsewhere.mkdir()
    project.mkdir()
    resolved = await anyio.to_thread.run_sync(elsewhere.resolve)
    command = AgentCommand(argv=opencode.argv, env=opencode.env)
    # No network: the turn never ends by itself; the session and transcript stay.
    options = PrintOptions(
        command=command, name="opencode", prompt="hi", cwd=elsewhere, timeout=3.0
    )
    await run_print(options, io.StringIO(), io.StringIO())
    app = make_app(
        command,
        "opencode",
        cwd=project,
        init_timeout=90.0,
        request=SessionRequest("pick"),
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_long(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
        picker = app.screen
        assert isinstance(picker, SessionPickerScreen)
        await wait_long(pilot, lambda: picker.loaded, 30)
        [listed] = [s for s in picker.visible_sessions if s.cwd == str(elsewhere)]
        assert listed.session_id in picker.elsewhere
        rows = [s.session_id for s in picker.visible_sessions]
        option_list = picker.query_one("#session-list", OptionList)
        option_list.highlighted = 1 + rows.index(listed.session_id)
        await pilot.press("enter")
        await wait_long(pilot, lambda: isinstance(app.screen, ConfirmFolderScreen), 10)
        await pilot.press("n")
        await wait_long(pilot, lambda: app.screen is picker, 10)
        assert app.store is None
        await pilot.press("enter")
        await wait_long(pilot, lambda: isinstance(app.screen, ConfirmFolderScreen), 10)
        await pilot.press("y")
        await wait_long(pilot, lambda: app.store is not None)
        assert app.store is not None
        assert app.store.session_id == listed.session_id
        restart = app.runner.restart_request()
        assert (restart.cwd, restart.root) == (elsewhere, resolved)
