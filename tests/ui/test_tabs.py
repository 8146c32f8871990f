"""Pilot tests of sessions in tabs, each with its own fake agent subprocess.

Every tab runs its own agent process and session: a second tab starts while the
first one's turn is still open, actions act on the tab on screen, a permission
request of a tab that is not shown waits for that tab, and closing a tab or
quitting reaps the agents.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text
from textual.command import CommandList, CommandPalette
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import Tab, Tabs

from acp_tui.protocol.transport import StdioTransport
from acp_tui.storage.drafts import DraftStore
from acp_tui.store.ops import PatchSessionInfo
from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.screens.permission import PermissionScreen
from acp_tui.ui.session_pane import SessionPane
from acp_tui.ui.widgets import start_view
from acp_tui.ui.widgets.crash_banner import CrashBanner
from acp_tui.ui.widgets.message_view import MessageView
from acp_tui.ui.widgets.plan_panel import PlanPanel
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.ui.helpers import screen_settled, wait_for
from tests.ui.test_app import SIZE, _home, fake_app, permission_armed
from tests.ui.test_app_snapshots import PROJECT, SnapCompare, full_turn, run
from tests.ui.test_app_snapshots import SIZE as SNAPSHOT_SIZE
from tests.ui.test_app_snapshots import app_for as snapshot_app

pytestmark = pytest.mark.subprocess


__all__ = ["_home"]  # the autouse fixture: a private ACP_TUI_HOME per test


def transport(pane: SessionPane) -> StdioTransport:
    found = pane.runner.launcher.transport
    assert found is not None
    return found


def tab_labels(app: AcpTuiApp) -> list[str]:
    return [tab.label.plain for tab in app.query(Tab)]


def tab_bar_shown(app: AcpTuiApp) -> bool:
    return app.query_one("#tab-bar", Tabs).display


def agent_text(pane: SessionPane) -> str:
    return "".join(v.text for v in pane.query(MessageView) if v.role == "agent")


def offered(app: AcpTuiApp, command: str) -> bool:
    """The command palette highlights `command` (Enter runs it)."""
    screen = app.screen
    if not isinstance(screen, CommandPalette):
        return False
    commands = screen.query_one(CommandList)
    index = commands.highlighted
    if index is None:
        return False
    prompt = commands.get_option_at_index(index).prompt
    return command in (prompt.plain if isinstance(prompt, Content | Text) else "")


def notices(app: AcpTuiApp) -> list[str]:
    return [n.message for n in app._notifications]


async def open_second_tab(pilot: Pilot[None], app: AcpTuiApp) -> SessionPane:
    """Ctrl+t, and wait until the new tab's session is open."""
    await pilot.press("ctrl+t")
    await wait_for(pilot, lambda: len(app.panes) == 2)
    second = app.panes[1]
    await wait_for(pilot, lambda: second.store is not None)
    return second


async def hidden_second_tab(
    pilot: Pilot[None], app: AcpTuiApp
) -> tuple[SessionPane, SessionPane]:
    """Open a second tab, then show the first again: (first, hidden second)."""
    await wait_for(pilot, lambda: app.store is not None)
    first = app.panes[0]
    second = await open_second_tab(pilot, app)
    await pilot.press("alt+1")
    await wait_for(pilot, lambda: app.active_pane is first)
    return first, second


