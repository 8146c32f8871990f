"""Every garbage collection of a bench child, with what in the app's policy ran it.

`GcLog.install()` (before the app tunes its collector) adds a `gc.callbacks`
entry that times each collection (wall and this process's CPU), and wraps, on
the policy's one `_Collector` instance and class only (the product's code is
not changed), what runs or adds to a collection:

* `_Collector.collect` (the whole heap: unfreeze, collect, freeze, count),
  tagged with the policy function that called it (`collect_if_over_limit`,
  `collect_when_idle` <- `collect_if_quiet`, `collect_if_quiet`);
* `_Collector.collect_probation` (generation 2, not the frozen heap), tagged
  likewise (`collect_if_over_limit`, `collect_deferred`);
* `_Collector.recount` (`gc.get_freeze_count`: a walk of the frozen list);
* `_Collector._after_collection` (the policy's own callback: it counts
  generation 2 after young collections while streaming, and freezes and counts
  after full ones), timed and added to the collection it follows.

A collection no wrapper started is Python's own (an allocation passed a
threshold): tagged `python`. Young (generation 0) collections are only counted
and timed in total (thousands a turn); every other one is kept as a `GcEvent`.
Durations are wall time and this process's CPU time (`cpu_ms`: on a shared
machine a collection can be preempted, and its wall time is then the machine's).
About 2 us a collection: a 10,000-chunk turn has a few thousand.

`window(start, end)` summarises what fell between two `time.perf_counter()`
readings (a streamed turn).
"""

from __future__ import annotations

import functools
import gc
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from acp_tui.ui import gc_policy

WHOLE = "whole heap <- "
"""The path of the collection inside a `collect` step (timed by that step)."""


@dataclass
class GcEvent:
    at: float
    """`time.perf_counter()` when it started."""
    what: str
    """`gen0`/`gen1`/`gen2` (a collection), or `collect`, `recount` (the policy's
    steps, whole: a `collect` holds its own `gen2`)."""
    path: str
    """What started it (`python`: an allocation passed a threshold)."""
    ms: float
    cpu_ms: float
    collected: int = 0
    callback_ms: float = 0.0
    """The policy's callback after it (`_after_collection`), within `ms`."""
    callback_cpu_ms: float = 0.0
    """Its CPU time, within `cpu_ms`."""


