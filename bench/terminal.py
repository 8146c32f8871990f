"""How fast the UI shows a terminal flooded with coloured build output.

Runs the real app (`make_app`, headless 120x40) against this same file started as a
fake v2 agent (`--agent`), which answers a prompt with a tool call whose content is
a display terminal, then streams `--megabytes` MB of realistic coloured build output
(compiler lines, coloured warnings with carets, `\\r` progress bars, 256-colour and
truecolour test results) as 4 KB `terminal_output_chunk`s (base64), as fast as the
pipe takes them, then the exit status. The last line holds a marker.

Measured `--repeat` times (default 5), each in a fresh interpreter (`--child`),
from sending the prompt until the first frame that shows the marker in the card's
terminal:

* **effective MB/s**: output size / that time, for every run; the goal (>= 20 MB/s,
  40x raw pyte `HistoryScreen`) is judged on the median run, as a shared machine's
  scheduling moves single runs either way;
* **largest frame gap** meanwhile, the worst of all runs (goal: none over 100 ms),
  and the app process's CPU time within it (the rest it waited for a CPU).
  Frames are timed by
  wrapping `App._display` on the instance, as bench/ui.py does;
* **peak memory**: the child's peak RSS (`ru_maxrss`) above its RSS before the
  prompt, beside what the caps allow: the store keeps at most
  `DEFAULT_MAX_TERMINAL_BYTES` per terminal, the card's emulator at most
  `DEFAULT_HISTORY` scrollback lines.

Beside it, the same bytes fed (in the same 4 KB chunks) to raw pyte `Screen` and
`HistoryScreen` (`ByteStream`, 120x40) and to the full `TerminalEmulator` (every
byte emulated). Raw pyte is slow, so it gets the first `--raw-megabytes` MB (a
rate does not depend on the length of this uniform output).

Figures only: nothing is asserted. Usage:
`uv run python bench/terminal.py [--megabytes 10] [--raw-megabytes 1] [--repeat 5]`
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

import pyte
from _frames import largest_gap
from _v2_agent import send, serve
from rich.console import RenderableType
from textual.screen import Screen

from acp_tui.protocol.transport import AgentCommand
from acp_tui.render.terminal import DEFAULT_HISTORY
from acp_tui.store.store import DEFAULT_MAX_TERMINAL_BYTES
from acp_tui.terminal.emulator import TerminalEmulator
from acp_tui.ui.app import AcpTuiApp, make_app
from acp_tui.ui.widgets.terminal_view import TerminalSegment

SIZE: Final = (120, 40)
CHUNK: Final = 4096
WRITE_BATCH: Final = 1024 * 1024
"""Bytes of ready JSON lines the fake agent writes at a time."""
MARKER: Final = "BUILD-DONE-MARKER"
TIMEOUT: Final = 300.0
MB: Final = 1_000_000


# --- the output ---------------------------------------------------------------


def build_output(size: int, seed: int = 20261130) -> bytes:
    """About `size` bytes of a coloured build log, ending with the marker line."""
    rng = random.Random(seed)
    out = bytearray()
    n = 0
    modules = ("core", "net", "ui", "db", "util", "parser", "codec")
    while len(out) < size:
        n += 1
        module = rng.choice(modules)
        roll = rng.random()
        if roll < 0.55:
            out += (
                f"\x1b[1m[{n:6d}]\x1b[0m \x1b[32mCompiling\x1b[0m "
                f"src/{module}/file_{n % 997}.c -o build/{module}/file_{n % 997}.o "
                "-O2 -Wall -Wextra\r\n"
            ).encode()
        elif roll < 0.7:
            line = rng.randint(1, 900)
            column = rng.randint(1, 60)
            out += (
                f"\x1b[1msrc/{module}/util.c:{line}:{column}: \x1b[35mwarning:\x1b[0m "
                f"unused variable \x1b[1m'tmp_{n}'\x1b[0m "
                "[\x1b[35m-Wunused-variable\x1b[0m]\r\n"
                f"  {line:4d} |     int tmp_{n} = compute(x, y);\r\n"
                "       |         \x1b[32m^~~~~~\x1b[0m\r\n"
            ).encode()
        elif roll < 0.85:
            colour = rng.randint(16, 231)
            for percent in range(0, 101, 5):
                bar = "█" * (percent // 5) + "░" * (20 - percent // 5)
                out += (
                    f"\r\x1b[38;5;{colour}mDownloading {module}\x1b[0m "
                    f"{bar} {percent:3d}% \x1b[K"
                ).encode()
            out += b"\r\n"
        else:
            red, green = rng.randint(0, 255), rng.randint(0, 255)
            status = "\x1b[32mok ✓" if rng.random() < 0.9 else "\x1b[1;31mFAILED ✗"
            out += (
                f"\x1b[38;2;{red};{green};200mtest_{module}_{n}\x1b[0m ... "
                f"{status}\x1b[0m\r\n"
            ).encode()
    return bytes(out[: size - 64]) + f"\r\n\x1b[1;32m{MARKER}\x1b[0m\r\n".encode()


# --- the fake agent -----------------------------------------------------------


class Agent:
    """A v2 agent that streams a terminal when prompted (`--agent` mode)."""

    def __init__(self, megabytes: float) -> None:
        self.size = int(megabytes * MB)
        self.out = sys.stdout.buffer
        # Made up front, as ready-to-write JSON lines, and written in large
        # batches: the bench times the client, not this agent (encoding each
        # message while streaming held the agent to about the client's own pace).
        self.data = build_output(self.size)
        self.chunk_lines = b"".join(
            self.line(
                {
                    "sessionUpdate": "terminal_output_chunk",
                    "terminalId": "term-1",
                    "data": base64.b64encode(self.data[start : start + CHUNK]).decode(),
                }
            )
            for start in range(0, len(self.data), CHUNK)
        )

    @staticmethod
    def line(update: dict[str, Any]) -> bytes:
        params = {"sessionId": "s1", "update": update}
        message = {"jsonrpc": "2.0", "method": "session/update", "params": params}
        return json.dumps(message, separators=(",", ":")).encode() + b"\n"

    def send(self, message: dict[str, Any]) -> None:
        send(self.out, message)

    def update(self, update: dict[str, Any]) -> None:
        self.out.write(self.line(update))

    def prompt(self, rid: object) -> None:
        # The tool call stays in progress: a completed card with this much output
        # folds, and the bench waits for the output on screen.
        self.send({"jsonrpc": "2.0", "id": rid, "result": {}})
        self.update({"sessionUpdate": "state_update", "state": "running"})
        self.update(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "build",
                "title": "make -j8",
                "kind": "execute",
                "status": "in_progress",
                "content": [{"type": "terminal", "terminalId": "term-1"}],
            }
        )
        self.update(
            {
                "sessionUpdate": "terminal_update",
                "terminalId": "term-1",
                "command": "make -j8",
                "cwd": "/work/project",
            }
        )
        self.out.flush()
        view = memoryview(self.chunk_lines)
        for start in range(0, len(view), WRITE_BATCH):
            self.out.write(view[start : start + WRITE_BATCH])
        self.update(
            {
                "sessionUpdate": "terminal_update",
                "terminalId": "term-1",
                "exitStatus": {"exitCode": 0},
            }
        )
        self.update(
            {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}
        )
        self.out.flush()

    def serve(self) -> None:
        serve("terminal-bench-agent", self.prompt, self.out)


# --- the app side -------------------------------------------------------------


class Frames:
    """Timestamps the frames an app paints (wraps `App._display` on the instance)."""

    def __init__(self, app: AcpTuiApp) -> None:
        self.times: list[float] = []
        self.cpu: list[float] = []
        """This process's CPU time (`time.process_time`) at each frame in `times`."""
        self.check: Callable[[Screen[object]], bool] = lambda screen: False
        self.seen_at: float | None = None
        original = app._display

        def display(screen: Screen[object], renderable: RenderableType | None) -> None:
            original(screen, renderable)
            if renderable is None or app._batch_count:
                return
            now = time.perf_counter()
            self.times.append(now)
            self.cpu.append(time.process_time())
            if self.seen_at is None and self.check(screen):
                self.seen_at = now

        app._display = display  # type: ignore[method-assign]

    def max_gap(
        self, start: float, start_cpu: float, end: float
    ) -> tuple[float, float]:
        """The longest gap between frames, `start` to `end`, and the CPU time in it."""
        return largest_gap(self.times, self.cpu, start, start_cpu, end)


