"""Attention signals: the bytes the app writes to its terminal as turns run.

The app runs against the scripted fake agent with a driver that records what
Textual writes (`CaptureDriver`, as the terminal-security tests use). A focus
report is simulated as the terminal's would arrive: an `AppBlur` / `AppFocus`
posted to the app. Unfocused, a turn's end and the agent's questions send a
desktop notification (OSC 9 and OSC 777 here); focused, or before any focus
report, none; progress (OSC 9;4) shows while the turn runs either way.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import pytest
from textual import events
from textual.app import ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Static

import acp_tui.ui.app as app_module
from acp_tui.client.elicitation_form import ElicitationReply
from acp_tui.client.ports import ElicitationRequest
from acp_tui.config import AttentionSettings
from acp_tui.protocol.transport import AgentCommand
from acp_tui.ui import pane_dialogs
from acp_tui.ui.agent_runner import AgentSettings
from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.session_pane import SessionPane
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.fakes import hostile_agent as hostile
from tests.ui.helpers import wait_for
from tests.ui.test_app import FAKE_AGENT, permission_armed
from tests.ui.test_terminal_security import CaptureDriver

pytestmark = pytest.mark.subprocess

SIZE: Final = (100, 30)
BOTH: Final = AttentionSettings(notify="both", bell=True, progress=True)

NOTIFICATION: Final = re.compile(r"\x1b\](?:9;(?!4;)|777;notify;)([^\x07]*)\x07")
"""An OSC 9 or OSC 777 notification (not OSC 9;4 progress): its text."""

HOSTILE_AGENT: Final = Path(hostile.__file__).resolve()

PROGRESS_ON: Final = "\x1b]9;4;3\x07"
PROGRESS_OFF: Final = "\x1b]9;4;0\x07"


@pytest.fixture(autouse=True)
def _env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACP_TUI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ACP_TUI_DEMO_DELAY", "0")
    monkeypatch.delenv("TMUX", raising=False)
    CaptureDriver.written.clear()


class CaptureApp(AcpTuiApp):
    """The app, writing to `CaptureDriver` instead of a terminal."""

    CSS_PATH = str(Path(app_module.__file__).parent / "app.tcss")

    def get_driver_class(self) -> type[CaptureDriver]:
        return CaptureDriver


def capture_app(
    argv: tuple[str, ...], cwd: Path, attention: AttentionSettings = BOTH
) -> CaptureApp:
    settings = AgentSettings(
        command=AgentCommand(argv), name="fake", cwd=cwd, init_timeout=20.0
    )
    return CaptureApp(settings, attention=attention)


def written() -> str:
    return "".join(CaptureDriver.written)


def notifications() -> list[str]:
    return NOTIFICATION.findall(written())


async def turn_with_permission(
    tmp_path: Path,
    focus: Callable[[], events.Event] | None,
    argv: tuple[str, ...] = (sys.executable, str(FAKE_AGENT), "v2"),
) -> tuple[str, str]:
    """Run one turn that asks a permission; what was written by the dialog, and
    by the turn's end."""
    app = capture_app(argv, tmp_path)
    async with app.run_test(size=SIZE, headless=False) as pilot:
        await wait_for(pilot, lambda: app.store is not None, bound=20)
        if focus is not None:
            app.post_message(focus())
            await wait_for(pilot, lambda: app.attention.focus_aware)
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: permission_armed(app))
        at_dialog = written()
        await pilot.press("y", "y")
        await wait_for(pilot, lambda: PROGRESS_OFF in written())
        return at_dialog, written()


async def test_unfocused_turn_end_sends_a_notification(tmp_path: Path) -> None:
    at_dialog, at_end = await turn_with_permission(tmp_path, events.AppBlur)
    assert NOTIFICATION.findall(at_dialog) == [
        "acp-tui: Fake Agent: needs your permission",
        "acp-tui;Fake Agent: needs your permission",
    ]
    assert NOTIFICATION.findall(at_end)[2:] == [
        "acp-tui: Fake Agent · Greeting: the turn ended",
        "acp-tui;Fake Agent · Greeting: the turn ended",
    ]
    assert at_end.count("\x07\x07") == 2  # the bell after each notification
    assert at_end.index(PROGRESS_ON) < at_end.index(PROGRESS_OFF)


async def test_focused_turn_end_sends_none(tmp_path: Path) -> None:
    _, at_end = await turn_with_permission(tmp_path, events.AppFocus)
    assert NOTIFICATION.findall(at_end) == []
    assert "\x07\x07" not in at_end
    # Progress does not depend on focus.
    assert at_end.index(PROGRESS_ON) < at_end.index(PROGRESS_OFF)


async def test_without_a_focus_report_no_notification(tmp_path: Path) -> None:
    """A terminal that never reported focus: the app cannot know, so it is quiet."""
    _, at_end = await turn_with_permission(tmp_path, None)
    assert NOTIFICATION.findall(at_end) == []
    assert PROGRESS_ON in at_end


