"""Time in the demo: the streaming pace and the clock, both injectable.

* `Pace` spaces out streamed chunks so that answers *look* streamed. The delay comes
  from `ACP_TUI_DEMO_DELAY` (seconds per chunk, default 0.02); tests set 0, which
  still yields to the event loop at every chunk, so cancellation stays prompt.
  Scenarios that must stay slow whatever the delay (`/long`, to be cancelled)
  wait at least their own minimum, scaled by `ACP_TUI_DEMO_FLOOR` (default 1;
  0 lets a test that only reads the result run them at full speed).
* `Clock` is the only source of wall-clock time, and it only ever fills
  timestamp fields (`updatedAt`). `ACP_TUI_DEMO_NOW` pins it to one instant
  (an ISO 8601 time), which makes a whole run byte-for-byte reproducible.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final, TypeAlias

import anyio
import anyio.lowlevel

__all__ = [
    "DEFAULT_DELAY",
    "DELAY_ENV",
    "FLOOR_ENV",
    "NOW_ENV",
    "Clock",
    "Pace",
    "clock_from_env",
    "delay_from_env",
    "floor_from_env",
    "timestamp",
]

DELAY_ENV: Final = "ACP_TUI_DEMO_DELAY"
FLOOR_ENV: Final = "ACP_TUI_DEMO_FLOOR"
NOW_ENV: Final = "ACP_TUI_DEMO_NOW"
DEFAULT_DELAY: Final = 0.02

Clock: TypeAlias = Callable[[], datetime]
"""Returns the current time (timezone-aware)."""


def delay_from_env() -> float:
    """`ACP_TUI_DEMO_DELAY` as seconds per chunk (invalid or negative: default)."""
    value = os.environ.get(DELAY_ENV, "")
    try:
        delay = float(value)
    except ValueError:
        return DEFAULT_DELAY
    return delay if delay >= 0 else DEFAULT_DELAY


def floor_from_env() -> float:
    """`ACP_TUI_DEMO_FLOOR`: the scale of the scenarios' minimum waits (default 1)."""
    try:
        floor = float(os.environ.get(FLOOR_ENV, "1"))
    except ValueError:
        return 1.0
    return floor if floor >= 0 else 1.0


def clock_from_env() -> Clock:
    """The system clock, or a fixed instant when `ACP_TUI_DEMO_NOW` is set."""
    value = os.environ.get(NOW_ENV)
    if value:
        try:
            fixed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            pass
        else:
            if fixed.tzinfo is None:
                fixed = fixed.replace(tzinfo=UTC)
            return lambda: fixed
    return lambda: datetime.now(UTC)


def timestamp(clock: Clock) -> str:
    """RFC 3339 UTC time to the second, e.g. `2026-01-02T03:04:05Z`."""
    return clock().astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True, slots=True)
class Pace:
    """The delay between streamed chunks."""

    delay: float = DEFAULT_DELAY
    floor: float = 1.0
    """The scale of each `tick`'s `minimum` (`ACP_TUI_DEMO_FLOOR`)."""

    async def tick(self, factor: float = 1.0, *, minimum: float = 0.0) -> None:
        """Wait one chunk's time (`delay * factor`, at least `minimum`)."""
        seconds = max(self.delay * factor, minimum * self.floor)
        if seconds > 0:
            await anyio.sleep(seconds)
        else:
            await anyio.lowlevel.checkpoint()