def marker_on_screen(screen: Screen[object]) -> bool:
    """Whether a visible terminal card's last line holds the marker."""
    for widget in screen._compositor.visible_widgets:
        if isinstance(widget, TerminalSegment):
            feed = widget.feed
            rows = feed.row_count
            if rows and MARKER in "".join(s.text for s in feed.segments(rows - 1)):
                return True
    return False


async def until(condition: Callable[[], bool], what: str) -> float:
    deadline = time.perf_counter() + TIMEOUT
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(0.002)
    return time.perf_counter()


def rss_bytes() -> int:
    """The peak resident set size of this process (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def current_rss() -> int:
    """The current resident set size (from /proc; the peak where unavailable)."""
    try:
        fields = Path("/proc/self/statm").read_text().split()
        return int(fields[1]) * resource.getpagesize()
    except (OSError, IndexError, ValueError):
        return rss_bytes()


@dataclass
class AppResult:
    megabytes: float
    seconds: float
    in_store_seconds: float
    max_gap: float
    gap_cpu: float
    frames: int
    cpu: float
    rss_before: int
    rss_peak: int
    store_bytes: int
    scrollback_lines: int
    emulated_bytes: int


async def run_app(megabytes: float) -> AppResult:
    command = AgentCommand(
        argv=(sys.executable, __file__, "--agent", "--megabytes", str(megabytes))
    )
    with tempfile.TemporaryDirectory() as tmp:
        app = make_app(command, "bench", cwd=Path(tmp), init_timeout=30.0, tune_gc=True)
        frames = Frames(app)
        async with app.run_test(headless=True, size=SIZE) as pilot:
            await until(lambda: app.store is not None, "the session")
            await asyncio.sleep(0.3)
            rss_before = current_rss()
            frames.check = marker_on_screen
            start = time.perf_counter()
            cpu_start = time.process_time()
            app.runner.prompts.put_nowait((1, "build"))

            def in_store() -> bool:
                store = app.store
                terminal = store.terminal("term-1") if store is not None else None
                return terminal is not None and terminal.exited

            stored = await until(in_store, "the output in the store")
            await until(lambda: frames.seen_at is not None, "the marker on screen")
            cpu = time.process_time() - cpu_start
            assert frames.seen_at is not None
            end = frames.seen_at
            store = app.store
            assert store is not None
            terminal = store.terminal("term-1")
            assert terminal is not None
            segment = app.screen.query(TerminalSegment).first()
            result = AppResult(
                megabytes,
                end - start,
                stored - start,
                *frames.max_gap(start, cpu_start, end),
                sum(1 for t in frames.times if start <= t <= end),
                cpu,
                rss_before,
                rss_bytes(),
                len(terminal.output),
                segment.feed.emulator.history_size,
                segment.feed.fed_bytes,
            )
            await pilot.pause()
    return result


# --- raw emulation ------------------------------------------------------------


def feed_rate(data: bytes, feed: Callable[[bytes], None]) -> float:
    """MB/s feeding `data` in `CHUNK`-byte pieces."""
    start = time.perf_counter()
    for offset in range(0, len(data), CHUNK):
        feed(data[offset : offset + CHUNK])
    return len(data) / (time.perf_counter() - start) / MB


def raw_rates(megabytes: float) -> dict[str, float]:
    data = build_output(int(megabytes * MB))
    columns, lines = SIZE
    screen = pyte.Screen(columns, lines)
    history = pyte.HistoryScreen(columns, lines, history=DEFAULT_HISTORY)
    emulator = TerminalEmulator(columns, lines, DEFAULT_HISTORY)
    return {
        "screen": feed_rate(data, pyte.ByteStream(screen).feed),
        "history": feed_rate(data, pyte.ByteStream(history).feed),
        "emulator": feed_rate(data, emulator.feed),
    }


# --- driver -------------------------------------------------------------------


def child(kind: str, megabytes: float) -> dict[str, Any]:
    if kind == "app":
        return asdict(asyncio.run(run_app(megabytes)))
    return raw_rates(megabytes)


def measure(kind: str, megabytes: float) -> dict[str, Any]:
    output = subprocess.run(
        [sys.executable, __file__, "--child", kind, "--megabytes", str(megabytes)],
        capture_output=True,
        text=True,
        check=True,
        timeout=TIMEOUT * 2,
    ).stdout
    result: dict[str, Any] = json.loads(output.strip().splitlines()[-1])
    return result


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT MET"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=10.0)
    parser.add_argument("--raw-megabytes", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=5, help="app runs (median)")
    parser.add_argument("--agent", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.agent:
        Agent(args.megabytes).serve()
        return
    if args.child:
        print(json.dumps(child(args.child, args.megabytes)))
        return

    print(
        f"acp-tui terminal bench: {args.megabytes:g} MB of coloured build output in "
        f"{CHUNK // 1024} KB terminal_output_chunks (v2), headless {SIZE[0]}x{SIZE[1]}"
    )
    raw = measure("raw", args.raw_megabytes)
    # The app's figures vary from run to run on a shared machine (scheduling of
    # the agent's writes against the client's reads): each run is a fresh
    # process, and the goals are judged on the median run.
    runs = sorted(
        (AppResult(**measure("app", args.megabytes)) for _ in range(args.repeat)),
        key=lambda r: r.seconds,
    )
    app = runs[len(runs) // 2]
    effective = app.megabytes / app.seconds
    print(
        f"\nraw emulation of the first {args.raw_megabytes:g} MB, {CHUNK // 1024} KB "
        "chunks:"
    )
    print(f"  pyte Screen         {raw['screen']:7.2f} MB/s")
    print(f"  pyte HistoryScreen  {raw['history']:7.2f} MB/s")
    print(f"  TerminalEmulator    {raw['emulator']:7.2f} MB/s (every byte emulated)")
    rates = ", ".join(f"{r.megabytes / r.seconds:.1f}" for r in runs)
    print(
        f"\nthe app (prompt sent -> marker on screen in the card), "
        f"{len(runs)} runs: {rates} MB/s; the median run:"
    )
    print(
        f"  {app.megabytes:g} MB on screen after {app.seconds:.2f} s "
        f"(in the store after {app.in_store_seconds:.2f} s), "
        f"{app.frames} frames, cpu {app.cpu:.2f} s"
    )
    print(
        f"  bytes emulated by the card: {app.emulated_bytes / MB:.2f} MB "
        f"({app.emulated_bytes / (app.megabytes * MB):.1%} of the output)"
    )
    growth = app.rss_peak - app.rss_before
    print(
        f"  peak RSS {app.rss_peak / MB:.0f} MB, {growth / MB:.0f} MB above the "
        f"{app.rss_before / MB:.0f} MB before the prompt; the store holds "
        f"{app.store_bytes / MB:.1f} MB "
        f"(cap {DEFAULT_MAX_TERMINAL_BYTES / MB:.1f} MB), "
        f"the card's scrollback {app.scrollback_lines} lines "
        f"(cap {DEFAULT_HISTORY})"
    )
    print("\ngoals:")
    ratio = effective / raw["history"]
    print(
        f"  effective {effective:.1f} MB/s, {ratio:.0f}x raw HistoryScreen, "
        f"{effective / raw['screen']:.0f}x raw Screen "
        f"(goal >= 20 MB/s and >= 40x: {verdict(effective >= 20 and ratio >= 40)})"
    )
    worst = max(runs, key=lambda r: r.max_gap)
    print(
        f"  largest frame gap {worst.max_gap * 1000:.0f} ms, the worst of all runs; "
        f"the app's CPU time in it {worst.gap_cpu * 1000:.0f} ms "
        f"(goal <= 100 ms: {verdict(worst.max_gap <= 0.1)})"
    )
    # Bounded: the scrollback within its cap, and the memory growth within what
    # the store's byte cap allows (its log, one joined copy, a slice) plus slack.
    bounded = all(
        r.scrollback_lines <= DEFAULT_HISTORY
        and r.store_bytes <= DEFAULT_MAX_TERMINAL_BYTES
        and r.rss_peak - r.rss_before
        <= 3 * min(r.store_bytes, DEFAULT_MAX_TERMINAL_BYTES) + 64 * MB
        for r in runs
    )
    print(
        f"  memory bounded by the caps (scrollback <= {DEFAULT_HISTORY} lines, "
        f"RSS growth <= 3x retained output + 64 MB, every run): {verdict(bounded)}"
    )


if __name__ == "__main__":
    main()
