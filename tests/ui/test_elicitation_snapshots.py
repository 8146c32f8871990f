"""SVG snapshots of the elicitation dialog (look only).

Behaviour is in test_elicitation_screen.py. The dialog's clock is frozen and
armed by hand, and the inputs' cursors do not blink, so the pictures are stable.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from acp_tui.client.elicitation_form import ElicitationAsk
from acp_tui.store.values import JSONObject
from acp_tui.ui.screens.elicitation import ElicitationScreen
from tests.ui.helpers import screen_settled
from tests.ui.test_elicitation_screen import QUESTION, Host, arm
from tests.unit.client.test_traffic import FakeClock

pytestmark = pytest.mark.snapshot

SnapCompare = Callable[..., bool]

RELEASE: JSONObject = {
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "title": "Release name",
            "description": "Shown in the changelog.",
            "minLength": 3,
            "maxLength": 40,
        },
        "email": {"type": "string", "title": "Contact", "format": "email"},
        "count": {
            "type": "integer",
            "title": "Replicas",
            "minimum": 1,
            "maximum": 10,
            "default": 3,
        },
        "notify": {"type": "boolean", "title": "Notify the team", "default": True},
        "strategy": {
            "type": "string",
            "title": "Strategy",
            "oneOf": [
                {
                    "const": "safe",
                    "title": "Conservative",
                    "description": "Small steps, easy to revert",
                },
                {"const": "mid", "title": "Balanced"},
                {"const": "fast", "title": "Aggressive"},
            ],
            "default": "mid",
        },
        "targets": {
            "type": "array",
            "title": "Targets",
            "items": {
                "anyOf": [
                    {"const": "linux", "title": "Linux"},
                    {"const": "mac", "title": "macOS"},
                    {"const": "win", "title": "Windows"},
                ]
            },
            "minItems": 1,
            "default": ["linux"],
        },
    },
    "required": ["name", "email", "strategy", "targets"],
}


RunBefore = Callable[[Pilot[Any]], Awaitable[None]]


def ready(
    ask: ElicitationAsk, *keys: str, theme: str = "acp-dark"
) -> tuple[Host, RunBefore]:
    """The host, and a `run_before` that arms the dialog, then presses `keys`."""
    screen = ElicitationScreen(ask, opener=lambda url: False)
    clock = FakeClock()
    screen.clock = clock
    app = Host(screen, theme)

    async def run_before(pilot: Pilot[Any]) -> None:
        await pilot.pause()
        for text in app.dialog.query(Input):
            text.cursor_blink = False
        await arm(app, clock)
        await pilot.press(*keys)
        await screen_settled(pilot)

    return app, run_before


RELEASE_ASK = ElicitationAsk(
    "Claude Code",
    "Before I tag the release, a few details.",
    "form",
    RELEASE,
    None,
    None,
)


def test_a_form_with_every_kind_of_field(snap_compare: SnapCompare) -> None:
    """120x36, acp-dark: "Claude Code asks" (the name in the accent colour), the
    message, then "Release name *  3-40 characters" with its description and
    "Ad" in the input, marked wrong ("Too short: at least 3 characters." in red
    under it); "Contact *  email address" (focused: an accent bar on its left,
    the placeholder name@example.com); "Replicas  whole number · 1 to 10 ·
    optional" holding 3; below, as far as the box allows (it scrolls), the
    "Notify the team" checkbox ticked and the Strategy radio list with
    Balanced picked. Send (green, ctrl+s), Decline, "Esc cancel" and the keys
    hint with "* required" at the bottom."""
    app, run_before = ready(RELEASE_ASK, "A", "d", "tab")
    assert snap_compare(app, terminal_size=(120, 36), run_before=run_before)


def test_a_form_in_the_light_theme(snap_compare: SnapCompare) -> None:
    """The same form and state in acp-light: dark text on a light box, the
    error in red, the focused field's bar in the accent colour."""
    app, run_before = ready(RELEASE_ASK, "A", "d", "tab", theme="acp-light")
    assert snap_compare(app, terminal_size=(120, 36), run_before=run_before)


def test_one_question_at_80x24(snap_compare: SnapCompare) -> None:
    """80x24: "claude-agent-acp asks", "Which approach do you want?", the
    Approach list with "(•) 1 Rewrite" picked and highlighted ("Start over"
    under it) and "( ) 2 Patch", the Other box below, and the hint "Press 1
    again or Enter to send “Rewrite”"."""
    ask = ElicitationAsk(
        "claude-agent-acp", "Which approach do you want?", "form", QUESTION, None, None
    )
    app, run_before = ready(ask, "1")
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


def test_a_url_with_warnings(snap_compare: SnapCompare) -> None:
    """100x30: "Demo asks you to open a web page", the message, "Address:" and
    the whole URL with its host xn--pple-43d.com in reverse video, "Site:
    xn--pple-43d.com (аpple.com)", three warnings (not HTTPS, the user name
    before "@", Punycode), the note that nothing opens until the user chooses,
    then "Open in browser  o" (focused), "Copy URL  c", "Decline  d", "Esc
    cancel" and the hint that a letter selects and the same key again or Enter
    chooses."""
    url = "http://github.com@xn--pple-43d.com/login/oauth?state=e1"
    ask = ElicitationAsk(
        "Demo", "Please authorize access to your repositories.", "url", None, url, "e1"
    )
    app, run_before = ready(ask)
    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)
