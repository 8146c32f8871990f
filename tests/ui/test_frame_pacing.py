"""Frames come a period after the last one, as soon as there is something new.

A screen paints from its update timer, paused after each frame and resumed when
something changed. Textual's timer ticks on a grid of periods and, resumed after
a tick of the grid went by, skips to the one after; the app's `FrameTimer` ticks
at once when a period has passed since its last tick, else when it has
(`pace_screen_updates` gives every screen one).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from textual import _time
from textual._context import active_app
from textual.screen import UPDATE_PERIOD

from acp_tui.protocol import loop_deadline
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

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.now = NOW
        self.slept: list[float] = []
        self.due: list[float] = []
        """`loop_deadline`'s tick due at each sleep."""
        monkeypatch.setattr(_time, "get_time", lambda: self.now)
        monkeypatch.setattr(_time, "sleep", self.sleep)

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.due.append(loop_deadline._due)
        self.now += seconds
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
        # While it slept, the read loop knew when the tick was due; not after.
        assert clock.due == [ticks[1] + UPDATE_PERIOD]
        assert loop_deadline._due == math.inf
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


async def test_a_frame_timer_stopped_in_its_sleep_leaves_no_deadline() -> None:
    running = SimpleNamespace(_exit=False, features=frozenset())
    token = active_app.set(running)  # type: ignore[arg-type]
    ticks: list[float] = []
    target: Any = Target()
    timer = FrameTimer(target, 3600.0, callback=lambda: ticks.append(0.0))
    timer._start()
    try:
        await until(lambda: loop_deadline._due != math.inf)  # ticked, now sleeps
        assert len(ticks) == 1
    finally:
        timer.stop()
        await until(lambda: loop_deadline._due == math.inf)
        active_app.reset(token)
    assert loop_deadline._due == math.inf


async def test_every_screen_of_the_app_paints_from_a_frame_timer(
    tmp_path: Path,
) -> None:
    app: AcpTuiApp = fake_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await opened(app, pilot)
        assert isinstance(app.screen._update_timer, FrameTimer)
