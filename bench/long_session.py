"""Long sessions and typing while the agent streams, in the headless app.

Runs the real app (`make_app`, `run_test(headless=True, size=(120, 40))`, the
garbage-collector policy of a real run), each measurement in a fresh interpreter
(`--child`) with its own `ACP_TUI_HOME`, and prints:

* **Resume a session of 100,000 updates to interactive** (goal <= 2 s): the
  session is a recording of the agent's side (bench/long_agent.py
  `build_history`: 200 turns, about 1 M tokens of markdown in 2,200 agent
  messages, 2,200 tool calls of which 2,000 carry a diff, 200 terminals with
  their output), built once and cached under `CACHE` (keyed by
  `long_agent.HISTORY_VERSION` and the size). The app resumes it (`--session
  s1`, v2 `session/resume`); the agent replays the 100,000 lines as fast as
  the pipe takes them, then answers. Timed from building the app until the
  last replayed text is on screen and a key typed then shows in the prompt.
* **RSS** of the app's process after that resume (settled), and after streaming
  10,000 more chunks into the session (goal <= 300 MB both).
* **Streaming at the end of that session against a fresh session** in the same
  run: the same turn (bench/ui_agent.py's `stream`, 10,000 chunks and 500
  tool-call updates), prompt sent -> last chunk on screen, in chunks/s (goal:
  >= 0.8x the fresh rate). Each app first streams a 1,000-chunk turn
  (`warm_up`), so neither pays first-time costs in the measured ones, then
  streams the measured turn `STREAM_TURNS` (5) times: its rate is the median
  turn's (one turn is 0.15-0.4 s, too short a window on a shared machine).
* **Key echo while the agent streams 10,000 chunks** (goal p99 <= 50 ms, max
  <= 100 ms): a key typed every 50 ms through the driver, each timed to the
  frame showing it (bench/exhaustion.py's `Probe`, imported), in all five of
  the fresh session's measured turns (and, as a figure only, in the long
  session's).
* **Scrolling the long session top to bottom by page**: PageUp sent from the
  prompt `SCROLL_RATE` times a second (a key held down) until the top of the
  session is on screen (every earlier entry mounted, scroll offset 0) or
  `--scroll-budget` seconds pass, then PageDown back to the end likewise. The
  largest gap between frames over both (goal <= 100 ms), and how far it got.
* **Idle RSS with the demo agent connected** (goal <= 70 MB): the real `acp-tui`
  process on a pseudo-terminal (bench/idle_cli.py), not the headless harness;
  its own process only (the agent is a child), once the session is open and
  settled.
* **textual-speedups A/B** (`--speedups DIR` or `$ACP_TUI_BENCH_SPEEDUPS`, a
  directory holding the `textual_speedups` package, e.g. from `uv pip install
  --python .venv/bin/python --target DIR --no-deps textual-speedups`; it is not
  a dependency of the project): the fresh and long-session runs (resume and
  stream, no scrolling) with it on `PYTHONPATH` and with it off
  (`TEXTUAL_SPEEDUPS=0`), alternating.

`--repeat R` runs each measurement R times (alternating fresh and long); every
figure is printed per run, then its spread (min-max), and a goal is met only
when it holds in every run. The load average is printed with each run: the
machine may be shared, and every figure here is wall-clock time.

Figures only: nothing is asserted. With `--json FILE`, the figures are written
as one JSON object (bench/run_all.py reads it).

Each measured turn is also described (`describe_turns`): its rate, the main
thread's CPU time, the frames painted, the time it waited for a CPU and the CPU
in garbage collection; `--gc` adds every collection of the turn, with the step
of the app's policy that ran it (bench/gc_log.py), and the policy's counters
before it. `--json` keeps all of it per turn (`fresh_turns`, `long_turns`).

Usage: `uv run python bench/long_session.py [--repeat R] [--updates N]
[--scroll-budget S] [--speedups DIR] [--gc] [--json FILE]`
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

from exhaustion import Probe, Scenario, current_rss, peak_rss
from gc_log import GcLog
from idle_cli import idle_rss_mb
from long_agent import HISTORY_VERSION, LAST_TEXT, build_history
from textual import events
from ui import (
    Frames,
    describe_waits,
    last_text,
    on_screen,
    replayed,
    until,
    waits_so_far,
)

from acp_tui.protocol.transport import AgentCommand
from acp_tui.storage.paths import HOME_ENV_VAR
from acp_tui.ui.agent_runner import SessionRequest
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.widgets.conversation import Conversation
from acp_tui.ui.widgets.markdown_view import MarkdownView
from acp_tui.ui.widgets.prompt_input import PromptInput

BENCH: Final = Path(__file__).resolve().parent
AGENT: Final = BENCH / "long_agent.py"
SIZE: Final = (120, 40)
MB: Final = 1_000_000
CACHE: Final = (
    Path(os.environ["ACP_TUI_BENCH_CACHE"])
    if os.environ.get("ACP_TUI_BENCH_CACHE")
    else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    / "acp-tui-bench"
)
UPDATES: Final = 100_000
STREAM_CHUNKS: Final = 10_000
STREAM_TOOLS: Final = 500
STREAM_TURNS: Final = 5
"""Measured turns per app: its figures are their median (`combine`). One turn
streams for 0.15-0.4 s (by the machine), too short a window on a shared
machine: single turns of the same code swung 0.91-1.98x by CPU time against
each other. About one turn in six is slow (2026-12-05, a faster machine: 8 of
48 turns at 33,000-57,000 chunks/s against 62,000-69,000, each with more frames
and CPU): with three turns, two slow ones in the long session's app made a
run's ratio 0.70x (one run in five, twice); five need three slow."""
WARM_UP_CHUNKS: Final = 1_000
"""The turn each app streams before the measured one (`warm_up`)."""
SCROLL_RATE: Final = 30.0
"""Page keys per second while scrolling (a key held down)."""
SETTLE: Final = 1.0
"""Seconds the app is left idle before its RSS is read."""
CHILD_TIMEOUT: Final = 400.0
SPEEDUPS_ENV: Final = "ACP_TUI_BENCH_SPEEDUPS"
"""A directory holding `textual_speedups`: the default of `--speedups` (so
bench/run_all.py runs the A/B when it is set)."""
PROFILE_ENV: Final = "LONG_SESSION_PROFILE"
"""With `--profile PREFIX`, the long run's child profiles (cProfile, CPU time) the
resume into PREFIX-resume.prof and the stream into PREFIX-stream.prof."""

