"""SVG snapshots of the session picker's folders and of the folder question.

Behaviour is in test_picker_folders.py. The picker is given the project's roots
and a fixed home directory, so the rows and the dialog read the same everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from acp_tui.client.session import SessionSummary
from acp_tui.ui.screens.session_picker import ConfirmFolderScreen, SessionPickerScreen
from tests.ui.helpers import wait_for
from tests.ui.test_picker_folders import HOME, PROJECT, SESSIONS
from tests.ui.test_screen_snapshots import (
    NOW,
    SIZE,
    ScreenHost,
    SnapCompare,
    picker_ready,
)


def host() -> ScreenHost:
    async def load() -> Sequence[SessionSummary]:
        return SESSIONS

    return ScreenHost(
        lambda: SessionPickerScreen(
            load, now=lambda: NOW, roots=(PROJECT, Path("/srv/shared")), home=HOME
        )
    )


def ready(*keys: str, asks: bool = False) -> Callable[[Pilot[Any]], Any]:
    """The picker loaded, `keys` pressed, and with `asks`, the question shown."""
    picked = picker_ready(*keys)

    async def run_before(pilot: Pilot[Any]) -> None:
        await picked(pilot)
        if asks:
            await wait_for(
                pilot, lambda: isinstance(pilot.app.screen, ConfirmFolderScreen)
            )
            await pilot.pause()

    return run_before


@pytest.mark.snapshot
def test_picker_marks_sessions_in_other_folders(snap_compare: SnapCompare) -> None:
    """The session picker of the project /home/ada/project (home /home/ada).

    Reviewer: below "+ New session", seven two-line rows. Each second line shows
    the session's folder in muted text, the home folder as "~": "~/project"
    (highlighted), "~/project/api", "~/other", "/", "~", "/srv/shared/docs" and
    "somewhere". Exactly the rows at "~/other", "/" and "~" end with
    " · other folder" in the warning colour (orange); the subfolder, the added
    folder /srv/shared/docs and the relative "somewhere" are not marked.
    """
    assert snap_compare(host(), terminal_size=SIZE, run_before=ready())


@pytest.mark.snapshot
def test_resuming_at_the_root_asks_first(snap_compare: SnapCompare) -> None:
    """The question shown on Enter on the session listed at "/".

    Reviewer: over the dimmed picker (filter "root"), a dialog with a thick
    orange border: a bold "Resume “At the root” in another folder?"; "The session
    was started in /, outside this project (/home/ada/project)."; "Resuming it
    moves this session there: acp-tui will let the agent read and write files
    under / and run commands there, instead of in /home/ada/project."; a bold red
    "⚠ / is the whole file system."; then an orange "Resume there (y)" button
    and a "Cancel (n)" button, which has the focus.
    """
    assert snap_compare(
        host(), terminal_size=SIZE, run_before=ready(*"root", "enter", asks=True)
    )
