"""Whether the app stays responsive whatever an agent floods it with.

Runs the real app (`make_app`, headless 120x40, the garbage-collector policy of a
real run) against `tests/fakes/fault_agent.py`, whose exhaustion faults write as
fast as the pipe takes them, each in a fresh interpreter (`--child`):

* **message 5 / 20 / 200 MB**: one `agent_message_chunk` of that many bytes, words
  on one line without a line break (`huge-message size=N`);
* **plans 10,000**: 10,000 v2 `plan_update`s of 20 entries each, each a new
  `planId` (`plan-flood`), then F4 (the plan panel) once the turn has ended;
  and **one plan updated 10,000 times** (the same `planId`), then F4;
* **chunks 1 M**: 1,000,000 tiny `agent_message_chunk`s (`tiny-flood`).

While each runs, a thread types a key every `KEY_INTERVAL` (50 ms) into the
prompt the way a terminal does: through the driver (`Driver.process_message`,
from another thread, as Textual's input thread posts keys), so a key waits in
the app's queue exactly as long as a typed one would. For each scenario:

* **largest frame gap**: the longest time without a frame, from the prompt sent
  to the end (the app's CPU time within it beside it). Frames are timed by
  wrapping `App._display` on the instance, as bench/ui.py does; a responsive app
  paints at least every key (and every tick of the status bar's spinner).
* **key echo**: for each key, from its press to the first frame after the
  prompt took it (the keys are `x` and backspace in turn, each one edit of the
  prompt); the median and the maximum.
* **peak RSS** of the app's process (`ru_maxrss`), and its RSS before the prompt.
* **objects the garbage collector tracks** (`gc.get_objects()` plus the frozen
  ones) before the prompt, at the end, and alive at the end (what a full
  collection then leaves: what every later collection of the whole heap walks),
  and the full (generation 2) collections from the prompt to the end: how many,
  and how many of them walked the whole heap (the policy's forced or idle
  collection, `gc_policy`: its pause grows with the tracked objects).
* **time to finish**: from the prompt sent to the first frame showing the end of
  the flood (the text after the fault at the end of the message on screen; for
  the plans, the plan panel shown with the last plan, F4 pressed once the turn
  ended in the store), and to the turn's end in the store.

Goals (the issue): largest frame gap and key echo under 250 ms, peak RSS under
1 GB, in every scenario.

Each run is bounded by `--timeout` seconds (default 240: the million chunks take
about 150 s on a shared 2-core machine) from the prompt: a frozen
app cannot report, so a watchdog thread in the child reports what it has at the
deadline: the gap still open counts up to it and the keys still waiting count as
late as that, shown as `>= N` and "(timed out)". The agent's processes are killed
whatever happens. The load average is printed beside each scenario: the figures
are wall-clock times on a machine that may be shared; the app's CPU time in the
largest gap says how much of it was the app's own work.

Figures only: nothing is asserted. Usage:
`uv run python bench/exhaustion.py [--only NAME[,NAME]] [--timeout S] [--quick]
[--json FILE] [--sample-gaps] [--slow-steps] [--profile PREFIX]` (`--quick`: a
tenth of every size; `--sample-gaps`: what the event loop was doing in the
largest gaps; `--slow-steps`: the longest single steps of the event loop, each
named by where its task resumed and where it stopped; `--profile`: a CPU profile
of each run's app).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import cProfile
import gc
import itertools
import json
import mmap
import os
import resource
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

from _frames import largest_gap
from textual import events
from textual.document._document import EditResult
from textual.document._edit import Edit
from textual.screen import Screen
from ui import Frames

from acp_tui.protocol.transport import AgentCommand
from acp_tui.storage.paths import HOME_ENV_VAR
from acp_tui.ui import gc_policy
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.widgets.markdown_view import MarkdownView
from acp_tui.ui.widgets.plan_panel import PlanPanel
from acp_tui.ui.widgets.prompt_input import PromptInput

ROOT: Final = Path(__file__).resolve().parents[1]
FAULT_AGENT: Final = ROOT / "tests" / "fakes" / "fault_agent.py"
PIDS_ENV: Final = "FAULT_AGENT_PIDS"
"""The fault agent appends its pid and its child's to the file this names."""
SIZE: Final = (120, 40)
KEY_INTERVAL: Final = 0.05
AFTER: Final = "After the fault."
"""The fault agent's text after the flood (the end of the message)."""
GOAL_GAP: Final = 0.25
GOAL_ECHO: Final = 0.25
GOAL_RSS: Final = 1_000_000_000
MB: Final = 1_000_000
STATE_ENV: Final = "EXHAUSTION_STATE"
"""The file the child maps its `Shared` state into."""
REPORT_GRACE: Final = 20.0
"""Seconds past its deadline a child gets to report before the parent reads its
shared state and kills it."""
SAMPLE_ENV: Final = "EXHAUSTION_SAMPLE_GAPS"
"""With `--sample-gaps`, a thread samples the event loop's stack every
`SAMPLE_EVERY` while no frame has come for `SAMPLE_AFTER`: the report lists the
places seen most in long gaps (cProfile slows Python code several times over,
sampling barely)."""
SAMPLE_EVERY: Final = 0.01
SAMPLE_AFTER: Final = 0.1
STEPS_ENV: Final = "EXHAUSTION_SLOW_STEPS"
"""With `--slow-steps`, every run of an event-loop callback (a task's step, a
timer) that takes `STEP_NOTED` or more is noted: the largest frame gap is at
least the longest step, so these name what to split, and the steps in the
largest gap show what came between its two frames. A task's step is named by
where its coroutine resumed and where it stopped (its innermost frames)."""
SLOW_STEP: Final = 0.05
"""Steps this long are listed (the longest first)."""
STEP_NOTED: Final = 0.005
STEPS_KEPT: Final = 200_000
PROFILE_ENV: Final = "EXHAUSTION_PROFILE"
"""With `--profile PREFIX`, the child profiles the event loop's thread from the
prompt to the end (cProfile, in CPU time: on a loaded machine wall-clock times
mostly measure the wait for a CPU) into this file."""
ECHO_GRACE: Final = 2.0
"""Seconds the keys still in flight at the end get to show (within the deadline)."""


