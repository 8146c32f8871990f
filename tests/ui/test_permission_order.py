"""Concurrent permission requests open one at a time, oldest first.

An agent may ask several questions at once (parallel tool calls). Pushing each
dialog as it arrives stacked them newest-first, so the user answered the last
question first, and a key meant for one dialog could land on the one that popped
over it. The session's tab shows them in arrival order instead: the next opens
when the one before is answered or withdrawn.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from acp_tui.client.ports import PermissionChoice, PermissionRequest
from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.screens.permission import PermissionScreen
from tests.ui.helpers import wait_for
from tests.ui.test_app import SIZE, _home, fake_app, permission_armed

pytestmark = pytest.mark.subprocess

__all__ = ["_home"]  # the autouse fixture: a private ACP_TUI_HOME per test

OPTIONS = (
    PermissionChoice("yes", "Allow", "allow_once"),
    PermissionChoice("no", "Reject", "reject_once"),
)


def shown_title(app: AcpTuiApp) -> str | None:
    screen = app.screen
    return screen.request.title if isinstance(screen, PermissionScreen) else None


def dialogs(app: AcpTuiApp) -> int:
    return sum(isinstance(screen, PermissionScreen) for screen in app.screen_stack)


async def test_concurrent_requests_open_in_arrival_order(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        assert app.store is not None
        session = app.store.session_id
        requests = [
            PermissionRequest(
                session, f"p{n}", f"Request {n}", None, None, OPTIONS, None
            )
            for n in (1, 2, 3, 4)
        ]
        tasks = [asyncio.create_task(app.runner.prompter.ask(r)) for r in requests]
        await wait_for(pilot, lambda: permission_armed(app))
        assert shown_title(app) == "Request 1"
        assert dialogs(app) == 1  # the others wait their turn, unseen

        await pilot.press("y", "y")  # select, then choose
        await wait_for(pilot, lambda: shown_title(app) == "Request 2")
        tasks[2].cancel()  # the agent withdraws request 3 while it waits
        await wait_for(pilot, lambda: permission_armed(app))
        await pilot.press("n", "n")  # select, then choose
        await wait_for(pilot, lambda: shown_title(app) == "Request 4")
        await wait_for(pilot, lambda: permission_armed(app))
        await pilot.press("y", "y")  # select, then choose
        await wait_for(pilot, lambda: all(task.done() for task in tasks))
        assert dialogs(app) == 0
        assert [tasks[0].result(), tasks[1].result(), tasks[3].result()] == [
            "yes",
            "no",
            "yes",
        ]
        assert tasks[2].cancelled()
