"""The permission dialog fits claude-agent-acp's long option names.

Its options ("Yes, allow all edits during this session", "No, and tell Claude
what to do differently") do not fit in one row beside "Esc cancel" in a dialog at
most 90 columns wide: the row was cut. When one row cannot show them all, the
options stack, one per line, with "Esc cancel" on a line of its own; options that
fit stay in one row (`test_permission_snapshots`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Final

import pytest
from textual.pilot import Pilot

from acp_tui.client.ports import PermissionChoice, PermissionRequest, grant_scope
from acp_tui.store.values import JSONObject
from acp_tui.ui.screens.permission import KEY_IDLE, PermissionScreen
from tests.ui.helpers import wait_for
from tests.ui.test_markup_injection import screen_lines
from tests.ui.test_permission_screen import Host
from tests.unit.client.test_traffic import FakeClock

SnapCompare = Callable[..., bool]

REJECT: Final = PermissionChoice(
    "reject", "No, and tell Claude what to do differently", "reject_once"
)
EDIT_OPTIONS: Final = (
    PermissionChoice("allow-once", "Yes", "allow_once"),
    PermissionChoice(
        "allow-with-updates", "Yes, allow all edits during this session", "allow_always"
    ),
    REJECT,
)
"""What claude-agent-acp offers for a Write or an Edit."""
BASH_OPTIONS: Final = (
    PermissionChoice("allow-once", "Yes", "allow_once"),
    PermissionChoice(
        "allow-with-updates",
        "Yes, and don't ask again for this command",
        "allow_always",
    ),
    REJECT,
)
"""What it offers for a shell command."""

WRITE: Final[JSONObject] = {
    "type": "tool_call",
    "toolCall": {
        "toolCallId": "c1",
        "name": "Write",
        "kind": "edit",
        "title": "Write hello.py",
        "rawInput": {"file_path": "/p/hello.py", "content": "print('hello')\n"},
        "locations": [{"path": "/p/hello.py"}],
        "content": [
            {
                "type": "diff",
                "path": "/p/hello.py",
                "oldText": None,
                "newText": "print('hello')\n",
            }
        ],
    },
}
BASH: Final[JSONObject] = {
    "type": "tool_call",
    "toolCall": {
        "toolCallId": "c1",
        "name": "Bash",
        "kind": "execute",
        "title": "npm test",
        "rawInput": {"command": "npm test", "description": "Run the tests"},
    },
}


def dialog(
    subject: JSONObject, options: tuple[PermissionChoice, ...]
) -> tuple[Host, FakeClock]:
    call = subject["toolCall"]
    title = str(call["title"]) if isinstance(call, dict) else ""
    bare = PermissionRequest("s", "p", title, None, subject, options, "c1")
    screen = PermissionScreen(replace(bare, grant=grant_scope(bare)))
    clock = FakeClock()
    screen.clock = clock
    return Host(screen), clock


async def arm(pilot: Pilot[None], app: Host, clock: FakeClock) -> None:
    await pilot.pause()
    clock.now += KEY_IDLE + 1
    await pilot.press("x")  # no option's key: it only arms the dialog
    await wait_for(pilot, lambda: app.dialog.armed)


@pytest.mark.parametrize("size", [(120, 36), (80, 24)])
@pytest.mark.parametrize(
    ("subject", "options"), [(WRITE, EDIT_OPTIONS), (BASH, BASH_OPTIONS)]
)
async def test_every_option_and_esc_are_shown_whole(
    size: tuple[int, int], subject: JSONObject, options: tuple[PermissionChoice, ...]
) -> None:
    app, clock = dialog(subject, options)
    async with app.run_test(size=size) as pilot:
        await arm(pilot, app, clock)
        await pilot.pause()
        lines = screen_lines(app)
        for number, option in enumerate(options, start=1):
            label = f"{number} {option.name}"
            assert any(label in line for line in lines), (label, lines)
        assert any("Esc cancel" in line for line in lines), lines
        assert any("1 Yes  y" in line for line in lines), lines
        assert any("differently  n" in line for line in lines), lines
        # Still the dialog's keys: n selects the reject option, Esc cancels.
        await pilot.press("n")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.results == [None])


async def test_short_options_stay_in_one_row() -> None:
    short = (
        PermissionChoice("allow-once", "Yes", "allow_once"),
        PermissionChoice("reject", "No", "reject_once"),
    )
    app, clock = dialog(BASH, short)
    async with app.run_test(size=(80, 24)) as pilot:
        await arm(pilot, app, clock)
        lines = screen_lines(app)
        row = [line for line in lines if "1 Yes  y" in line]
        assert len(row) == 1
        assert "2 No  n" in row[0]
        assert "Esc cancel" in row[0]


@pytest.mark.snapshot
def test_claudes_long_options_stacked(snap_compare: SnapCompare) -> None:
    """Armed, 120x36: "Write hello.py" by Write (edit) on /p/hello.py, its diff
    (print('hello') added), the "always" line, then the options one per line,
    each whole: "1 Yes  y", "2 Yes, allow all edits during this session", "3 No,
    and tell Claude what to do differently  n", then "Esc cancel" on its own
    line, and the hint that a key selects and the same key again (or Enter)
    chooses."""
    app, clock = dialog(WRITE, EDIT_OPTIONS)

    async def armed(pilot: Pilot[None]) -> None:
        await arm(pilot, app, clock)

    assert snap_compare(app, terminal_size=(120, 36), run_before=armed)