@dataclass(frozen=True)
class Scenario:
    """One flood: the fault agent's fault and options, and how it ends."""

    name: str
    fault: str
    options: tuple[str, ...]
    press_f4: bool = False

    def option(self, key: str) -> int:
        """An integer option (`size=`, `count=`, `ids=`), 0 if absent."""
        for option in self.options:
            name, _, value = option.partition("=")
            if name == key:
                return int(value)
        return 0

    @property
    def label(self) -> str:
        """What the flood is, in its actual size."""
        if self.fault == "huge-message":
            return f"message {self.option('size') / MB:g} MB"
        count = self.option("count")
        if self.fault == "plan-flood":
            if self.option("ids") == 1:
                return f"one plan updated {count:,} times + F4"
            return f"plans {count:,} + F4"
        return f"chunks {count:,}"

    def scaled(self, factor: float) -> Scenario:
        """The same flood with its size (`size=`, `count=`) times `factor`."""
        options = []
        for option in self.options:
            key, _, value = option.partition("=")
            if key in ("size", "count"):
                option = f"{key}={max(1, int(int(value) * factor))}"
            options.append(option)
        return Scenario(self.name, self.fault, tuple(options), self.press_f4)


SCENARIOS: Final = (
    Scenario("message-5MB", "huge-message", ("size=5000000",)),
    Scenario("message-20MB", "huge-message", ("size=20000000",)),
    Scenario("message-200MB", "huge-message", ("size=200000000",)),
    Scenario("plans-10k", "plan-flood", ("count=10000", "entries=20"), True),
    Scenario(
        "plans-10k-one", "plan-flood", ("count=10000", "entries=20", "ids=1"), True
    ),
    Scenario("chunks-1M", "tiny-flood", ("count=1000000",)),
)


# --- the child: one app, one flood ----------------------------------------------


@dataclass
class Result:
    """What one run measured (seconds and bytes)."""

    scenario: str
    timed_out: bool
    seconds: float | None
    """Prompt sent -> the end on screen (None: not reached)."""
    store_seconds: float | None
    """Prompt sent -> the turn's end in the store."""
    f4_seconds: float | None
    """F4 pressed -> the plan panel on screen with the last plan."""
    max_gap: float
    gap_cpu: float
    gap_open: bool
    """The largest gap was still open at the deadline (a frozen app)."""
    frames: int
    keys: int
    echoes: list[float]
    """Each key's echo latency (keys never echoed: up to the deadline)."""
    late_keys: int
    """Keys never echoed (counted in `echoes` up to the end)."""
    rss_before: int
    rss_peak: int
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)
    notes: list[str] = field(default_factory=list)
    tracked_before: int = 0
    """Objects the garbage collector tracked before the prompt (frozen included)."""
    tracked_end: int = 0
    """Objects the garbage collector tracked at the end (frozen included)."""
    alive_end: int = 0
    """... of which alive (left by a full collection after the figures)."""
    full_collections: int = 0
    """Full (generation 2) collections from the prompt to the end."""
    heap_collections: int = 0
    """Of which the policy's own (`gc_policy`), which walk the whole heap."""