async def test_the_tab_bar_shows_only_with_two_tabs(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        assert not tab_bar_shown(app)
        await wait_for(pilot, lambda: tab_labels(app) == ["Fake Agent"])  # idle
        second = await open_second_tab(pilot, app)
        assert tab_bar_shown(app)
        assert app.active_pane is second
        assert app.focused is second.query_one(PromptInput)
        await wait_for(
            pilot, lambda: tab_labels(app) == ["1 Fake Agent", "2 Fake Agent"]
        )
        # The prompt's own keys still work in the new tab.
        await pilot.press(*"draft")
        assert second.query_one(PromptInput).text == "draft"
        assert app.panes[0].query_one(PromptInput).text == ""


async def test_a_second_tab_starts_its_own_agent_while_a_turn_runs(
    tmp_path: Path,
) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        first = app.panes[0]
        await pilot.press(*"hang", "enter")  # the turn waits for a cancel
        await wait_for(pilot, lambda: first.runner.in_turn)
        await wait_for(pilot, lambda: "●" in tab_labels(app)[0])  # running

        second = await open_second_tab(pilot, app)
        assert transport(second).pid != transport(first).pid
        assert transport(first).returncode is None
        assert first.runner.in_turn  # still running in the other tab
        assert app.store is second.store
        assert second.store is not first.store
        shown = [pane.display for pane in app.panes]
        assert shown == [False, True]

        # Actions act on the tab on screen: escape has no turn to cancel here,
        # f4 opens this tab's plan panel only.
        await pilot.press("escape")
        assert not first.runner.cancelling
        await pilot.press("f4")
        assert second.query_one(PlanPanel).display
        assert not first.query_one(PlanPanel).display

        await pilot.press("alt+1")
        await wait_for(pilot, lambda: app.active_pane is first)
        assert app.focused is first.query_one(PromptInput)
        assert [pane.display for pane in app.panes] == [True, False]
        await pilot.press("escape")  # cancels the first tab's turn
        first_store, second_store = first.store, second.store
        assert first_store is not None
        assert second_store is not None
        await wait_for(pilot, lambda: first_store.state.turns_ended == 1)
        assert first_store.state.last_stop_reason == "cancelled"
        await wait_for(pilot, lambda: "stopped" in agent_text(first))
        # Nothing of that turn reached the other tab.
        assert second_store.state.turns_ended == 0
        assert not second_store.timeline()
        assert not second.query(MessageView)
        assert "idle (cancelled)" in first.query_one(StatusBar).status_text()
        assert "cancelled" not in second.query_one(StatusBar).status_text()

        await pilot.press("alt+right")  # next tab, and round again
        await wait_for(pilot, lambda: app.active_pane is second)
        await pilot.press("alt+right")
        await wait_for(pilot, lambda: app.active_pane is first)
        await pilot.press("alt+left")
        await wait_for(pilot, lambda: app.active_pane is second)


async def test_closing_a_tab_reaps_its_agent_and_the_last_tab_stays(
    tmp_path: Path,
) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        first = app.panes[0]
        second = await open_second_tab(pilot, app)
        closed = transport(second)
        assert closed.returncode is None
        await pilot.press("alt+w")
        await wait_for(pilot, lambda: len(app.panes) == 1)
        assert closed.returncode is not None  # reaped before the tab went
        assert not second.is_attached
        assert app.active_pane is first
        assert transport(first).returncode is None
        await wait_for(pilot, lambda: not tab_bar_shown(app))
        assert tab_labels(app) == ["Fake Agent"]
        assert app.focused is first.query_one(PromptInput)

        await pilot.press("alt+w")  # the last tab is not closed
        await wait_for(pilot, lambda: any("last tab" in n for n in notices(app)))
        assert app.panes == (first,)
        assert transport(first).returncode is None
        assert app.is_running


async def test_the_palette_opens_and_closes_tabs(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)

    async def palette(command: str) -> None:
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*command)
        # The palette searches in the background: Enter once it offers the command.
        await wait_for(pilot, lambda: offered(app, command))
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, CommandPalette))

    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        first = app.panes[0]
        await palette("New tab")
        await wait_for(pilot, lambda: len(app.panes) == 2)
        second = app.panes[1]
        await wait_for(pilot, lambda: second.store is not None)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert {"Next tab", "Previous tab", "Close tab"} <= set(titles)
        assert app.active_pane is second
        closed = transport(second)
        await palette("Close tab")
        await wait_for(pilot, lambda: app.panes == (first,))
        assert closed.returncode is not None


async def test_a_crash_stays_in_its_tab_and_restart_acts_on_that_tab(
    tmp_path: Path,
) -> None:
    app = fake_app("v2-full", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        first = app.panes[0]
        second = await open_second_tab(pilot, app)
        crashed = transport(second)
        await pilot.press(*"please crash", "enter")
        await wait_for(pilot, lambda: bool(second.query(CrashBanner)))
        await wait_for(pilot, lambda: "✕ stopped" in tab_labels(app)[1])
        assert not first.query(CrashBanner)
        assert transport(first).returncode is None
        assert "stopped" not in tab_labels(app)[0]

        await pilot.press("ctrl+r")  # restarts this tab's agent only
        await wait_for(pilot, lambda: not second.query(CrashBanner))
        assert transport(second) is not crashed
        assert transport(second).returncode is None
        await wait_for(pilot, lambda: "stopped" not in tab_labels(app)[1])


async def test_only_the_first_tab_keeps_the_draft(tmp_path: Path) -> None:
    """Two tabs writing one project's draft file would overwrite each other."""
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"first draft")
        second = await open_second_tab(pilot, app)
        await pilot.press(*"second draft")
        assert second.query_one(PromptInput).text == "second draft"
        app.exit()
    assert DraftStore.for_project(tmp_path).draft.text == "first draft"