@dataclass
class GcWindow:
    """What a `GcLog` saw between two times (a streamed turn)."""

    young: int = 0
    """Generation-0 collections."""
    young_ms: float = 0.0
    young_cpu_ms: float = 0.0
    events: list[GcEvent] = field(default_factory=list)
    """Everything else, in order."""

    def total_ms(self, cpu: bool = False) -> float:
        """Time (`cpu`: CPU time) in collections and the policy's steps (the
        policy's own steps hold their collections: counted once)."""
        return (self.young_cpu_ms if cpu else self.young_ms) + sum(
            e.cpu_ms if cpu else e.ms
            for e in self.events
            if not e.path.startswith(WHOLE) and e.path != "_after_collection"
        )

    def summary(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for e in self.events:
            key = f"{e.what}:{e.path}"
            counts[key] = counts.get(key, 0) + 1
        slow = [
            asdict(e)
            for e in self.events
            if e.cpu_ms >= 5.0 or e.what in ("collect", "recount")
        ]
        return {
            "young": self.young,
            "young_ms": round(self.young_ms, 1),
            "gc_ms": round(self.total_ms(), 1),
            "gc_cpu_ms": round(self.total_ms(cpu=True), 1),
            "counts": counts,
            "slow": slow,
        }


class GcLog:
    def __init__(self) -> None:
        self.events: list[GcEvent] = []
        self.young_at: list[float] = []
        self.young_ms: list[float] = []
        self.young_cpu_ms: list[float] = []
        self._path = "python"
        self._started = 0.0
        self._started_cpu = 0.0
        self._last: GcEvent | None = None
        self._undo: list[Callable[[], None]] = []

    # --- the collections ----------------------------------------------------------

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            self._started_cpu = time.process_time()
            return
        generation = info.get("generation", 0)
        ms = (time.perf_counter() - self._started) * 1000
        cpu_ms = (time.process_time() - self._started_cpu) * 1000
        if generation == 0:
            self.young_at.append(self._started)
            self.young_ms.append(ms)
            self.young_cpu_ms.append(cpu_ms)
            self._last = None
            return
        event = GcEvent(
            self._started,
            f"gen{generation}",
            self._path,
            ms,
            cpu_ms,
            info.get("collected", 0),
        )
        self.events.append(event)
        self._last = event

    def _timed_callback(self, original: Callable[..., None]) -> Callable[..., None]:
        def after_collection(
            collector: object, phase: str, info: dict[str, int]
        ) -> None:
            if phase != "stop":
                original(collector, phase, info)
                return
            started = time.perf_counter()
            started_cpu = time.process_time()
            original(collector, phase, info)
            spent = (time.perf_counter() - started) * 1000
            spent_cpu = (time.process_time() - started_cpu) * 1000
            last = self._last
            if last is not None:
                last.callback_ms += spent
                last.ms += spent
                last.callback_cpu_ms += spent_cpu
                last.cpu_ms += spent_cpu

        return after_collection

    # --- the policy's steps -------------------------------------------------------

    def _step(self, what: str, original: Callable[[], None]) -> Callable[[], None]:
        def step() -> None:
            caller = sys._getframe(1).f_code.co_name
            if caller == "collect_when_idle":
                caller = f"{caller}<-{sys._getframe(2).f_code.co_name}"
            outer = self._path
            self._path = f"{WHOLE}{caller}" if what == "collect" else caller
            started = time.perf_counter()
            started_cpu = time.process_time()
            try:
                original()
            finally:
                self._path = outer
                if what != "collect_probation":
                    self.events.append(
                        GcEvent(
                            started,
                            what,
                            caller,
                            (time.perf_counter() - started) * 1000,
                            (time.process_time() - started_cpu) * 1000,
                        )
                    )

        return step

    def install(self) -> None:
        """Start logging (before `tune_garbage_collector`, so its callback is timed)."""
        collector = gc_policy._collector
        cls = type(collector)
        original_callback = cls._after_collection
        cls._after_collection = self._timed_callback(original_callback)  # type: ignore[method-assign]
        self._undo.append(lambda: setattr(cls, "_after_collection", original_callback))
        for what in ("collect", "collect_probation", "recount"):
            setattr(collector, what, self._step(what, getattr(collector, what)))
            self._undo.append(functools.partial(delattr, collector, what))
        gc.callbacks.insert(0, self._callback)

    def uninstall(self) -> None:
        if self._callback in gc.callbacks:
            gc.callbacks.remove(self._callback)
        for undo in reversed(self._undo):
            undo()
        self._undo.clear()

    def window(self, start: float, end: float) -> GcWindow:
        """What started between `start` and `end` (`time.perf_counter()`)."""
        young = [
            (ms, cpu)
            for at, ms, cpu in zip(
                self.young_at, self.young_ms, self.young_cpu_ms, strict=True
            )
            if start <= at <= end
        ]
        return GcWindow(
            len(young),
            sum(ms for ms, _ in young),
            sum(cpu for _, cpu in young),
            [e for e in self.events if start <= e.at <= end],
        )

    def state(self) -> dict[str, Any]:
        """The policy's counters now (cheap: no walk of the heap)."""
        c = gc_policy._collector
        return {
            "tenured": c.tenured,
            "limit": c.limit,
            "check_at": c.check_at,
            "over_limit": c.over_limit,
            "on_probation": c.on_probation,
            "baseline": c.baseline,
            "gen_counts": list(gc.get_count()),
            "threshold": list(gc.get_threshold()),
            "blocks": sys.getallocatedblocks(),
        }