def peak_rss() -> int:
    """This process's peak resident set size in bytes (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def tracked_objects() -> int:
    """Objects the garbage collector tracks now, the frozen ones included."""
    return len(gc.get_objects()) + gc.get_freeze_count()


class Collections:
    """Counts full collections (`gc.callbacks`), and the policy's among them."""

    def __init__(self) -> None:
        self.full = 0
        self.heap = 0
        self.counting = False
        gc.callbacks.append(self._on_collection)

    def _on_collection(self, phase: str, info: dict[str, int]) -> None:
        if self.counting and phase == "start" and info.get("generation") == 2:
            self.full += 1
            self.heap += gc_policy._collector.collecting


def current_rss() -> int:
    """This process's resident set size now (the peak where /proc is missing)."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return peak_rss()
    return pages * resource.getpagesize()


class Shared:
    """What the parent can read of a child that no longer answers: a small file
    mapped by both, holding the prompt's wall-clock time, the time of the last
    frame and the largest gap so far (seconds from the prompt), and the frames.

    A call that holds the interpreter (the GIL) for longer than the deadline
    keeps the child's own watchdog thread from reporting; the parent then reads
    this, and the peak RSS from /proc.
    """

    FORMAT: Final = "<dddq"

    def __init__(self, path: Path, *, create: bool) -> None:
        size = struct.calcsize(self.FORMAT)
        if create:
            path.write_bytes(bytes(size))
        self._file = open(path, "r+b")  # noqa: SIM115 (mapped while it runs)
        self._map = mmap.mmap(self._file.fileno(), size)
        self.last = 0.0
        self.gap = 0.0
        self.frames = 0

    def begin(self, wall: float) -> None:
        struct.pack_into(self.FORMAT, self._map, 0, wall, 0.0, 0.0, 0)

    def frame(self, at: float) -> None:
        """A frame `at` seconds after the prompt."""
        self.gap = max(self.gap, at - self.last)
        self.last = at
        self.frames += 1
        struct.pack_into("<ddq", self._map, 8, self.last, self.gap, self.frames)

    def read(self) -> tuple[float, float, float, int]:
        """(prompt wall time or 0, last frame, largest gap, frames)."""
        values = struct.unpack_from(self.FORMAT, self._map, 0)
        return (float(values[0]), float(values[1]), float(values[2]), int(values[3]))


class Probe:
    """Frames, keys and the end of a flood, seen from inside the app's process."""

    def __init__(self, app: AcpTuiApp, scenario: Scenario) -> None:
        self.app = app
        self.scenario = scenario
        frames = Frames(app)  # bench/ui.py's: times (and CPU times) frames
        self.times = frames.times
        self.cpu = frames.cpu
        frames.on_frame = self._on_frame
        self.edited: list[tuple[float, int]] = []
        """(frame time, edits) at each frame after the prompt was edited."""
        self.sent: list[float] = []
        """When each key was pressed (key i is the prompt's edit i + 1)."""
        self.edits = 0
        """Edits made to the prompt (each key typed makes one)."""
        self.prompt: PromptInput | None = None
        self.start = 0.0
        self.start_cpu = 0.0
        self.ended_at: float | None = None
        self.f4_at: float | None = None
        self.finished_at: float | None = None
        self.shared: Shared | None = None
        self.samples: list[tuple[float, str]] = []
        """(when, stack summary) sampled in long gaps (`--sample-gaps`)."""
        self.steps: collections.deque[tuple[float, float, float, str]] = (
            collections.deque(maxlen=STEPS_KEPT)
        )
        """(start, seconds, CPU seconds, what) of each step noted (`--slow-steps`)."""
        self.stop_typing = threading.Event()
        self.lock = threading.Lock()
        self.reported = False
        self.errors: list[str] = []
        """Exceptions the app met (Textual shows them and exits)."""
        handle = app._handle_exception

        def handle_exception(error: Exception) -> None:
            where = traceback.extract_tb(error.__traceback__)[-3:]
            self.errors.append(
                f"the app raised {error!r:.300} at "
                + " <- ".join(
                    f"{f.name} ({Path(f.filename).name}:{f.lineno})"
                    for f in reversed(where)
                )
            )
            handle(error)

        app._handle_exception = handle_exception  # type: ignore[method-assign]

    def _on_frame(self, now: float) -> None:
        if self.shared is not None and self.start:
            self.shared.frame(now - self.start)
        if self.prompt is not None:
            edits = self.edits
            if not self.edited or edits > self.edited[-1][1]:
                self.edited.append((now, edits))
        if self.finished_at is None and self.start and self.finished(self.app.screen):
            self.finished_at = now

    def finished(self, screen: Screen[object]) -> bool:
        """Whether this frame shows the end of the flood."""
        if self.scenario.press_f4:
            return self.f4_at is not None and self.plans_shown(screen)
        return self.ended_at is not None and after_on_screen(screen)

    def plans_shown(self, screen: Screen[object]) -> bool:
        store = self.app.store
        if store is None:
            return False
        plans = store.plans()
        if not plans:
            return False
        for widget in screen._compositor.visible_widgets:
            if isinstance(widget, PlanPanel):
                view = widget.plan_view(plans[-1].plan_id)
                return view is not None and view.plan is plans[-1]
        return False

    def sample_gaps(self, loop_thread: int) -> None:
        """Sample the loop's stack while frames are late (until typing stops)."""
        while not self.stop_typing.wait(SAMPLE_EVERY):
            last = self.times[-1] if self.times else self.start
            if time.perf_counter() - last < SAMPLE_AFTER:
                continue
            frame = sys._current_frames().get(loop_thread)
            if frame is None:
                continue
            stack = [
                (
                    f.f_code.co_filename,
                    f"{Path(f.f_code.co_filename).name}:{f.f_code.co_name}",
                )
                for f, _ in traceback.walk_stack(frame)
            ]
            inner = [place for _, place in stack[:3]]
            ours = [place for file, place in stack if "acp_tui" in file][:2]
            summary = " < ".join(inner) + " ... " + " < ".join(ours)
            self.samples.append((time.perf_counter(), summary))

    def watch_steps(self) -> None:
        """Note every event-loop step of `SLOW_STEP` or more (`--slow-steps`)."""
        run = asyncio.events.Handle._run
        steps = self.steps

        def where(task: object) -> str:
            """The innermost frames the task's coroutine is suspended in."""
            if not isinstance(task, asyncio.Task):
                return ""
            frames = []
            awaited: Any = task.get_coro()
            while awaited is not None:
                frame = getattr(awaited, "cr_frame", None) or getattr(
                    awaited, "gi_frame", None
                )
                if frame is not None:
                    frames.append(frame)
                awaited = getattr(awaited, "cr_await", None) or getattr(
                    awaited, "gi_yieldfrom", None
                )
            ours = [f for f in frames if "acp_tui" in f.f_code.co_filename] or [
                f for f in frames if "site-packages" in f.f_code.co_filename
            ]
            places = [
                f"{Path(f.f_code.co_filename).name}:{f.f_lineno} {f.f_code.co_name}"
                for f in (ours or frames)[-2:]
            ]
            return " < ".join(reversed(places)) or "(done)"

        def timed(handle: asyncio.events.Handle) -> None:
            callback = handle._callback  # type: ignore[attr-defined]
            task = getattr(callback, "__self__", None)
            resumed = where(task)
            started, cpu = time.perf_counter(), time.process_time()
            try:
                run(handle)
            finally:
                took = time.perf_counter() - started
                if took >= STEP_NOTED and self.start:
                    what = (
                        f"{task.get_name()}: from [{resumed}] to [{where(task)}]"
                        if isinstance(task, asyncio.Task)
                        else f"{callback!r:.150}"
                    )
                    steps.append((started, took, time.process_time() - cpu, what))

        asyncio.events.Handle._run = timed  # type: ignore[method-assign,assignment]

    def slow_steps(self, times: Sequence[float], end: float) -> list[str]:
        """The longest steps noted, then those in the largest gap (`--slow-steps`)."""
        steps = list(self.steps)
        if not steps:
            return []
        longest = sorted((s for s in steps if s[1] >= SLOW_STEP), key=lambda s: -s[1])[
            :8
        ]
        points = [self.start, *(t for t in times if self.start < t <= end), end]
        t0, t1 = max(itertools.pairwise(points), key=lambda pair: pair[1] - pair[0])
        inside = [s for s in steps if t0 <= s[0] < t1][:20]
        return [
            *(
                f"step {took * 1000:,.0f} ms (CPU {cpu * 1000:,.0f}): {what}"
                for _, took, cpu, what in longest
            ),
            *(
                f"in the largest gap, at +{(at - t0) * 1000:,.0f} ms: "
                f"{took * 1000:,.0f} ms {what}"
                for at, took, _, what in inside
            ),
        ]

    def sampled(self, times: Sequence[float], end: float) -> list[str]:
        """The places sampled most in the largest gap, then in all gaps."""
        if not self.samples:
            return []
        points = [self.start, *(t for t in times if self.start < t <= end), end]
        t0, t1 = max(itertools.pairwise(points), key=lambda pair: pair[1] - pair[0])
        worst = collections.Counter(w for t, w in self.samples if t0 <= t <= t1)
        every = collections.Counter(w for _, w in self.samples)
        return [
            *(f"largest gap: {n} samples in {w}" for w, n in worst.most_common(5)),
            *(f"all gaps: {n} samples in {w}" for w, n in every.most_common(5)),
        ]

    def watch_prompt(self, prompt: PromptInput) -> None:
        """Count the prompt's edits (wraps `edit` on the instance)."""
        edit = prompt.edit

        def counted(change: Edit) -> EditResult:
            result = edit(change)
            self.edits += 1
            return result

        prompt.edit = counted  # type: ignore[method-assign,assignment]
        self.prompt = prompt

    def type_keys(self) -> None:
        """Press a key every `KEY_INTERVAL` through the driver, as a terminal does.

        `x` and backspace in turn: each is one edit of the prompt, which stays
        short (a prompt of a thousand characters costs more per key than any
        user's).

        A key is timed from when it was due, not from when this thread got to
        send it: while the app holds the interpreter (a long call that keeps the
        GIL), the keys a user types wait in the terminal, and so they do here.
        """
        driver = self.app._driver
        assert driver is not None
        due = time.perf_counter()
        while not self.stop_typing.is_set():
            while due <= time.perf_counter():
                if len(self.sent) % 2:
                    key = events.Key("backspace", None)
                else:
                    key = events.Key("x", "x")
                self.sent.append(due)
                driver.process_message(key)
                due += KEY_INTERVAL
            self.stop_typing.wait(max(0.0, due - time.perf_counter()))

    def press(self, key: str) -> float:
        """Press one key through the driver; return when."""
        driver = self.app._driver
        assert driver is not None
        pressed = time.perf_counter()
        driver.process_message(events.Key(key, None))
        return pressed

    def echoes(self, end: float) -> tuple[list[float], int]:
        """Each key's latency to the frame showing it; keys not shown by `end`."""
        latencies: list[float] = []
        late = 0
        edited = list(self.edited)
        index = 0
        for number, sent in enumerate(list(self.sent), start=1):
            while index < len(edited) and edited[index][1] < number:
                index += 1
            if index < len(edited):
                latencies.append(max(0.0, edited[index][0] - sent))
            else:
                late += 1
                latencies.append(max(0.0, end - sent))
        return latencies, late

    def result(self, timed_out: bool, notes: Sequence[str] = ()) -> Result:
        """The figures so far (at the deadline: what a frozen app left)."""
        now = time.perf_counter()
        end = self.finished_at if self.finished_at is not None else now
        times, cpu = list(self.times), list(self.cpu)
        gap, gap_cpu = largest_gap(
            [*times, end] if timed_out else times,
            [*cpu, time.process_time()] if timed_out else cpu,
            self.start,
            self.start_cpu,
            end,
        )
        last = max([self.start, *(t for t in times if t <= end)])
        echoes, late = self.echoes(now)
        return Result(
            self.scenario.name,
            timed_out,
            None if self.finished_at is None else self.finished_at - self.start,
            None if self.ended_at is None else self.ended_at - self.start,
            None
            if self.f4_at is None or self.finished_at is None
            else self.finished_at - self.f4_at,
            gap,
            gap_cpu,
            timed_out and end - last >= gap,
            sum(1 for t in times if self.start <= t <= end),
            len(echoes),
            echoes,
            late,
            0,
            peak_rss(),
            os.getloadavg(),
            [
                *notes,
                *self.errors,
                *self.sampled(times, end),
                *self.slow_steps(times, end),
            ],
        )


