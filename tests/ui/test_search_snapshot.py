"""SVG snapshot of the search bar with a match marked (80×24), against the fake agent.

Look only; behaviour is asserted in test_search.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from acp_tui.ui.pane_search import PaneSearch
from tests.ui.helpers import screen_settled, wait_for
from tests.ui.test_app_snapshots import SnapCompare, app_for, full_turn, run
from tests.ui.test_app_snapshots import _home as _snapshot_home

pytestmark = [pytest.mark.snapshot, pytest.mark.subprocess]

__all__ = ["_snapshot_home"]

SIZE = (80, 24)


def test_search_bar_with_a_marked_match(
    snap_compare: SnapCompare, tmp_path: Path
) -> None:
    """After a v2 turn, ctrl+f and "file.txt", then Enter: the search bar above
    the prompt reads "Find: file.txt" with "1 / 1" and "Aa" (at 80 columns the
    keys hint is left out, so the query keeps its room); the `ls` tool card is
    in view with "file.txt" in its terminal output drawn black on yellow. The
    conversation stays visible above the bar."""

    async def steps(pilot: Pilot[None]) -> None:
        app = await full_turn(pilot)
        await pilot.press("ctrl+f")
        pane = app.active_pane
        assert isinstance(pane, PaneSearch)
        await wait_for(pilot, lambda: pane.search_open)
        app.query_one("#search-input", Input).cursor_blink = False
        await pilot.press(*"file.txt")
        bar = pane.search_bar
        assert bar is not None
        await wait_for(pilot, lambda: bar.count_text == "1 found")
        await pilot.press("enter")
        await wait_for(pilot, lambda: bar.count_text == "1 / 1")
        await screen_settled(pilot)

    assert snap_compare(app_for("v2"), terminal_size=SIZE, run_before=run(steps))
