"""Frames come a period after the last one, as soon as there is something new.

A screen paints from its update timer, paused after each frame and resumed when
something changed. Textual's timer ticks on a grid of periods and, resumed after
a tick of the grid went by, skips to the one after; the app's `FrameTimer` ticks
at once when a period has passed since its last tick, else when it has
(`pace_screen_updates` gives every screen one).
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from textual import _time
from textual._context import active_app
from textual.screen import UPDATE_PERIOD

from acp_tui.ui.app import AcpTuiApp
from acp_tui.ui.textual_private import FrameTimer
from tests.ui.test_pane_updates import (
    SIZE,
    fake_app,
    opened,
)

NOW = 1000.0


class Target:
    """What the timer is for (it keeps a weak reference)."""


class Clock:
    """Textual's clock, read and slept on by hand."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, late: float = 0.0) -> None:
        self.now = NOW
        self.late = late
        """How late every sleep wakes (a busy loop's other steps run first)."""
        self.slept: list[float] = []
        monkeypatch.setattr(_time, "get_time", lambda: self.now)
        monkeypatch.setattr(_time, "sleep", self.sleep)

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds + self.late
        await asyncio.sleep(0)


async def until(condition: Callable[[], bool]) -> None:
    """Let the loop turn until `condition` holds (a bounded number of turns)."""
    for _ in range(1_000):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("the timer never got there")


async def test_a_frame_timer_ticks_a_period_after_its_last_tick_at_the_soonest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Clock(monkeypatch)
    running = SimpleNamespace(_exit=False, features=frozenset())
    token = active_app.set(running)  # type: ignore[arg-type]
    ticks: list[float] = []

    def tick() -> None:  # as a screen's update: paint, then pause
        ticks.append(clock.now)
        timer.pause()

    target: Any = Target()  # (a weak reference: kept alive here)
    timer = FrameTimer(target, UPDATE_PERIOD, callback=tick, pause=True)
    timer._start()
    try:
        timer.resume()
        await until(lambda: len(ticks) == 1)  # the first tick: at once
        # Two periods later something changed: painted at once, no sleep (where
        # Textual's timer would have slept to the tick after its next one).
        clock.now += 2 * UPDATE_PERIOD
        timer.resume()
        await until(lambda: len(ticks) == 2)
        assert ticks == [NOW, NOW + 2 * UPDATE_PERIOD]
        assert clock.slept == []
        # A third of a period later: it waits for the rest of the period.
        clock.now += UPDATE_PERIOD / 3
        timer.resume()
        await until(lambda: len(ticks) == 3)
        assert clock.slept == [pytest.approx(UPDATE_PERIOD * 2 / 3)]
        assert ticks[2] == pytest.approx(ticks[1] + UPDATE_PERIOD)
        # Paused, it does not tick, whatever the time.
        clock.now += 10 * UPDATE_PERIOD
        for _ in range(20):
            await asyncio.sleep(0)
        assert len(ticks) == 3
        # Reset right after a tick: the next tick comes at once all the same.
        clock.now = ticks[2]
        timer.reset()
        await until(lambda: len(ticks) == 4)
        assert ticks[3] == ticks[2]
        assert len(clock.slept) == 1
    finally:
        timer.stop()
        active_app.reset(token)


@pytest.mark.parametrize("late", [0.003, 0.010])
async def test_a_frame_timer_asks_to_be_woken_as_early_as_its_wakes_come_late(
    monkeypatch: pytest.MonkeyPatch, late: float
) -> None:
    clock = Clock(monkeypatch, late)
    running = SimpleNamespace(_exit=False, features=frozenset())
    token = active_app.set(running)  # type: ignore[arg-type]
    ticks: list[float] = []

    def tick() -> None:  # something new every time: resumed at once
        ticks.append(clock.now)

    target: Any = Target()
    timer = FrameTimer(target, UPDATE_PERIOD, callback=tick)
    timer._start()
    try:
        await until(lambda: len(ticks) == 40)
    finally:
        timer.stop()
        active_app.reset(token)
    spacing = [b - a for a, b in itertools.pairwise(ticks)]
    assert spacing[0] == pytest.approx(UPDATE_PERIOD + late)  # nothing learnt yet
    # Learnt: a period apart, or as close as it may ask to be woken early.
    early = min(late, UPDATE_PERIOD * FrameTimer.MAX_EARLY)
    assert spacing[-1] == pytest.approx(UPDATE_PERIOD + late - early, abs=1e-4)
    assert min(spacing) >= UPDATE_PERIOD - 1e-9  # never sooner than a period


async def test_every_screen_of_the_app_paints_from_a_frame_timer(
    tmp_path: Path,
) -> None:
    app: AcpTuiApp = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await opened(app, pilot)
        assert isinstance(app.screen._update_timer, FrameTimer)
