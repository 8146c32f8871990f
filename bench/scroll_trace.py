"""What fills the longest frame gaps while paging through the resumed long session.

Resumes bench/long_session.py's session of 100,000 updates in the headless app
(the collector policy installed, as a real run; with `--stream`, after the
warm-up and measured turns long_session.py streams first), then scrolls it
(long_session.py's `scroll`: PageUp to the top, PageDown to the end, each
bounded by `--budget` seconds) while it records:

* every garbage collection: its generation, when it started, its length
  (`gc.callbacks`, `time.perf_counter`) and what it freed;
* the main thread's stack every `SAMPLE_INTERVAL` seconds (`SIGALRM`; a
  collection holds its handler off, so it shows as a hole in the samples).

Printed: the collections by generation (count, total and largest), then each
gap between frames over `--over` ms with the collections that fall in it and
the stack lines sampled most in it. Two more views of the long gaps:

* `--phases`: the app's CPU time in each gap by part of a frame (arranging the
  screen, painting it, registering and styling new widgets, composing them,
  laying out markdown, building cards), each timed inclusively;
* `--profile-over MS`: a cProfile of the gaps over MS ms of CPU (the profiler
  roughly doubles it), printed by cumulative and own time, and saved with
  `--profile-out FILE` (for `pstats`: callers, callees).

And always the gaps with the most time off the CPU (wall minus this process's
CPU): what the process waited on in each (major page faults, blocking waits,
preemptions, file-system blocks: `getrusage` at every frame and every sample),
the modules imported and files opened in it (audit hooks), its causes as above
(with `--phases`), and where the samples that saw a page fault or a block
read were, and the stacks sampled most in it (the samples run on wall-clock
time, so a wait shows where it waited: `select` is the event loop idle).

Figures only: nothing is asserted.

Usage: `uv run python bench/scroll_trace.py [--budget S] [--over MS] [--stream]
[--phases | --profile-over MS [--profile-out FILE]]`
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import cProfile
import gc
import itertools
import os
import pstats
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, Final

from long_agent import LAST_TEXT
from long_session import (
    SIZE,
    STREAM_TURNS,
    UPDATES,
    RunDelays,
    agent,
    history_file,
    run_delay,
    scroll,
    stream_turn,
    warm_up,
)
from ui import Frames, Waits, describe_waits, replayed, waits_so_far

from acp_tui.storage.paths import HOME_ENV_VAR
from acp_tui.ui import gc_policy
from acp_tui.ui.agent_runner import SessionRequest
from acp_tui.ui.app import make_app
from acp_tui.ui.widgets.conversation import Conversation

SAMPLE_INTERVAL: Final = 0.003
STACK_DEPTH: Final = 40


@dataclass
class Collection:
    generation: int
    start: float
    seconds: float
    cpu: float
    collected: int
    callbacks: float
    """Seconds the callbacks after it took (the policy's: counts, a freeze)."""


class Recorder:
    """The collections, the main thread's sampled stacks (with what the process
    had waited on so far at each), and the imports and file opens, timestamped."""

    def __init__(self) -> None:
        self.collections: list[Collection] = []
        self.samples: list[tuple[float, tuple[str, ...], Waits]] = []
        self.imports: list[tuple[float, str]] = []
        self.opens: list[tuple[float, str]] = []
        self._started = self._started_cpu = self._collected = 0.0
        self._auditing = False

    def start(self) -> None:
        gc.callbacks.insert(0, self._on_gc_start)
        gc.callbacks.append(self._on_gc_stop)
        signal.signal(signal.SIGALRM, self._sample)
        signal.setitimer(signal.ITIMER_REAL, SAMPLE_INTERVAL, SAMPLE_INTERVAL)
        if not self._auditing:
            sys.addaudithook(self._audit)  # (for good: a hook cannot be removed)
        self._auditing = True

    def _audit(self, event: str, args: tuple[Any, ...]) -> None:
        if not self._auditing:
            return
        if event == "import":
            self.imports.append((time.perf_counter(), str(args[0])))
        elif (
            event == "open"
            and isinstance(args[0], str)
            and not args[0].startswith("/proc/")  # (the bench's own: `run_delay`)
        ):
            self.opens.append((time.perf_counter(), args[0]))

    def stop(self) -> None:
        self._auditing = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        gc.callbacks.remove(self._on_gc_start)
        gc.callbacks.remove(self._on_gc_stop)

    def _on_gc_start(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            self._started_cpu = time.process_time()
        else:
            self._collected = time.perf_counter()

    def _on_gc_stop(self, phase: str, info: dict[str, int]) -> None:
        # Last in `gc.callbacks`: the policy's own callback (a freeze, a count)
        # is inside the time measured.
        if phase == "stop":
            now = time.perf_counter()
            self.collections.append(
                Collection(
                    info["generation"],
                    self._started,
                    self._collected - self._started,
                    time.process_time() - self._started_cpu,
                    info.get("collected", 0),
                    now - self._collected,
                )
            )

    def _sample(self, signum: int, frame: FrameType | None) -> None:
        # A signal's handler runs in the main thread, between two of its
        # bytecodes: `frame` is what it runs (a thread reading another's
        # frames crashed this interpreter). A collection holds it off, so a
        # collection shows as a hole in the samples.
        self.samples.append((time.perf_counter(), stack(frame), waits_so_far()))


class GapProfiler:
    """A profile (cProfile) of the gaps between frames over `over` ms of CPU.

    Profiling runs from frame to frame; at each frame the profile of the gap
    just ended is kept (added to `kept`) if the gap took over `over` ms of this
    process's CPU time (profiled: the profiler itself roughly doubles it), and
    dropped otherwise. So `kept` says what the long gaps did, function by
    function, without the many short ones diluting it.
    """

    def __init__(self, frames: Frames, over: float) -> None:
        self.frames = frames
        self.over = over / 1000
        self.kept: pstats.Stats | None = None
        self.gaps = 0
        self._profile: cProfile.Profile | None = None
        self._cpu = 0.0

    def start(self) -> None:
        self.frames.on_frame = self._on_frame
        self._begin()

    def stop(self) -> None:
        self.frames.on_frame = None
        if self._profile is not None:
            self._profile.disable()
            self._profile = None

    def _begin(self) -> None:
        self._profile = cProfile.Profile()
        self._cpu = time.process_time()
        self._profile.enable()

    def _on_frame(self, now: float) -> None:
        profile = self._profile
        if profile is None:
            return
        profile.disable()
        if time.process_time() - self._cpu > self.over:
            self.gaps += 1
            if self.kept is None:
                self.kept = pstats.Stats(profile)
            else:
                self.kept.add(profile)
        self._begin()

    def report(self, lines: int, dump: str | None) -> None:
        print(f"\nprofile of the {self.gaps} gaps over {self.over * 1000:g} ms of CPU")
        if self.kept is not None:
            if dump:
                self.kept.dump_stats(dump)
            self.kept.sort_stats("cumulative").print_stats(lines)
            self.kept.sort_stats("tottime").print_stats(lines)


class Phases:
    """This process's CPU time in a few parts of a frame, gap by gap.

    Wraps synchronous methods (each timed inclusively, once however deeply it
    recurses) and snapshots the totals at each frame: what the longest gaps
    spent arranging, painting, composing, styling, laying out markdown.
    """

    def __init__(self, frames: Frames) -> None:
        self.frames = frames
        self.totals: dict[str, float] = collections.defaultdict(float)
        self.at_frames: list[tuple[float, dict[str, float]]] = []
        self._undo: list[tuple[object, str, object]] = []

    def wrap(self, owner: object, name: str, label: str) -> None:
        original = getattr(owner, name)
        totals = self.totals
        depth = [0]

        def timed(*args: object, **kwargs: object) -> object:
            if depth[0]:
                return original(*args, **kwargs)
            depth[0] += 1
            began = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                totals[label] += time.process_time() - began
                depth[0] -= 1

        self._undo.append((owner, name, original))
        setattr(owner, name, timed)

    def wrap_paint_by_class(self) -> None:
        """Time each widget's paint (`StylesCache.render_widget`) by its class."""
        from textual._styles_cache import StylesCache

        original = StylesCache.render_widget
        totals = self.totals

        def timed(cache: StylesCache, widget: Any, crop: Any) -> Any:
            began = time.process_time()
            try:
                return original(cache, widget, crop)
            finally:
                label = f"paint:{type(widget).__name__}"
                if label == "paint:ScrollBar":
                    label += f"<{type(widget.parent).__name__}"
                totals[label] += time.process_time() - began

        self._undo.append((StylesCache, "render_widget", original))
        StylesCache.render_widget = timed  # type: ignore[method-assign,assignment]

    def wrap_causes(self) -> None:
        """Time the one-off and policy work a long gap may hold (`CAUSES`)."""
        from acp_tui.terminal.emulator import TerminalEmulator
        from acp_tui.ui import app

        self.wrap(gc_policy._Collector, "recount", "recount")
        self.wrap(gc_policy._Collector, "collect", "heap")
        self.wrap(app, "warm_lexer", "warm")
        self.wrap(TerminalEmulator, "__init__", "terminal")

    def start(self) -> None:
        from textual import widget
        from textual._compositor import Compositor
        from textual.app import App
        from textual.css.stylesheet import Stylesheet

        from acp_tui.ui.widgets.markdown_view import MarkdownView

        self.wrap(Compositor, "_arrange_root", "arrange")
        self.wrap(Compositor, "_render_chops", "paint")
        self.wrap(App, "_register", "register")
        self.wrap(Stylesheet, "apply", "css")
        self.wrap(widget, "compose", "compose")
        self.wrap(MarkdownView, "_layout", "markdown")
        self.wrap(Conversation, "_build", "build")
        self.wrap_causes()
        self.wrap_paint_by_class()
        self.frames.on_frame = self._on_frame

    def stop(self) -> None:
        self.frames.on_frame = None
        for owner, name, original in reversed(self._undo):
            setattr(owner, name, original)

    def _on_frame(self, now: float) -> None:
        self.at_frames.append((now, dict(self.totals)))

    def spent(self, a: float, b: float) -> dict[str, float]:
        """Each part's CPU time between the frames at `a` and `b`."""
        before = after = None
        for t, totals in self.at_frames:
            if t <= a:
                before = totals
            if t <= b:
                after = totals
        if before is None or after is None:
            return {}
        return {k: after.get(k, 0.0) - before.get(k, 0.0) for k in after}

    def in_gap(self, a: float, b: float) -> str:
        """The parts' CPU time between the frames at `a` and `b`."""
        spent = self.spent(a, b)
        parts = ", ".join(
            f"{k} {1000 * v:.0f}" for k, v in sorted(spent.items()) if ":" not in k
        )
        painted = sorted(
            ((v, k) for k, v in spent.items() if ":" in k and v >= 0.0005),
            reverse=True,
        )
        if painted:
            parts += "\n   painted, ms of CPU: " + ", ".join(
                f"{k.split(':', 1)[1]} {1000 * v:.1f}" for v, k in painted[:8]
            )
        return parts


_LINES: dict[tuple[object, int], str] = {}
"""Each stack line made once: a sample allocates its tuple only, so the memory
the policy reads (`sys.getallocatedblocks`) grows little by sampling."""


def stack(frame: FrameType | None) -> tuple[str, ...]:
    lines: list[str] = []
    while frame is not None and len(lines) < STACK_DEPTH:
        code = frame.f_code
        line = _LINES.get((code, frame.f_lineno))
        if line is None:
            where = code.co_filename.rsplit("site-packages/", 1)[-1]
            where = where.rsplit("/acp_tui/", 1)[-1]
            line = _LINES[code, frame.f_lineno] = (
                f"{where}:{frame.f_lineno} {code.co_name}"
            )
        lines.append(line)
        frame = frame.f_back
    return tuple(lines)


def policy_state() -> str:
    c = gc_policy._collector
    return (
        f"frozen {gc.get_freeze_count():,} (baseline {c.baseline:,}, tenured "
        f"{c.tenured:,}, limit {c.limit:,}, over {c.over_limit}), in generation 2 "
        f"{len(gc.get_objects(generation=2)):,}, blocks {sys.getallocatedblocks():,}"
    )


def watch_whole_heap(start: float) -> None:
    """Print the policy's state before and after each collection of the heap."""
    c = gc_policy._collector
    original = c.collect

    def collect() -> None:
        print(
            f"collection of the heap at {time.perf_counter() - start:.1f} s: "
            f"{policy_state()}"
        )
        began = time.perf_counter()
        original()
        print(f"  took {1000 * (time.perf_counter() - began):.0f} ms: {policy_state()}")

    c.collect = collect  # type: ignore[method-assign]
    print(f"scroll starts: {policy_state()}")


def census() -> collections.Counter[str]:
    """The tracked objects by type, frozen ones included (they stay frozen)."""
    gc.unfreeze()
    try:
        return collections.Counter(type_name(o) for o in gc.get_objects())
    finally:
        gc.freeze()


def type_name(value: object) -> str:
    kind = type(value)
    return f"{kind.__module__.rsplit('.', 1)[-1]}.{kind.__qualname__}"


def holders(before: collections.Counter[str]) -> None:
    """Who holds a sample of the objects of the types that grew most."""
    gc.unfreeze()
    try:
        everything = gc.get_objects()
        for name in ("geometry.Region", "builtins.tuple", "builtins.list"):
            found = [o for o in everything if type_name(o) == name][-300:]
            held: collections.Counter[str] = collections.Counter()
            for value in found:
                for referrer in gc.get_referrers(value):
                    if referrer is found or referrer is everything:
                        continue
                    label = type_name(referrer)
                    if isinstance(referrer, dict):
                        owners = [
                            type_name(o)
                            for o in gc.get_referrers(referrer)
                            if o is not everything
                        ][:2]
                        label += f" of {owners}"
                    elif isinstance(referrer, (tuple, list)):
                        owners = [
                            type_name(o)
                            for o in gc.get_referrers(referrer)
                            if o is not everything and o is not found
                        ][:2]
                        label += f" in {owners}"
                    held[label] += 1
            print(f"  {name} (the last {len(found)}) held by:")
            for label, count in held.most_common(8):
                print(f"    {count:5} {label}")
    finally:
        gc.freeze()


CAUSES: Final = ("gc", "recount", "heap", "warm", "terminal", "turn")
"""What `tally_causes` counts in a long gap: collections (their CPU, the policy's
callbacks included), the policy's exact count of the frozen heap, a collection
of the whole heap, a lexer compiled ahead of use, the first terminal emulated
(pyte imported), the first 2 s after the scroll turned direction."""

CAUSE_MS: Final = 10.0
"""CPU milliseconds of a cause in a gap that count it as one of the gap's causes."""


def causes_in(
    recorder: Recorder,
    phases: Phases,
    a: float,
    b: float,
    gap_cpu: float,
    turned: float | None,
) -> dict[str, float]:
    """Each of `CAUSES`' CPU milliseconds between the frames at `a` and `b`."""
    spent = phases.spent(a, b)
    found: dict[str, float] = {
        k: spent.get(k, 0.0) * 1000 for k in CAUSES if k in spent
    }
    found["gc"] = 1000 * sum(c.cpu for c in recorder.collections if a <= c.start <= b)
    if turned is not None and turned <= a <= turned + 2.0:
        found["turn"] = gap_cpu * 1000
    return found


def tally_causes(
    recorder: Recorder,
    phases: Phases,
    gaps: list[tuple[float, float, float, float]],
    over: float,
    turned: float | None,
) -> None:
    """The gaps over `over` ms of wall or CPU time, counted by cause."""
    counts: collections.Counter[str] = collections.Counter()
    cpu: dict[str, float] = collections.defaultdict(float)
    worst: list[tuple[float, float, str]] = []
    long = [g for g in gaps if max(g[0], g[1]) * 1000 > over]
    for gap, gap_cpu, a, b in long:
        found = causes_in(recorder, phases, a, b, gap_cpu, turned)
        named = [k for k, ms in found.items() if ms >= CAUSE_MS]
        counts.update(named or ["frame work only"])
        for k, ms in found.items():
            cpu[k] += ms
        worst.append(
            (
                gap * 1000,
                gap_cpu * 1000,
                ", ".join(f"{k} {found[k]:.0f}" for k in named) or "-",
            )
        )
    print(
        f"causes of the {len(long)} gaps over {over:g} ms (wall or CPU), each with "
        f"{CAUSE_MS:g}+ ms of CPU: "
        + ", ".join(f"{k} {n}" for k, n in counts.most_common())
        + "; their CPU, ms: "
        + ", ".join(f"{k} {v:.0f}" for k, v in sorted(cpu.items(), key=lambda i: -i[1]))
    )
    for wall, on_cpu, label in sorted(worst, key=lambda w: -w[1])[:12]:
        print(f"   {wall:.0f} ms wall, {on_cpu:.0f} ms CPU: {label}")


WAITING_GAPS: Final = 12
"""How many of the gaps with the most time off the CPU `report_waits` prints."""


def report_waits(
    recorder: Recorder,
    frames: Frames,
    delays: RunDelays,
    start: float,
    end: float,
    phases: Phases | None,
    turned: float | None,
) -> None:
    """The gaps with the most time off this process's CPU, and what each waited on.

    Off the CPU: the gap's wall time less the CPU time of all this process's
    threads in it: waiting for a CPU (runnable, in a run queue: `RunDelays`,
    the machine's), or asleep: for the disk (a major page fault, a read), or
    idle (the event loop in `select`, nothing to do).
    """
    shown = zip(frames.times, frames.cpu, frames.waits, strict=True)
    points = [
        (t, c, w, delays.at.get(t, 0.0)) for t, c, w in shown if start <= t <= end
    ]
    if len(points) < 2:
        return
    gaps = [
        (b - a - (cb - ca), b - a, cb - ca, db - da, a, b, wa, wb)
        for (a, ca, wa, da), (b, cb, wb, db) in itertools.pairwise(points)
    ]
    first, last = points[0][2], points[-1][2]
    faulted = [g for g in gaps if g[7][0] > g[6][0] or g[7][3] > g[6][3]]
    print(
        f"\noff the CPU in {len(gaps)} gaps: {sum(g[0] for g in gaps):.1f} s in all "
        f"(wall {sum(g[1] for g in gaps):.1f} s), of it waiting for a CPU "
        f"{sum(g[3] for g in gaps):.1f} s; the scroll: "
        f"{describe_waits(first, last)}; {len(faulted)} gaps with a major fault or "
        f"a block read, {1000 * sum(g[0] for g in faulted):.0f} ms off the CPU in "
        f"them, the largest {max((g[1] for g in faulted), default=0) * 1000:.0f} "
        f"ms wall"
    )
    for label, index in (("wall", 1), ("off the CPU", 0), ("waiting for a CPU", 3)):
        worst = sorted((g[index] for g in gaps), reverse=True)[:8]
        print(
            f"  largest by {label}, ms: " + ", ".join(f"{1000 * v:.0f}" for v in worst)
        )
    samples = recorder.samples
    ranked = sorted(gaps, reverse=True)[:WAITING_GAPS]
    for off, wall, cpu, delay, a, b, wa, wb in ranked:
        print(
            f"-- {wall * 1000:.0f} ms wall, {cpu * 1000:.0f} ms CPU, "
            f"{off * 1000:.0f} ms off it ({delay * 1000:.0f} ms waiting for a "
            f"CPU), at {a - start:.1f} s: {describe_waits(wa, wb)}"
        )
        if phases is not None:
            found = causes_in(recorder, phases, a, b, cpu, turned)
            named = [f"{k} {ms:.0f}" for k, ms in found.items() if ms >= 1.0]
            print(f"   causes, ms of CPU: {', '.join(named) or '-'}")
        imported = [name for t, name in recorder.imports if a <= t <= b]
        if imported:
            print(f"   imported {len(imported)}: {', '.join(imported[:8])}")
        opened = [Path(name).name for t, name in recorder.opens if a <= t <= b]
        if opened:
            print(f"   opened {len(opened)}: {', '.join(opened[:8])}")
        inside = [i for i, s in enumerate(samples) if a <= s[0] <= b]
        waited: collections.Counter[str] = collections.Counter()
        leaves: collections.Counter[str] = collections.Counter()
        for i in inside:
            _, lines, waits = samples[i]
            leaves[" < ".join(lines[:3])] += 1
            if i and (
                waits[0] > samples[i - 1][2][0] or waits[3] > samples[i - 1][2][3]
            ):
                waited[" < ".join(lines[:4])] += 1
        print(f"   {len(inside)} samples; innermost:")
        for line, count in leaves.most_common(4):
            print(f"   {count:4} {line}")
        for line, count in waited.most_common(4):
            print(f"   {count:4} (a fault or block read since the last) {line}")


def report(
    recorder: Recorder,
    frames: Frames,
    start: float,
    end: float,
    over: float,
    phases: Phases | None = None,
    turned: float | None = None,
) -> None:
    by_generation: dict[int, list[Collection]] = collections.defaultdict(list)
    for c in recorder.collections:
        if start <= c.start <= end:
            by_generation[c.generation].append(c)
    for generation, made in sorted(by_generation.items()):
        lengths = [c.seconds * 1000 for c in made]
        after = [c.callbacks * 1000 for c in made]
        cpu = [c.cpu * 1000 for c in made]
        print(
            f"generation {generation}: {len(made)} collections, "
            f"{sum(lengths) / 1000:.2f} s in all, median "
            f"{statistics.median(lengths):.1f} ms, largest {max(lengths):.1f} ms; "
            f"callbacks {sum(after) / 1000:.2f} s, largest {max(after):.1f} ms; "
            f"CPU with them {sum(cpu) / 1000:.2f} s, largest {max(cpu):.1f} ms"
        )
    points = [(start, 0.0)] + [
        (t, c)
        for t, c in zip(frames.times, frames.cpu, strict=True)
        if start < t <= end
    ]
    gaps = [(b - a, cb - ca, a, b) for (a, ca), (b, cb) in itertools.pairwise(points)]
    gaps = gaps[1:]  # the first has no CPU time at its start
    print(
        f"{len(gaps)} gaps: largest {max(gaps)[0] * 1000:.0f} ms, median "
        f"{statistics.median(g[0] for g in gaps) * 1000:.0f} ms; over {over:g} ms: "
        f"{sum(1 for g in gaps if g[0] * 1000 > over)}; largest CPU in one "
        f"{max(g[1] for g in gaps) * 1000:.0f} ms; over {over:g} ms of CPU: "
        f"{sum(1 for g in gaps if g[1] * 1000 > over)}"
    )
    long = sorted((g for g in gaps if g[1] * 1000 > over), reverse=True)
    if phases is not None and long:
        summed: collections.Counter[str] = collections.Counter()
        for _, _, a, b in long:
            summed.update(phases.spent(a, b))
        print(
            f"the {len(long)} gaps over {over:g} ms of CPU, by part (ms of CPU): "
            + ", ".join(f"{k} {1000 * v:.0f}" for k, v in summed.most_common(16))
        )
    if phases is not None:
        tally_causes(recorder, phases, gaps, over, turned)
    for gap, gap_cpu, a, b in long[:20]:
        inside = [c for c in recorder.collections if a <= c.start <= b]
        gc_ms = sum(c.seconds for c in inside) * 1000
        print(
            f"\n-- gap {gap * 1000:.0f} ms ({gap_cpu * 1000:.0f} ms CPU) at "
            f"{a - start:.1f} s; collections {gc_ms:.0f} ms: "
            + ", ".join(
                f"gen{c.generation} {c.seconds * 1000:.1f} ms + "
                f"{c.callbacks * 1000:.1f} ms (freed {c.collected})"
                for c in inside
                if c.seconds + c.callbacks > 0.001
            )
        )
        if phases is not None:
            print(f"   parts, ms of CPU: {phases.in_gap(a, b)}")
        samples = [s for t, s, _ in recorder.samples if a <= t <= b]
        ours: collections.Counter[str] = collections.Counter()
        leaves: collections.Counter[str] = collections.Counter()
        for sample in samples:
            leaves[" < ".join(sample[:3])] += 1
            for line in set(sample):
                if line.startswith("ui/") or "_compositor" in line:
                    ours[line] += 1
        print(f"   {len(samples)} samples; innermost:")
        for line, count in leaves.most_common(6):
            print(f"   {count:4} {line}")
        print("   ours and the compositor's:")
        for line, count in ours.most_common(8):
            print(f"   {count:4} {line}")


async def measure(
    budget: float,
    over: float,
    stream: bool,
    census_too: bool,
    profile_over: float | None,
    profile_out: str | None,
    with_phases: bool,
) -> None:
    os.environ[HOME_ENV_VAR] = tempfile.mkdtemp(prefix="acp-tui-trace-home-")
    app = make_app(
        agent(history_file(UPDATES)),
        "bench",
        cwd=Path(tempfile.mkdtemp(prefix="acp-tui-trace-cwd-")),
        init_timeout=30.0,
        tune_gc=True,
        request=SessionRequest("resume", "s1"),
    )
    frames = Frames(app)
    recorder = Recorder()
    async with app.run_test(headless=True, size=SIZE) as pilot:
        await replayed(app, frames, LAST_TEXT)
        await asyncio.sleep(1.0)
        if stream:
            await warm_up(app)
            for turn in range(STREAM_TURNS):
                await stream_turn(app, frames, f"t{turn}")
        before = census() if census_too else None
        profiler = GapProfiler(frames, profile_over) if profile_over else None
        if profiler is not None:
            profiler.start()
        phases = Phases(frames) if with_phases and profiler is None else None
        if phases is not None:
            phases.start()
        turned = None
        keyed = False
        driver = app._driver
        assert driver is not None
        process_message = driver.process_message

        def note_turn(message: Any) -> None:
            nonlocal turned, keyed
            if not keyed:  # the first key: a point to measure its gap from
                keyed = True
                now = time.perf_counter()
                frames.times.append(now)
                frames.cpu.append(time.process_time())
                frames.waits.append(waits_so_far())
                delays.at[now] = run_delay()
            if turned is None and getattr(message, "key", None) == "pagedown":
                turned = time.perf_counter()
            process_message(message)

        delays = RunDelays(frames)
        driver.process_message = note_turn  # type: ignore[method-assign]
        delays.start()
        recorder.start()
        watch_whole_heap(time.perf_counter())
        cpu = time.process_time()
        figures = await scroll(app, frames, budget)
        end = time.perf_counter() - 1.0  # scroll settles for a second
        recorder.stop()
        if profiler is not None:
            profiler.stop()
        if phases is not None:
            phases.stop()
        print(
            f"scrolled {figures.pages_up} up (top {figures.reached_top}), "
            f"{figures.pages_down} down (end {figures.reached_end}): largest gap "
            f"{figures.max_gap_ms:.0f} ms, median {figures.median_gap_ms:.0f} ms, "
            f"RSS after {figures.rss_mb:.0f} MB, CPU {time.process_time() - cpu:.1f} s"
        )
        print(f"at the end: {policy_state()}")
        conversation = app.query_one(Conversation)
        print(
            f"conversation: following {conversation.following}, scroll_y "
            f"{conversation.scroll_y} of {conversation.max_scroll_y}, earlier "
            f"{conversation.earlier_count}, {len(conversation.entries)} mounted, "
            f"{len(app.store.timeline()) if app.store is not None else 0} entries"
        )
        if before is not None:
            gc.collect()
            grown = census()
            grown.subtract(before)
            print(f"alive after a collection, grown while scrolling: {grown.total():,}")
            for name, count in grown.most_common(25):
                print(f"  {count:8,} {name}")
            holders(before)
        delays.stop()
        # From the first key: before it the app may idle (nothing to paint).
        report(recorder, frames, figures.started, end, over, phases, turned)
        report_waits(recorder, frames, delays, figures.started, end, phases, turned)
        if profiler is not None:
            profiler.report(60, profile_out)
        await pilot.pause()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--over", type=float, default=50.0)
    parser.add_argument("--stream", action="store_true")
    parser.add_argument("--census", action="store_true", help="what grew, by type")
    parser.add_argument(
        "--profile-over",
        type=float,
        metavar="MS",
        help="profile (cProfile) the gaps over MS ms of CPU, profiler included",
    )
    parser.add_argument("--profile-out", metavar="FILE", help="that profile's stats")
    parser.add_argument(
        "--phases", action="store_true", help="CPU time by part of a frame, per gap"
    )
    args: Any = parser.parse_args()
    asyncio.run(
        measure(
            args.budget,
            args.over,
            args.stream,
            args.census,
            args.profile_over,
            args.profile_out,
            args.phases,
        )
    )


if __name__ == "__main__":
    main()