GOAL_RESUME_S: Final = 2.0
GOAL_RSS_MB: Final = 300.0
GOAL_STREAM_RATIO: Final = 0.8
GOAL_ECHO_P99_MS: Final = 50.0
GOAL_ECHO_MAX_MS: Final = 100.0
GOAL_SCROLL_GAP_MS: Final = 100.0
GOAL_IDLE_MB: Final = 70.0

_TYPIST: Final = Scenario("typing", "stream", ())
"""What exhaustion's `Probe` is told it watches (only its typing is used)."""


def history_file(updates: int) -> Path:
    """The cached recording of a session of `updates` updates (built if missing)."""
    path = CACHE / f"long-session-v{HISTORY_VERSION}-{updates}.jsonl"
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        counts = build_history(path, updates)
        print(
            f"(built the session once: {counts} in "
            f"{time.perf_counter() - started:.1f} s, cached at {path})"
        )
    return path


def agent(history: Path | None) -> AgentCommand:
    extra = ("--history", str(history)) if history is not None else ()
    return AgentCommand(argv=(sys.executable, str(AGENT), *extra))


# --- the child: one app --------------------------------------------------------


@dataclass
class StreamFigures:
    """One streamed turn, with keys typed every `KEY_INTERVAL` while it streams."""

    seconds: float
    """Prompt sent -> last chunk on screen."""
    rate: float
    """Chunks per second (`STREAM_CHUNKS / seconds`)."""
    max_gap_ms: float
    echoes_ms: list[float]
    late_keys: int
    rss_mb: float
    """RSS once the turn ended and the app settled."""
    cpu_s: float = 0.0
    """This process's CPU time from the prompt to the last chunk on screen: on a
    shared machine, far steadier than the wall-clock rate."""
    rates: list[float] = field(default_factory=list)
    """Each measured turn's rate, in order (`combine`)."""
    gc: dict[str, Any] = field(default_factory=dict)
    """The collections in the turn and in the settle after it (`GcLog`), and the
    policy's counters before it; per turn in `turns` once combined."""
    turns: list[dict[str, Any]] = field(default_factory=list)
    """Each measured turn's rate, CPU time and `gc` (`combine`)."""


def combine(turns: Sequence[StreamFigures]) -> StreamFigures:
    """`STREAM_TURNS` turns of one app as one figure.

    The time, rate and CPU time are the median turn's; the largest gap is the
    largest of all; every key typed counts; the RSS is read after the first turn
    (10,000 more chunks, as the goal says).
    """
    seconds = statistics.median(t.seconds for t in turns)
    return StreamFigures(
        seconds,
        STREAM_CHUNKS / seconds,
        max(t.max_gap_ms for t in turns),
        [e for t in turns for e in t.echoes_ms],
        sum(t.late_keys for t in turns),
        turns[0].rss_mb,
        statistics.median(t.cpu_s for t in turns),
        [t.rate for t in turns],
        turns=[{"rate": t.rate, "cpu_s": t.cpu_s, **t.gc} for t in turns],
    )


@dataclass
class ScrollFigures:
    pages_up: int
    pages_down: int
    reached_top: bool
    reached_end: bool
    unmounted_at_end: int
    """Timeline entries still without a widget when the upward scroll stopped."""
    mounted_max: int
    max_gap_ms: float
    median_gap_ms: float
    max_gap_cpu_ms: float
    """This process's CPU time within the largest gap (steadier than the gap on a
    shared machine: the rest is time it waited for a CPU)."""
    max_cpu_ms: float
    """The most CPU time within any one gap."""
    max_gap_waits: str
    """What the process waited on in the largest gap (`describe_waits`)."""
    max_gap_run_delay_ms: float
    """How long the main thread waited for a CPU in the largest gap, runnable
    but not running (`RunDelays`: the machine's, not the app's)."""
    started: float
    """When the first key was sent (`time.perf_counter`)."""
    waits: str
    """What the process waited on in the whole scroll (`describe_waits`)."""
    run_delay_s: float
    """How long the main thread waited for a CPU in the whole scroll."""
    seconds_up: float
    seconds_down: float
    rss_mb: float


@dataclass
class ChildResult:
    kind: str
    interactive_s: float | None = None
    interactive_cpu_s: float | None = None
    """This process's CPU time from building the app to the key echoed."""
    on_screen_s: float | None = None
    in_store_s: float | None = None
    entries: int = 0
    rss_resumed_mb: float | None = None
    stream: StreamFigures | None = None
    scroll: ScrollFigures | None = None
    idle_rss_mb: float | None = None
    peak_rss_mb: float = 0.0
    speedups: bool = False
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)
    notes: list[str] = field(default_factory=list)
    gc_warm_up: dict[str, Any] = field(default_factory=dict)
    """The collections from the session on screen to the first measured turn
    (the warm-up turn and its settle, `GcLog`)."""


def settled_rss() -> float:
    return current_rss() / MB


CALIBRATION_ROUNDS: Final = 20_000
"""Rounds of `calibrate`'s fixed workload (about 10-20 ms of CPU here)."""


