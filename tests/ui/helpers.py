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

QUIET = 0.1
"""Seconds the screen must stay the same to count as settled."""


async def wait_for(
    pilot: Pilot[Any], condition: Callable[[], bool], bound: float = 10.0
) -> None:
    """Let the app run until `condition` holds (for about `bound` seconds at most)."""
    for _ in range(round(bound / STEP)):
        if condition():
            return
        await pilot.pause(STEP)
    raise AssertionError("condition not met in time")


async def screen_settled(pilot: Pilot[Any], bound: float = 10.0) -> None:
    """Let the app run until its screen stops changing (at most about `bound` s).

    Animations finish first; then the screen counts as settled once the same
    picture has been on it for `QUIET` seconds (any change starts that over).
    """
    await pilot.wait_for_scheduled_animations()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + bound
    picture = pilot.app.export_screenshot()
    since = loop.time()
    while loop.time() < deadline:
        await pilot.pause(STEP)
        now = pilot.app.export_screenshot()
        if now != picture:
            picture, since = now, loop.time()
        elif loop.time() - since >= QUIET:
            return
    raise AssertionError("the screen did not settle in time")
