"""Snapshots of the status bar with the context meter and the signed-in account.

The fake agent (`v2-full`, advertising `auth.status`) answers the prompt
`usage 92` with context usage at 92% of 200k tokens, a cost of 1.25 EUR and the
turn's end-turn usage.
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from tests.ui.helpers import wait_for
from tests.ui.test_app_snapshots import (
    SnapCompare,
    _home,
    app_for,
    connected,
    run,
    settled,
)

pytestmark = [pytest.mark.snapshot, pytest.mark.subprocess]

__all__ = ["_home"]


@pytest.fixture(autouse=True)
def _auth_status(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_AGENT_AUTH_STATUS", "1")


async def high_usage(pilot: Pilot[None]) -> None:
    app = await connected(pilot)
    await pilot.press(*"usage 92", "enter")
    store = app.store
    assert store is not None
    await wait_for(pilot, lambda: store.turn_usage is not None)
    await wait_for(pilot, lambda: store.state.turns_ended == 1)
    await settled(pilot, app)


def test_status_bar_with_the_context_meter(snap_compare: SnapCompare) -> None:
    """After the turn, at 110 columns: the status bar's right part, flush
    right, shows the meter `ctx ▰▰▰▰▰▰▰▱ 92% 184k/200k €1.25` in the bold warning
    colour (90% and up) and `signed in: ada@example.com`; the turn's tokens gave
    way so that the left part keeps the agent and its state, `idle (end_turn)`;
    the mode and model parts that do not fit are left out whole, not cut to a
    few letters."""
    assert snap_compare(
        app_for("v2-full"), terminal_size=(110, 34), run_before=run(high_usage)
    )


def test_status_bar_with_the_context_meter_wide(snap_compare: SnapCompare) -> None:
    """The same at 160 columns: everything fits, the left part whole (mode and
    model), the right part flush right with the turn's tokens `turn 53k tok`
    dimmed between the meter and the account."""
    assert snap_compare(
        app_for("v2-full"), terminal_size=(160, 34), run_before=run(high_usage)
    )