def after_on_screen(screen: Screen[object]) -> bool:
    """Whether a visible agent message shows the text after the flood."""
    for widget in screen._compositor.visible_widgets:
        if isinstance(widget, MarkdownView):
            drawn = widget.rendered_tail_text()
            if drawn is not None and (
                AFTER in drawn.replace("\n", " ") or AFTER in drawn.replace("\n", "")
            ):
                return True
    return False


def report(result: Result) -> None:
    """Print the result as the child's last line of output."""
    sys.stdout.write(json.dumps(asdict(result)) + "\n")
    sys.stdout.flush()


def kill_agents() -> None:
    """Kill the fault agent and its child (their pids are in `PIDS_ENV`'s file)."""
    record = os.environ.get(PIDS_ENV)
    if not record or not os.path.exists(record):
        return
    with open(record, encoding="utf-8") as file:
        for pid in file.read().split():
            with contextlib.suppress(OSError, ValueError):
                os.kill(int(pid), signal.SIGKILL)


async def until(condition: Callable[[], bool], deadline: float) -> bool:
    """Poll `condition` until it holds (True) or the deadline passes (False)."""
    while not condition():
        if time.perf_counter() > deadline:
            return False
        await asyncio.sleep(0.005)
    return True


async def run(scenario: Scenario, cwd: Path, limit: float) -> None:
    """One app against one flood; report the figures and leave (`os._exit`)."""
    argv = (sys.executable, str(FAULT_AGENT), scenario.fault, "v2", *scenario.options)
    app = make_app(
        AgentCommand(argv=argv), "bench", cwd=cwd, init_timeout=30.0, tune_gc=True
    )
    probe = Probe(app, scenario)

    def finish(timed_out: bool, notes: Sequence[str] = ()) -> None:
        with probe.lock:
            if probe.reported:
                return
            probe.reported = True
        probe.stop_typing.set()
        gcs.counting = False
        result = probe.result(timed_out, notes)
        result.rss_before = rss_before
        result.tracked_before = tracked_before
        result.tracked_end = tracked_objects()
        gc.unfreeze()  # the process leaves next: the policy's state is no more needed
        gc.collect()
        result.alive_end = tracked_objects()
        result.full_collections = gcs.full
        result.heap_collections = gcs.heap
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(os.environ[PROFILE_ENV])
        report(result)
        kill_agents()
        os._exit(0)

    rss_before = tracked_before = 0
    gcs = Collections()
    profiler = (
        cProfile.Profile(time.process_time) if os.environ.get(PROFILE_ENV) else None
    )
    if os.environ.get(STEPS_ENV):
        probe.watch_steps()
    async with app.run_test(headless=True, size=SIZE):
        setup = time.perf_counter() + 30.0
        if not await until(lambda: app.store is not None, setup):
            raise TimeoutError("no session within 30 s")
        await asyncio.sleep(0.3)  # let start-up frames settle
        probe.watch_prompt(app.query_one(PromptInput))
        rss_before = current_rss()
        tracked_before = tracked_objects()
        watchdog = threading.Timer(limit, finish, args=(True,))
        watchdog.daemon = True
        typist = threading.Thread(target=probe.type_keys, daemon=True)
        probe.shared = Shared(Path(os.environ[STATE_ENV]), create=False)
        probe.shared.begin(time.time())
        probe.start = time.perf_counter()
        gcs.counting = True
        probe.start_cpu = time.process_time()
        deadline = probe.start + limit
        watchdog.start()
        typist.start()
        if os.environ.get(SAMPLE_ENV):
            threading.Thread(
                target=probe.sample_gaps, args=(threading.get_ident(),), daemon=True
            ).start()
        if profiler is not None:
            profiler.enable()
        app.runner.prompts.put_nowait((1, "go"))

        def turn_ended() -> bool:
            store = app.store
            return store is not None and store.state.turns_ended >= 1

        await until(turn_ended, deadline + 1)
        probe.ended_at = time.perf_counter()
        if scenario.press_f4:
            probe.f4_at = probe.press("f4")
        await until(lambda: probe.finished_at is not None, deadline + 1)
        probe.stop_typing.set()
        grace = min(deadline, time.perf_counter() + ECHO_GRACE)
        await until(lambda: probe.echoes(grace)[1] == 0, grace)
        finish(False)


