"""`--session ID` the agent does not have: "no such session", then the picker."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.ui.agent_runner import SessionRequest
from acp_tui.ui.screens.session_picker import SessionPickerScreen
from acp_tui.ui.widgets.crash_banner import CrashBanner
from tests.ui.helpers import wait_for
from tests.ui.test_app import SIZE, agent_text
from tests.ui.test_app_flows import app_for

pytestmark = pytest.mark.subprocess


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))


@pytest.mark.parametrize("version", ["v2", "v1"])
async def test_an_unknown_session_says_so_and_opens_the_picker(
    tmp_path: Path, version: str
) -> None:
    request = SessionRequest("resume", "no-such-id", pick_if_missing=True)
    app = app_for(f"{version}-full", tmp_path, request)
    notices: list[str] = []
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
        picker = app.screen
        assert isinstance(picker, SessionPickerScreen)
        assert picker.title_text.startswith("Sessions: No such session: no-such-id")

        def said() -> bool:  # the notice may arrive a moment after the picker
            return any(
                "no such session: no-such-id" in n.message for n in app._notifications
            )

        await wait_for(pilot, said)
        notices = [n.message for n in app._notifications]
        assert any("no such session: no-such-id" in n for n in notices)
        await wait_for(pilot, lambda: len(picker.visible_sessions) == 3)
        await pilot.press(*"release")
        await wait_for(pilot, lambda: len(picker.visible_sessions) == 1)
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: "Earlier answer in Write the release notes" in agent_text(app),
        )
        assert not app.query(CrashBanner)
