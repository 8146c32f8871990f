"""Helpers shared by the UI tests (Pilot), imported from here.

`wait_for` is the one way a UI test waits: it lets the app run until a condition
holds, bounded, and fails if it does not. A test that checks that something did
*not* happen first waits for something later that did, then asserts. Before a
snapshot, `screen_settled` waits until the screen has stopped changing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

__all__ = ["screen_settled", "wait_for"]

STEP = 0.01
"""Seconds the app runs between two looks at the condition."""

SETTLE_EVERY = 10
"""`wait_for` waits for the app to handle what it has queued (`Pilot.pause`)
before every so many looks; before the others it lets the app run `STEP`
seconds and brings the screen up to date, as `Pilot.pause` does after its wait.

`Pilot.pause` first hands each widget of the screen a callback and waits until
all have run: with the app's few dozen widgets about 2.5 ms of CPU, 18% of a
core while a test waits for an agent (10 ms steps), against 2% without it
(issue 28: the machine is saturated while the suite runs, so that CPU is time).
The app runs all the while either way: what is queued is handled as the event
loop gets to it, and a condition that depends on it holds at a later look."""

QUIET = 0.1
"""Seconds the screen must stay the same to count as settled."""


async def wait_for(
    pilot: Pilot[Any],
    condition: Callable[[], bool],
    bound: float = 10.0,
    describe: Callable[[], str] | None = None,
) -> None:
    """Let the app run until `condition` holds (for about `bound` seconds at most).

    The app runs `STEP` seconds between two looks; before every `SETTLE_EVERY`th
    look it first handles what it has queued (`Pilot.pause`). Once the condition
    holds, the app handles what it has queued before this returns, as it had
    before every look when each wait was a `Pilot.pause`: what a test does next
    meets no handler still pending from before (a message posted with the state
    the condition saw, such as the pane's `SessionStarted` with the store).
    If it never holds, the failure says what `describe` returns then.
    """
    settled = True
    for look in range(round(bound / STEP)):
        if condition():
            if not settled:
                await pilot.pause()
            return
        settled = look % SETTLE_EVERY == SETTLE_EVERY - 1
        if settled:
            await pilot.pause(STEP)
        else:
            await asyncio.sleep(STEP)
            pilot.app.screen._on_timer_update()  # as `Pilot.pause` ends
    state = f": {describe()}" if describe is not None else ""
    raise AssertionError(f"condition not met in time{state}")


async def screen_settled(pilot: Pilot[Any], bound: float = 10.0) -> None:
    """Let the app run until its screen stops changing (at most about `bound` s).

    Animations finish first; then the screen counts as settled once the same
    picture has been on it for `QUIET` seconds (any change starts that over).
    The bound counts looks, `STEP` seconds apart at least, as `wait_for` does:
    on a loaded machine each look takes longer (a screenshot, a frame), and a
    screen still changing for good reason (a window balancing one card a
    frame, its scrollbar moving) gets as many looks as on an idle one.
    """
    await pilot.wait_for_scheduled_animations()
    loop = asyncio.get_running_loop()
    picture = pilot.app.export_screenshot()
    since = loop.time()
    for _ in range(round(bound / STEP)):
        await pilot.pause(STEP)
        now = pilot.app.export_screenshot()
        if now != picture:
            picture, since = now, loop.time()
        elif loop.time() - since >= QUIET:
            return
    raise AssertionError("the screen did not settle in time")
