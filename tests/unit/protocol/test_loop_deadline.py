"""A frame due (`protocol.loop_deadline`): the read loop makes way for it on time.

The screen's frame timer sets the time its tick is due while it sleeps; a flood's
read loop ends its slice once that time has come and gives the event loop its
turns until the timer woke, never for a deadline left behind (`STALE`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from acp_tui.protocol import loop_deadline
from acp_tui.protocol.dispatcher import BUSY_TURNS
from tests.unit.protocol.test_dispatcher import lines_read_per_turn


@pytest.fixture(autouse=True)
def no_deadline_left() -> Iterator[None]:
    """Each test sets its own; none outlives it."""
    yield
    loop_deadline.clear(loop_deadline._due)


def test_a_deadline_counts_from_its_time_until_cleared_or_stale() -> None:
    loop_deadline.set_due(100.0)
    assert not loop_deadline.is_due(99.999)
    assert loop_deadline.is_due(100.0)
    assert loop_deadline.is_due(100.0 + loop_deadline.STALE / 2)
    assert not loop_deadline.is_due(100.0 + 1.01 * loop_deadline.STALE)  # left behind
    loop_deadline.clear(99.0)  # another tick's: this one stays
    assert loop_deadline.is_due(100.0)
    loop_deadline.clear(100.0)
    assert not loop_deadline.is_due(100.0)


async def test_a_due_frame_ends_the_slice_and_gets_the_turns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # (A stall of the machine must not make it stale in the middle of the test.)
    monkeypatch.setattr(loop_deadline, "STALE", 3600.0)
    loop_deadline.set_due(time.monotonic())
    seen = await lines_read_per_turn(4 * BUSY_TURNS)
    # One line between yields, each yield up to BUSY_TURNS turns while it is due:
    # a slice of reading (2 ms: hundreds of lines) would come between every two
    # quick turns otherwise.
    assert seen[-1] - seen[0] <= 5


async def test_a_deadline_left_behind_does_not_hold_the_reading(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(loop_deadline, "STALE", 3600.0)
    loop_deadline.set_due(time.monotonic() - 2 * 3600.0)
    seen = await lines_read_per_turn(4 * BUSY_TURNS)
    assert seen[-1] - seen[0] > 100  # a slice of reading between quick turns