async def test_focus_back_stops_notifications(tmp_path: Path) -> None:
    app = capture_app((sys.executable, str(FAKE_AGENT), "v2"), tmp_path)
    async with app.run_test(size=SIZE, headless=False) as pilot:
        await wait_for(pilot, lambda: app.store is not None, bound=20)
        app.post_message(events.AppBlur())
        await wait_for(pilot, lambda: app.attention.wants_alerts)
        app.post_message(events.AppFocus())
        await wait_for(pilot, lambda: not app.attention.wants_alerts)
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: permission_armed(app))
        await pilot.press("y", "y")
        await wait_for(pilot, lambda: PROGRESS_OFF in written())
    assert notifications() == []


async def test_settings_off_sends_no_notification_nor_progress(
    tmp_path: Path,
) -> None:
    off = AttentionSettings(notify="off", progress=False)
    app = capture_app((sys.executable, str(FAKE_AGENT), "v2"), tmp_path, off)
    async with app.run_test(size=SIZE, headless=False) as pilot:
        await wait_for(pilot, lambda: app.store is not None, bound=20)
        app.post_message(events.AppBlur())
        await wait_for(pilot, lambda: app.attention.focus_aware)
        await pilot.press(*"hello", "enter")
        await wait_for(pilot, lambda: permission_armed(app))
        await pilot.press("y", "y")
        await wait_for(
            pilot,
            lambda: app.store is not None and app.store.state.turns_ended == 1,
        )
        await wait_for(pilot, lambda: not app._running_panes)
    assert notifications() == []
    assert "\x1b]9;4;" not in written()


async def test_hostile_names_cannot_inject_through_a_notification(
    tmp_path: Path,
) -> None:
    """The tab's name (the agent's title, the session title) is agent text."""
    argv = (sys.executable, str(HOSTILE_AGENT), "v2-full")
    _, at_end = await turn_with_permission(tmp_path, events.AppBlur, argv)
    texts = NOTIFICATION.findall(at_end)
    assert len(texts) == 4
    for text in texts:
        assert not re.search(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", text)
    assert any("the turn ended" in text for text in texts)
    # Every OSC the notifications opened is the one a notification closes: no
    # ESC ] other than ours and Textual's own sequences.
    starts = [m.start() for m in re.finditer(r"\x1b\](?:9|777);", at_end)]
    assert len(starts) == 4 + 2  # four notifications, progress on and off


async def test_quitting_mid_turn_clears_the_progress(tmp_path: Path) -> None:
    app = capture_app((sys.executable, str(FAKE_AGENT), "v2"), tmp_path)
    async with app.run_test(size=SIZE, headless=False) as pilot:
        await wait_for(pilot, lambda: app.store is not None, bound=20)
        await pilot.press(*"hang", "enter")
        await wait_for(pilot, lambda: PROGRESS_ON in written())
        assert PROGRESS_OFF not in written()
    assert written().rindex(PROGRESS_OFF) > written().rindex(PROGRESS_ON)


class OpenDialog(ModalScreen[Any]):
    """Stands in for the elicitation dialog: stays open."""

    def __init__(self, request: ElicitationRequest) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        yield Static(self.request.message)


@pytest.mark.parametrize("version", ["v1", "v2"])
async def test_an_elicitation_sends_a_notification(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    monkeypatch.setattr(pane_dialogs, "elicitation_screen", OpenDialog)
    project = tmp_path / "project"
    project.mkdir()
    argv = (sys.executable, "-m", "acp_tui.demo")
    settings = AgentSettings(
        command=AgentCommand(argv),
        name="demo",
        cwd=project,
        choice="1" if version == "v1" else "2",
        init_timeout=20.0,
    )
    app = CaptureApp(
        settings, attention=AttentionSettings(notify="osc777", progress=True)
    )
    async with app.run_test(size=SIZE, headless=False) as pilot:
        await wait_for(pilot, lambda: app.store is not None, bound=20)
        app.post_message(events.AppBlur())
        await wait_for(pilot, lambda: app.attention.focus_aware)
        await pilot.press(*"/ask", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, OpenDialog))
        await wait_for(pilot, lambda: bool(notifications()))
        assert notifications() == [
            "acp-tui;acp-tui demo agent · /ask: asks you a question"
        ]
        app.screen.dismiss(ElicitationReply("decline"))
        await wait_for(pilot, lambda: PROGRESS_OFF in written())


async def test_a_pane_without_its_status_bar_still_has_a_label(
    tmp_path: Path,
) -> None:
    """While the app closes, a pane can still be mounted with its status bar gone;
    a turn's last signal names the tab then (it raised NoMatches as the app quit)."""
    app = capture_app((sys.executable, str(FAKE_AGENT), "v2"), tmp_path)
    async with app.run_test(size=SIZE, headless=False) as pilot:
        await wait_for(pilot, lambda: app.store is not None, bound=20)
        pane = app.query_one(SessionPane)
        status = pane.query_one(StatusBar)
        named = pane.label.name(None)
        await status.remove()
        assert pane.is_mounted
        label = pane.label  # what the signal asks, synchronously
        await pane.mount(StatusBar())  # the rest of the pane needs it back
    assert named == "Fake Agent"
    assert label.name(None) == "fake"  # the settings' name, as before connecting
