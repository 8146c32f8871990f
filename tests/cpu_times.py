"""The CPU time each test took, beside pytest's wall-clock durations (issue 28).

`--durations` lists wall-clock time, which on a loaded machine says more about
what ran beside a test than about the test: in fresh-clone CI (4 workers on 2
cores) tests/fuzz/test_replay.py's v1 test took 12.9 s in one run and 42.7 s in
a later one, yet its process used the same CPU time before and after the
merges in between (about 10 s, `-n 0`, in the same session): the later run
handed it out at the start, beside the flood tests and the real agents
(tests/conftest.py's `interleaved`). So each test's call
records the CPU time its own process spent in it (`time.process_time()`: the
test process's threads; the agents and other subprocesses it starts are not
counted) as the `cpu_seconds` user property (it reaches the xdist controller
with the report), and the run ends with the `SLOWEST_BY_CPU` tests by CPU time,
each with its wall time, then the sums of both by directory and in all.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Iterable
from typing import Final

import pytest

CPU_PROPERTY: Final = "cpu_seconds"
"""The user property that carries the CPU time of a test's call."""

SLOWEST_BY_CPU: Final = 30
"""How many tests the summary lists, most CPU time first (as `--durations=30`)."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """Record the CPU time the test's call took in this process."""
    start = time.process_time()
    try:
        return (yield)
    finally:
        spent = time.process_time() - start
        item.user_properties.append((CPU_PROPERTY, round(spent, 3)))


def cpu_times(reports: Iterable[object]) -> list[tuple[float, float, str]]:
    """(CPU seconds, wall seconds, node id) of each test call that recorded one."""
    found: list[tuple[float, float, str]] = []
    for report in reports:
        if not isinstance(report, pytest.TestReport) or report.when != "call":
            continue
        for name, value in report.user_properties:
            if name == CPU_PROPERTY and isinstance(value, float | int):
                found.append((float(value), report.duration, report.nodeid))
    return found


def directory(nodeid: str) -> str:
    """The directory a test's file is in, as pytest names it (`tests/ui/`)."""
    path = nodeid.split("::", 1)[0]
    return path.rpartition("/")[0] + "/"


def summary_lines(
    times: list[tuple[float, float, str]], count: int = SLOWEST_BY_CPU
) -> list[str]:
    """The summary: the `count` largest CPU times, the sums by directory (most
    CPU first), then the sums of all."""
    lines = [
        f"{cpu:7.2f}s cpu {wall:7.2f}s wall  {nodeid}"
        for cpu, wall, nodeid in sorted(times, reverse=True)[:count]
    ]
    sums: dict[str, tuple[float, float]] = {}
    for cpu, wall, nodeid in times:
        cpu_in, wall_in = sums.get(directory(nodeid), (0.0, 0.0))
        sums[directory(nodeid)] = (cpu_in + cpu, wall_in + wall)
    lines += [
        f"{cpu:7.1f}s cpu {wall:7.1f}s wall  {name}"
        for name, (cpu, wall) in sorted(sums.items(), key=lambda s: -s[1][0])
    ]
    cpu_sum = sum(cpu for cpu, _, _ in times)
    wall_sum = sum(wall for _, wall, _ in times)
    lines.append(
        f"{cpu_sum:7.1f}s cpu {wall_sum:7.1f}s wall  in {len(times)} test calls "
        "(the test processes' own CPU time; agents and other subprocesses "
        "not counted)"
    )
    return lines


def write_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Write the summary at the end of the run, if any test recorded its time."""
    times = cpu_times(
        report for reports in terminalreporter.stats.values() for report in reports
    )
    if not times:
        return
    terminalreporter.write_sep("=", f"slowest {SLOWEST_BY_CPU} by CPU time")
    for line in summary_lines(times):
        terminalreporter.write_line(line)
