"""Pilot tests of what the agent reports about itself: usage and its auth status.

Against the scripted fake agent in both versions: `usage N` reports context usage
N% (with a cost in EUR) and the unstable end-turn usage; the context meter in the
status bar shows it, styled at 75, 90 and 95%. With `FAKE_AGENT_AUTH_STATUS=1` the
agent advertises `auth.status`: the client asks `auth/status` once connected and
after a logout, shows the signed-in account in the status bar and in the palette's
logout entry, and follows `auth/status_update`. Agents that advertise nothing are
never asked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.widgets.context_meter import LEVEL_STYLES, Level
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.ui.helpers import wait_for
from tests.ui.test_app import SIZE
from tests.ui.test_app_flows import BOTH, _home, app_for, record, sent, status
from tests.ui.test_auth_flow import command

pytestmark = pytest.mark.subprocess

__all__ = ["_home", "record"]


def meter_style(app: AcpTuiApp) -> str | None:
    """The style of the status line's context meter (None: no meter)."""
    content = app.query_one(StatusBar).status_content()
    for span in content.spans:
        text = content.plain[span.start : span.end]
        if text.startswith("ctx "):
            return str(span.style)
    return "" if "ctx " in content.plain else None


def turn_done(app: AcpTuiApp, turns: int) -> bool:
    store = app.store
    return store is not None and store.state.turns_ended >= turns


@pytest.fixture
def auth_status(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_AGENT_AUTH_STATUS", "1")


@BOTH
async def test_the_meter_is_styled_at_each_threshold(
    tmp_path: Path, version: str
) -> None:
    app = app_for(f"{version}-full", tmp_path)
    steps: list[tuple[int, str, Level]] = [
        (50, "ctx ▰▰▰▰▱▱▱▱ 50% 100k/200k", "ok"),
        (80, "ctx ▰▰▰▰▰▰▱▱ 80% 160k/200k", "warn"),
        (92, "92% 184k/200k", "high"),
        (97, "ctx ▰▰▰▰▰▰▰▰ 97% 194k/200k", "critical"),
    ]
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        assert "ctx " not in status(app)  # nothing reported yet: no meter
        for turns, (percent, shown, level) in enumerate(steps, start=1):
            await pilot.press(*f"usage {percent}", "enter")
            await wait_for(pilot, lambda t=turns: turn_done(app, t))  # type: ignore[misc]
            await wait_for(pilot, lambda s=shown: s in status(app))  # type: ignore[misc]
            assert "€1.25" in status(app)
            assert meter_style(app) == LEVEL_STYLES[level]


@BOTH
async def test_the_turns_tokens_are_shown_when_it_ends(
    tmp_path: Path, version: str
) -> None:
    app = app_for(f"{version}-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"usage 10", "enter")
        await wait_for(pilot, lambda: turn_done(app, 1))
        await wait_for(pilot, lambda: "turn 53k tok" in status(app))
        assert app.store is not None
        assert app.store.turn_usage is not None
        assert app.store.turn_usage.thought == 5000


@BOTH
@pytest.mark.usefixtures("auth_status")
async def test_the_signed_in_account_shows_and_follows_updates(
    tmp_path: Path, record: Path, version: str
) -> None:
    app = app_for(f"{version}-relogin", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "signed in: ada@example.com" in status(app))
        assert len(sent(record, "auth/status")) == 1
        logout = command(app, "Log out (ada@example.com)")
        assert logout is not None
        assert "Signed in as ada@example.com" in logout.help
        # The agent reports another account on its own.
        await pilot.press(*"auth-update", "enter")
        await wait_for(pilot, lambda: "signed in: Team Account" in status(app))
        assert command(app, "Log out (Team Account)") is not None
        # After a logout the status is asked again: signed out.
        logout = command(app, "Log out (Team Account)")
        assert logout is not None
        logout.callback()
        await wait_for(pilot, lambda: "signed out" in status(app))
        assert len(sent(record, "auth/status")) == 2


@BOTH
async def test_an_agent_without_auth_status_is_never_asked(
    tmp_path: Path, record: Path, version: str
) -> None:
    app = app_for(f"{version}-relogin", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "model:" in status(app))
        assert not sent(record, "auth/status")
        assert "signed" not in status(app)
        assert command(app, "Log out") is not None  # the entry as before
