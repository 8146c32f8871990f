"""SVG snapshots of the modal screens (look only; behaviour is in test_screens.py).

Each screen is pushed by a tiny host app over a blank screen. Relative times use
a fixed clock, and the filter's cursor does not blink, so the pictures are stable.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input

from acp_tui.client.session import SessionSummary
from acp_tui.store.config import ANY_KEYS, read_options
from acp_tui.store.values import JSONObject
from acp_tui.ui.screens.auth import AuthMethodView, AuthScreen
from acp_tui.ui.screens.config import ConfigScreen
from acp_tui.ui.screens.help import KeyHelpScreen
from acp_tui.ui.screens.session_picker import SessionPickerScreen
from tests.ui.helpers import wait_for

SnapCompare = Callable[..., bool]
SIZE = (100, 30)
NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


class ScreenHost(App[None]):
    """Pushes one screen on mount."""

    def __init__(self, make_screen: Callable[[], Screen[Any]]) -> None:
        super().__init__()
        self.make_screen = make_screen
        self.pushed: Screen[Any] | None = None

    def on_mount(self) -> None:
        self.pushed = self.make_screen()
        self.push_screen(self.pushed)


SESSIONS = [
    SessionSummary(
        "sess-1",
        "/home/ada/parser",
        "Fix the [bold]parser[/]",
        "2026-03-10T11:55:00Z",
        {},
    ),
    SessionSummary("sess-2", "/home/ada/site", None, "2026-03-09T09:00:00Z", {}),
    SessionSummary(
        "sess-3", "/srv/billing", "Refactor the store", "2026-03-10T08:30:00Z", {}
    ),
    SessionSummary(
        "sess-4", "/home/ada/parser", "Add tests", "2026-02-01T10:00:00Z", {}
    ),
    SessionSummary("sess-5", "/tmp/scratch", "Try the demo", "sometime", {}),
]


def picker_host(sessions: Sequence[SessionSummary]) -> ScreenHost:
    async def load() -> Sequence[SessionSummary]:
        return sessions

    async def delete(session_id: str) -> None:
        return None

    return ScreenHost(
        lambda: SessionPickerScreen(
            load, delete=delete, current_session_id="sess-2", now=lambda: NOW
        )
    )


def picker_ready(*keys: str) -> Callable[[Pilot[Any]], Any]:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, ScreenHost)
        await wait_for(
            pilot,
            lambda: isinstance(app.pushed, SessionPickerScreen) and app.pushed.loaded,
        )
        assert app.pushed is not None
        app.pushed.query_one(Input).cursor_blink = False
        await pilot.press(*keys)
        await pilot.pause()

    return run_before


@pytest.mark.snapshot
def test_session_picker_with_sessions(snap_compare: SnapCompare) -> None:
    """The session picker over a blank screen.

    Reviewer: a bordered dialog titled "Sessions" with an empty filter input
    (placeholder "Filter by title, folder or id"), then a list: "+ New session"
    first, then five two-line rows. "Fix the [bold]parser[/]" is highlighted and
    shows the brackets literally (not bold markup); its second line reads
    "/home/ada/parser · 5 min ago" in muted text. The untitled row says
    "(untitled)" in italics with a green "● current" mark and "yesterday";
    the others show "3 h ago", "2026-02-01" and the raw "sometime". The hint line
    at the bottom reads "↑↓ move · enter open · ctrl+d delete · esc close".
    """
    assert snap_compare(
        picker_host(SESSIONS), terminal_size=SIZE, run_before=picker_ready()
    )


@pytest.mark.snapshot
def test_session_picker_filtered(snap_compare: SnapCompare) -> None:
    """The session picker after typing "parser" into the filter.

    Reviewer: the filter shows "parser"; the list holds "+ New session" and the
    two sessions whose title or folder contains "parser" ("Fix the [bold]parser[/]"
    and "Add tests", both in /home/ada/parser), with the first of them
    highlighted. No status message is shown.
    """
    assert snap_compare(
        picker_host(SESSIONS), terminal_size=SIZE, run_before=picker_ready(*"parser")
    )


CONFIG_OPTIONS: list[JSONObject] = [
    {
        "configId": "verbose",
        "name": "Verbose output",
        "type": "boolean",
        "currentValue": True,
        "description": "Explain each step",
    },
    {
        "configId": "model",
        "name": "Model",
        "type": "select",
        "category": "model",
        "currentValue": "opus",
        "options": [
            {
                "groupId": "anthropic",
                "name": "Anthropic",
                "options": [
                    {"value": "opus", "name": "Opus", "description": "Most capable"},
                    {"value": "sonnet", "name": "Sonnet", "description": "Balanced"},
                ],
            },
            {
                "groupId": "local",
                "name": "Local",
                "options": [{"value": "llama", "name": "Llama [70B]"}],
            },
        ],
    },
    {
        "id": "mode",
        "name": "Mode",
        "type": "select",
        "category": "mode",
        "currentValue": "code",
        "options": [
            {"value": "ask", "name": "Ask", "description": "Ask before every edit"},
            {"value": "code", "name": "Code", "description": "Edit files freely"},
            {"value": "plan", "name": "Plan", "description": "Read-only planning"},
        ],
    },
    {
        "configId": "effort",
        "name": "Reasoning effort",
        "type": "select",
        "category": "thought_level",
        "currentValue": "medium",
        "options": [
            {"value": "low", "name": "Low"},
            {"value": "medium", "name": "Medium"},
            {"value": "high", "name": "High"},
        ],
    },
    {
        "configId": "sandbox",
        "name": "Sandbox",
        "type": "boolean",
        "category": "_acme_safety",
        "currentValue": False,
    },
]


@pytest.mark.snapshot
def test_config_switcher(snap_compare: SnapCompare) -> None:
    """The config switcher with four categories and an uncategorised toggle.

    Reviewer: a dialog titled "Session settings" listing, under bold headings
    separated by rules: "Mode" with Ask / Code / Plan (Code marked with a green
    "●" and highlighted, descriptions muted), "Model" with the group names
    "Anthropic" and "Local" in muted italics above their choices (Opus marked,
    "Llama [70B]" literal), "Thought level" with the option name "Reasoning
    effort" above Low / Medium / High (Medium marked), "_acme_safety" with
    "[ ] Sandbox", and "Other" with "[x] Verbose output  Explain each step".
    The hint "↑↓ move · enter select · esc close" is at the bottom.
    """
    options = read_options(CONFIG_OPTIONS, ANY_KEYS)  # either spelling
    host = ScreenHost(lambda: ConfigScreen(options))
    assert snap_compare(host, terminal_size=(100, 36))


@pytest.mark.snapshot
def test_auth_screen(snap_compare: SnapCompare) -> None:
    """The sign-in dialog with an agent message and three methods.

    Reviewer: "Sign in to Claude Code" in bold, then the message
    "Authentication required: run a login first." in the warning colour, then a
    list of three numbered methods (numbers in the accent colour): "1 Log in with
    a browser" with a muted description, "2 Terminal login" with the muted note
    "runs a login command in this terminal", and "3 API key" with a muted
    description. The first method is highlighted. The hint "1-9 or enter choose
    · esc cancel" is at the bottom.
    """
    methods = [
        AuthMethodView("oauth", "Log in with a browser", "Opens your browser", False),
        AuthMethodView("terminal", "Terminal login", None, True),
        AuthMethodView("key", "API key", "Uses ANTHROPIC_API_KEY", False),
    ]
    host = ScreenHost(
        lambda: AuthScreen(
            methods,
            agent_name="Claude Code",
            message="Authentication required: run a login first.",
        )
    )
    assert snap_compare(host, terminal_size=SIZE)


@pytest.mark.snapshot
def test_key_help_screen(snap_compare: SnapCompare) -> None:
    """The key help over a blank screen.

    Reviewer: a small centred dialog titled "Keys" with a two-column table: the
    keys in bold on the left ("ctrl+p", "ctrl+s", "ctrl+o", "ctrl+t", "escape",
    "ctrl+q", "?") and their descriptions aligned on the right, then the muted
    hint "esc, q or ? closes".
    """
    keys = [
        ("ctrl+p", "Command palette"),
        ("ctrl+s", "Sessions"),
        ("ctrl+o", "Session settings (mode, model, …)"),
        ("ctrl+t", "Cycle mode"),
        ("escape", "Cancel the turn"),
        ("ctrl+q", "Quit"),
        ("?", "This help"),
    ]
    assert snap_compare(ScreenHost(lambda: KeyHelpScreen(keys)), terminal_size=SIZE)