def child(name: str, timeout: float, scale: float) -> None:
    scenario = next(s for s in SCENARIOS if s.name == name).scaled(scale)
    with tempfile.TemporaryDirectory(prefix="acp-tui-exhaust-cwd-") as tmp:
        asyncio.run(run(scenario, Path(tmp), timeout))


# --- the parent: one fresh process per scenario ------------------------------------


def vm_peak(pid: int) -> int:
    """A live process's peak RSS in bytes (`VmHWM`), 0 where unknown."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def unanswered(
    scenario: Scenario, shared: Shared, pid: int, timeout: float, why: str
) -> Result:
    """The figures of a child that could not report, read from outside it."""
    began, last, gap, frames = shared.read()
    elapsed = time.time() - began if began else timeout
    open_gap = elapsed - last
    # The typist presses a key within KEY_INTERVAL of the last frame, and no
    # frame has shown it since: it has waited at least this long.
    waited = max(0.0, open_gap - KEY_INTERVAL)
    return Result(
        scenario.name,
        True,
        None,
        None,
        None,
        max(gap, open_gap),
        0.0,
        open_gap >= gap,
        frames,
        1,
        [waited],
        1,
        0,
        vm_peak(pid),
        os.getloadavg(),
        [f"the app did not report ({why}): figures read from outside it"],
    )


def measure(
    scenario: Scenario,
    timeout: float,
    scale: float,
    profile: Path | None = None,
    sample: bool = False,
    steps: bool = False,
) -> Result:
    """Run one scenario in a fresh interpreter with its own home; kill leftovers.

    A child that has not reported `REPORT_GRACE` seconds after its deadline is
    held up inside a call that keeps the interpreter: its shared state and
    /proc give what it cannot say, and it is killed.
    """
    command = [
        sys.executable,
        __file__,
        "--child",
        scenario.name,
        "--timeout",
        str(timeout),
        "--scale",
        str(scale),
    ]
    with tempfile.TemporaryDirectory(prefix="acp-tui-exhaust-home-") as home:
        pids = Path(home) / "agent-pids"
        state = Path(home) / "state"
        shared = Shared(state, create=True)
        env = {
            **os.environ,
            HOME_ENV_VAR: home,
            PIDS_ENV: str(pids),
            STATE_ENV: str(state),
        }
        if profile is not None:
            env[PROFILE_ENV] = f"{profile}-{scenario.name}.prof"
        if sample:
            env[SAMPLE_ENV] = "1"
        if steps:
            env[STEPS_ENV] = "1"
        process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        launched = time.time()
        stuck: Result | None = None
        try:
            while True:
                try:
                    out, err = process.communicate(timeout=0.5)
                    break
                except subprocess.TimeoutExpired:
                    began = shared.read()[0]
                    late = (
                        time.time() > began + timeout + REPORT_GRACE
                        if began
                        else time.time() > launched + timeout + 60
                    )
                    if late:
                        why = "held past its deadline" if began else "no session"
                        stuck = unanswered(scenario, shared, process.pid, timeout, why)
                        process.kill()
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            if pids.exists():
                for pid in pids.read_text().split():
                    with contextlib.suppress(OSError, ValueError):
                        os.kill(int(pid), signal.SIGKILL)
    if stuck is not None:
        return stuck
    lines = out.strip().splitlines()
    if not lines or not lines[-1].startswith("{"):
        error = err.strip().splitlines()[-1:] or ["no output"]
        return Result(
            scenario.name, True, None, None, None, timeout, 0.0, True, 0, 0, [], 0,
            0, 0, os.getloadavg(), [f"no figures: {error[0]}"],
        )  # fmt: skip
    return Result(**json.loads(lines[-1]))


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT MET"


def milliseconds(seconds: float, open_ended: bool) -> str:
    text = f"{seconds * 1000:,.0f} ms"
    return f">= {text}" if open_ended else text


def summary(result: Result, label: str) -> dict[str, Any]:
    """The headline figures of one run, and whether each goal is met."""
    echoes = result.echoes
    echo_p50 = statistics.median(echoes) if echoes else None
    echo_max = max(echoes) if echoes else None
    return {
        "scenario": result.scenario,
        "label": label,
        "timed_out": result.timed_out,
        "seconds": result.seconds,
        "store_seconds": result.store_seconds,
        "f4_seconds": result.f4_seconds,
        "max_gap_ms": result.max_gap * 1000,
        "gap_cpu_ms": result.gap_cpu * 1000,
        "echo_p50_ms": None if echo_p50 is None else echo_p50 * 1000,
        "echo_max_ms": None if echo_max is None else echo_max * 1000,
        "keys": result.keys,
        "late_keys": result.late_keys,
        "rss_peak_mb": result.rss_peak / MB,
        "rss_before_mb": result.rss_before / MB,
        "load": list(result.load),
        "gap_ok": not result.timed_out and result.max_gap < GOAL_GAP,
        "echo_ok": (
            not result.timed_out
            and echo_max is not None
            and echo_max < GOAL_ECHO
            and not result.late_keys
        ),
        "rss_ok": 0 < result.rss_peak < GOAL_RSS,
        "tracked_before": result.tracked_before,
        "tracked_end": result.tracked_end,
        "alive_end": result.alive_end,
        "full_collections": result.full_collections,
        "heap_collections": result.heap_collections,
        "notes": result.notes,
    }


def print_result(scenario: Scenario, result: Result) -> dict[str, Any]:
    figures = summary(result, scenario.label)
    ended = (
        f"{result.seconds:.1f} s"
        if result.seconds is not None
        else f"not within {result.max_gap:.0f} s (timed out)"
        if result.gap_open
        else "not reached (timed out)"
    )
    if result.store_seconds is not None:
        ended += f" (turn ended in the store after {result.store_seconds:.1f} s)"
    if result.f4_seconds is not None:
        ended += f"; F4 -> panel shown {result.f4_seconds * 1000:,.0f} ms"
    load = " ".join(f"{value:.2f}" for value in result.load)
    print(f"{scenario.label} ({scenario.fault} {' '.join(scenario.options)}):")
    print(f"  finished: {ended}")
    gap = milliseconds(result.max_gap, result.gap_open)
    print(
        f"  largest frame gap {gap}, the app's CPU time in it "
        f"{result.gap_cpu * 1000:,.0f} ms, {result.frames:,} frames "
        f"(goal < 250 ms: {verdict(figures['gap_ok'])})"
    )
    if figures["echo_max_ms"] is not None:
        late = f", {result.late_keys} never shown" if result.late_keys else ""
        echo_max = milliseconds(figures["echo_max_ms"] / 1000, bool(result.late_keys))
        print(
            f"  key echo p50 {figures['echo_p50_ms']:,.0f} ms, max {echo_max} "
            f"({result.keys} keys{late}) (goal < 250 ms: "
            f"{verdict(figures['echo_ok'])})"
        )
    else:
        print("  key echo: no key was pressed (NOT MET)")
    when = " by the deadline" if result.timed_out else ""
    print(
        f"  peak RSS{when} {result.rss_peak / MB:,.0f} MB "
        f"({result.rss_before / MB:,.0f} MB before the prompt) "
        f"(goal < 1 GB: {verdict(figures['rss_ok'])})"
    )
    if result.tracked_end:
        print(
            f"  objects the garbage collector tracks: {result.tracked_before:,} "
            f"before the prompt, {result.tracked_end:,} at the end "
            f"({result.alive_end:,} alive); "
            f"{result.full_collections} full collections, "
            f"{result.heap_collections} of the whole heap"
        )
    print(f"  load average at the end: {load}")
    for note in result.notes:
        print(f"  note: {note}")
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help=f"run only these ({', '.join(s.name for s in SCENARIOS)})",
    )
    parser.add_argument("--timeout", type=float, default=240.0)
    parser.add_argument("--quick", action="store_true", help="a tenth of each size")
    parser.add_argument("--scale", type=float, default=1.0, help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--sample-gaps",
        action="store_true",
        help="sample the event loop's stack during long frame gaps",
    )
    parser.add_argument(
        "--slow-steps",
        action="store_true",
        help="name the longest single steps of the event loop",
    )
    parser.add_argument(
        "--profile",
        type=Path,
        metavar="PREFIX",
        help="profile each run's app (cProfile) into PREFIX-<scenario>.prof",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.timeout, args.scale)
        return
    scale = 0.1 if args.quick else args.scale
    names = {n.strip() for item in args.only or () for n in item.split(",")}
    unknown = names - {s.name for s in SCENARIOS}
    if unknown:
        parser.error(f"unknown scenario(s): {', '.join(sorted(unknown))}")
    chosen = [s for s in SCENARIOS if not names or s.name in names]
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    if scale != 1.0:
        print(f"(every flood at {scale:g} of its size)")
    print(
        f"acp-tui exhaustion bench: floods from tests/fakes/fault_agent.py (v2), "
        f"headless {SIZE[0]}x{SIZE[1]}, a key typed every "
        f"{KEY_INTERVAL * 1000:.0f} ms, "
        f"each run bounded by {args.timeout:g} s; load average {load} at the start\n"
    )
    rows = []
    for scenario in chosen:
        result = measure(
            scenario,
            args.timeout,
            scale,
            args.profile,
            args.sample_gaps,
            args.slow_steps,
        )
        rows.append(print_result(scenario.scaled(scale), result))
        print()
    met = all(r["gap_ok"] and r["echo_ok"] and r["rss_ok"] for r in rows)
    print(
        "every scenario: largest frame gap < 250 ms, key echo < 250 ms, peak RSS "
        f"< 1 GB: {verdict(met)}"
    )
    if args.json:
        args.json.write_text(json.dumps({"scenarios": rows, "met": met}, indent=1))


if __name__ == "__main__":
    main()
