"""bench/gc_log.py: each collection logged with the gc_policy step that ran it."""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest

from acp_tui.ui import gc_policy

BENCH_DIR: Final = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH_DIR))
try:
    from gc_log import WHOLE, GcLog
finally:
    sys.path.remove(str(BENCH_DIR))


@pytest.fixture
def log(monkeypatch: pytest.MonkeyPatch) -> Iterator[GcLog]:
    # A collector of its own (untuned): the process-wide one keeps its state.
    monkeypatch.setattr(gc_policy, "_collector", gc_policy._Collector())
    frozen_before = gc.get_freeze_count()
    log = GcLog()
    log.install()
    try:
        yield log
    finally:
        log.uninstall()
        if not frozen_before:
            gc.unfreeze()  # what a logged `collect` froze


def test_a_collection_python_starts_is_tagged_python(log: GcLog) -> None:
    start = time.perf_counter()
    gc.collect(1)
    window = log.window(start, time.perf_counter())
    assert [(e.what, e.path) for e in window.events] == [("gen1", "python")]


def test_a_whole_heap_collection_names_the_policy_function_that_ran_it(
    log: GcLog,
) -> None:
    start = time.perf_counter()
    gc_policy._collector.over_limit = True
    assert gc_policy.collect_if_over_limit()
    window = log.window(start, time.perf_counter())
    steps = [(e.what, e.path) for e in window.events]
    assert steps == [
        ("gen2", f"{WHOLE}collect_if_over_limit"),
        ("collect", "collect_if_over_limit"),
    ]
    # The collection inside the step is the step's: counted once.
    collect = window.events[1]
    assert window.total_ms() == pytest.approx(window.young_ms + collect.ms)
    assert window.summary()["counts"] == {
        f"gen2:{WHOLE}collect_if_over_limit": 1,
        "collect:collect_if_over_limit": 1,
    }


def test_uninstall_puts_the_policy_back(log: GcLog) -> None:
    collector = gc_policy._collector
    assert "collect" in vars(collector)
    log.uninstall()
    assert "collect" not in vars(collector)
    assert log._callback not in gc.callbacks
    assert type(collector)._after_collection.__name__ == "_after_collection"