def calibrate() -> float:
    """Milliseconds of this thread's CPU a fixed pure-Python workload takes now.

    Taken just before and after each measured turn (outside its timing): the
    same work takes more CPU time when the machine is slower (other processes
    sharing the core's caches, the host's other guests), so a turn slow in CPU
    time with a slow calibration beside it was a slow machine, not more work.
    """
    started = time.thread_time()
    table: dict[int, str] = {}
    for n in range(CALIBRATION_ROUNDS):
        table[n % 512] = f"{n:x}"
        "".join(table[n % 512] for _ in range(4)).split("0")
    return (time.thread_time() - started) * 1000


async def stream_turn(
    app: AcpTuiApp, frames: Frames, tag: str, log: GcLog | None = None
) -> StreamFigures:
    """Stream `STREAM_CHUNKS` chunks while a key is typed every 50 ms.

    With `log`, what the garbage collector did in the turn and in the settle
    after it (`StreamFigures.gc`)."""
    probe = Probe(app, _TYPIST)
    probe.watch_prompt(app.query_one(PromptInput))
    marker = f"{tag}S{STREAM_CHUNKS}"
    awaited = f"END{marker}"
    frames.watch(awaited, lambda: last_text(app.store, awaited))
    typist = threading.Thread(target=probe.type_keys, daemon=True)
    ended = app.store.state.turns_ended if app.store is not None else 0
    before = log.state() if log is not None else {}
    calibrated = calibrate() if log is not None else 0.0
    start_delay = run_delay()
    start_waits = waits_so_far()
    start_agent = children_cpu()
    start = time.perf_counter()
    probe.start = start
    start_cpu = time.process_time()
    start_main = time.thread_time()
    typist.start()
    app.runner.prompts.put_nowait(
        (1, f"stream chunks={STREAM_CHUNKS} tools={STREAM_TOOLS} marker={marker}")
    )
    try:
        await until(lambda: frames.seen_at is not None, "the stream on screen")
    except TimeoutError:
        print(describe_stuck(app, frames, awaited, ended, probe), file=sys.stderr)
        raise
    assert frames.seen_at is not None
    end = frames.seen_at
    main_cpu = time.thread_time() - start_main
    end_agent = children_cpu()
    end_delay = run_delay()
    end_waits = waits_so_far()
    probe.stop_typing.set()
    typist.join(1.0)
    grace = time.perf_counter() + 2.0
    await until(lambda: probe.echoes(grace)[1] == 0 or time.perf_counter() > grace, "")
    echoes, late = probe.echoes(time.perf_counter())
    cpu = time.process_time() - start_cpu
    gap, _ = frames.max_gap(start, start_cpu, end)
    await until(
        lambda: app.store is not None and app.store.state.turns_ended > ended,
        "the end of the turn",
    )
    await asyncio.sleep(SETTLE)
    settled = time.perf_counter()
    end_cpu = next(
        (c for t, c in zip(frames.times, frames.cpu, strict=True) if t == end), 0.0
    )
    return StreamFigures(
        end - start,
        STREAM_CHUNKS / (end - start),
        gap * 1000,
        [e * 1000 for e in echoes],
        late,
        settled_rss(),
        cpu,
        gc=(
            {
                "before": before,
                "cpu_to_end_s": end_cpu - start_cpu,
                "main_cpu_s": main_cpu,
                "frames": sum(1 for t in frames.times if start < t <= end),
                "run_delay_ms": (end_delay - start_delay) * 1000,
                "agent_cpu_s": end_agent[0] - start_agent[0],
                "agent_run_delay_ms": (end_agent[1] - start_agent[1]) * 1000,
                "waits": describe_waits(start_waits, end_waits),
                "calibration_ms": [calibrated, calibrate()],
                "in_turn": log.window(start, end).summary(),
                "after": log.window(end, settled).summary(),
            }
            if log is not None
            else {}
        ),
    )


def waiting_tasks() -> list[str]:
    """Where each asyncio task suspended in acp_tui's code waits: its frames from
    the innermost of acp_tui's out (idle message pumps and the like left out)."""
    found: list[str] = []
    for task in asyncio.all_tasks():
        frames: list[tuple[str, str]] = []
        awaited: Any = task.get_coro()
        while awaited is not None:
            frame = getattr(awaited, "cr_frame", None) or getattr(
                awaited, "gi_frame", None
            )
            if frame is not None:
                path = frame.f_code.co_filename
                frames.append(
                    (path, f"{Path(path).name}:{frame.f_code.co_name}:{frame.f_lineno}")
                )
            awaited = getattr(awaited, "cr_await", None) or getattr(
                awaited, "gi_yieldfrom", None
            )
        ours = [n for n, (path, _) in enumerate(frames) if "acp_tui" in path]
        if ours:
            chain = [name for _, name in frames[ours[0] :]]
            found.append(f"{task.get_name()}: " + " > ".join(chain[:6]))
    return sorted(found)