@pytest.mark.parametrize("how", ["exit", "teardown"])
async def test_quitting_reaps_every_tabs_agent(tmp_path: Path, how: str) -> None:
    """`exit()` stops every agent before the app returns; so does a teardown
    without `exit()` (the harness, a crash), through `on_unmount`."""
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        await pilot.press(*"hang", "enter")  # a turn open in the first tab
        await wait_for(pilot, lambda: app.runner.in_turn)
        second = await open_second_tab(pilot, app)
        agents = [transport(pane) for pane in app.panes]
        assert transport(second) in agents
        assert [agent.returncode for agent in agents] == [None, None]
        if how == "exit":
            app.exit()
    assert all(agent.returncode is not None for agent in agents)


async def test_a_permission_request_in_a_hidden_tab_waits_for_that_tab(
    tmp_path: Path,
) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        first, second = await hidden_second_tab(pilot, app)

        # A prompt goes out in the hidden tab; its turn asks for permission.
        second.runner.prompts.put_nowait((1, "hello"))
        await wait_for(pilot, lambda: second.activity == "waiting")
        await wait_for(pilot, lambda: "needs you" in tab_labels(app)[1])
        await wait_for(
            pilot, lambda: any("needs your permission" in n for n in notices(app))
        )
        assert "2 Fake Agent" in next(n for n in notices(app) if "permission" in n)
        await wait_for(
            pilot,
            lambda: "waiting for you" in second.query_one(StatusBar).status_text(),
        )
        # The dialog is held back: the hidden tab waits to be shown.
        await wait_for(pilot, lambda: bool(second._shown_waiters))
        assert not isinstance(app.screen, PermissionScreen)  # not over tab 1
        assert app.active_pane is first

        await pilot.press("alt+2")
        await wait_for(pilot, lambda: permission_armed(app))
        assert app.active_pane is second
        await pilot.press("alt+1")  # no switching under the dialog
        assert app.active_pane is second
        await pilot.press("y", "y")  # select, then choose
        second_store = second.store
        assert second_store is not None
        await wait_for(pilot, lambda: second_store.state.turns_ended == 1)
        (permission,) = second_store.permissions()
        assert permission.outcome == {"outcome": "selected", "optionId": "yes"}
        assert first.store is not None
        assert not first.store.permissions()
        await wait_for(pilot, lambda: "needs you" not in tab_labels(app)[1])


async def test_tab_labels_show_session_titles_as_text(tmp_path: Path) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.store is not None)
        second = await open_second_tab(pilot, app)
        store = second.store
        assert store is not None
        store.apply(PatchSessionInfo(title="[red]x[/red] \x1b[31mhi"))
        await wait_for(pilot, lambda: "[red]x[/red]" in tab_labels(app)[1])
        label = next(t.label for t in app.query(Tab) if "[red]" in t.label.plain)
        assert "\x1b" not in label.plain
        assert all("red" not in str(span.style) for span in label.spans)


async def test_a_turn_ending_in_a_hidden_tab_marks_it_until_shown(
    tmp_path: Path,
) -> None:
    app = fake_app("v2", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        _, second = await hidden_second_tab(pilot, app)
        second.runner.prompts.put_nowait((1, "turn-error"))  # ends at once
        await wait_for(pilot, lambda: tab_labels(app)[1] == "2 Fake Agent ✓")
        assert second.activity == "done"
        assert tab_labels(app)[0] == "1 Fake Agent"
        await pilot.press("alt+2")
        await wait_for(pilot, lambda: tab_labels(app)[1] == "2 Fake Agent")


@pytest.mark.snapshot
def test_two_tabs(snap_compare: SnapCompare, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two tabs: a tab bar at the top (two rows: labels, then the underline)
    reads "1 Fake Agent · Greeting", highlighted and underlined, and a dimmed
    "2 Fake Agent". Below it the first tab's finished turn, scrolled to its end
    (the tab bar takes two rows from the conversation), then its prompt, its
    status bar (idle, end_turn, Greeting) and the footer."""
    monkeypatch.setattr(start_view, "_now", lambda: 0.0)  # no "(3s)" in pictures
    PROJECT.mkdir(exist_ok=True)

    async def steps(pilot: Pilot[None]) -> None:
        app = await full_turn(pilot)
        second = await open_second_tab(pilot, app)
        second.query_one(PromptInput).cursor_blink = False
        await pilot.press("alt+1")
        await wait_for(pilot, lambda: app.active_pane is app.panes[0])
        await wait_for(pilot, lambda: "Greeting" in tab_labels(app)[0])
        await screen_settled(pilot)

    assert snap_compare(
        snapshot_app("v2"), terminal_size=SNAPSHOT_SIZE, run_before=run(steps)
    )
