"""The crash banner (issue 23): it leaves once the agent is back (item 7), and
offers a restart only when a restart can help (item 5): not for a program that
could not be started or that is not an ACP agent, which would fail the same way."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from textual.widgets import Button

from acp_tui.protocol.transport import AgentCommand
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.widgets import crash_banner
from acp_tui.ui.widgets.crash_banner import CrashBanner
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.ui.helpers import wait_for
from tests.ui.test_app import FAKE_AGENT, SIZE, _home, fake_app

__all__ = ["_home"]  # the autouse fixture: a private ACP_TUI_HOME per test

pytestmark = pytest.mark.subprocess


def status(app: AcpTuiApp) -> str:
    return app.query_one(StatusBar).status_text()


def offers_restart(banner: CrashBanner) -> bool:
    return bool(list(banner.query("#restart").results(Button)))


def banner_shown(app: AcpTuiApp) -> bool:
    """A crash banner is mounted with its last child: the restart button if
    offered, else the hint. A banner just mounted has not composed them yet, and
    the button, inside a `Horizontal`, comes a step after the banner's own
    children (a loaded 4-worker run saw the text but not yet the button)."""
    return any(
        list(banner.query("#restart, #crash-hint")) for banner in app.query(CrashBanner)
    )


def crashed(app: AcpTuiApp) -> CrashBanner:
    (banner,) = app.query(CrashBanner)
    return banner


async def test_the_crash_banner_leaves_once_the_agent_is_back(tmp_path: Path) -> None:
    app = fake_app("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"please crash", "enter")
        await wait_for(pilot, lambda: banner_shown(app))
        assert offers_restart(crashed(app))  # a crash mid-session: a restart helps
        assert "ctrl+r restarts" in status(app)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: not app.query(CrashBanner))
        (note,) = app.query(crash_banner.RestartNote)
        assert "exited with code 9" in note.reason
        assert "stopped" not in app.active_pane.activity
        await wait_for(pilot, lambda: "agent stopped" not in status(app))


async def test_no_restart_is_offered_for_a_command_not_found(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-agent"
    app = make_app(AgentCommand(argv=(str(missing),)), "missing", cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: banner_shown(app))
        banner = crashed(app)
        assert "no-such-agent" in banner.text
        assert not offers_restart(banner)
        hint = str(banner.query_one("#crash-hint").render())
        assert hint == crash_banner.NO_RESTART_HINT
        await wait_for(pilot, lambda: "agent stopped" in status(app))
        assert "ctrl+r" not in status(app)
        # A prompt typed now waits, and nothing promises a restart will send it.
        await pilot.press(*"hello", "enter")
        queue = app.active_pane.query_one("#prompt-queue")
        await wait_for(pilot, lambda: "1 queued" in str(queue.border_title))
        assert "not sent" in str(queue.border_title)
        assert "ctrl+r" not in str(queue.border_title)


@pytest.mark.parametrize(
    "program",
    [
        "print('usage: tool [options]')",  # a plain CLI: text, then exit
        "import sys; sys.exit(2)",  # exits at once
    ],
)
async def test_no_restart_is_offered_for_a_program_that_is_not_an_acp_agent(
    tmp_path: Path, program: str
) -> None:
    command = AgentCommand(argv=(sys.executable, "-c", program))
    app = make_app(command, "plain", cwd=tmp_path, init_timeout=20.0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: banner_shown(app))
        assert not offers_restart(crashed(app))
        assert app.is_running


async def test_an_agent_that_exits_at_initialize_gets_no_restart_offer(
    tmp_path: Path,
) -> None:
    app = fake_app("exit-on-init", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: banner_shown(app))
        assert not offers_restart(crashed(app))


async def test_a_timed_out_start_still_offers_a_restart(tmp_path: Path) -> None:
    """An agent that did not answer in time may next time (a slow first start)."""
    command = AgentCommand(argv=(sys.executable, str(FAKE_AGENT), "hang"))
    app = make_app(command, "slow", cwd=tmp_path, init_timeout=0.5)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: banner_shown(app))
        assert offers_restart(crashed(app))
