"""SVG snapshots of the permission dialog (look only).

Behaviour is in test_permission_screen.py. The dialog's clock is frozen, so the
held state (options dimmed, the hint) and the armed state are both stable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from textual.pilot import Pilot

from acp_tui.client.ports import PermissionChoice, PermissionRequest, grant_scope
from acp_tui.store.values import JSONObject
from acp_tui.ui.screens.permission import KEY_IDLE, PermissionScreen
from tests.ui.test_permission_screen import Host
from tests.unit.client.test_traffic import FakeClock

pytestmark = pytest.mark.snapshot

SnapCompare = Callable[..., bool]
SIZE = (100, 30)

CLAUDE_OPTIONS = (
    PermissionChoice("allow-always", "Yes, and don't ask again", "allow_always"),
    PermissionChoice("allow-once", "Yes", "allow_once"),
    PermissionChoice("reject", "No", "reject_once"),
)


def dialog(title: str, subject: JSONObject) -> tuple[Host, FakeClock]:
    bare = PermissionRequest("s", "p", title, None, subject, CLAUDE_OPTIONS, "c1")
    screen = PermissionScreen(replace(bare, grant=grant_scope(bare)))
    clock = FakeClock()
    screen.clock = clock
    return Host(screen), clock


def test_a_held_dialog_for_a_piped_command(snap_compare: SnapCompare) -> None:
    """Just opened: "npm test | tee log" by Bash (execute), the line that
    acp-tui will ask again next time (the command has shell syntax: |), three
    dimmed options (1 Yes, and don't ask again, 2 Yes  y, 3 No  n) with "Esc
    cancel" beside them, and the hint that keys are held for a moment."""
    subject: JSONObject = {
        "type": "tool_call",
        "toolCall": {
            "toolCallId": "c1",
            "name": "Bash",
            "kind": "execute",
            "title": "npm test | tee log",
            "rawInput": {"command": "npm test | tee log", "description": "Tests"},
        },
    }
    app, _clock = dialog("npm test | tee log", subject)
    assert snap_compare(app, terminal_size=SIZE)


def test_an_armed_dialog_for_an_edit(snap_compare: SnapCompare) -> None:
    """Armed: "Edit src/app.py" by Edit (edit) on /p/src/app.py, the line saying
    "always" lets acp-tui allow exactly edits to /p/src/app.py by Edit for this
    session, the options lit (the first focused; "2 Yes  y", "3 No  n", "Esc
    cancel" beside them) and the hint "y, n or 1-3 selects; the same key again or
    Enter chooses · Esc cancels · p full paths" (the subject names a file)."""
    subject: JSONObject = {
        "type": "tool_call",
        "toolCall": {
            "toolCallId": "c1",
            "name": "Edit",
            "kind": "edit",
            "title": "Edit src/app.py",
            "rawInput": {"file_path": "/p/src/app.py", "old_string": "a"},
            "locations": [{"path": "/p/src/app.py"}],
        },
    }
    app, clock = dialog("Edit src/app.py", subject)

    async def armed(pilot: Pilot[None]) -> None:
        await pilot.pause()
        clock.now += KEY_IDLE + 1
        await pilot.press("x")  # no option's key: it only arms the dialog
        await pilot.pause()
        assert app.dialog.armed

    assert snap_compare(app, terminal_size=SIZE, run_before=armed)


def test_an_unknown_subject_listed_as_data(snap_compare: SnapCompare) -> None:
    """A `_vendor_subject` with a `command` field: "subject of unknown type
    '_vendor_subject'" and its fields (command, detail) as JSON values, not a
    "$" command line; acp-tui will ask again next time."""
    subject: JSONObject = {
        "type": "_vendor_subject",
        "command": "rm -rf ~",
        "detail": {"reason": "cleanup"},
    }
    app, _clock = dialog("Vendor request", subject)
    assert snap_compare(app, terminal_size=SIZE)


def test_an_armed_dialog_shows_the_edits_diff(snap_compare: SnapCompare) -> None:
    """A claude-agent-acp Edit as it asks over v1 (a `diff` item with `path`,
    `oldText`, `newText`): below the subject, a bordered unified diff of
    /p/src/app.py, `return 41` removed (red) and `return 42` added (green) with
    the lines around them; then the "always" line, the options lit, "2 Yes  y" and
    "3 No  n" with their keys, "Esc cancel" beside them, and the hint that a key
    selects and the same key again (or Enter) chooses."""
    old = "def answer():\n    '''The answer.'''\n    return 41\n\n\nprint(answer())\n"
    new = old.replace("41", "42")
    subject: JSONObject = {
        "type": "tool_call",
        "toolCall": {
            "toolCallId": "c1",
            "name": "Edit",
            "kind": "edit",
            "title": "Edit src/app.py",
            "rawInput": {
                "file_path": "/p/src/app.py",
                "old_string": "return 41",
                "new_string": "return 42",
            },
            "locations": [{"path": "/p/src/app.py"}],
            "content": [
                {
                    "type": "diff",
                    "path": "/p/src/app.py",
                    "oldText": old,
                    "newText": new,
                }
            ],
        },
    }
    app, clock = dialog("Edit src/app.py", subject)

    async def armed(pilot: Pilot[None]) -> None:
        await pilot.pause()
        clock.now += KEY_IDLE + 1
        await pilot.press("x")  # no option's key: it only arms the dialog
        await pilot.pause()
        assert app.dialog.armed

    assert snap_compare(app, terminal_size=(100, 40), run_before=armed)
