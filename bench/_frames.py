"""What bench/ui.py and bench/terminal.py both measure about the frames they see."""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence


def largest_gap(
    times: Sequence[float],
    cpu: Sequence[float],
    start: float,
    start_cpu: float,
    end: float,
) -> tuple[float, float]:
    """The longest time without a frame from `start` to the frame at `end`, and
    this process's CPU time within it.

    `times` and `cpu` are each frame's clock (`time.perf_counter`) and CPU time
    (`time.process_time`); `start_cpu` is the CPU time at `start`. Beside the
    gap's wall-clock length, the CPU time tells the app's own work from time the
    process waited for a CPU (a shared machine: the host's steal, other
    processes).
    """
    points = [(start, start_cpu)] + [
        (t, c) for t, c in zip(times, cpu, strict=True) if start < t <= end
    ]
    (t0, cpu0), (t1, cpu1) = max(
        itertools.pairwise(points), key=lambda pair: pair[1][0] - pair[0][0]
    )
    return t1 - t0, cpu1 - cpu0


def median_gap(times: Sequence[float], start: float, end: float) -> float:
    """The median time between frames from `start` to the frame at `end` (0 with
    no frame in it)."""
    points = [start, *(t for t in times if start < t <= end)]
    gaps = [b - a for a, b in itertools.pairwise(points)]
    return statistics.median(gaps) if gaps else 0.0
