"""Helpers shared by the UI tests (Pilot), imported from here.

`wait_for` is the one way a UI test waits: it lets the app run until a condition
holds, bounded, and fails if it does not. A test that checks that something did
*not* happen first waits for something later that did, then asserts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot

__all__ = ["wait_for"]

STEP = 0.01
"""Seconds the app runs between two looks at the condition."""


async def wait_for(
    pilot: Pilot[Any], condition: Callable[[], bool], bound: float = 10.0
) -> None:
    """Let the app run until `condition` holds (for about `bound` seconds at most)."""
    for _ in range(round(bound / STEP)):
        if condition():
            return
        await pilot.pause(STEP)
    raise AssertionError("condition not met in time")