def describe_stuck(
    app: AcpTuiApp, frames: Frames, awaited: str, ended: int, probe: Probe
) -> str:
    """What the app shows and holds when the end of a stream never showed."""
    now = time.perf_counter()
    lines = [
        f"--- the stream's end ({awaited}) not seen on screen; the app: running "
        f"{app._running}, closed {app._closed}, return code {app.return_code}, "
        f"errors {probe.errors or 'none'}; keys typed {len(probe.sent)}, prompt "
        f"edits {probe.edits}; screens {[type(s).__name__ for s in app.screen_stack]}"
        f", focused {app.focused!r}"
    ]
    if not app.is_running or app._closed:
        return "\n".join(lines)
    conversation = app.query_one(Conversation)
    store = app.store
    recent = sum(1 for t in frames.times if t > now - 5)
    last_frame = now - frames.times[-1] if frames.times else float("nan")
    bridge = app.runner.bridge
    lines.append(
        f"frames: {len(frames.times)} in all, {recent} in the last 5 s, the last "
        f"{last_frame:.2f} s ago; ready() {frames.ready()}, seen_at "
        f"{frames.seen_at}; on screen now (checked outside a frame) "
        f"{on_screen(app.screen, awaited)}; bridge: "
        + (
            f"{len(bridge._pending)} changes pending, scheduled {bridge._scheduled}"
            if bridge is not None
            else "none"
        )
    )
    keys = conversation._keys
    lines.append(
        f"conversation: following {conversation.following}, new output below "
        f"{conversation.new_output_below}, earlier_count "
        f"{conversation.earlier_count}, _first {conversation._first}, _end "
        f"{conversation._end}, keys {len(keys)}, mounted {len(conversation.entries)};"
        f" scroll_y {conversation.scroll_y} / max_scroll_y "
        f"{conversation.max_scroll_y}, virtual {conversation.virtual_size}, size "
        f"{conversation.size}, anchored {conversation._anchored}, released "
        f"{conversation._anchor_released}; on its screen now "
        f"{on_screen(conversation.screen, awaited)}; sync timer "
        f"{conversation._sync_timer is not None}, window locked "
        f"{conversation._window.locked()}, timeline revision "
        f"{conversation._timeline_revision}"
        + (f" (the store's {store.timeline_revision})" if store is not None else "")
    )
    if store is not None:
        timeline = store.timeline()
        lines.append(
            f"store: turns_ended {store.state.turns_ended} (before the turn "
            f"{ended}), timeline {len(timeline)}, last_text {last_text(store, awaited)}"
        )
        for key in timeline[-6:]:
            widget = conversation.entries.get(key)
            text = ""
            if key[0] == "message":
                message = store.message(key[1])
                text = repr(message.text[-80:]) if message is not None else "None"
                if message is not None and widget is not None:
                    views = list(widget.query(MarkdownView))
                    given = [view.given_chars for view in views]
                    text += (
                        f" ({len(message.text)} chars; its views were given {given})"
                    )
            lines.append(
                f"  {key}: mounted {widget is not None}"
                + (
                    f" region {widget.region} display {widget.display}"
                    if widget is not None
                    else ""
                )
                + f" {text}"
            )
        lines.append(f"  keys[-6:] {keys[-6:]}")
    for widget in app.screen._compositor.visible_widgets:
        if isinstance(widget, MarkdownView):
            tail = widget.rendered_tail_text()
            lines.append(
                f"visible {widget!r} region {widget.region}: tail drawn "
                f"{None if tail is None else repr(tail[-120:])}, layout width "
                f"{widget._layout_width}, windowed {widget.tail_document is not None}"
            )
    lines.append("tasks waiting in acp_tui or the bench (innermost frames):")
    lines.extend(f"  {where}" for where in waiting_tasks())
    strips = app.screen._compositor.render_strips()
    lines.append("screen's last lines:")
    lines.extend(f"  |{strip.text.rstrip()}" for strip in strips[-14:])
    return "\n".join(lines)


async def warm_up(app: AcpTuiApp) -> None:
    """A short turn first, so the measured one meets no first-time costs.

    Without it the fresh session's turn paid what the long session's resume had
    already paid (the first card of each kind composed, the first code fence,
    styles matched for the first time): in one run the fresh rate came out at
    half the long session's.
    """
    store = app.store
    ended = store.state.turns_ended if store is not None else 0
    app.runner.prompts.put_nowait(
        (1, f"stream chunks={WARM_UP_CHUNKS} tools={WARM_UP_CHUNKS // 20}")
    )
    await until(
        lambda: app.store is not None and app.store.state.turns_ended > ended,
        "the warm-up turn",
    )
    await asyncio.sleep(SETTLE)


SCHEDSTAT: Final = Path("/proc/self/schedstat")
"""The main thread's scheduler statistics (Linux): time on a CPU, time waiting
for one (runnable, in a run queue), and time slices, in nanoseconds."""


