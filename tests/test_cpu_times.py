"""Each test's CPU time beside its wall time, and the slowest by CPU (issue 28)."""

from __future__ import annotations

import resource
import subprocess
import sys
from types import SimpleNamespace
from typing import Any, Literal

import pytest

from tests.cpu_times import (
    CPU_PROPERTY,
    cpu_times,
    pytest_runtest_call,
    summary_lines,
)

SPIN = """
import time
start = time.process_time()
while time.process_time() - start < 0.2:
    pass
"""
"""Code that spends 0.2 s of CPU time, run here or in a process of its own."""


def report(
    nodeid: str,
    when: Literal["setup", "call", "teardown"],
    duration: float,
    properties: list[tuple[str, object]],
) -> pytest.TestReport:
    return pytest.TestReport(
        nodeid,
        ("x.py", 1, nodeid),
        {},
        "passed",
        None,
        when,
        [],
        duration,
        user_properties=properties,
    )


def recorded(body: Any) -> float:
    """Run `body` as a test's call through the hook; the CPU time it recorded."""
    item: Any = SimpleNamespace(user_properties=[("other", 1)])
    call = pytest_runtest_call(item)
    next(call)
    body()
    with pytest.raises(StopIteration):
        call.send(None)
    kept, (name, value) = item.user_properties
    assert kept == ("other", 1)  # what the test had recorded stays
    assert name == CPU_PROPERTY
    assert isinstance(value, float)
    return value


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def test_a_call_records_its_own_cpu_time_not_its_subprocesses() -> None:
    assert recorded(lambda: exec(SPIN)) >= 0.2
    before = children_cpu()
    spent = recorded(lambda: subprocess.run([sys.executable, "-c", SPIN], check=True))
    assert children_cpu() - before >= 0.2
    assert spent < 0.1


def test_only_calls_with_a_cpu_time_are_listed_with_their_wall_time() -> None:
    reports = [
        report("a", "setup", 0.5, [(CPU_PROPERTY, 9.0)]),
        report("a", "call", 4.0, [("fuzz_examples", 10), (CPU_PROPERTY, 1.5)]),
        report("b", "call", 2.0, [("fuzz_examples", 10)]),
        report("c", "call", 3.0, [(CPU_PROPERTY, 2)]),
        SimpleNamespace(when="call", user_properties=[(CPU_PROPERTY, 5.0)]),
    ]
    assert cpu_times(reports) == [(1.5, 4.0, "a"), (2.0, 3.0, "c")]


def test_the_summary_lists_the_most_cpu_first_then_the_sums() -> None:
    a, c, d = "tests/ui/test_a.py::t[1]", "tests/test_c.py::t", "tests/ui/d.py::t"
    times = [(1.5, 4.0, a), (2.0, 3.0, c), (1.1, 0.5, d)]
    lines = summary_lines(times, count=2)
    assert [line.split()[-1] for line in lines[:2]] == [c, a]
    assert lines[0].split()[:4] == ["2.00s", "cpu", "3.00s", "wall"]
    # by directory, most CPU first
    assert [line.split() for line in lines[2:4]] == [
        ["2.6s", "cpu", "4.5s", "wall", "tests/ui/"],
        ["2.0s", "cpu", "3.0s", "wall", "tests/"],
    ]
    assert lines[4].split()[:5] == ["4.6s", "cpu", "7.5s", "wall", "in"]
    assert " 3 test calls " in lines[4]
    assert len(lines) == 5