def run_delay() -> float:
    """Seconds the main thread has waited for a CPU so far (0.0 if unknown)."""
    try:
        return int(SCHEDSTAT.read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def children_cpu() -> tuple[float, float]:
    """CPU seconds used so far by this process's children (the agent), and how
    long their threads waited for a CPU (0.0, 0.0 if unknown)."""
    cpu = delay = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    try:
        pids = {
            pid
            for task in Path("/proc/self/task").iterdir()
            for pid in (task / "children").read_text().split()
        }
    except OSError:
        return cpu, delay
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            cpu += (int(fields[11]) + int(fields[12])) / tick
            delay += int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            continue
    return cpu, delay


class RunDelays:
    """The main thread's `run_delay` at each frame `frames` records.

    Chained before whatever `frames.on_frame` was; `stop` puts that back.
    """

    def __init__(self, frames: Frames) -> None:
        self.frames = frames
        self.at: dict[float, float] = {}
        """`run_delay()` at each frame, by the frame's time."""
        self._previous: Callable[[float], None] | None = None

    def start(self) -> None:
        self._previous = self.frames.on_frame
        self.frames.on_frame = self._on_frame

    def stop(self) -> None:
        self.frames.on_frame = self._previous

    def _on_frame(self, now: float) -> None:
        self.at[now] = run_delay()
        if self._previous is not None:
            self._previous(now)


async def scroll(app: AcpTuiApp, frames: Frames, budget: float) -> ScrollFigures:
    """PageUp to the top of the session, then PageDown to the end (bounded)."""
    conversation = app.query_one(Conversation)
    driver = app._driver
    assert driver is not None
    app.query_one(PromptInput).focus()
    await asyncio.sleep(0.2)
    mounted_max = len(conversation.entries)

    def at_top() -> bool:
        return conversation.earlier_count == 0 and conversation.scroll_y <= 0

    async def hold(key: str, done: Callable[[], bool]) -> tuple[int, float, bool]:
        """Hold `key` down until `done()` (True) or the budget is spent."""
        nonlocal mounted_max
        pages = 0
        started = time.perf_counter()
        deadline = started + budget
        due = started
        while not (reached := done()) and time.perf_counter() < deadline:
            now = time.perf_counter()
            if now >= due:
                driver.process_message(events.Key(key, None))
                pages += 1
                due += 1 / SCROLL_RATE
            mounted_max = max(mounted_max, len(conversation.entries))
            await asyncio.sleep(0.005)
        return pages, time.perf_counter() - started, reached

    delays = RunDelays(frames)
    delays.start()
    start = time.perf_counter()
    start_cpu = time.process_time()
    start_waits = waits_so_far()
    start_delay = run_delay()
    up, seconds_up, reached_top = await hold("pageup", at_top)
    unmounted = conversation.earlier_count
    down, seconds_down, reached_end = await hold(
        "pagedown", lambda: conversation.following
    )
    end = time.perf_counter()
    end_cpu = time.process_time()
    end_waits = waits_so_far()
    end_delay = run_delay()
    delays.stop()
    shown = list(zip(frames.times, frames.cpu, frames.waits, strict=True))
    points = [
        (start, start_cpu, start_waits, start_delay),
        *((t, c, w, delays.at.get(t, 0.0)) for t, c, w in shown if start <= t <= end),
        (end, end_cpu, end_waits, end_delay),
    ]
    spans = [
        (b - a, cb - ca, describe_waits(wa, wb), db - da)
        for (a, ca, wa, da), (b, cb, wb, db) in itertools.pairwise(points)
    ]
    gaps = [gap for gap, _, _, _ in spans]
    largest = max(spans)
    await asyncio.sleep(SETTLE)
    return ScrollFigures(
        up,
        down,
        reached_top,
        reached_end,
        unmounted,
        mounted_max,
        largest[0] * 1000,
        statistics.median(gaps) * 1000,
        largest[1] * 1000,
        max(cpu for _, cpu, _, _ in spans) * 1000,
        largest[2],
        largest[3] * 1000,
        start,
        describe_waits(start_waits, end_waits),
        end_delay - start_delay,
        seconds_up,
        seconds_down,
        settled_rss(),
    )


class _Profile:
    """A cProfile of one phase (`PROFILE_ENV`), or nothing."""

    def __init__(self, phase: str) -> None:
        prefix = os.environ.get(PROFILE_ENV)
        self.path = f"{prefix}-{phase}.prof" if prefix else None
        self.profile = cProfile.Profile(time.process_time) if prefix else None

    def __enter__(self) -> None:
        if self.profile is not None:
            self.profile.enable()

    def __exit__(self, *exc: object) -> None:
        if self.profile is not None and self.path is not None:
            self.profile.disable()
            self.profile.dump_stats(self.path)


async def run_child(kind: str, params: dict[str, Any], cwd: Path) -> ChildResult:
    result = ChildResult(kind, speedups=_speedups_loaded())
    if kind == "idle":
        # The real `acp-tui` process on a pseudo-terminal (bench/idle_cli.py),
        # not this harness: run_test and the bench's own modules add ~1.5 MB.
        result.idle_rss_mb = await idle_rss_mb(settle=2 * SETTLE)
        return result

    history = Path(params["history"]) if kind == "long" else None
    log = GcLog()
    log.install()  # before the app tunes its collector
    start = time.perf_counter()
    start_cpu = time.process_time()
    app = make_app(
        agent(history),
        "bench",
        cwd=cwd,
        init_timeout=30.0,
        tune_gc=True,
        request=SessionRequest("resume", "s1") if history is not None else None,
    )
    frames = Frames(app)
    resuming = _Profile(f"{kind}-resume")
    resuming.__enter__()
    async with app.run_test(headless=True, size=SIZE) as pilot:
        if history is not None:
            in_store, on_screen, echoed = await replayed(app, frames, LAST_TEXT)
            result.in_store_s = in_store - start
            result.on_screen_s = on_screen - start
            result.interactive_s = echoed - start
            result.interactive_cpu_s = time.process_time() - start_cpu
            resuming.__exit__()
            store = app.store
            result.entries = len(store.timeline()) if store is not None else 0
            app.post_message(events.Key("backspace", None))
            await asyncio.sleep(SETTLE)
            result.rss_resumed_mb = settled_rss()
        else:
            await until(lambda: app.store is not None, "the session")
            await asyncio.sleep(0.3)
        warming = time.perf_counter()
        await warm_up(app)
        result.gc_warm_up = log.window(warming, time.perf_counter()).summary()
        with _Profile(f"{kind}-stream"):
            result.stream = combine(
                [
                    await stream_turn(app, frames, f"{kind}{turn}", log)
                    for turn in range(STREAM_TURNS)
                ]
            )
        if history is not None and params.get("scroll_budget", 0) > 0:
            result.scroll = await scroll(app, frames, float(params["scroll_budget"]))
        await pilot.pause()
    result.peak_rss_mb = peak_rss() / MB
    result.load = os.getloadavg()
    return result


def _speedups_loaded() -> bool:
    return "textual_speedups" in sys.modules


def child(kind: str, params: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory(prefix="acp-tui-long-cwd-") as tmp:
        result = asyncio.run(run_child(kind, params, Path(tmp)))
    gc.collect()
    print(json.dumps(asdict(result)))


# --- the parent ------------------------------------------------------------------


def measure(
    kind: str, speedups: Path | bool | None = None, **params: Any
) -> ChildResult:
    """One measurement in a fresh interpreter with its own home.

    `speedups`: a directory holding textual_speedups to put on the path (on),
    False to turn it off (`TEXTUAL_SPEEDUPS=0`), None to leave the environment.
    """
    with tempfile.TemporaryDirectory(prefix="acp-tui-long-home-") as home:
        env = {**os.environ, HOME_ENV_VAR: home, "ACP_TUI_DEMO_DELAY": "0"}
        if isinstance(speedups, Path):
            env["PYTHONPATH"] = os.pathsep.join(
                [str(speedups), *filter(None, [env.get("PYTHONPATH")])]
            )
            env["TEXTUAL_SPEEDUPS"] = "1"
        elif speedups is False:
            env["TEXTUAL_SPEEDUPS"] = "0"
        output = subprocess.run(
            [sys.executable, __file__, "--child", kind, json.dumps(params)],
            capture_output=True,
            text=True,
            timeout=CHILD_TIMEOUT + 2 * float(params.get("scroll_budget", 0)),
            env=env,
            check=False,
        )
    lines = output.stdout.strip().splitlines()
    if output.returncode != 0 or not lines or not lines[-1].startswith("{"):
        error = (output.stderr.strip().splitlines() or ["no output"])[-1]
        with tempfile.NamedTemporaryFile(
            "w", prefix=f"acp-tui-long-{kind}-", suffix=".log", delete=False
        ) as log:
            log.write(output.stderr)
        raise RuntimeError(f"{kind} run failed: {error} (its stderr: {log.name})")
    raw = json.loads(lines[-1])
    stream = raw.pop("stream")
    scroll_raw = raw.pop("scroll")
    raw["load"] = tuple(raw["load"])
    result = ChildResult(**raw)
    result.stream = StreamFigures(**stream) if stream else None
    result.scroll = ScrollFigures(**scroll_raw) if scroll_raw else None
    return result


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def spread(values: Sequence[float], unit: str, digits: int = 0) -> str:
    if not values:
        return "missing"
    lo, hi = min(values), max(values)
    if len(values) == 1 or lo == hi:
        return f"{lo:,.{digits}f} {unit}".rstrip()
    return f"{lo:,.{digits}f}-{hi:,.{digits}f} {unit} ({len(values)} runs)".rstrip()


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT MET"


def load_now() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def describe_gc(window: dict[str, Any]) -> str:
    """A `GcWindow.summary()` in one line: counts by kind and path, the steps of
    5 ms of CPU or more and every collection of the whole heap (CPU times)."""
    if not window:
        return "no log"
    counts = ", ".join(f"{n} {k}" for k, n in sorted(window["counts"].items()))
    slow = "; ".join(
        f"{e['what']} by {e['path']} {e['cpu_ms']:.0f} ms"
        + (
            f" (callback {e['callback_cpu_ms']:.0f})"
            if e["callback_cpu_ms"] >= 1
            else ""
        )
        for e in window["slow"]
    )
    return (
        f"{window['gc_cpu_ms']:.0f} ms of CPU in gc ({window['gc_ms']:.0f} ms): "
        f"{window['young']} gen0"
        + (f", {counts}" if counts else "")
        + (f" | slow: {slow}" if slow else "")
    )


def describe_turns(turns: Sequence[dict[str, Any]]) -> str:
    """Each measured turn's rate, the main thread's CPU, frames and wait for a CPU.

    The app paints about 50 frames a second of a turn whatever it streams, and
    each costs about 9.5 ms of CPU (bench/long_session.py --gc, 2026-12-05): a
    turn stretched by waiting for a CPU paints more frames and so takes more
    CPU too. These say whether a slow turn did more work per frame or waited.
    """
    return "; ".join(
        f"{t['rate']:,.0f}/s, CPU {t.get('main_cpu_s', t['cpu_s']):.2f} s, "
        f"{t.get('frames', 0)} frames, {t.get('run_delay_ms', 0):.0f} ms waiting "
        f"for a CPU, {t.get('in_turn', {}).get('gc_cpu_ms', 0):.0f} ms of CPU in gc"
        f" (the agent: CPU {t.get('agent_cpu_s', 0):.2f} s, "
        f"{t.get('agent_run_delay_ms', 0):.0f} ms waiting for a CPU)"
        for t in turns
    )


def print_gc(name: str, run: ChildResult) -> None:
    """Each measured turn's collections (`--gc`)."""
    assert run.stream is not None
    print(f"  gc ({name}) warm-up: {describe_gc(run.gc_warm_up)}")
    for n, turn in enumerate(run.stream.turns):
        before = turn.get("before", {})
        calibration = turn.get("calibration_ms", [0.0, 0.0])
        print(
            f"  gc ({name}) turn {n + 1}: {turn['rate']:,.0f}/s, CPU "
            f"{turn['cpu_s']:.2f} s (to the last chunk on screen "
            f"{turn.get('cpu_to_end_s', 0):.2f} s, main thread "
            f"{turn.get('main_cpu_s', 0):.2f} s), {turn.get('frames', 0)} frames, "
            f"{turn.get('run_delay_ms', 0):.0f} ms waiting for a CPU, calibration "
            f"{calibration[0]:.1f}/{calibration[1]:.1f} ms; tenured "
            f"{before.get('tenured', 0):,}/{before.get('limit', 0):,}; "
            f"in it {describe_gc(turn.get('in_turn', {}))}"
            f"; after it {describe_gc(turn.get('after', {}))}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--updates", type=int, default=UPDATES)
    parser.add_argument("--scroll-budget", type=float, default=20.0)
    parser.add_argument(
        "--speedups",
        type=Path,
        default=os.environ.get(SPEEDUPS_ENV) or None,
        help=f"textual_speedups' directory (default: ${SPEEDUPS_ENV})",
    )
    parser.add_argument("--skip", default="", help="parts to skip: idle,ab")
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--gc", action="store_true", help="print each turn's garbage collections"
    )
    parser.add_argument("--profile", metavar="PREFIX", help="cProfile each phase")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, params = args.child
        child(kind, json.loads(params))
        return
    if args.profile:
        os.environ[PROFILE_ENV] = args.profile
    skip = set(filter(None, args.skip.split(",")))
    history = history_file(args.updates)
    print(
        f"acp-tui long-session bench: headless {SIZE[0]}x{SIZE[1]}, "
        f"{args.repeat} run(s) each in a fresh process, load average {load_now()}"
    )
    print(f"session: {args.updates:,} recorded updates ({history})\n")

    longs: list[ChildResult] = []
    freshes: list[ChildResult] = []
    for n in range(args.repeat):
        fresh = measure("fresh")
        long = measure("long", history=str(history), scroll_budget=args.scroll_budget)
        freshes.append(fresh)
        longs.append(long)
        assert fresh.stream is not None
        assert long.stream is not None
        print(
            f"run {n + 1}: resume to interactive {long.interactive_s:.2f} s "
            f"(in store {long.in_store_s:.2f} s, on screen {long.on_screen_s:.2f} s, "
            f"{long.entries:,} timeline entries; the app's CPU "
            f"{long.interactive_cpu_s or 0:.2f} s); RSS resumed "
            f"{long.rss_resumed_mb:,.0f} MB, after the stream "
            f"{long.stream.rss_mb:,.0f} MB, peak {long.peak_rss_mb:,.0f} MB"
        )
        print(
            f"  stream {STREAM_CHUNKS:,} chunks: fresh {fresh.stream.rate:,.0f}/s "
            f"(max gap {fresh.stream.max_gap_ms:,.0f} ms), at the end of the long "
            f"session {long.stream.rate:,.0f}/s (max gap "
            f"{long.stream.max_gap_ms:,.0f} ms): "
            f"{long.stream.rate / fresh.stream.rate:.2f}x; in the app's CPU time "
            f"{fresh.stream.cpu_s:.2f} s / {long.stream.cpu_s:.2f} s: "
            f"{fresh.stream.cpu_s / long.stream.cpu_s:.2f}x (medians of "
            f"{STREAM_TURNS} turns each: fresh "
            f"{', '.join(f'{r:,.0f}' for r in fresh.stream.rates)}; long "
            f"{', '.join(f'{r:,.0f}' for r in long.stream.rates)})"
        )
        for name, run in (("fresh", fresh), ("long", long)):
            assert run.stream is not None
            print(f"  turns ({name}): {describe_turns(run.stream.turns)}")
        for name, run in (("fresh", fresh), ("long", long)):
            assert run.stream is not None
            echoes = run.stream.echoes_ms
            print(
                f"  key echo while streaming ({name}): {len(echoes)} keys, p50 "
                f"{statistics.median(echoes) if echoes else 0:,.0f} ms, p99 "
                f"{percentile(echoes, 0.99):,.0f} ms, max "
                f"{max(echoes, default=0):,.0f} ms"
                + (
                    f", {run.stream.late_keys} never shown"
                    if run.stream.late_keys
                    else ""
                )
            )
        if args.gc:
            print_gc("fresh", fresh)
            print_gc("long", long)
        if long.scroll is not None:
            s = long.scroll
            top = (
                "reached"
                if s.reached_top
                else f"NOT reached: {s.unmounted_at_end:,} entries left"
            )
            print(
                f"  scrolling by page: {s.pages_up} pages up in {s.seconds_up:.1f} s "
                f"(top {top}), "
                f"{s.pages_down} down in {s.seconds_down:.1f} s "
                f"(end {'reached' if s.reached_end else 'not reached'}); "
                f"largest frame gap {s.max_gap_ms:,.0f} ms ({s.max_gap_cpu_ms:,.0f} "
                f"ms of CPU in it; {s.max_gap_waits}, "
                f"{s.max_gap_run_delay_ms:,.0f} ms waiting for a CPU; "
                f"the most CPU in one gap {s.max_cpu_ms:,.0f} ms), "
                f"median {s.median_gap_ms:,.0f} ms; up to {s.mounted_max:,} entries "
                f"mounted, RSS after {s.rss_mb:,.0f} MB; in the whole scroll "
                f"{s.waits}, {s.run_delay_s:.1f} s waiting for a CPU"
            )
        print(f"  load average {load_now()}")

    idles: list[ChildResult] = []
    if "idle" not in skip:
        idles = [measure("idle") for _ in range(args.repeat)]
        print(
            "idle RSS, demo agent connected (the app's process): "
            + ", ".join(f"{r.idle_rss_mb:,.0f} MB" for r in idles)
        )

    ab: dict[str, dict[str, list[float]]] = {}
    if args.speedups is not None and "ab" not in skip:
        print(f"\ntextual-speedups A/B ({args.speedups}), alternating off / on:")
        for n in range(args.repeat):
            for label, switch in (("off", False), ("on", args.speedups)):
                fresh = measure("fresh", speedups=switch)
                long = measure("long", speedups=switch, history=str(history))
                assert fresh.stream is not None
                assert long.stream is not None
                row = ab.setdefault(label, {})
                row.setdefault("fresh_rate", []).append(fresh.stream.rate)
                row.setdefault("fresh_gap", []).append(fresh.stream.max_gap_ms)
                row.setdefault("long_rate", []).append(long.stream.rate)
                row.setdefault("resume", []).append(long.interactive_s or 0)
                print(
                    f"  run {n + 1} {label:>3} (loaded: {fresh.speedups}): fresh "
                    f"{fresh.stream.rate:,.0f} chunks/s, max gap "
                    f"{fresh.stream.max_gap_ms:,.0f} ms; long {long.stream.rate:,.0f} "
                    f"chunks/s; resume {long.interactive_s:.2f} s"
                )
        for key, label in (
            ("fresh_rate", "fresh stream, chunks/s"),
            ("long_rate", "long-session stream, chunks/s"),
            ("fresh_gap", "fresh stream, max gap ms"),
            ("resume", "resume to interactive, s"),
        ):
            off, on = ab["off"][key], ab["on"][key]
            print(
                f"  {label}: off {statistics.median(off):,.2f} "
                f"(range {min(off):,.2f}-{max(off):,.2f}), on "
                f"{statistics.median(on):,.2f} (range {min(on):,.2f}-{max(on):,.2f}): "
                f"{statistics.median(on) / statistics.median(off):.2f}x"
            )

    # --- the summary, judged on every run -----------------------------------------
    resume = [r.interactive_s or 0.0 for r in longs]
    rss_resumed = [r.rss_resumed_mb or 0.0 for r in longs]
    rss_stream = [r.stream.rss_mb for r in longs if r.stream]
    cpu_ratios = [
        fr.stream.cpu_s / lo.stream.cpu_s
        for lo, fr in zip(longs, freshes, strict=True)
        if lo.stream and fr.stream and lo.stream.cpu_s
    ]
    resume_cpu = [r.interactive_cpu_s or 0.0 for r in longs]
    ratios = [
        lo.stream.rate / fr.stream.rate
        for lo, fr in zip(longs, freshes, strict=True)
        if lo.stream and fr.stream
    ]
    echoes_p99 = [percentile(r.stream.echoes_ms, 0.99) for r in freshes if r.stream]
    echoes_max = [max(r.stream.echoes_ms, default=0.0) for r in freshes if r.stream]
    late = sum(r.stream.late_keys for r in freshes if r.stream)
    long_echo_max = [max(r.stream.echoes_ms, default=0.0) for r in longs if r.stream]
    scrolls = [r.scroll for r in longs if r.scroll is not None]
    scroll_gaps = [s.max_gap_ms for s in scrolls]
    idle = [r.idle_rss_mb or 0.0 for r in idles]
    print("\nsummary (a goal is met when it holds in every run):")
    print(
        f"resume {args.updates:,} updates to interactive: {spread(resume, 's', 2)} "
        f"(goal <= {GOAL_RESUME_S:g} s: {verdict(max(resume) <= GOAL_RESUME_S)})"
    )
    print(f"  (the app's CPU time in it: {spread(resume_cpu, 's', 2)})")
    print(
        f"RSS after the resume: {spread(rss_resumed, 'MB')} (goal <= "
        f"{GOAL_RSS_MB:g} MB: {verdict(max(rss_resumed) <= GOAL_RSS_MB)})"
    )
    print(
        f"RSS after streaming {STREAM_CHUNKS:,} more chunks: "
        f"{spread(rss_stream, 'MB')} "
        f"(goal <= {GOAL_RSS_MB:g} MB: {verdict(max(rss_stream) <= GOAL_RSS_MB)})"
    )
    print(
        f"streaming at the end of the long session / fresh: {spread(ratios, 'x', 2)} "
        f"(goal >= {GOAL_STREAM_RATIO:g}x: {verdict(min(ratios) >= GOAL_STREAM_RATIO)})"
    )
    print(f"  (by the app's CPU time per chunk: {spread(cpu_ratios, 'x', 2)})")
    echo_ok = (
        max(echoes_p99) <= GOAL_ECHO_P99_MS
        and max(echoes_max) <= GOAL_ECHO_MAX_MS
        and not late
    )
    print(
        f"key echo while streaming {STREAM_CHUNKS:,} chunks: p99 "
        f"{spread(echoes_p99, 'ms')}, max {spread(echoes_max, 'ms')} (goal p99 <= "
        f"{GOAL_ECHO_P99_MS:g} ms, max <= {GOAL_ECHO_MAX_MS:g} ms: {verdict(echo_ok)})"
    )
    print(f"  (in the long session: max {spread(long_echo_max, 'ms')})")
    if scrolls:
        whole = all(s.reached_top and s.reached_end for s in scrolls)
        print(
            f"scrolling the long session top to bottom by page: largest gap "
            f"{spread(scroll_gaps, 'ms')}, whole session scrolled: {whole} "
            f"(goal <= {GOAL_SCROLL_GAP_MS:g} ms: "
            f"{verdict(max(scroll_gaps) <= GOAL_SCROLL_GAP_MS and whole)})"
        )
    if idle:
        print(
            f"idle RSS with the demo agent connected: {spread(idle, 'MB')} "
            f"(goal <= {GOAL_IDLE_MB:g} MB: {verdict(max(idle) <= GOAL_IDLE_MB)})"
        )
    if args.json:
        data: dict[str, Any] = {
            "updates": args.updates,
            "runs": args.repeat,
            "resume_s": resume,
            "resume_cpu_s": resume_cpu,
            "stream_cpu_ratio": cpu_ratios,
            "rss_resumed_mb": rss_resumed,
            "rss_stream_mb": rss_stream,
            "fresh_rate": [r.stream.rate for r in freshes if r.stream],
            "long_rate": [r.stream.rate for r in longs if r.stream],
            "fresh_turns": [r.stream.turns for r in freshes if r.stream],
            "long_turns": [r.stream.turns for r in longs if r.stream],
            "stream_ratio": ratios,
            "echo_p99_ms": echoes_p99,
            "echo_max_ms": echoes_max,
            "echo_late": late,
            "scroll_gap_ms": scroll_gaps,
            "scroll_whole": [s.reached_top and s.reached_end for s in scrolls],
            "idle_rss_mb": idle,
            "speedups": ab,
            "goals": {
                "resume_s": GOAL_RESUME_S,
                "rss_mb": GOAL_RSS_MB,
                "stream_ratio": GOAL_STREAM_RATIO,
                "echo_p99_ms": GOAL_ECHO_P99_MS,
                "echo_max_ms": GOAL_ECHO_MAX_MS,
                "scroll_gap_ms": GOAL_SCROLL_GAP_MS,
                "idle_rss_mb": GOAL_IDLE_MB,
            },
        }
        args.json.write_text(json.dumps(data, indent=1))


if __name__ == "__main__":
    main()
